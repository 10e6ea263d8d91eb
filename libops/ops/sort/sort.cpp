// sort and argsort: x's values along an axis in order, and the positions
// they came from (numpy.sort / argsort with kind="stable", Nx's sort). The
// order is Note [Sort order] in sort.h: stable, ascending or descending,
// NaN last either way. argsort's indices are int64.
#include "libops/ops/sort/sort_call.h"

namespace libops::ops {
namespace {

Status sort_op(Context& block, bool want_values) {
  const NDArray& x = *block.input(0);
  const int axis = static_cast<int>(block.i_arg(0) < 0 ? block.i_arg(0) + x.rank() : block.i_arg(0));
  SortDesc d;
  d.descending = block.b_arg(0);
  d.k = x.rank() == 0 ? 1 : x.dim(axis);
  d.zeros_equal = !want_values;
  NDArray* z = block.output(0);
  return sort_along(block, x, x.rank() == 0 ? 0 : axis, d, want_values ? z : nullptr, want_values ? nullptr : z);
}

void sort_signature(OpSignature& args, const char* result) {
  args.input("x", "numeric or bool array");
  args.output("z", result);
  args.i_arg("axis", -1, "the axis to sort along").axis(0);
  args.b_arg("descending", false, "largest first (NaN still last)");
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(sort, 1, 1, false, 0, 0) { return libops::ops::sort_op(block, true); }

DECLARE_SHAPE_FN(sort) {
  const libops::NDArray* x = INPUT_VARIABLE(0);
  shapes.push_back(libops::TensorShape{x->dtype(), x->shape(), 'c'});
  return libops::Status::ok();
}

DECLARE_TYPES(sort) {
  // On a device through the backend's sort kernel (sort_rows.cu).
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(sort) {
  args.describe("Sorts x along an axis: stable, NaN last.");
  libops::ops::sort_signature(args, "x's values in order along the axis");
}

CUSTOM_OP_IMPL(argsort, 1, 1, false, 0, 0) { return libops::ops::sort_op(block, false); }

DECLARE_SHAPE_FN(argsort) {
  const libops::NDArray* x = INPUT_VARIABLE(0);
  shapes.push_back(libops::TensorShape{libops::DataType::kInt64, x->shape(), 'c'});
  return libops::Status::ok();
}

DECLARE_TYPES(argsort) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(argsort) {
  args.describe("The positions that sort x along an axis: stable, NaN last.");
  libops::ops::sort_signature(args, "int64 positions along the axis, in sorted order");
}
