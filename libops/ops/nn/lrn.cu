// lrn's CUDA kernel (lrn.h), registered when the library loads: a thread
// per output element (grid-stride), summing the squares of its channel
// window; neighbouring threads take neighbouring positions, so each read of
// a window channel is coalesced.
#include <cuda_runtime.h>

#include <cstdint>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/nn/lrn.h"

namespace libops::ops::nn {
namespace {

template <typename C>
__global__ void lrn_kernel(LrnDesc d, const C* __restrict__ x, C* __restrict__ z, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const int64_t s = t % d.spatial, nc = t / d.spatial;
    const int64_t c = nc % d.channels, n = nc / d.channels;
    const int64_t lo = c - d.before < 0 ? 0 : c - d.before;
    const int64_t hi = c + d.after > d.channels - 1 ? d.channels - 1 : c + d.after;
    C sq = 0;
    for (int64_t k = lo; k <= hi; ++k) {
      const C v = x[(n * d.channels + k) * d.spatial + s];
      sq += v * v;
    }
    z[t] = x[t] * pow(static_cast<C>(d.bias) + static_cast<C>(d.alpha_over_size) * sq, static_cast<C>(-d.beta));
  }
}

Status lrn_cuda(Device device, const LrnDesc& d, const NDArray& x, NDArray& z) {
  const int64_t total = d.batch * d.channels * d.spatial;
  if (total == 0) return Status::ok();
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, z));
  if (x.dtype() == DataType::kFloat64)
    lrn_kernel<double><<<cuda::blocks_for(total), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const double*>(x.device_data()), static_cast<double*>(z.device_data()), total);
  else
    lrn_kernel<float><<<cuda::blocks_for(total), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const float*>(x.device_data()), static_cast<float*>(z.device_data()), total);
  LIBOPS_CUDA_CHECK_LAUNCH("lrn kernel launch");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool lrn_cuda_registered = (lrn_device_kernel.set(DeviceType::kCuda, lrn_cuda), true);

}  // namespace
}  // namespace libops::ops::nn
