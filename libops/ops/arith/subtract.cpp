// subtract: z = x - y with numpy broadcasting and type promotion.
#include "libops/ops/arith/broadcastable.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(subtract, 2, 1, true, 0, 0) { return libops::ops::broadcastable_exec(block, libops::legacy::BinaryOp::subtract); }

DECLARE_SHAPE_FN(subtract) { return libops::ops::broadcastable_shape(block, shapes); }

DECLARE_TYPES(subtract) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_PATTERN(subtract, kBroadcast)

DECLARE_ARGS(subtract) {
  args.describe("Element-wise x - y with broadcasting.");
  libops::ops::broadcastable_args(args, "x - y, in the promoted dtype of x and y");
}
