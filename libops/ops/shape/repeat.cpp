// repeat: each element of x repeated along an axis (numpy.repeat with an
// axis, libnd4j's repeat): one count for every element, or one count per
// position of the axis. i args: the axis, then the counts.
//
// One count r: x seen as [..., n, 1, ...] broadcast into z seen as
// [..., n, r, ...], a single copy. Per-position counts: one broadcast copy
// per position of the axis. Copies run on the call's device.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status repeat_counts(Context& block, int& axis, std::vector<int64_t>& counts) {
  const NDArray& x = *block.input(0);
  const int64_t a = INT_ARG(0);
  axis = static_cast<int>(a < 0 ? a + x.rank() : a);
  RETURN_IF_ERROR(block.int_list("repeats", counts));
  const int64_t n = x.dim(axis);
  REQUIRE_TRUE(counts.size() == 1 || static_cast<int64_t>(counts.size()) == n, 0,
               "repeats has %zu values for axis %d of x%s: one, or one per position (%lld)", counts.size(), axis,
               x.shape().str().c_str(), static_cast<long long>(n));
  for (size_t k = 0; k < counts.size(); ++k)
    REQUIRE_TRUE(counts[k] >= 0, 0, "repeats[%zu] is %lld: it must be >= 0", k, static_cast<long long>(counts[k]));
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(repeat, -1, 1, false, 0, 1) {
  using namespace libops;
  int axis = 0;
  std::vector<int64_t> counts;
  RETURN_IF_ERROR(ops::repeat_counts(block, axis, counts));
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  if (counts.size() == 1 && x.rank() < kMaxRank) {
    Dims zs = x.shape(), xs = x.shape();
    zs[axis] = counts[0];
    xs[axis] = 1;
    Dims zsplit, xsplit;
    for (int d = 0; d < x.rank(); ++d) {
      zsplit.push_back(x.dim(d));
      xsplit.push_back(x.dim(d));
      if (d == axis) {
        zsplit.push_back(counts[0]);
        xsplit.push_back(1);
      }
    }
    NDArray zv, xv;
    if (z->reshape(zsplit, zv).is_ok()) {
      RETURN_IF_ERROR(x.reshape_copy(xsplit, xv));
      return ops::assign_on_device(block, zv, xv);
    }
  }
  int64_t at = 0;
  for (int64_t k = 0; k < x.dim(axis); ++k) {
    const int64_t r = counts.size() == 1 ? counts[0] : counts[static_cast<size_t>(k)];
    NDArray src, dst;
    RETURN_IF_ERROR(x.slice(axis, k, k + 1, 1, src));
    RETURN_IF_ERROR(z->slice(axis, at, at + r, 1, dst));
    if (r > 0) RETURN_IF_ERROR(ops::assign_on_device(block, dst, src));
    at += r;
  }
  return Status::ok();
}

DECLARE_SHAPE_FN(repeat) {
  using namespace libops;
  int axis = 0;
  std::vector<int64_t> counts;
  RETURN_IF_ERROR(ops::repeat_counts(block, axis, counts));
  const NDArray* x = INPUT_VARIABLE(0);
  Dims out = x->shape();
  // Counts come from the caller: their total must not overflow.
  int64_t extent = 0;
  bool overflow = false;
  if (counts.size() == 1) {
    overflow = __builtin_mul_overflow(x->dim(axis), counts[0], &extent);
  } else {
    for (int64_t r : counts) overflow = overflow || __builtin_add_overflow(extent, r, &extent);
  }
  REQUIRE_TRUE(!overflow, OPS_ERR_SHAPE, "repeats would make axis %d of x%s longer than 2^63 - 1", axis,
               x->shape().str().c_str());
  out[axis] = extent;
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(repeat) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_PATTERN(repeat, kInjective)

DECLARE_ARGS(repeat) {
  args.describe("Repeats each element of x along an axis.");
  args.input("x", "any array, rank >= 1");
  args.optional_input("repeats", "the counts as an integer array, instead of i args");
  args.output("z", "x with position k of the axis repeated repeats[k] times");
  args.i_arg("axis", "the axis to repeat along").axis(0);
  args.i_list("repeats", "one count, or one per position of the axis").or_input(1);
}
