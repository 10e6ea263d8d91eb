// relu6: z = min(max(x, 0), 6), the ReLU capped at 6 (MobileNet's
// activation).
//
//   input   x: any numeric dtype, any shape and strides
//   output  x's dtype and shape; may run in place
//
// NaN stays NaN, as in PyTorch's relu6. Computed by the legacy transform
// "relu6" row, on whichever device the call names.
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(relu6, 1, 1, true, 0, 0) {
  using namespace libops;
  NDArray src = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  // A supplied output overlapping x in another layout would be read after
  // being written: work from a copy then.
  if (z->may_overlap(src) && !z->same_view(src)) {
    RETURN_IF_ERROR(src.buffer()->sync_to_host());  // dup copies on the host
    RETURN_IF_ERROR(INPUT_VARIABLE(0)->dup('c', src));
  }
  legacy::LegacyCall call;
  call.group = OPS_TRANSFORM_SAME;
  call.num = static_cast<int>(legacy::TransformSameOp::relu6);
  call.x = &src;
  call.z = z;
  call.device = block.device();
  Status s = legacy::exec(call);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

DECLARE_SHAPE_FN(relu6) {
  using namespace libops;
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(relu6) {
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kNumeric);
}

DECLARE_PATTERN(relu6, kElementwise)

DECLARE_ARGS(relu6) {
  args.describe("ReLU capped at 6.");
  args.input("x", "any numeric array");
  args.output("z", "min(max(x, 0), 6); NaN stays NaN");
}
