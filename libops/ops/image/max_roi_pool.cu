// max_roi_pool's CUDA kernel: a thread per output element, the loop body the
// CPU runs (max_roi_pool.h).
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/image/max_roi_pool.h"

namespace libops::ops {
namespace {

template <typename C>
__global__ void max_roi_pool_kernel(MaxRoiPoolDesc d, const C* __restrict__ x, const C* __restrict__ rois,
                                   C* __restrict__ z, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step)
    max_roi_pool_one(d, x, rois, e, z);
}

Status max_roi_pool_cuda(Device device, const MaxRoiPoolDesc& d, const NDArray& x, const NDArray& rois, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &rois}, z));
  const int64_t n = z.length();
  if (z.dtype() == DataType::kFloat64)
    max_roi_pool_kernel<double><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const double*>(x.device_data()), static_cast<const double*>(rois.device_data()),
        static_cast<double*>(z.device_data()), n);
  else
    max_roi_pool_kernel<float><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const float*>(x.device_data()), static_cast<const float*>(rois.device_data()),
        static_cast<float*>(z.device_data()), n);
  LIBOPS_CUDA_CHECK_LAUNCH("max_roi_pool kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (max_roi_pool_device_kernel.set(DeviceType::kCuda, max_roi_pool_cuda), true);

}  // namespace
}  // namespace libops::ops
