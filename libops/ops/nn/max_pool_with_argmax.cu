// max_pool_with_argmax's CUDA kernel: a thread per output element, the loop
// body the CPU runs (max_pool_with_argmax.h).
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/nn/max_pool_with_argmax.h"

namespace libops::ops {
namespace {

template <typename C>
__global__ void argmax_pool_kernel(ArgmaxPoolDesc d, const C* __restrict__ x, C* __restrict__ z,
                                   int64_t* __restrict__ idx, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step)
    argmax_pool_one(d, x, e, z, idx);
}

Status argmax_pool_cuda(Device device, const ArgmaxPoolDesc& d, const NDArray& x, NDArray& z, NDArray& indices) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, z));
  RETURN_IF_ERROR(sync_for_kernel(device, {}, indices));
  const int64_t n = z.length();
  auto* idx = static_cast<int64_t*>(indices.device_data());
  if (x.dtype() == DataType::kFloat64)
    argmax_pool_kernel<double><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const double*>(x.device_data()), static_cast<double*>(z.device_data()), idx, n);
  else
    argmax_pool_kernel<float><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const float*>(x.device_data()), static_cast<float*>(z.device_data()), idx, n);
  LIBOPS_CUDA_CHECK_LAUNCH("max_pool_with_argmax kernel");
  z.buffer()->mark_device_written();
  indices.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (argmax_pool_device_kernel.set(DeviceType::kCuda, argmax_pool_cuda), true);

}  // namespace
}  // namespace libops::ops
