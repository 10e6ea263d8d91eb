// crop_and_resize's CUDA kernel: a thread per output element, the loop body
// the CPU runs (crop_and_resize.h).
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/image/crop_and_resize.h"

namespace libops::ops {
namespace {

template <typename C>
__global__ void crop_resize_kernel(CropResizeDesc d, const C* __restrict__ image, const C* __restrict__ boxes,
                                   const int64_t* __restrict__ box_index, C* __restrict__ z, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step)
    crop_resize_one(d, image, boxes, box_index, e, z);
}

Status crop_resize_cuda(Device device, const CropResizeDesc& d, const NDArray& image, const NDArray& boxes,
                        const NDArray& box_index, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&image, &boxes, &box_index}, z));
  const int64_t n = z.length();
  const auto* bi = static_cast<const int64_t*>(box_index.device_data());
  if (z.dtype() == DataType::kFloat64)
    crop_resize_kernel<double><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const double*>(image.device_data()), static_cast<const double*>(boxes.device_data()), bi,
        static_cast<double*>(z.device_data()), n);
  else
    crop_resize_kernel<float><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const float*>(image.device_data()), static_cast<const float*>(boxes.device_data()), bi,
        static_cast<float*>(z.device_data()), n);
  LIBOPS_CUDA_CHECK_LAUNCH("crop_and_resize kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (crop_resize_device_kernel.set(DeviceType::kCuda, crop_resize_cuda), true);

}  // namespace
}  // namespace libops::ops
