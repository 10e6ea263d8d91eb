// The CUDA kernels of unique (unique.h, Note [Unique values]), all on the
// device with CUB; nothing is read back here (the op reads the count).
//   count: keys of Note [Sort order] (-0.0 as +0.0), CUB's radix sort of the
//     keys alone, a head flag where the key changes (every NaN a head when
//     NaNs are not equal), CUB's sum of the flags into the count.
//   unique: the same keys sorted with their positions (stable), the heads,
//     CUB's inclusive scan of them (each sorted element's group), then one
//     thread per element writes inverse and marks group starts, and one per
//     group writes its first position, count and value. Unsorted, the groups
//     are renumbered by a second radix sort, of their first positions.
// Scratch comes from the launch context's workspace.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <type_traits>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/sort/sort.h"
#include "libops/ops/sort/sort_keys.h"
#include "libops/ops/sort/unique.h"

namespace libops::ops {
namespace {

template <typename T>
__global__ void make_keys_kernel(const T* __restrict__ x, sort_keys::Key<T>* __restrict__ keys,
                                 int64_t* __restrict__ idx, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    keys[i] = sort_keys::encode(x[i], false, true);
    if (idx) idx[i] = i;
  }
}

// head[i] = 1 where a group of equal values starts in the sorted keys. A
// float NaN's key is all ones (sort_keys.h), which no number has.
template <typename T>
__global__ void heads_kernel(const sort_keys::Key<T>* __restrict__ keys, int64_t* __restrict__ head, int64_t n,
                             bool equal_nan) {
  using U = sort_keys::Key<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    bool h = i == 0 || keys[i] != keys[i - 1];
    if constexpr (std::is_floating_point_v<T>) h = h || (!equal_nan && keys[i] == ~U(0));
    head[i] = h ? 1 : 0;
  }
}

// Sorted element i belongs to group group[i] - 1: inverse at its position
// in x, and the group's start where it heads one.
__global__ void groups_kernel(const int64_t* __restrict__ perm, const int64_t* __restrict__ head,
                              const int64_t* __restrict__ group, int64_t* __restrict__ inverse,
                              int64_t* __restrict__ starts, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t g = group[i] - 1;
    inverse[perm[i]] = g;
    if (head[i]) starts[g] = i;
  }
}

// Per group: its first occurrence (the stable sort put it first), its
// size and its value.
template <typename T>
__global__ void results_kernel(const T* __restrict__ x, const int64_t* __restrict__ perm,
                               const int64_t* __restrict__ starts, T* __restrict__ values,
                               int64_t* __restrict__ first, int64_t* __restrict__ counts, int64_t u, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < u; j += step) {
    const int64_t s = starts[j], e = j + 1 < u ? starts[j + 1] : n;
    first[j] = perm[s];
    counts[j] = e - s;
    values[j] = x[perm[s]];
  }
}

__global__ void iota_kernel(int64_t* __restrict__ v, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) v[i] = i;
}

// Group order[k] (in sorted order) becomes group k (in order of first
// occurrence).
template <typename T>
__global__ void reorder_kernel(const int64_t* __restrict__ order, const T* __restrict__ values_in,
                               const int64_t* __restrict__ first_in, const int64_t* __restrict__ counts_in,
                               T* __restrict__ values, int64_t* __restrict__ first, int64_t* __restrict__ counts,
                               int64_t* __restrict__ renumber, int64_t u) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < u; k += step) {
    const int64_t j = order[k];
    values[k] = values_in[j];
    first[k] = first_in[j];
    counts[k] = counts_in[j];
    renumber[j] = k;
  }
}

__global__ void renumber_kernel(const int64_t* __restrict__ renumber, int64_t* __restrict__ inverse, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    inverse[i] = renumber[inverse[i]];
}

size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

// Carves one workspace block into aligned pieces.
class Carve {
 public:
  explicit Carve(void* base) : p_(static_cast<char*>(base)) {}
  template <typename T>
  T* take(int64_t count) {
    T* out = reinterpret_cast<T*>(p_);
    p_ += aligned(static_cast<size_t>(count) * sizeof(T));
    return out;
  }
  void* take_bytes(size_t bytes) {
    void* out = p_;
    p_ += aligned(bytes);
    return out;
  }

 private:
  char* p_;
};

// The bits that hold 0..n-1: the passes the sort of first positions needs.
int bits_for(int64_t n) {
  int b = 1;
  while (b < 64 && (int64_t{1} << b) < n) ++b;
  return b;
}

template <typename T>
Status count_typed(cuda::LaunchContext* ctx, const UniqueDesc& d, const NDArray& x, NDArray& count) {
  using U = sort_keys::Key<T>;
  const int64_t n = d.n;
  cudaStream_t stream = ctx->stream();
  size_t sort_bytes = 0, sum_bytes = 0;
  LIBOPS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, static_cast<const U*>(nullptr),
                                                   static_cast<U*>(nullptr), n, 0, 8 * static_cast<int>(sizeof(U)),
                                                   stream));
  LIBOPS_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, sum_bytes, static_cast<const int64_t*>(nullptr),
                                           static_cast<int64_t*>(nullptr), n, stream));
  const size_t keys_bytes = aligned(static_cast<size_t>(n) * sizeof(U));
  const size_t head_bytes = aligned(static_cast<size_t>(n) * sizeof(int64_t));
  void* scratch = nullptr;
  RETURN_IF_ERROR(ctx->workspace(2 * keys_bytes + head_bytes + aligned(std::max(sort_bytes, sum_bytes)), &scratch));
  Carve c(scratch);
  U* keys_in = c.take<U>(n);
  U* keys_out = c.take<U>(n);
  int64_t* head = c.take<int64_t>(n);
  void* temp = c.take_bytes(std::max(sort_bytes, sum_bytes));
  const unsigned blocks = cuda::blocks_for(n);
  make_keys_kernel<T><<<blocks, cuda::kThreads, 0, stream>>>(static_cast<const T*>(x.device_data()), keys_in,
                                                             nullptr, n);
  LIBOPS_CUDA_CHECK_LAUNCH("unique key kernel");
  LIBOPS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, sort_bytes, keys_in, keys_out, n, 0,
                                                   8 * static_cast<int>(sizeof(U)), stream));
  heads_kernel<T><<<blocks, cuda::kThreads, 0, stream>>>(keys_out, head, n, d.equal_nan);
  LIBOPS_CUDA_CHECK_LAUNCH("unique head kernel");
  LIBOPS_CUDA_CHECK(
      cub::DeviceReduce::Sum(temp, sum_bytes, head, static_cast<int64_t*>(count.device_data()), n, stream));
  return Status::ok();
}

template <typename T>
Status unique_typed(cuda::LaunchContext* ctx, const UniqueDesc& d, const NDArray& x, NDArray& values_out,
                    NDArray& first_out, NDArray& inverse_out, NDArray& counts_out) {
  using U = sort_keys::Key<T>;
  const int64_t n = d.n, u = values_out.length();
  cudaStream_t stream = ctx->stream();
  size_t sort_bytes = 0, scan_bytes = 0, order_bytes = 0;
  LIBOPS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, sort_bytes, static_cast<const U*>(nullptr), static_cast<U*>(nullptr),
      static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), n, 0, 8 * static_cast<int>(sizeof(U)),
      stream));
  LIBOPS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, static_cast<const int64_t*>(nullptr),
                                                  static_cast<int64_t*>(nullptr), n, stream));
  if (!d.sorted)
    LIBOPS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, order_bytes, static_cast<const uint64_t*>(nullptr), static_cast<uint64_t*>(nullptr),
        static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), u, 0, bits_for(n), stream));
  const size_t temp_bytes = std::max({sort_bytes, scan_bytes, order_bytes});
  const size_t per_n = 2 * aligned(static_cast<size_t>(n) * sizeof(U)) + 3 * aligned(static_cast<size_t>(n) * 8);
  // starts; unsorted also: values, first and counts in sorted order, the
  // iota, the sorted first positions, the order and the renumbering.
  const size_t per_u = aligned(static_cast<size_t>(u) * 8) *
                       (d.sorted ? 1 : 7) + (d.sorted ? 0 : aligned(static_cast<size_t>(u) * sizeof(T)));
  void* scratch = nullptr;
  RETURN_IF_ERROR(ctx->workspace(per_n + per_u + aligned(temp_bytes), &scratch));
  Carve c(scratch);
  U* keys_in = c.take<U>(n);
  U* keys_out = c.take<U>(n);
  int64_t* idx = c.take<int64_t>(n);  // positions before the sort, then the head flags
  int64_t* perm = c.take<int64_t>(n);
  int64_t* group = c.take<int64_t>(n);
  int64_t* starts = c.take<int64_t>(u);
  void* temp = c.take_bytes(temp_bytes);

  const T* xs = static_cast<const T*>(x.device_data());
  T* values = static_cast<T*>(values_out.device_data());
  int64_t* first = static_cast<int64_t*>(first_out.device_data());
  int64_t* inverse = static_cast<int64_t*>(inverse_out.device_data());
  int64_t* counts = static_cast<int64_t*>(counts_out.device_data());
  T* sorted_values = values;
  int64_t *sorted_first = first, *sorted_counts = counts;
  if (!d.sorted) {
    sorted_values = c.take<T>(u);
    sorted_first = c.take<int64_t>(u);
    sorted_counts = c.take<int64_t>(u);
  }

  const unsigned blocks = cuda::blocks_for(n);
  make_keys_kernel<T><<<blocks, cuda::kThreads, 0, stream>>>(xs, keys_in, idx, n);
  LIBOPS_CUDA_CHECK_LAUNCH("unique key kernel");
  LIBOPS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, keys_in, keys_out, idx, perm, n, 0,
                                                    8 * static_cast<int>(sizeof(U)), stream));
  int64_t* head = idx;
  heads_kernel<T><<<blocks, cuda::kThreads, 0, stream>>>(keys_out, head, n, d.equal_nan);
  LIBOPS_CUDA_CHECK_LAUNCH("unique head kernel");
  LIBOPS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, scan_bytes, head, group, n, stream));
  groups_kernel<<<blocks, cuda::kThreads, 0, stream>>>(perm, head, group, inverse, starts, n);
  results_kernel<T><<<cuda::blocks_for(u), cuda::kThreads, 0, stream>>>(xs, perm, starts, sorted_values, sorted_first,
                                                                        sorted_counts, u, n);
  LIBOPS_CUDA_CHECK_LAUNCH("unique group kernels");
  if (d.sorted) return Status::ok();

  // In order of first occurrence: sort the groups by their first positions.
  int64_t* order_in = c.take<int64_t>(u);
  uint64_t* first_keys = c.take<uint64_t>(u);
  int64_t* order = c.take<int64_t>(u);
  int64_t* renumber = c.take<int64_t>(u);
  iota_kernel<<<cuda::blocks_for(u), cuda::kThreads, 0, stream>>>(order_in, u);
  LIBOPS_CUDA_CHECK_LAUNCH("unique iota kernel");
  // First positions are >= 0: their int64 bits sort as uint64.
  LIBOPS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, order_bytes, reinterpret_cast<const uint64_t*>(sorted_first),
                                                    first_keys, order_in, order, u, 0, bits_for(n), stream));
  reorder_kernel<T><<<cuda::blocks_for(u), cuda::kThreads, 0, stream>>>(order, sorted_values, sorted_first,
                                                                        sorted_counts, values, first, counts,
                                                                        renumber, u);
  renumber_kernel<<<blocks, cuda::kThreads, 0, stream>>>(renumber, inverse, n);
  LIBOPS_CUDA_CHECK_LAUNCH("unique renumbering kernels");
  return Status::ok();
}

Status unique_count_cuda(Device device, const UniqueDesc& d, const NDArray& x, NDArray& count) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, count));
  RETURN_IF_ERROR(with_sort_key_type(x.dtype(), [&](auto tag) { return count_typed<decltype(tag)>(ctx, d, x, count); }));
  count.buffer()->mark_device_written();
  return Status::ok();
}

Status unique_cuda(Device device, const UniqueDesc& d, const NDArray& x, NDArray& values, NDArray& first,
                   NDArray& inverse, NDArray& counts) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  // The outputs are dense arrays the kernels write whole.
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, values));
  for (NDArray* a : {&first, &inverse, &counts}) RETURN_IF_ERROR(sync_for_kernel(device, {}, *a));
  RETURN_IF_ERROR(with_sort_key_type(x.dtype(), [&](auto tag) {
    return unique_typed<decltype(tag)>(ctx, d, x, values, first, inverse, counts);
  }));
  for (NDArray* a : {&values, &first, &inverse, &counts}) a->buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool unique_cuda_registered =
    (unique_count_device_kernel.set(DeviceType::kCuda, unique_count_cuda),
     unique_device_kernel.set(DeviceType::kCuda, unique_cuda), true);

}  // namespace
}  // namespace libops::ops
