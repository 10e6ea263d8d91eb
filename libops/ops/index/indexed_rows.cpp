// The CPU kernels of Note [Indexed rows] (indexed_rows.h).
#include "libops/ops/index/indexed_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/loops/row_prefetch.h"
#include "libops/loops/streaming_store.h"
#include "libops/ops/index/scatter_combine.h"

namespace libops::ops {

DeviceKernel<GatherRowsDeviceFn> gather_rows_device_kernel;
DeviceKernel<ScatterRowsDeviceFn> scatter_rows_device_kernel;
DeviceKernel<GatherElementsDeviceFn> gather_elements_device_kernel;
DeviceKernel<ScatterElementsDeviceFn> scatter_elements_device_kernel;

const char* scatter_mode_name(ScatterMode m) {
  switch (m) {
    case ScatterMode::kSet: return "set";
    case ScatterMode::kAdd: return "add";
    case ScatterMode::kSubtract: return "subtract";
    case ScatterMode::kMultiply: return "multiply";
    case ScatterMode::kDivide: return "divide";
    case ScatterMode::kMax: return "max";
    case ScatterMode::kMin: return "min";
  }
  return "?";
}

namespace {

constexpr int64_t kBadRow = -1, kDroppedRow = -2;

// Index v of a dim of extent n: its position, kBadRow or kDroppedRow.
inline int64_t resolve_index(int64_t v, int64_t n, OutOfRange policy) {
  if (v >= 0 && v < n) return v;
  switch (policy) {
    case OutOfRange::kError: return v >= -n && v < 0 ? v + n : kBadRow;
    case OutOfRange::kDropNegative: return v < 0 ? kDroppedRow : kBadRow;
    case OutOfRange::kDropAbove: return v >= n ? kDroppedRow : kBadRow;
  }
  return kBadRow;
}

// The row (b, i) names, kBadRow or kDroppedRow.
template <typename I>
int64_t row_of(const IndexedRows& d, const I* idx, int64_t b, int64_t i) {
  const I* p = idx + b * d.indices_batch_stride + i * d.k;
  int64_t row = 0;
  for (int64_t k = 0; k < d.k; ++k) {
    const int64_t v = resolve_index(static_cast<int64_t>(p[k]), d.dims[k], d.out_of_range);
    if (v < 0) return v;
    row = row * d.dims[k] + v;
  }
  return b * d.rows_per_batch() + row;
}

template <typename I>
int64_t first_bad(const IndexedRows& d, const I* idx) {
  for (int64_t b = 0; b < d.batches; ++b)
    for (int64_t i = 0; i < d.count; ++i)
      for (int64_t k = 0; k < d.k; ++k) {
        const int64_t pos = b * d.indices_batch_stride + i * d.k + k;
        if (resolve_index(static_cast<int64_t>(idx[pos]), d.dims[k], d.out_of_range) == kBadRow) return pos;
      }
  return -1;
}

template <typename I>
void gather_typed(const IndexedRows& d, const I* idx, const char* x, char* z, size_t row_bytes) {
  const int64_t total = d.batches * d.count;
  const int64_t ahead = rows_ahead(row_bytes);  // Note [Prefetching random rows]
  parallel_for(total, std::max<int64_t>(1, 65536 / static_cast<int64_t>(std::max<size_t>(row_bytes, 1))),
               [&](int64_t begin, int64_t end) {
                 for (int64_t t = begin; t < end; ++t) {
                   if (t + ahead < end) {
                     const int64_t next = row_of(d, idx, (t + ahead) / d.count, (t + ahead) % d.count);
                     prefetch_row_l2(x + static_cast<size_t>(next) * row_bytes, row_bytes);
                   }
                   const int64_t b = t / d.count, i = t % d.count;
                   std::memcpy(z + static_cast<size_t>(t) * row_bytes,
                               x + static_cast<size_t>(row_of(d, idx, b, i)) * row_bytes, row_bytes);
                 }
               });
}

// One update row into one z row; the mode is a template argument so that
// the combine folds into a loop the compiler vectorizes.
template <ScatterMode M, typename C>
void combine_row(C* z, const C* u, int64_t n) {
  if constexpr (M == ScatterMode::kSet) {
    std::memcpy(z, u, static_cast<size_t>(n) * sizeof(C));
  } else {
    for (int64_t r = 0; r < n; ++r) z[r] = scatter_combine(M, z[r], u[r]);
  }
}

// Whether no row of [0, rows) appears twice in dest (negative entries, the
// dropped updates, aside): one bit per row.
bool distinct_rows(std::span<const int64_t> dest, int64_t rows, std::vector<uint64_t>* bitmap = nullptr) {
  std::vector<uint64_t> local;
  std::vector<uint64_t>& seen = bitmap != nullptr ? *bitmap : local;
  seen.assign(static_cast<size_t>((rows + 63) / 64), 0);
  for (int64_t r : dest) {
    if (r < 0) continue;
    uint64_t& w = seen[static_cast<size_t>(r / 64)];
    const uint64_t bit = uint64_t{1} << (r % 64);
    if (w & bit) return false;
    w |= bit;
  }
  return true;
}

#if LIBOPS_HAVE_STREAMING_STORES && LIBOPS_ISA_DISPATCH
// first_update_row's streamed float32 rows (n a multiple of 32, z 64-byte
// aligned) where the CPU has AVX-512: u + 0 a line at a time, each line one
// 64-byte streaming store, which the write-combining buffers take whole
// (Note [Gathered rows]); the same values as the tiled loop.
LIBOPS_TARGET_AVX512 void first_update_rows_f32_avx512(float* z, const float* upd, const int64_t* dest, int64_t row,
                                                      int64_t b, int64_t e) {
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t t = b; t < e; ++t) {
    if (dest[t] < 0) continue;
    float* zr = z + dest[t] * row;
    const float* ur = upd + t * row;
    for (int64_t j = 0; j < row; j += 16) _mm512_stream_ps(zr + j, _mm512_add_ps(_mm512_loadu_ps(ur + j), zero));
  }
  _mm_sfence();
}
#endif

// Note [Parallel scatter]: updates may land on one row more than once, and
// then their order matters (set keeps the last; float sums round in
// order). Threads therefore own disjoint ranges of z's rows, and each
// applies, in (b, i) order, the updates that land in its range: every row
// sees its updates in the serial order, so the result does not depend on
// the thread count. The destination of each update is resolved once, in
// parallel, before. When no row is hit twice (a bitmap over the rows
// says so), order cannot matter and threads take runs of updates instead,
// reading them in order.
// z = 0 + each update, for the row an update lands on first: the sum
// into zeros (float -0 becomes +0, as 0 + -0 does), written without
// reading z.
template <typename C>
void first_update_row(C* z, const C* u, int64_t n, bool stream, bool wide) {
#if LIBOPS_HAVE_STREAMING_STORES
  // Whole 128-byte tiles at 64-byte aligned rows go out as streaming
  // stores: the row is written whole, so reading it first (for ownership)
  // would only add a random read per line.
  if (stream) {
    constexpr int64_t kTile = detail::kStreamTileBytes / int64_t(sizeof(C));
    for (int64_t r = 0; r < n; r += kTile) {
      alignas(64) C tile[kTile];
      for (int64_t j = 0; j < kTile; ++j) tile[j] = u[r + j] + C(0);
      detail::stream_tile(z + r, tile, wide);
    }
    return;
  }
#else
  (void)stream, (void)wide;
#endif
  if constexpr (std::is_floating_point_v<C>) {
    for (int64_t r = 0; r < n; ++r) z[r] = u[r] + C(0);
  } else {
    std::memcpy(z, u, static_cast<size_t>(n) * sizeof(C));
  }
}

// Note [Scatter into zeros]: scatter_nd sums its updates into zeros. When
// no row is hit twice (the bitmap of Note [Parallel scatter]), each hit
// row is its update plus 0 and only the rows no update names are filled
// with zeros: z is written once and never read, where filling it first
// and adding into it moved each byte three times. An output larger than
// the last-level cache goes out with streaming stores (Note [Streaming
// stores]), so the random rows are not read for ownership either: 16M
// floats in rows of 64 went from 6.6-7.1 to 16.8-18.5 GB/s at 1 thread
// (11.5-11.9 to 23.7-28.9 at 2) on the 2-core EPYC, interleaved runs.
// Otherwise z is filled and the general path adds into it.
template <ScatterMode M, typename I, typename C>
Status scatter_mode(const IndexedRows& d, const I* idx, const C* upd, C* z, bool zero_fill) {
  const int64_t updates = d.batches * d.count, z_rows = d.batches * d.rows_per_batch();
  // The destination row of each update, in an array rather than a vector:
  // running out of memory is an error returned to the caller, not a
  // std::bad_alloc, and a large block is kept between calls (Note [Host
  // block cache]).
  NDArray dest_rows;
  RETURN_IF_ERROR(NDArray::create(DataType::kInt64, {updates}, 'c', dest_rows));
  const std::span<int64_t> dest(dest_rows.data_as<int64_t>(), static_cast<size_t>(updates));
  parallel_for(updates, 4096, [&](int64_t begin, int64_t end) {
    int64_t b = begin / d.count, i = begin % d.count;  // (b, i) of update t, advanced without dividing
    for (int64_t t = begin; t < end; ++t) {
      dest[static_cast<size_t>(t)] = row_of(d, idx, b, i);
      if (++i == d.count) {
        i = 0;
        ++b;
      }
    }
  });
  const int64_t parts = updates * d.row >= (int64_t{1} << 15) ? std::min<int64_t>(get_num_threads(), z_rows) : 1;
  constexpr int64_t kAhead = 8, prefetch_bytes = 256;
  const int64_t row_bytes = d.row * int64_t{sizeof(C)};
  // Destination rows come in index order, which the hardware cannot
  // predict: the row kAhead updates on is fetched for writing now (its
  // first 4 lines), so several misses are in flight at once.
  auto prefetch_row = [&](int64_t row) {
    for (int64_t b = 0; b < std::min(prefetch_bytes, row_bytes); b += 64)
      __builtin_prefetch(reinterpret_cast<const char*>(z + row * d.row) + b, 1);
  };
  const size_t row_size = static_cast<size_t>(row_bytes);
  auto fill_rows = [&](const std::vector<uint64_t>* hit) {  // zeros in every row (not hit)
    parallel_for(z_rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(row_bytes, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r)
        if (hit == nullptr || !((*hit)[static_cast<size_t>(r / 64)] >> (r % 64) & 1))
          std::memset(z + r * d.row, 0, row_size);
    });
  };
  if (zero_fill) {
    std::vector<uint64_t> hit;
    if (M == ScatterMode::kAdd && distinct_rows(dest, z_rows, &hit)) {
      fill_rows(&hit);
      bool stream = false, wide = false;
#if LIBOPS_HAVE_STREAMING_STORES
      stream = row_bytes % detail::kStreamTileBytes == 0 && reinterpret_cast<uintptr_t>(z) % 64 == 0 &&
               z_rows * row_bytes >= streaming_store_threshold();
      wide = detail::stream_wide_tiles();
#endif
      parallel_for(updates, std::max<int64_t>(1, 65536 / std::max<int64_t>(row_bytes, 1)), [&](int64_t b, int64_t e) {
#if LIBOPS_HAVE_STREAMING_STORES && LIBOPS_ISA_DISPATCH
        if constexpr (std::is_same_v<C, float>) {
          if (stream && cpu_isa() == CpuIsa::kAvx512)
            return first_update_rows_f32_avx512(z, upd, dest.data(), d.row, b, e);
        }
#endif
        for (int64_t t = b; t < e; ++t) {
          if (!stream && t + kAhead < e && dest[static_cast<size_t>(t + kAhead)] >= 0)
            prefetch_row(dest[static_cast<size_t>(t + kAhead)]);
          const int64_t row = dest[static_cast<size_t>(t)];
          if (row >= 0) first_update_row(z + row * d.row, upd + t * d.row, d.row, stream, wide);
        }
#if LIBOPS_HAVE_STREAMING_STORES
        if (stream) _mm_sfence();
#endif
      });
      return Status::ok();
    }
    fill_rows(nullptr);
  }
  if (parts > 1 && distinct_rows(dest, z_rows)) {
    // No row is written twice, so the order between updates is free: each
    // thread takes a run of updates (reading them in order) rather than a
    // range of rows (which reads the updates of every other row).
    parallel_for(updates, std::max<int64_t>(1, 65536 / std::max<int64_t>(row_bytes, 1)), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        if (t + kAhead < e && dest[static_cast<size_t>(t + kAhead)] >= 0) prefetch_row(dest[static_cast<size_t>(t + kAhead)]);
        const int64_t row = dest[static_cast<size_t>(t)];
        if (row >= 0) combine_row<M>(z + row * d.row, upd + t * d.row, d.row);
      }
    });
    return Status::ok();
  }
  parallel_for(parts, 1, [&](int64_t part_begin, int64_t part_end) {
    for (int64_t part = part_begin; part < part_end; ++part) {
      const int64_t lo = z_rows * part / parts, hi = z_rows * (part + 1) / parts;
      for (int64_t t = 0; t < updates; ++t) {
        if (t + kAhead < updates) {
          const int64_t next = dest[static_cast<size_t>(t + kAhead)];
          if (next >= lo && next < hi) prefetch_row(next);
        }
        const int64_t row = dest[static_cast<size_t>(t)];
        if (row < lo || row >= hi) continue;  // another part's, or dropped (< 0)
        combine_row<M>(z + row * d.row, upd + t * d.row, d.row);
      }
    }
  });
  return Status::ok();
}

template <typename I, typename C>
Status scatter_typed(const IndexedRows& d, ScatterMode mode, const I* idx, const C* upd, C* z, bool zero_fill) {
  switch (mode) {
    case ScatterMode::kSet: return scatter_mode<ScatterMode::kSet>(d, idx, upd, z, zero_fill);
    case ScatterMode::kAdd: return scatter_mode<ScatterMode::kAdd>(d, idx, upd, z, zero_fill);
    case ScatterMode::kSubtract: return scatter_mode<ScatterMode::kSubtract>(d, idx, upd, z, zero_fill);
    case ScatterMode::kMultiply: return scatter_mode<ScatterMode::kMultiply>(d, idx, upd, z, zero_fill);
    case ScatterMode::kDivide: return scatter_mode<ScatterMode::kDivide>(d, idx, upd, z, zero_fill);
    case ScatterMode::kMax: return scatter_mode<ScatterMode::kMax>(d, idx, upd, z, zero_fill);
    case ScatterMode::kMin: return scatter_mode<ScatterMode::kMin>(d, idx, upd, z, zero_fill);
  }
  return Status::error(StatusCode::kInternal, "scatter: unknown mode %d", static_cast<int>(mode));
}

template <typename I>
Status scatter_dtype(const IndexedRows& d, ScatterMode mode, const I* idx, const NDArray& updates, NDArray& z,
                     bool zero_fill) {
  switch (z.dtype()) {
    case DataType::kFloat32:
      return scatter_typed(d, mode, idx, updates.data_as<float>(), z.data_as<float>(), zero_fill);
    case DataType::kFloat64:
      return scatter_typed(d, mode, idx, updates.data_as<double>(), z.data_as<double>(), zero_fill);
    case DataType::kInt64:
      return scatter_typed(d, mode, idx, updates.data_as<int64_t>(), z.data_as<int64_t>(), zero_fill);
    case DataType::kUInt64:
      return scatter_typed(d, mode, idx, updates.data_as<uint64_t>(), z.data_as<uint64_t>(), zero_fill);
    default:
      return Status::error(StatusCode::kInternal, "scatter_rows_cpu: %s is not a compute dtype", dtype_name(z.dtype()));
  }
}

// Note [Indexed elements]: the offset in x of index position p, or -1 for
// a bad index.
template <typename I>
int64_t element_offset(const IndexedElements& d, const I* idx, int64_t p) {
  int64_t off = 0, rest = p;
  for (int k = d.rank - 1; k >= 0; --k) {
    const int64_t c = rest % d.shape[k];
    rest /= d.shape[k];
    if (k == d.axis) {
      int64_t v = static_cast<int64_t>(idx[p]);
      if (v < -d.n || v >= d.n) return -1;
      off += (v < 0 ? v + d.n : v) * d.strides[k];
    } else {
      off += c * d.strides[k];
    }
  }
  return off;
}

template <typename I>
int64_t first_bad_element(const IndexedElements& d, const I* idx) {
  for (int64_t p = 0; p < d.count(); ++p)
    if (static_cast<int64_t>(idx[p]) < -d.n || static_cast<int64_t>(idx[p]) >= d.n) return p;
  return -1;
}

template <typename I>
void gather_elements_typed(const IndexedElements& d, const I* idx, const char* x, char* z, size_t es) {
  parallel_for(d.count(), 16384, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p)
      std::memcpy(z + static_cast<size_t>(p) * es, x + static_cast<size_t>(element_offset(d, idx, p)) * es, es);
  });
}

template <typename I, typename C>
void scatter_elements_typed(const IndexedElements& d, ScatterMode mode, const I* idx, const C* upd, C* z) {
  for (int64_t p = 0; p < d.count(); ++p) {
    C& t = z[element_offset(d, idx, p)];
    t = scatter_combine(mode, t, upd[p]);
  }
}

template <typename I>
Status scatter_elements_dtype(const IndexedElements& d, ScatterMode mode, const I* idx, const NDArray& u, NDArray& z) {
  switch (z.dtype()) {
    case DataType::kFloat32: scatter_elements_typed(d, mode, idx, u.data_as<float>(), z.data_as<float>()); break;
    case DataType::kFloat64: scatter_elements_typed(d, mode, idx, u.data_as<double>(), z.data_as<double>()); break;
    case DataType::kInt64: scatter_elements_typed(d, mode, idx, u.data_as<int64_t>(), z.data_as<int64_t>()); break;
    case DataType::kUInt64: scatter_elements_typed(d, mode, idx, u.data_as<uint64_t>(), z.data_as<uint64_t>()); break;
    default:
      return Status::error(StatusCode::kInternal, "scatter_elements_cpu: %s is not a compute dtype",
                           dtype_name(z.dtype()));
  }
  return Status::ok();
}

}  // namespace

Status gather_elements_cpu(const IndexedElements& d, const NDArray& x, const NDArray& indices, NDArray& z,
                           int64_t* bad) {
  const char* xs = static_cast<const char*>(x.data());
  char* zs = static_cast<char*>(z.data());
  if (indices.dtype() == DataType::kInt32) {
    *bad = first_bad_element(d, indices.data_as<int32_t>());
    if (*bad < 0) gather_elements_typed(d, indices.data_as<int32_t>(), xs, zs, x.element_size());
  } else {
    *bad = first_bad_element(d, indices.data_as<int64_t>());
    if (*bad < 0) gather_elements_typed(d, indices.data_as<int64_t>(), xs, zs, x.element_size());
  }
  return Status::ok();
}

Status scatter_elements_cpu(const IndexedElements& d, ScatterMode mode, const NDArray& indices,
                            const NDArray& updates, NDArray& z, int64_t* bad) {
  if (indices.dtype() == DataType::kInt32) {
    *bad = first_bad_element(d, indices.data_as<int32_t>());
    return *bad < 0 ? scatter_elements_dtype(d, mode, indices.data_as<int32_t>(), updates, z) : Status::ok();
  }
  *bad = first_bad_element(d, indices.data_as<int64_t>());
  return *bad < 0 ? scatter_elements_dtype(d, mode, indices.data_as<int64_t>(), updates, z) : Status::ok();
}

Status gather_rows_cpu(const IndexedRows& d, const NDArray& x, const NDArray& indices, NDArray& z, int64_t* bad) {
  const size_t row_bytes = static_cast<size_t>(d.row) * x.element_size();
  const char* xs = static_cast<const char*>(x.data());
  char* zs = static_cast<char*>(z.data());
  if (indices.dtype() == DataType::kInt32) {
    *bad = first_bad(d, indices.data_as<int32_t>());
    if (*bad < 0) gather_typed(d, indices.data_as<int32_t>(), xs, zs, row_bytes);
  } else {
    *bad = first_bad(d, indices.data_as<int64_t>());
    if (*bad < 0) gather_typed(d, indices.data_as<int64_t>(), xs, zs, row_bytes);
  }
  return Status::ok();
}

int64_t first_bad_row_index(const IndexedRows& d, const NDArray& indices) {
  return indices.dtype() == DataType::kInt32 ? first_bad(d, indices.data_as<int32_t>())
                                             : first_bad(d, indices.data_as<int64_t>());
}

Status scatter_rows_cpu(const IndexedRows& d, ScatterMode mode, const NDArray& indices, const NDArray& updates,
                        NDArray& z, int64_t* bad, bool zero_fill) {
  *bad = first_bad_row_index(d, indices);
  if (*bad >= 0) return Status::ok();
  if (indices.dtype() == DataType::kInt32)
    return scatter_dtype(d, mode, indices.data_as<int32_t>(), updates, z, zero_fill);
  return scatter_dtype(d, mode, indices.data_as<int64_t>(), updates, z, zero_fill);
}

}  // namespace libops::ops
