// grid_sample's CUDA kernel: a thread per output element, the loop body the
// CPU runs (grid_sample.h).
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/image/grid_sample.h"

namespace libops::ops {
namespace {

template <typename C>
__global__ void grid_sample_kernel(GridSampleDesc d, const C* __restrict__ x, const C* __restrict__ grid,
                                   C* __restrict__ z, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step)
    grid_sample_at(d, x, grid, e, z);
}

Status grid_sample_cuda(Device device, const GridSampleDesc& d, const NDArray& x, const NDArray& grid, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &grid}, z));
  const int64_t n = z.length();
  if (z.dtype() == DataType::kFloat64)
    grid_sample_kernel<double><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const double*>(x.device_data()), static_cast<const double*>(grid.device_data()),
        static_cast<double*>(z.device_data()), n);
  else
    grid_sample_kernel<float><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const float*>(x.device_data()), static_cast<const float*>(grid.device_data()),
        static_cast<float*>(z.device_data()), n);
  LIBOPS_CUDA_CHECK_LAUNCH("grid_sample kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (grid_sample_device_kernel.set(DeviceType::kCuda, grid_sample_cuda), true);

}  // namespace
}  // namespace libops::ops
