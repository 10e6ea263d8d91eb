// gather's CUDA kernel (Note [gather on devices] in gather.h), registered
// when the library loads.
//
// Rows are copied in the widest unit (16, 8, 4, 2 or 1 bytes) that divides
// the row and both base addresses, so a float32 row of 4k elements moves as
// 16-byte loads and stores; one thread per unit, grid-stride. The index
// check rides along: a thread whose index is out of range skips its unit
// and lowers the error slot to its position in indices with atomicMin, so
// the slot ends as the first bad position whatever the order of threads.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/ops/shape/gather.h"

namespace libops::ops {
namespace {

constexpr int kThreads = 256;
constexpr unsigned long long kNoBadIndex = ~0ull;

template <typename Unit, typename Index>
__global__ void gather_rows_kernel(Unit* __restrict__ z, const Unit* __restrict__ x,
                                   const Index* __restrict__ indices, int64_t n, int64_t count,
                                   int64_t units_per_row, int64_t total, unsigned long long* bad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t u = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; u < total; u += step) {
    const int64_t row = u / units_per_row, k = u - row * units_per_row;
    const int64_t o = row / count, j = row - o * count;
    int64_t v = static_cast<int64_t>(indices[j]);
    if (v < -n || v >= n) {
      atomicMin(bad, static_cast<unsigned long long>(j));
      continue;
    }
    if (v < 0) v += n;
    z[u] = x[(o * n + v) * units_per_row + k];
  }
}

template <typename Unit, typename Index>
void launch(const GatherDesc& d, size_t row_bytes, const void* x, const void* indices, void* z,
            unsigned long long* bad, cudaStream_t stream) {
  const int64_t units_per_row = static_cast<int64_t>(row_bytes / sizeof(Unit));
  const int64_t total = d.outer * d.count * units_per_row;
  const int64_t blocks = std::clamp<int64_t>((total + kThreads - 1) / kThreads, 1, 65536);
  gather_rows_kernel<Unit, Index><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<Unit*>(z), static_cast<const Unit*>(x), static_cast<const Index*>(indices), d.n, d.count,
      units_per_row, total, bad);
}

template <typename Index>
void launch_widest(const GatherDesc& d, size_t row_bytes, const void* x, const void* indices, void* z,
                   unsigned long long* bad, cudaStream_t stream) {
  const uintptr_t aligned = reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(z) | row_bytes;
  if (aligned % 16 == 0) return launch<uint4, Index>(d, row_bytes, x, indices, z, bad, stream);
  if (aligned % 8 == 0) return launch<uint64_t, Index>(d, row_bytes, x, indices, z, bad, stream);
  if (aligned % 4 == 0) return launch<uint32_t, Index>(d, row_bytes, x, indices, z, bad, stream);
  if (aligned % 2 == 0) return launch<uint16_t, Index>(d, row_bytes, x, indices, z, bad, stream);
  launch<uint8_t, Index>(d, row_bytes, x, indices, z, bad, stream);
}

Status gather_cuda(Device device, const GatherDesc& d, const NDArray& x, const NDArray& indices, NDArray& z,
                   int64_t* bad_position) {
  *bad_position = -1;
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &indices}, z));
  void* slot = nullptr;
  RETURN_IF_ERROR(ctx->workspace(sizeof(unsigned long long), &slot));
  auto* bad = static_cast<unsigned long long*>(slot);
  LIBOPS_CUDA_CHECK(cudaMemsetAsync(bad, 0xff, sizeof(unsigned long long), ctx->stream()));
  const size_t row_bytes = static_cast<size_t>(d.inner) * x.element_size();
  if (indices.dtype() == DataType::kInt32)
    launch_widest<int32_t>(d, row_bytes, x.device_data(), indices.device_data(), z.device_data(), bad, ctx->stream());
  else
    launch_widest<int64_t>(d, row_bytes, x.device_data(), indices.device_data(), z.device_data(), bad, ctx->stream());
  LIBOPS_CUDA_CHECK_LAUNCH("gather kernel launch");
  z.buffer()->mark_device_written();
  // The one wait of Note [gather on devices]: whether an index was bad.
  unsigned long long first_bad = kNoBadIndex;
  LIBOPS_CUDA_CHECK(
      cudaMemcpyAsync(&first_bad, bad, sizeof(first_bad), cudaMemcpyDeviceToHost, ctx->stream()));
  LIBOPS_CUDA_CHECK(cudaStreamSynchronize(ctx->stream()));
  if (first_bad != kNoBadIndex) *bad_position = static_cast<int64_t>(first_bad);
  return Status::ok();
}

[[maybe_unused]] const bool gather_cuda_registered =
    (register_gather_device(DeviceType::kCuda, gather_cuda), true);

}  // namespace
}  // namespace libops::ops
