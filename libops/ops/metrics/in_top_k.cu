// in_top_k's CUDA kernel (in_top_k.h): a block per row, its threads
// counting the classes above the target's score over strided columns, then
// one sum in shared memory.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/metrics/in_top_k.h"

namespace libops::ops {
namespace {

constexpr int kRowThreads = 256;

template <typename T>
__global__ void in_top_k_kernel(InTopKDesc d, const T* __restrict__ p, const int64_t* __restrict__ targets,
                                bool* __restrict__ z) {
  __shared__ unsigned long long above;
  for (int64_t r = blockIdx.x; r < d.rows; r += gridDim.x) {
    if (threadIdx.x == 0) above = 0;
    __syncthreads();
    const T* row = p + r * d.classes;
    const T score = row[targets[r]];
    unsigned long long mine = 0;
    for (int64_t c = threadIdx.x; c < d.classes; c += blockDim.x) mine += row[c] > score;
    if (mine != 0) atomicAdd(&above, mine);
    __syncthreads();
    if (threadIdx.x == 0) z[r] = isfinite(score) && static_cast<int64_t>(above) < d.k;
    __syncthreads();  // `above` is reset for the next row only after it was read
  }
}

Status in_top_k_cuda(Device device, const InTopKDesc& d, const NDArray& p, const NDArray& targets, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&p, &targets}, z));
  const unsigned blocks = static_cast<unsigned>(d.rows < 65535 ? d.rows : 65535);
  const auto* t = static_cast<const int64_t*>(targets.device_data());
  bool* out = static_cast<bool*>(z.device_data());
  if (p.dtype() == DataType::kFloat64)
    in_top_k_kernel<double><<<blocks, kRowThreads, 0, ctx->stream()>>>(d, static_cast<const double*>(p.device_data()),
                                                                       t, out);
  else
    in_top_k_kernel<float><<<blocks, kRowThreads, 0, ctx->stream()>>>(d, static_cast<const float*>(p.device_data()),
                                                                      t, out);
  LIBOPS_CUDA_CHECK_LAUNCH("in_top_k kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (in_top_k_device_kernel.set(DeviceType::kCuda, in_top_k_cuda), true);

}  // namespace
}  // namespace libops::ops
