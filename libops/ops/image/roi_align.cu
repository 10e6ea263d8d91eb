// roi_align's CUDA kernel: a thread per output element, the loop body the
// CPU runs (roi_align.h).
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/image/roi_align.h"

namespace libops::ops {
namespace {

template <typename C>
__global__ void roi_align_kernel(RoiAlignDesc d, const C* __restrict__ x, const C* __restrict__ rois,
                                 const int64_t* __restrict__ batch, C* __restrict__ z, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step)
    roi_align_one(d, x, rois, batch, e, z);
}

Status roi_align_cuda(Device device, const RoiAlignDesc& d, const NDArray& x, const NDArray& rois,
                      const NDArray& batch, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &rois, &batch}, z));
  const auto* bi = static_cast<const int64_t*>(batch.device_data());
  const int64_t n = z.length();
  if (z.dtype() == DataType::kFloat64)
    roi_align_kernel<double><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const double*>(x.device_data()), static_cast<const double*>(rois.device_data()), bi,
        static_cast<double*>(z.device_data()), n);
  else
    roi_align_kernel<float><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const float*>(x.device_data()), static_cast<const float*>(rois.device_data()), bi,
        static_cast<float*>(z.device_data()), n);
  LIBOPS_CUDA_CHECK_LAUNCH("roi_align kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (roi_align_device_kernel.set(DeviceType::kCuda, roi_align_cuda), true);

}  // namespace
}  // namespace libops::ops
