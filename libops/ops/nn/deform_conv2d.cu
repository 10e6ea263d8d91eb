// deform_conv2d's column kernel on CUDA devices: a thread per column
// element, the loop body the CPU runs (deform_conv2d.h); the GEMM is
// blas/'s on the device.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/nn/deform_conv2d.h"

namespace libops::ops {
namespace {

template <typename C>
__global__ void deform_columns_kernel(DeformDesc d, const C* __restrict__ x, const C* __restrict__ offset,
                                      const C* __restrict__ mask, C* __restrict__ col, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step)
    deform_column(d, x, offset, mask, e, col);
}

template <typename C>
void launch(cudaStream_t stream, const DeformDesc& d, const NDArray& x, const NDArray& offset, const NDArray* mask,
            int64_t image, NDArray& cols, int64_t n) {
  const int64_t positions = d.oh * d.ow, taps = d.kh * d.kw;
  const C* xi = static_cast<const C*>(x.device_data()) + image * d.c * d.h * d.w;
  const C* oi = static_cast<const C*>(offset.device_data()) + image * d.offset_groups * 2 * taps * positions;
  const C* mi =
      mask != nullptr ? static_cast<const C*>(mask->device_data()) + image * d.offset_groups * taps * positions : nullptr;
  deform_columns_kernel<C><<<cuda::blocks_for(n), cuda::kThreads, 0, stream>>>(d, xi, oi, mi,
                                                                                static_cast<C*>(cols.device_data()), n);
}

Status deform_columns_cuda(Device device, const DeformDesc& d, const NDArray& x, const NDArray& offset,
                           const NDArray* mask, int64_t image, NDArray& cols) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &offset, mask}, cols));
  const int64_t n = cols.length();
  if (cols.dtype() == DataType::kFloat64) launch<double>(ctx->stream(), d, x, offset, mask, image, cols, n);
  else launch<float>(ctx->stream(), d, x, offset, mask, image, cols, n);
  LIBOPS_CUDA_CHECK_LAUNCH("deform_conv2d column kernel");
  cols.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered =
    (deform_columns_device_kernel.set(DeviceType::kCuda, deform_columns_cuda), true);

}  // namespace
}  // namespace libops::ops
