// The adaptive pooling ops' CUDA kernel: a thread per output element, the
// loop body the CPU runs (adaptive_pool.h).
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/nn/adaptive_pool.h"

namespace libops::ops {
namespace {

template <typename C>
__global__ void adaptive_pool_kernel(AdaptivePoolDesc d, const C* __restrict__ x, C* __restrict__ z, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step)
    adaptive_pool_one(d, x, e, z);
}

Status adaptive_pool_cuda(Device device, const AdaptivePoolDesc& d, const NDArray& x, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, z));
  const int64_t n = z.length();
  if (x.dtype() == DataType::kFloat64)
    adaptive_pool_kernel<double><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const double*>(x.device_data()), static_cast<double*>(z.device_data()), n);
  else
    adaptive_pool_kernel<float><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const float*>(x.device_data()), static_cast<float*>(z.device_data()), n);
  LIBOPS_CUDA_CHECK_LAUNCH("adaptive pooling kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (adaptive_pool_device_kernel.set(DeviceType::kCuda, adaptive_pool_cuda), true);

}  // namespace
}  // namespace libops::ops
