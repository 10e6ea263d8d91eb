// multiply: z = x * y with numpy broadcasting and type promotion.
#include "libops/ops/arith/broadcastable.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(multiply, 2, 1, true, 0, 0) { return libops::ops::broadcastable_exec(block, libops::legacy::BinaryOp::multiply); }

DECLARE_SHAPE_FN(multiply) { return libops::ops::broadcastable_shape(block, shapes); }

DECLARE_TYPES(multiply) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_PATTERN(multiply, kBroadcast)

DECLARE_ARGS(multiply) {
  args.describe("Element-wise x * y with broadcasting.");
  libops::ops::broadcastable_args(args, "x * y, in the promoted dtype of x and y");
}
