// clip_by_norm and clip_by_avg_norm: x rescaled so that its Euclidean norm
// (over axes; none: all of x) is at most clip_norm, TF's clip_by_norm and
// libnd4j's clipbynorm / clipbyavgnorm:
//   z = x * clip_norm / max(norm, clip_norm)
// where norm = sqrt(sum x^2) over the axes, and for the average form that
// norm divided by the number of elements it covers. A slice of norm 0 stays
// as it is (no NaN). The norm is reduce_norm2 on the call's device; the
// scaling is one formula (Note [Op formulas]): on the CPU one pass from x
// into z, elsewhere maximum, divide and multiply.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/formula.h"

namespace libops::ops {
namespace {

Status run_clip_by_norm(Context& block, bool average) {
  const NDArray& x = *block.input(0);
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  std::vector<int64_t> axes;
  RETURN_IF_ERROR(block.int_list("axes", axes));
  NDArray norm;
  RETURN_IF_ERROR(run_nested(block, "reduce_norm2", {&x}, {.i = axes, .b = {true}}, norm));
  const double clip = block.t_arg(0);
  if (!average) return formula_into(block, *z, x, norm, [clip](auto v, auto n) { return v * (clip / max(n, clip)); });
  // The norm per element it covers.
  const double covered = static_cast<double>(norm.length() == 0 ? 1 : x.length() / norm.length());
  return formula_into(block, *z, x, norm,
                      [clip, covered](auto v, auto n) { return v * (clip / max(n / covered, clip)); });
}

Status clip_by_norm_shape(Context& block, ShapeList& shapes) {
  const NDArray* x = block.input(0);
  shapes.push_back(TensorShape{x->dtype(), x->shape(), 'c'});
  return Status::ok();
}

void clip_by_norm_args(OpSignature& args, const char* what, const char* norm) {
  args.describe(what);
  args.input("x", "float array");
  args.output("z", "x's shape and dtype");
  args.t_arg("clip_norm", norm).positive().finite();
  args.i_list("axes", "the axes each norm covers (none: all of x)").axis(0).unique_values();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(clip_by_norm, 1, 1, false, 0, 0) { return libops::ops::run_clip_by_norm(block, false); }
DECLARE_SHAPE_FN(clip_by_norm) { return libops::ops::clip_by_norm_shape(block, shapes); }
DECLARE_TYPES(clip_by_norm) {
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(clip_by_norm) {
  libops::ops::clip_by_norm_args(args, "x scaled so that its L2 norm over axes is at most clip_norm.",
                                 "the largest norm left unscaled");
}
DECLARE_SYN(clipbynorm, clip_by_norm)  // libnd4j's name

CUSTOM_OP_IMPL(clip_by_avg_norm, 1, 1, false, 0, 0) { return libops::ops::run_clip_by_norm(block, true); }
DECLARE_SHAPE_FN(clip_by_avg_norm) { return libops::ops::clip_by_norm_shape(block, shapes); }
DECLARE_TYPES(clip_by_avg_norm) { descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device(); }
DECLARE_ARGS(clip_by_avg_norm) {
  libops::ops::clip_by_norm_args(args, "x scaled so that its L2 norm over axes, divided by the elements it covers, "
                                       "is at most clip_norm.",
                                 "the largest average norm left unscaled");
}
DECLARE_SYN(clipbyavgnorm, clip_by_avg_norm)  // libnd4j's name
