// l2_loss: libnd4j's (generic/loss/l2_loss.cpp) and TensorFlow's
// tf.nn.l2_loss: half the sum of squares of every element, a scalar,
//   z = sum(x^2) / 2
// in x's float dtype (libnd4j keeps x's dtype; integers give float32 here).
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {
namespace {

Status half_squared_norm(Context& block) {
  NDArray* z = block.output(0);
  NDArray squares, half, halved;
  RETURN_IF_ERROR(run_nested(block, "reduce_sqnorm", {block.input(0)}, {}, squares));
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(squares.dtype(), 0.5, half)));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&squares, &half}, {}, halved));
  return assign_on_device(block, *z, halved);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(l2_loss, 1, 1, false, 0, 0) { return libops::ops::half_squared_norm(block); }
DECLARE_SHAPE_FN(l2_loss) {
  shapes.push_back(libops::TensorShape{libops::float_result_type(INPUT_VARIABLE(0)->dtype()), libops::Dims{}, 'c'});
  return libops::Status::ok();
}
DECLARE_TYPES(l2_loss) {
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();  // nested ops on the call's device
  descriptor.allow_outputs(libops::types::kFloat);
}
DECLARE_ARGS(l2_loss) {
  args.describe("Half the sum of squares of x, sum(x^2) / 2 (libnd4j's and TensorFlow's l2_loss).");
  args.input("x", "any array");
  args.output("z", "a scalar in x's float dtype");
}
