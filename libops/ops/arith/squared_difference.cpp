// squared_difference: z = (x - y)^2 with numpy broadcasting and type
// promotion (TensorFlow's SquaredDifference). Also the worked example in
// the README: a whole op in one file.
#include "libops/ops/arith/broadcastable.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(squared_difference, 2, 1, true, 0, 0) {
  return libops::ops::broadcastable_exec(block, libops::legacy::BinaryOp::squared_subtract);
}

DECLARE_SHAPE_FN(squared_difference) { return libops::ops::broadcastable_shape(block, shapes); }

DECLARE_TYPES(squared_difference) { descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device(); }

DECLARE_PATTERN(squared_difference, kBroadcast)

DECLARE_ARGS(squared_difference) {
  args.describe("Element-wise (x - y)^2 with broadcasting.");
  libops::ops::broadcastable_args(args, "(x - y)^2, in the promoted dtype of x and y");
}
