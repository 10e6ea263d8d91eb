// CUDA kernels of Note [Indexed rows] and Note [Indexed elements]
// (indexed_rows.h), registered when the library loads.
//
// Gathers: a thread per output element, which computes its source from the
// indices. Scatters: a thread per update element; combining modes use a
// compare-and-swap loop on the target's bits (any 4- or 8-byte compute
// dtype, any mode; adds land in an unspecified order). The set mode is made
// deterministic (the last update wins, as on the CPU): a first kernel
// records, per target row or element, the highest update position naming
// it (atomicMax), a second copies only the winners. Bad indices: threads
// skip them and lower a slot to their position (atomicMin); the host reads
// the slot back after the kernels (Note [gather on devices]).
#include <cuda_runtime.h>

#include <cstring>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/index/indexed_rows.h"
#include "libops/ops/index/scatter_combine.h"

namespace libops::ops {
namespace {

constexpr unsigned long long kNoBad = ~0ull;

constexpr int64_t kBadRow = -1, kDroppedRow = -2;

__device__ inline int64_t resolve_index(int64_t v, int64_t n, OutOfRange policy) {
  if (v >= 0 && v < n) return v;
  switch (policy) {
    case OutOfRange::kError: return v >= -n && v < 0 ? v + n : kBadRow;
    case OutOfRange::kDropNegative: return v < 0 ? kDroppedRow : kBadRow;
    case OutOfRange::kDropAbove: return v >= n ? kDroppedRow : kBadRow;
  }
  return kBadRow;
}

// The row of x that (b, i) names; kBadRow with *bad_k the first bad entry,
// or kDroppedRow.
template <typename I>
__device__ int64_t row_of(const IndexedRows& d, const I* idx, int64_t b, int64_t i, int64_t* bad_k) {
  const I* p = idx + b * d.indices_batch_stride + i * d.k;
  int64_t row = 0;
  for (int64_t k = 0; k < d.k; ++k) {
    const int64_t v = resolve_index(static_cast<int64_t>(p[k]), d.dims[k], d.out_of_range);
    if (v < 0) {
      *bad_k = k;
      return v;
    }
    row = row * d.dims[k] + v;
  }
  return b * d.rows_per_batch() + row;
}

template <typename I>
__device__ int64_t element_offset(const IndexedElements& d, const I* idx, int64_t p) {
  int64_t off = 0, rest = p;
  for (int k = d.rank - 1; k >= 0; --k) {
    const int64_t c = rest % d.shape[k];
    rest /= d.shape[k];
    if (k == d.axis) {
      const int64_t v = static_cast<int64_t>(idx[p]);
      if (v < -d.n || v >= d.n) return -1;
      off += (v < 0 ? v + d.n : v) * d.strides[k];
    } else {
      off += c * d.strides[k];
    }
  }
  return off;
}

template <typename T, typename I>
__global__ void gather_rows_kernel(IndexedRows d, const T* __restrict__ x, const I* __restrict__ idx,
                                   T* __restrict__ z, unsigned long long* bad) {
  const int64_t total = d.batches * d.count * d.row;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t t = e / d.row, r = e - t * d.row, b = t / d.count, i = t - b * d.count;
    int64_t bad_k = 0;
    const int64_t row = row_of(d, idx, b, i, &bad_k);
    if (row < 0) {
      if (row == kBadRow) atomicMin(bad, static_cast<unsigned long long>(b * d.indices_batch_stride + i * d.k + bad_k));
      continue;
    }
    z[e] = x[row * d.row + r];
  }
}

template <typename C>
__device__ void atomic_combine(C* target, C u, ScatterMode mode) {
  using W = std::conditional_t<sizeof(C) == 4, unsigned int, unsigned long long>;
  W* word = reinterpret_cast<W*>(target);
  W old = *word, assumed;
  do {
    assumed = old;
    C cur;
    memcpy(&cur, &assumed, sizeof cur);
    const C next = scatter_combine(mode, cur, u);
    W bits;
    memcpy(&bits, &next, sizeof bits);
    old = atomicCAS(word, assumed, bits);
  } while (old != assumed);
}

// Set mode, pass 1: winner[row] = the highest (b, i) + 1 naming it.
template <typename I>
__global__ void scatter_rows_winners_kernel(IndexedRows d, const I* __restrict__ idx, unsigned long long* winner,
                                            unsigned long long* bad) {
  const int64_t total = d.batches * d.count;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const int64_t b = t / d.count, i = t - b * d.count;
    int64_t bad_k = 0;
    const int64_t row = row_of(d, idx, b, i, &bad_k);
    if (row == kBadRow) atomicMin(bad, static_cast<unsigned long long>(b * d.indices_batch_stride + i * d.k + bad_k));
    else if (row >= 0) atomicMax(winner + row, static_cast<unsigned long long>(t + 1));
  }
}

template <typename C, typename I>
__global__ void scatter_rows_kernel(IndexedRows d, ScatterMode mode, const I* __restrict__ idx,
                                    const C* __restrict__ upd, C* __restrict__ z, const unsigned long long* winner,
                                    unsigned long long* bad) {
  const int64_t total = d.batches * d.count * d.row;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t t = e / d.row, r = e - t * d.row, b = t / d.count, i = t - b * d.count;
    int64_t bad_k = 0;
    const int64_t row = row_of(d, idx, b, i, &bad_k);
    if (row < 0) {
      if (row == kBadRow) atomicMin(bad, static_cast<unsigned long long>(b * d.indices_batch_stride + i * d.k + bad_k));
      continue;
    }
    if (mode == ScatterMode::kSet) {
      if (winner[row] == static_cast<unsigned long long>(t + 1)) z[row * d.row + r] = upd[e];
    } else {
      atomic_combine(z + row * d.row + r, upd[e], mode);
    }
  }
}

template <typename T, typename I>
__global__ void gather_elements_kernel(IndexedElements d, const T* __restrict__ x, const I* __restrict__ idx,
                                       T* __restrict__ z, unsigned long long* bad) {
  const int64_t total = d.count(), step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < total; p += step) {
    const int64_t off = element_offset(d, idx, p);
    if (off < 0) atomicMin(bad, static_cast<unsigned long long>(p));
    else z[p] = x[off];
  }
}

template <typename I>
__global__ void scatter_elements_winners_kernel(IndexedElements d, const I* __restrict__ idx,
                                                unsigned long long* winner, unsigned long long* bad) {
  const int64_t total = d.count(), step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < total; p += step) {
    const int64_t off = element_offset(d, idx, p);
    if (off < 0) atomicMin(bad, static_cast<unsigned long long>(p));
    else if (winner != nullptr) atomicMax(winner + off, static_cast<unsigned long long>(p + 1));
  }
}

template <typename C, typename I>
__global__ void scatter_elements_kernel(IndexedElements d, ScatterMode mode, const I* __restrict__ idx,
                                        const C* __restrict__ upd, C* __restrict__ z,
                                        const unsigned long long* winner) {
  const int64_t total = d.count(), step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < total; p += step) {
    const int64_t off = element_offset(d, idx, p);
    if (off < 0) continue;
    if (mode == ScatterMode::kSet) {
      if (winner[off] == static_cast<unsigned long long>(p + 1)) z[off] = upd[p];
    } else {
      atomic_combine(z + off, upd[p], mode);
    }
  }
}

// Per-call plumbing: the error slot (and the winners of a set scatter) in
// the launch context's workspace, the read-back of the slot.
struct Slots {
  unsigned long long* bad = nullptr;
  unsigned long long* winner = nullptr;
};

Status take_slots(cuda::LaunchContext* ctx, int64_t winners, Slots& s) {
  void* p = nullptr;
  const size_t bytes = sizeof(unsigned long long) * static_cast<size_t>(1 + winners);
  RETURN_IF_ERROR(ctx->workspace(bytes, &p));
  s.bad = static_cast<unsigned long long*>(p);
  s.winner = winners > 0 ? s.bad + 1 : nullptr;
  LIBOPS_CUDA_CHECK(cudaMemsetAsync(s.bad, 0xff, sizeof(unsigned long long), ctx->stream()));
  if (winners > 0) LIBOPS_CUDA_CHECK(cudaMemsetAsync(s.winner, 0, sizeof(unsigned long long) * winners, ctx->stream()));
  return Status::ok();
}

Status read_bad(cuda::LaunchContext* ctx, const Slots& s, int64_t* bad) {
  unsigned long long v = kNoBad;
  LIBOPS_CUDA_CHECK(cudaMemcpyAsync(&v, s.bad, sizeof v, cudaMemcpyDeviceToHost, ctx->stream()));
  LIBOPS_CUDA_CHECK(cudaStreamSynchronize(ctx->stream()));
  *bad = v == kNoBad ? -1 : static_cast<int64_t>(v);
  return Status::ok();
}

// Elements of 1, 2, 4 or 8 bytes move as unsigned integers of that size.
template <typename F>
void by_element_size(size_t size, F&& f) {
  switch (size) {
    case 1: f(uint8_t{}); break;
    case 2: f(uint16_t{}); break;
    case 4: f(uint32_t{}); break;
    default: f(uint64_t{}); break;
  }
}

template <typename F>
void by_index_dtype(DataType t, F&& f) {
  if (t == DataType::kInt32) f(int32_t{});
  else f(int64_t{});
}

template <typename F>
void by_compute_dtype(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat32: f(float{}); break;
    case DataType::kFloat64: f(double{}); break;
    case DataType::kInt64: f(int64_t{}); break;
    default: f(uint64_t{}); break;
  }
}

Status gather_rows_cuda(Device device, const IndexedRows& d, const NDArray& x, const NDArray& indices, NDArray& z,
                        int64_t* bad) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &indices}, z));
  Slots s;
  RETURN_IF_ERROR(take_slots(ctx, 0, s));
  const int64_t total = d.batches * d.count * d.row;
  by_element_size(x.element_size(), [&](auto t) {
    using T = decltype(t);
    by_index_dtype(indices.dtype(), [&](auto i) {
      using I = decltype(i);
      gather_rows_kernel<T, I><<<cuda::blocks_for(total), cuda::kThreads, 0, ctx->stream()>>>(
          d, static_cast<const T*>(x.device_data()), static_cast<const I*>(indices.device_data()),
          static_cast<T*>(z.device_data()), s.bad);
    });
  });
  LIBOPS_CUDA_CHECK_LAUNCH("gather rows kernel");
  z.buffer()->mark_device_written();
  return read_bad(ctx, s, bad);
}

Status scatter_rows_cuda(Device device, const IndexedRows& d, ScatterMode mode, const NDArray& indices,
                         const NDArray& updates, NDArray& z, int64_t* bad) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&indices, &updates}, z));
  Slots s;
  RETURN_IF_ERROR(take_slots(ctx, mode == ScatterMode::kSet ? d.batches * d.rows_per_batch() : 0, s));
  const int64_t total = d.batches * d.count * d.row;
  by_index_dtype(indices.dtype(), [&](auto i) {
    using I = decltype(i);
    const I* idx = static_cast<const I*>(indices.device_data());
    if (mode == ScatterMode::kSet)
      scatter_rows_winners_kernel<I><<<cuda::blocks_for(d.batches * d.count), cuda::kThreads, 0, ctx->stream()>>>(
          d, idx, s.winner, s.bad);
    by_compute_dtype(z.dtype(), [&](auto c) {
      using C = decltype(c);
      scatter_rows_kernel<C, I><<<cuda::blocks_for(total), cuda::kThreads, 0, ctx->stream()>>>(
          d, mode, idx, static_cast<const C*>(updates.device_data()), static_cast<C*>(z.device_data()), s.winner,
          s.bad);
    });
  });
  LIBOPS_CUDA_CHECK_LAUNCH("scatter rows kernels");
  z.buffer()->mark_device_written();
  return read_bad(ctx, s, bad);
}

Status gather_elements_cuda(Device device, const IndexedElements& d, const NDArray& x, const NDArray& indices,
                            NDArray& z, int64_t* bad) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &indices}, z));
  Slots s;
  RETURN_IF_ERROR(take_slots(ctx, 0, s));
  by_element_size(x.element_size(), [&](auto t) {
    using T = decltype(t);
    by_index_dtype(indices.dtype(), [&](auto i) {
      using I = decltype(i);
      gather_elements_kernel<T, I><<<cuda::blocks_for(d.count()), cuda::kThreads, 0, ctx->stream()>>>(
          d, static_cast<const T*>(x.device_data()), static_cast<const I*>(indices.device_data()),
          static_cast<T*>(z.device_data()), s.bad);
    });
  });
  LIBOPS_CUDA_CHECK_LAUNCH("gather elements kernel");
  z.buffer()->mark_device_written();
  return read_bad(ctx, s, bad);
}

Status scatter_elements_cuda(Device device, const IndexedElements& d, ScatterMode mode, const NDArray& indices,
                             const NDArray& updates, NDArray& z, int64_t* bad) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&indices, &updates}, z));
  Slots s;
  RETURN_IF_ERROR(take_slots(ctx, mode == ScatterMode::kSet ? z.length() : 0, s));
  by_index_dtype(indices.dtype(), [&](auto i) {
    using I = decltype(i);
    const I* idx = static_cast<const I*>(indices.device_data());
    scatter_elements_winners_kernel<I><<<cuda::blocks_for(d.count()), cuda::kThreads, 0, ctx->stream()>>>(
        d, idx, mode == ScatterMode::kSet ? s.winner : nullptr, s.bad);
    by_compute_dtype(z.dtype(), [&](auto c) {
      using C = decltype(c);
      scatter_elements_kernel<C, I><<<cuda::blocks_for(d.count()), cuda::kThreads, 0, ctx->stream()>>>(
          d, mode, idx, static_cast<const C*>(updates.device_data()), static_cast<C*>(z.device_data()), s.winner);
    });
  });
  LIBOPS_CUDA_CHECK_LAUNCH("scatter elements kernels");
  z.buffer()->mark_device_written();
  return read_bad(ctx, s, bad);
}

[[maybe_unused]] const bool registered = (gather_rows_device_kernel.set(DeviceType::kCuda, gather_rows_cuda),
                                          scatter_rows_device_kernel.set(DeviceType::kCuda, scatter_rows_cuda),
                                          gather_elements_device_kernel.set(DeviceType::kCuda, gather_elements_cuda),
                                          scatter_elements_device_kernel.set(DeviceType::kCuda, scatter_elements_cuda),
                                          true);

}  // namespace
}  // namespace libops::ops
