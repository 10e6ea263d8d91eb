// gather: picks slices of x along an axis by index (numpy.take).
//
//   inputs  x: any dtype, rank >= 1; indices: int32 or int64, any shape
//   i args  axis (optional, default 0; negative counts from the end),
//           batch_dims (optional, default 0: TF's gather with batch dims,
//           the axis then being the first dim after them)
//   output  x.shape[:axis] + indices.shape[batch_dims:] + x.shape[axis+1:]
//
// An index i is valid when -n <= i < n for the axis extent n; a negative
// index counts from the end once, as in numpy. Anything else is an error
// naming the bad value, found when the data is read (compute time).
//
// Rows are moved with memcpy by element size, so nothing here is compiled
// per dtype: x is seen as [outer, n, inner] and the output as
// [outer, count, inner], with `inner` elements contiguous in both. On other
// devices a backend's kernel moves the rows and checks the indices as it
// goes (Note [gather on devices] in gather.h).
#include "libops/ops/shape/gather.h"

#include "libops/ops/index/index_call.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "libops/loops/row_prefetch.h"
#include "libops/loops/streaming_store.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status gather_axis(Context& block, const NDArray& x, int& axis) {
  const int64_t a = block.i_arg(0);  // an axis of x (the signature checked it)
  axis = static_cast<int>(a < 0 ? a + x.rank() : a);
  const int64_t bd = block.i_arg(1);
  if (bd > 0) {
    const NDArray& idx = *block.input(1);
    REQUIRE_TRUE(axis == bd, 0, "with batch_dims %lld the axis must be %lld (the first dim after them), got %d",
                 static_cast<long long>(bd), static_cast<long long>(bd), axis);
    REQUIRE_TRUE(bd <= idx.rank(), OPS_ERR_SHAPE, "batch_dims %lld exceeds the rank of indices%s",
                 static_cast<long long>(bd), idx.shape().str().c_str());
    for (int d = 0; d < bd; ++d)
      REQUIRE_TRUE(x.dim(d) == idx.dim(d), OPS_ERR_SHAPE, "batch dim %d differs: x%s, indices%s", d,
                   x.shape().str().c_str(), idx.shape().str().c_str());
  }
  return Status::ok();
}

// gather with batch_dims > 0: indices [b..., m...] pick along x's dim b
// (Note [Indexed rows] with a batch per leading position).
Status gather_batched(Context& block, const NDArray& x, const NDArray& indices, int axis, NDArray& z) {
  IndexedRows d;
  d.k = 1;
  d.dims[0] = x.dim(axis);
  for (int k = 0; k < axis; ++k) d.batches *= x.dim(k);
  d.count = 1;
  for (int k = axis; k < indices.rank(); ++k) d.count *= indices.dim(k);
  for (int k = axis + 1; k < x.rank(); ++k) d.row *= x.dim(k);
  d.indices_batch_stride = d.count;
  if (z.length() == 0) return Status::ok();
  NDArray xd, id;
  RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), xd));
  RETURN_IF_ERROR(dense_on_device(block, indices, indices.dtype(), id));
  DeviceOutputStage stage;
  RETURN_IF_ERROR(stage.begin(block, z, x.dtype()));
  int64_t bad = -1;
  RETURN_IF_ERROR(run_gather_rows(block, d, xd, id, stage.target(), bad));
  if (bad >= 0) return bad_index_error(block, id, d, bad, x, axis);
  return stage.finish(block, z);
}

// The first position of p[0, count) outside [-n, n), or -1: one
// branch-free pass for the common case (every index valid), then a search.
template <typename I>
int64_t first_bad_index(const I* p, int64_t count, int64_t n) {
  bool ok = true;
  for (int64_t i = 0; i < count; ++i) ok &= (p[i] >= -n) & (p[i] < n);
  if (ok) return -1;
  for (int64_t i = 0; i < count; ++i)
    if (p[i] < -n || p[i] >= n) return i;
  return -1;
}

// Checks dense int32 or int64 indices against an axis of extent n; an
// error names the first index outside [-n, n).
Status check_indices(Context& block, const NDArray& indices, int64_t n, int axis) {
  const int64_t count = indices.length();
  const int64_t bad = indices.dtype() == DataType::kInt32
                          ? first_bad_index(indices.data_as<int32_t>(), count, n)
                          : first_bad_index(indices.data_as<int64_t>(), count, n);
  if (bad < 0) return Status::ok();
  const int64_t v = indices.dtype() == DataType::kInt32 ? indices.data_as<int32_t>()[bad]
                                                        : indices.data_as<int64_t>()[bad];
  return block.error(StatusCode::kInvalidArgument,
                     "index %lld (at position %lld of indices%s) is out of range for axis %d with size %lld "
                     "(allowed %lld..%lld)",
                     static_cast<long long>(v), static_cast<long long>(bad), indices.shape().str().c_str(), axis,
                     static_cast<long long>(n), static_cast<long long>(-n), static_cast<long long>(n - 1));
}

// Note [Gathered rows]
// Rows are read in index order, which the hardware prefetchers cannot
// predict: the loop prefetches rows ahead into L2 (Note [Prefetching random
// rows]). An output larger than the last-level cache goes out with
// streaming stores (Note [Streaming stores]): no read of each output line
// before it is written; where the CPU has AVX-512 each line is one 64-byte
// store, which the write-combining buffers take whole (two 32-byte halves
// measured 13% slower). 16M float32 in 256-byte rows of a random
// permutation, one thread of a 2-core EPYC: 7.5-7.8 ms with the prefetch
// into L1 8 rows ahead, 4.9-5.2 ms with today's (a 64 MiB memcpy: 3.7-4.0).

// Output rows [begin, end) of the gather; move(to, from) copies one row.
template <typename I, typename Move>
[[gnu::always_inline]] inline void gather_rows(const char* in, char* out, const I* idx, int64_t begin, int64_t end,
                                               int64_t count, int64_t n, size_t row_bytes, Move move) {
  const int64_t ahead = rows_ahead(row_bytes);
  int64_t o = begin / count, j = begin % count;
  const char* plane = in + static_cast<size_t>(o * n) * row_bytes;
  char* to = out + static_cast<size_t>(begin) * row_bytes;
  for (int64_t r = begin; r < end; ++r, to += row_bytes) {
    if (j + ahead < count) {
      const int64_t v = idx[j + ahead];
      prefetch_row_l2(plane + static_cast<size_t>(v < 0 ? v + n : v) * row_bytes, row_bytes);
    }
    const int64_t v = idx[j];
    move(to, plane + static_cast<size_t>(v < 0 ? v + n : v) * row_bytes);
    if (++j == count) {
      j = 0;
      plane += static_cast<size_t>(n) * row_bytes;
    }
  }
}

#if LIBOPS_HAVE_STREAMING_STORES && LIBOPS_ISA_DISPATCH
// A row of whole lines to a 64-byte aligned row, one 64-byte streaming
// store a line.
struct StreamRowAvx512 {
  size_t row_bytes;
  LIBOPS_TARGET_AVX512 void operator()(char* to, const char* from) const {
    for (size_t b = 0; b < row_bytes; b += 64)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(to + b), _mm512_loadu_si512(from + b));
  }
};

template <typename I>
LIBOPS_TARGET_AVX512 void gather_rows_stream_avx512(const char* in, char* out, const I* idx, int64_t begin,
                                                    int64_t end, int64_t count, int64_t n, size_t row_bytes) {
  gather_rows(in, out, idx, begin, end, count, n, row_bytes, StreamRowAvx512{row_bytes});
  _mm_sfence();
}
#endif

// Rows [0, outer * count) of the output: row (o, j) is x's row
// (o, idx[j]) of row_bytes bytes, idx already checked (negative ones count
// from the end). Note [Gathered rows].
template <typename I>
void copy_rows(const char* in, char* out, const I* idx, int64_t outer, int64_t count, int64_t n, size_t row_bytes) {
  const int64_t rows = outer * count;
  const int64_t grain = std::max<int64_t>(1, 65536 / static_cast<int64_t>(std::max<size_t>(row_bytes, 1)));
  bool stream = false;
#if LIBOPS_HAVE_STREAMING_STORES
  stream = reinterpret_cast<uintptr_t>(out) % 64 == 0 &&
           static_cast<int64_t>(row_bytes) * rows >= streaming_store_threshold();
#if LIBOPS_ISA_DISPATCH
  if (stream && row_bytes % 64 == 0 && cpu_isa() == CpuIsa::kAvx512) {
    parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
      gather_rows_stream_avx512(in, out, idx, begin, end, count, n, row_bytes);
    });
    return;
  }
#endif
  if (stream && row_bytes % detail::kStreamTileBytes == 0) {
    const bool wide = detail::stream_wide_tiles();
    parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
      gather_rows(in, out, idx, begin, end, count, n, row_bytes, [row_bytes, wide](char* to, const char* from) {
        for (size_t b = 0; b < row_bytes; b += detail::kStreamTileBytes) detail::stream_tile(to + b, from + b, wide);
      });
      _mm_sfence();
    });
    return;
  }
#endif
  (void)stream;
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    gather_rows(in, out, idx, begin, end, count, n, row_bytes,
                [row_bytes](char* to, const char* from) { std::memcpy(to, from, row_bytes); });
  });
}

void gather_shape(const NDArray& x, int axis, int64_t count, GatherDesc& desc) {
  desc.n = x.dim(axis);
  desc.count = count;
  for (int d = 0; d < axis; ++d) desc.outer *= x.dim(d);
  for (int d = axis + 1; d < x.rank(); ++d) desc.inner *= x.dim(d);
}

// The CPU's index check over indices whose newest copy may be on a device.
Status check_indices_on_host(Context& block, const NDArray& indices, int64_t n, int axis) {
  RETURN_IF_ERROR(indices.buffer()->sync_to_host());
  NDArray dense = indices;
  if (!dense.is_c_contiguous()) RETURN_IF_ERROR(indices.dup('c', dense));
  return check_indices(block, dense, n, axis);
}

std::atomic<GatherDeviceFn> g_gather_device[kNumDeviceTypes];

// Note [gather on devices].
Status gather_on_device(Context& block, const NDArray& x, const NDArray& indices, int axis, NDArray& z) {
  const GatherDeviceFn kernel = gather_device(block.device().type);
  if (kernel == nullptr) return no_device_implementation(block);
  GatherDesc desc;
  gather_shape(x, axis, indices.length(), desc);
  // No rows to copy, so no kernel to check the indices on the way; with
  // n == 0 every index is out of range.
  if (z.length() == 0 || desc.n == 0) return check_indices_on_host(block, indices, desc.n, axis);
  NDArray xd, id;
  RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), xd));
  RETURN_IF_ERROR(dense_on_device(block, indices, indices.dtype(), id));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, x.dtype()));
  int64_t bad_position = -1;
  RETURN_IF_ERROR(with_op_name(block, kernel(block.device(), desc, xd, id, out.target(), &bad_position)));
  if (bad_position >= 0) {
    RETURN_IF_ERROR(check_indices_on_host(block, indices, desc.n, axis));
    return block.error(StatusCode::kInternal, "the %s kernel reported index position %lld out of range, but it is not",
                       block.device().str().c_str(), static_cast<long long>(bad_position));
  }
  return out.finish(block, z);
}

}  // namespace

void register_gather_device(DeviceType type, GatherDeviceFn fn) {
  g_gather_device[static_cast<int>(type)].store(fn, std::memory_order_release);
}

GatherDeviceFn gather_device(DeviceType type) {
  return g_gather_device[static_cast<int>(type)].load(std::memory_order_acquire);
}

}  // namespace libops::ops

CUSTOM_OP_IMPL(gather, 2, 1, false, 0, 0) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  const NDArray* indices = INPUT_VARIABLE(1);
  NDArray* z = OUTPUT_VARIABLE(0);
  int axis = 0;
  RETURN_IF_ERROR(ops::gather_axis(block, *x, axis));
  if (INT_ARG(1) > 0) return ops::gather_batched(block, *x, *indices, axis, *z);
  if (!block.device().is_cpu()) return ops::gather_on_device(block, *x, *indices, axis, *z);
  const int64_t n = x->dim(axis);
  NDArray idx = *indices;
  if (!idx.is_c_contiguous()) RETURN_IF_ERROR(indices->dup('c', idx));
  RETURN_IF_ERROR(ops::check_indices(block, idx, n, axis));
  if (z->length() == 0) return Status::ok();

  NDArray src = *x;
  if (!src.is_c_contiguous()) RETURN_IF_ERROR(x->dup('c', src));
  NDArray dst = *z;
  const bool direct = z->is_c_contiguous() && !z->may_overlap(*x);
  if (!direct) RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', dst));

  ops::GatherDesc g;
  ops::gather_shape(*x, axis, idx.length(), g);
  const size_t row_bytes = static_cast<size_t>(g.inner) * src.element_size();
  const char* in = static_cast<const char*>(src.data());
  char* out = static_cast<char*>(dst.data());
  if (idx.dtype() == DataType::kInt32) ops::copy_rows(in, out, idx.data_as<int32_t>(), g.outer, g.count, n, row_bytes);
  else ops::copy_rows(in, out, idx.data_as<int64_t>(), g.outer, g.count, n, row_bytes);
  if (!direct) RETURN_IF_ERROR(z->assign(dst));
  return Status::ok();
}

DECLARE_SHAPE_FN(gather) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  const NDArray* indices = INPUT_VARIABLE(1);
  int axis = 0;
  RETURN_IF_ERROR(ops::gather_axis(block, *x, axis));
  const int bd = static_cast<int>(INT_ARG(1));
  REQUIRE_TRUE(x->rank() - 1 + indices->rank() - bd <= kMaxRank, OPS_ERR_SHAPE,
               "output rank %d (x%s with indices%s) exceeds the maximum %d", x->rank() - 1 + indices->rank() - bd,
               x->shape().str().c_str(), indices->shape().str().c_str(), kMaxRank);
  Dims out;
  for (int d = 0; d < axis; ++d) out.push_back(x->dim(d));
  for (int d = bd; d < indices->rank(); ++d) out.push_back(indices->dim(d));
  for (int d = axis + 1; d < x->rank(); ++d) out.push_back(x->dim(d));
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(gather) {
  descriptor.allow_input(0, libops::types::kAny).runs_on_any_device();
  descriptor.allow_input(1, libops::types::kIndex);
}

DECLARE_PATTERN(gather, kInjective)

DECLARE_ARGS(gather) {
  args.describe("Picks slices of x along an axis by index (numpy.take).");
  args.input("x", "any array, rank >= 1");
  args.input("indices", "int32 or int64, any shape; -n <= index < n for the axis extent n");
  args.output("z", "x.shape[:axis] + indices.shape + x.shape[axis+1:]");
  args.i_arg("axis", 0, "the axis of x to pick along").axis(0);
  args.i_arg("batch_dims", 0, "leading dims x and indices share (TF's gather); the axis must then equal it")
      .range(0, libops::kMaxRank - 1);
  // libnd4j's bArg checkIndices: libops checks every index whatever it says
  // (an unchecked one would read outside x).
  args.b_arg("check_indices", true, "libnd4j's checkIndices; indices are checked either way");
}
