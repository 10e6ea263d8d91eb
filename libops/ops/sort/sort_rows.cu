// The CUDA kernel of sort, argsort and top_k (sort.h): keys made on the
// device (Note [Sort order]), CUB's segmented radix sort of (key, index)
// pairs with one segment per row (stable), then the first k of each row
// decoded (sort) or gathered by index (argsort, top_k). Scratch comes from
// the launch context's workspace.
#include <cuda_runtime.h>

#include <cub/device/device_segmented_radix_sort.cuh>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/sort/sort.h"
#include "libops/ops/sort/sort_keys.h"

namespace libops::ops {
namespace {

template <typename T>
__global__ void make_keys_kernel(const T* __restrict__ x, sort_keys::Key<T>* __restrict__ keys,
                                 int64_t* __restrict__ idx, int64_t total, int64_t n, bool descending,
                                 bool zeros_equal, bool nan_first) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    keys[i] = sort_keys::encode(x[i], descending, zeros_equal, nan_first);
    idx[i] = i % n;
  }
}

__global__ void row_offsets_kernel(int64_t* offsets, int64_t rows, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r <= rows; r += step)
    offsets[r] = r * n;
}

template <typename T>
__global__ void results_kernel(const T* __restrict__ x, const sort_keys::Key<T>* __restrict__ keys,
                               const int64_t* __restrict__ idx, T* __restrict__ values, int64_t* __restrict__ indices,
                               int64_t rows, int64_t n, int64_t k, bool descending) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < rows * k; t += step) {
    const int64_t r = t / k, j = t - r * k;
    const int64_t from = idx[r * n + j];
    if (indices) indices[t] = from;
    if (values) values[t] = indices ? x[r * n + from] : sort_keys::decode<T>(keys[r * n + j], descending);
  }
}

size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

template <typename T>
Status sort_cuda_typed(cuda::LaunchContext* ctx, const SortDesc& d, const NDArray& x, NDArray* values,
                       NDArray* indices) {
  using U = sort_keys::Key<T>;
  const int64_t total = d.rows * d.n;
  if (d.rows > 0x7fffffff)
    return Status::error(StatusCode::kNotImplemented, "sort: %lld rows exceed one CUDA sort's segment count",
                         static_cast<long long>(d.rows));
  // Scratch: keys and indices twice (in, out), the row offsets, CUB's own.
  size_t cub_bytes = 0;
  cub::DeviceSegmentedRadixSort::SortPairs(nullptr, cub_bytes, static_cast<const U*>(nullptr), static_cast<U*>(nullptr),
                                           static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), total,
                                           static_cast<int>(d.rows), static_cast<const int64_t*>(nullptr),
                                           static_cast<const int64_t*>(nullptr) + 1, 0, 8 * sizeof(U), ctx->stream());
  const size_t keys_bytes = aligned(static_cast<size_t>(total) * sizeof(U));
  const size_t idx_bytes = aligned(static_cast<size_t>(total) * sizeof(int64_t));
  const size_t off_bytes = aligned(static_cast<size_t>(d.rows + 1) * sizeof(int64_t));
  void* scratch = nullptr;
  RETURN_IF_ERROR(ctx->workspace(2 * keys_bytes + 2 * idx_bytes + off_bytes + cub_bytes, &scratch));
  char* p = static_cast<char*>(scratch);
  U* keys_in = reinterpret_cast<U*>(p);
  U* keys_out = reinterpret_cast<U*>(p + keys_bytes);
  int64_t* idx_in = reinterpret_cast<int64_t*>(p + 2 * keys_bytes);
  int64_t* idx_out = reinterpret_cast<int64_t*>(p + 2 * keys_bytes + idx_bytes);
  int64_t* offsets = reinterpret_cast<int64_t*>(p + 2 * keys_bytes + 2 * idx_bytes);
  void* cub_temp = p + 2 * keys_bytes + 2 * idx_bytes + off_bytes;
  const T* xs = static_cast<const T*>(x.device_data());
  make_keys_kernel<T><<<cuda::blocks_for(total), cuda::kThreads, 0, ctx->stream()>>>(
      xs, keys_in, idx_in, total, d.n, d.descending, d.zeros_equal, d.nan_first);
  row_offsets_kernel<<<cuda::blocks_for(d.rows + 1), cuda::kThreads, 0, ctx->stream()>>>(offsets, d.rows, d.n);
  LIBOPS_CUDA_CHECK_LAUNCH("sort key kernels");
  LIBOPS_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(cub_temp, cub_bytes, keys_in, keys_out, idx_in, idx_out,
                                                             total, static_cast<int>(d.rows), offsets, offsets + 1, 0,
                                                             8 * sizeof(U), ctx->stream()));
  results_kernel<T><<<cuda::blocks_for(d.rows * d.k), cuda::kThreads, 0, ctx->stream()>>>(
      xs, keys_out, idx_out, values ? static_cast<T*>(values->device_data()) : nullptr,
      indices ? static_cast<int64_t*>(indices->device_data()) : nullptr, d.rows, d.n, d.k, d.descending);
  LIBOPS_CUDA_CHECK_LAUNCH("sort results kernel");
  return Status::ok();
}

Status sort_cuda(Device device, const SortDesc& d, const NDArray& x, NDArray* values, NDArray* indices) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  // The outputs are new arrays the kernel writes whole: only x needs
  // syncing. Each output asked for needs its device copy (top_k asks for
  // both; with one prepared, the other was marked written with no copy).
  if (values) RETURN_IF_ERROR(sync_for_kernel(device, {&x}, *values));
  if (indices) RETURN_IF_ERROR(sync_for_kernel(device, {&x}, *indices));
  RETURN_IF_ERROR(with_sort_key_type(x.dtype(), [&](auto tag) {
    return sort_cuda_typed<decltype(tag)>(ctx, d, x, values, indices);
  }));
  if (values) values->buffer()->mark_device_written();
  if (indices) indices->buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool sort_cuda_registered = (sort_device_kernel.set(DeviceType::kCuda, sort_cuda), true);

}  // namespace
}  // namespace libops::ops
