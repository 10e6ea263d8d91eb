// add: z = x + y with numpy broadcasting and type promotion.
#include "libops/ops/arith/broadcastable.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(add, 2, 1, true, 0, 0) { return libops::ops::broadcastable_exec(block, libops::legacy::BinaryOp::add); }

DECLARE_SHAPE_FN(add) { return libops::ops::broadcastable_shape(block, shapes); }

DECLARE_TYPES(add) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_PATTERN(add, kBroadcast)

DECLARE_ARGS(add) {
  args.describe("Element-wise x + y with broadcasting.");
  libops::ops::broadcastable_args(args, "x + y, in the promoted dtype of x and y");
}
