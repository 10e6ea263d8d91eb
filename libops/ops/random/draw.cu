// The element-wise draws' CUDA kernels (draw.h): a thread per element in a
// grid-stride loop, each computing draw_value (or the 32 random bits) of its
// own index, as the CPU loop does.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/random/draw.h"

namespace libops::ops {
namespace {

__global__ void bits_kernel(rng::ThreefryKey key, int64_t n, uint32_t* __restrict__ out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = rng::element_bits32(key, i);
}

template <rng::Precision P>
__global__ void draw_kernel(DrawDesc d, rng::compute_t<P>* __restrict__ out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += step)
    out[i] = draw_value<P>(d, i);
}

Status draw_cuda(Device device, const DrawDesc& d, NDArray& out) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {}, out));
  const unsigned blocks = cuda::blocks_for(d.n);
  cudaStream_t s = ctx->stream();
  if (d.kind == DrawKind::kBits32) {
    bits_kernel<<<blocks, cuda::kThreads, 0, s>>>(d.key, d.n, static_cast<uint32_t*>(out.device_data()));
  } else {
    float* f = static_cast<float*>(out.device_data());
    using rng::Precision;
    switch (d.kind == DrawKind::kBernoulli ? Precision::kFloat32 : d.precision) {
      case Precision::kFloat16: draw_kernel<Precision::kFloat16><<<blocks, cuda::kThreads, 0, s>>>(d, f); break;
      case Precision::kBFloat16: draw_kernel<Precision::kBFloat16><<<blocks, cuda::kThreads, 0, s>>>(d, f); break;
      case Precision::kFloat32: draw_kernel<Precision::kFloat32><<<blocks, cuda::kThreads, 0, s>>>(d, f); break;
      case Precision::kFloat64:
        draw_kernel<Precision::kFloat64><<<blocks, cuda::kThreads, 0, s>>>(d, static_cast<double*>(out.device_data()));
        break;
    }
  }
  LIBOPS_CUDA_CHECK_LAUNCH("random draw kernel");
  out.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (draw_device_kernel.set(DeviceType::kCuda, draw_cuda), true);

}  // namespace
}  // namespace libops::ops
