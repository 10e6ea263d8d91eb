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

#include <atomic>
#include <cstring>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

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

// The indices as int64 in C order, each made non-negative; an error names
// the first index outside [-n, n).
Status read_indices(Context& block, const NDArray& indices, int64_t n, int axis, std::vector<int64_t>& out) {
  out.resize(static_cast<size_t>(indices.length()));
  if (out.empty()) return Status::ok();
  NDArray as64;
  RETURN_IF_ERROR(NDArray::wrap(out.data(), out.size() * sizeof(int64_t), DataType::kInt64, indices.shape(), nullptr,
                                as64));
  RETURN_IF_ERROR(as64.assign(indices));
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t v = out[i];
    REQUIRE_TRUE(v >= -n && v < n, 0,
                 "index %lld (at position %zu of indices%s) is out of range for axis %d with size %lld "
                 "(allowed %lld..%lld)",
                 static_cast<long long>(v), i, indices.shape().str().c_str(), axis, static_cast<long long>(n),
                 static_cast<long long>(-n), static_cast<long long>(n - 1));
    out[i] = v < 0 ? v + n : v;
  }
  return Status::ok();
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
  std::vector<int64_t> idx;
  return read_indices(block, indices, n, axis, idx);
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
  std::vector<int64_t> idx;
  RETURN_IF_ERROR(ops::read_indices(block, *indices, n, axis, idx));
  if (z->length() == 0) return Status::ok();

  NDArray src = *x;
  if (!src.is_c_contiguous()) RETURN_IF_ERROR(x->dup('c', src));
  NDArray dst = *z;
  const bool direct = z->is_c_contiguous() && !z->may_overlap(*x);
  if (!direct) RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', dst));

  ops::GatherDesc g;
  ops::gather_shape(*x, axis, static_cast<int64_t>(idx.size()), g);
  const int64_t outer = g.outer, count = g.count;
  const size_t row_bytes = static_cast<size_t>(g.inner) * src.element_size();
  const char* in = static_cast<const char*>(src.data());
  char* out = static_cast<char*>(dst.data());
  const int64_t grain = std::max<int64_t>(1, 65536 / static_cast<int64_t>(std::max<size_t>(row_bytes, 1)));
  // Rows are read in index order, which the hardware prefetchers cannot
  // predict: the row kAhead places ahead is prefetched (up to 4 lines), so
  // several misses are in flight at once (16M float32 in 256-byte rows of
  // a random permutation: ~20% faster at one thread, no change at two).
  constexpr int64_t kAhead = 8;
  const size_t prefetch_bytes = std::min<size_t>(row_bytes, 256);
  parallel_for(outer * count, grain, [&](int64_t begin, int64_t end) {
    int64_t o = begin / count, j = begin % count;
    for (int64_t r = begin; r < end; ++r) {
      const char* row = in + static_cast<size_t>(o * n) * row_bytes;
      if (j + kAhead < count) {
        const char* next = row + static_cast<size_t>(idx[static_cast<size_t>(j + kAhead)]) * row_bytes;
        for (size_t b = 0; b < prefetch_bytes; b += 64) __builtin_prefetch(next + b);
      }
      const char* from = row + static_cast<size_t>(idx[static_cast<size_t>(j)]) * row_bytes;
      std::memcpy(out + static_cast<size_t>(r) * row_bytes, from, row_bytes);
      if (++j == count) {
        j = 0;
        ++o;
      }
    }
  });
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

DECLARE_ARGS(gather) {
  args.describe("Picks slices of x along an axis by index (numpy.take).");
  args.input("x", "any array, rank >= 1");
  args.input("indices", "int32 or int64, any shape; -n <= index < n for the axis extent n");
  args.output("z", "x.shape[:axis] + indices.shape + x.shape[axis+1:]");
  args.i_arg("axis", 0, "the axis of x to pick along").axis(0);
  args.i_arg("batch_dims", 0, "leading dims x and indices share (TF's gather); the axis must then equal it")
      .range(0, libops::kMaxRank - 1);
}
