// The CUDA kernel of argwhere, nonzero and where(cond) (nonzero.h, Note
// [Nonzero coordinates]): CUB's DeviceSelect keeps the flat positions whose
// flag is set, in order, then one thread per nonzero element writes its
// index. The count was read back by the op's shape function; nothing is
// read back here.
#include <cuda_runtime.h>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/select/nonzero.h"

namespace libops::ops {
namespace {

__global__ void coordinates_kernel(NonzeroDesc d, const int64_t* __restrict__ positions, int64_t* __restrict__ z) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < d.count; k += step) {
    int64_t rest = positions[k];
    for (int a = d.rank - 1; a >= 0; --a) {
      z[d.rank_major ? a * d.count + k : k * d.rank + a] = rest % d.dims[a];
      rest /= d.dims[a];
    }
  }
}

size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

Status nonzero_cuda(Device device, const NonzeroDesc& d, const NDArray& flags, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&flags}, z));
  cudaStream_t stream = ctx->stream();
  const thrust::counting_iterator<int64_t> positions_in(0);
  const bool* f = static_cast<const bool*>(flags.device_data());
  size_t select_bytes = 0;
  LIBOPS_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select_bytes, positions_in, f, static_cast<int64_t*>(nullptr),
                                               static_cast<int64_t*>(nullptr), d.n, stream));
  // The selected positions (count of them: the shape function counted the
  // same flags), CUB's count of them, CUB's scratch.
  const size_t positions_bytes = aligned(static_cast<size_t>(d.count) * sizeof(int64_t));
  void* scratch = nullptr;
  RETURN_IF_ERROR(ctx->workspace(positions_bytes + aligned(sizeof(int64_t)) + select_bytes, &scratch));
  char* p = static_cast<char*>(scratch);
  int64_t* positions = reinterpret_cast<int64_t*>(p);
  int64_t* selected = reinterpret_cast<int64_t*>(p + positions_bytes);
  void* temp = p + positions_bytes + aligned(sizeof(int64_t));
  LIBOPS_CUDA_CHECK(cub::DeviceSelect::Flagged(temp, select_bytes, positions_in, f, positions, selected, d.n, stream));
  coordinates_kernel<<<cuda::blocks_for(d.count), cuda::kThreads, 0, stream>>>(
      d, positions, static_cast<int64_t*>(z.device_data()));
  LIBOPS_CUDA_CHECK_LAUNCH("nonzero coordinates kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool nonzero_cuda_registered = (nonzero_device_kernel.set(DeviceType::kCuda, nonzero_cuda), true);

}  // namespace
}  // namespace libops::ops
