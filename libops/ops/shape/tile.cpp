// tile: x repeated reps[d] times along each dim d (numpy.tile with one rep
// per dim, TF's and ONNX's Tile, libnd4j's tile). Output dim d is
// x.dim(d) * reps[d]; reps come as i args or as an integer vector input.
//
// z, dense, is seen as [r0, n0, r1, n1, ...] and x, broadcast, as
// [1, n0, 1, n1, ...]: one broadcasting copy on the call's device. Dims
// whose rep is 1 need no split, so that view fits the rank limit unless
// more than half of a rank-10 array's dims repeat; then the dims are tiled
// one after another through a temporary.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status tile_reps(Context& block, std::vector<int64_t>& reps) {
  const NDArray& x = *block.input(0);
  RETURN_IF_ERROR(block.int_list("reps", reps));
  REQUIRE_TRUE(static_cast<int>(reps.size()) == x.rank(), 0, "reps has %zu values for x%s of rank %d: one per dim",
               reps.size(), x.shape().str().c_str(), x.rank());
  for (size_t d = 0; d < reps.size(); ++d)
    REQUIRE_TRUE(reps[d] >= 0, 0, "reps[%zu] is %lld: it must be >= 0", d, static_cast<long long>(reps[d]));
  return Status::ok();
}

// Copies x tiled by `reps` into z (dense C order, shape x.dim * reps).
Status tile_into(const Context& block, const NDArray& x, const std::vector<int64_t>& reps, NDArray& z) {
  Dims zs, xs, xstrides;
  int split = 0;
  for (int d = 0; d < x.rank(); ++d)
    if (reps[static_cast<size_t>(d)] > 1 && x.dim(d) > 1) ++split;
  if (x.rank() + split <= kMaxRank) {
    for (int d = 0; d < x.rank(); ++d) {
      const int64_t r = reps[static_cast<size_t>(d)];
      if (r > 1 && x.dim(d) > 1) {
        zs.push_back(r);
        xs.push_back(1);
      }
      zs.push_back(r > 1 && x.dim(d) > 1 ? x.dim(d) : x.dim(d) * r);
      xs.push_back(x.dim(d));
    }
    NDArray zv, xv;
    RETURN_IF_ERROR(z.reshape(zs, zv));
    RETURN_IF_ERROR(x.reshape_copy(xs, xv));  // inserting extent-1 dims: a view
    return assign_on_device(block, zv, xv);
  }
  // Too many repeated dims for one view: one dim at a time.
  NDArray cur = x;
  for (int d = 0; d < x.rank(); ++d) {
    const int64_t r = reps[static_cast<size_t>(d)];
    if (r == 1) continue;
    Dims next = cur.shape();
    next[d] *= r;
    NDArray out;
    RETURN_IF_ERROR(NDArray::create(x.dtype(), next, 'c', out));
    for (int64_t k = 0; k < r; ++k) {
      NDArray part;
      RETURN_IF_ERROR(out.slice(d, k * cur.dim(d), (k + 1) * cur.dim(d), 1, part));
      RETURN_IF_ERROR(assign_on_device(block, part, cur));
    }
    cur = out;
  }
  return assign_on_device(block, z, cur);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(tile, -1, 1, false, 0, 0) {
  using namespace libops;
  std::vector<int64_t> reps;
  RETURN_IF_ERROR(ops::tile_reps(block, reps));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  if (z->is_c_contiguous()) return ops::tile_into(block, *INPUT_VARIABLE(0), reps, *z);
  NDArray dense;
  RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', dense));
  RETURN_IF_ERROR(ops::tile_into(block, *INPUT_VARIABLE(0), reps, dense));
  return ops::assign_on_device(block, *z, dense);
}

DECLARE_SHAPE_FN(tile) {
  using namespace libops;
  std::vector<int64_t> reps;
  RETURN_IF_ERROR(ops::tile_reps(block, reps));
  const NDArray* x = INPUT_VARIABLE(0);
  Dims out = x->shape();
  for (int d = 0; d < out.size(); ++d) {
    REQUIRE_TRUE(!__builtin_mul_overflow(out[d], reps[static_cast<size_t>(d)], &out[d]), OPS_ERR_SHAPE,
                 "tiling x%s: dim %d overflows", x->shape().str().c_str(), d);
  }
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(tile) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_PATTERN(tile, kInjective)

DECLARE_ARGS(tile) {
  args.describe("Repeats x along each dim.");
  args.input("x", "any array");
  args.optional_input("reps", "the repeats per dim as an integer vector, instead of i args");
  args.output("z", "x tiled: dim d is x.dim(d) * reps[d]");
  args.i_list("reps", "how many times x repeats along each dim").or_input(1);
}
