// zeros_like and ones_like: an array of x's shape filled with 0 or 1, in
// x's dtype or the one d arg 0 names.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

Status fill_with(const Context& block, double v) {
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  NDArray value;
  RETURN_IF_ERROR(NDArray::scalar(z->dtype(), v, value));
  return assign_on_device(block, *z, value);
}

Status like_shape(Context& block, ShapeList& shapes) {
  const NDArray* x = block.input(0);
  const DataType t = block.d_arg(0) == DataType::kInvalid ? x->dtype() : block.d_arg(0);
  shapes.push_back(TensorShape{t, x->shape(), 'c'});
  return Status::ok();
}

void like_args(OpSignature& args, const char* what) {
  args.input("x", "any array; only its shape and dtype are read");
  args.output("z", what);
  args.d_arg("dtype", DataType::kInvalid, "z's dtype; none = x's");
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(zeros_like, 1, 1, false, 0, 0) { return libops::ops::fill_with(block, 0.0); }
DECLARE_SHAPE_FN(zeros_like) { return libops::ops::like_shape(block, shapes); }
DECLARE_TYPES(zeros_like) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }
DECLARE_ARGS(zeros_like) {
  args.describe("Zeros in x's shape.");
  libops::ops::like_args(args, "zeros of x's shape");
}

CUSTOM_OP_IMPL(ones_like, 1, 1, false, 0, 0) { return libops::ops::fill_with(block, 1.0); }
DECLARE_SHAPE_FN(ones_like) { return libops::ops::like_shape(block, shapes); }
DECLARE_TYPES(ones_like) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }
DECLARE_ARGS(ones_like) {
  args.describe("Ones in x's shape.");
  libops::ops::like_args(args, "ones of x's shape");
}
