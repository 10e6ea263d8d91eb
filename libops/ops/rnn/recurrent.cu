// The recurrent cell on CUDA devices (Note [Recurrent layers] in
// recurrent.h): one thread per (batch row, unit), the same cell_unit as the
// CPU's loops, registered when the library loads. The GEMMs between the
// cells run on cuBLAS through blas::gemm_batched_on, on the same stream.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/rnn/cell_math.h"

namespace libops::ops::rnn {
namespace {

template <typename C>
__global__ void cell_kernel(RnnDesc d, CellStep st) {
  const int64_t n = d.N * d.H;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step)
    cell_unit<C>(d, st, k / d.H, k % d.H);
}

Status cell_cuda(Device device, DataType ct, const RnnDesc& d, const CellStep& st) {
  if (d.N * d.H == 0) return Status::ok();
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  const unsigned blocks = cuda::blocks_for(d.N * d.H);
  if (ct == DataType::kFloat64) cell_kernel<double><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(d, st);
  else cell_kernel<float><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(d, st);
  LIBOPS_CUDA_CHECK_LAUNCH("recurrent cell kernel launch");
  return Status::ok();
}

[[maybe_unused]] const bool cell_cuda_registered = (cell_device_kernel.set(DeviceType::kCuda, cell_cuda), true);

}  // namespace
}  // namespace libops::ops::rnn
