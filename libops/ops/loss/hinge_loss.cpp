// hinge_loss: libnd4j's (generic/loss/hingeLoss.cpp) and TensorFlow's
// tf.losses.hinge_loss. Inputs (logits, weights, labels), labels 0 or 1 of
// logits' shape, read as -1 or 1; i arg 0 the reduction (Note [Loss
// reduction] in loss_common.h). Per element:
//   L = max(0, 1 - (2 * labels - 1) * logits)
#include "libops/ops/loss/loss_common.h"

namespace libops::ops {
namespace {

Status hinge_losses(const Context& block, const NDArray& x, const NDArray& y, NDArray& losses) {
  const DataType dt = x.dtype();
  NDArray one, two, zero, y2, sign, margin, slack;
  RETURN_IF_ERROR(loss_scalar(block, dt, 1.0, one));
  RETURN_IF_ERROR(loss_scalar(block, dt, 2.0, two));
  RETURN_IF_ERROR(loss_scalar(block, dt, 0.0, zero));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&y, &two}, {}, y2));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&y2, &one}, {}, sign));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&sign, &x}, {}, margin));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&one, &margin}, {}, slack));
  return run_nested(block, "maximum", {&slack, &zero}, {}, losses);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(hinge_loss, 3, 1, false, 0, 1) { return libops::ops::elementwise_loss_run(block, libops::ops::hinge_losses); }
DECLARE_SHAPE_FN(hinge_loss) { return libops::ops::elementwise_loss_shape(block, "logits", shapes); }
DECLARE_TYPES(hinge_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(hinge_loss) {
  args.describe("Weighted hinge loss max(0, 1 - (2 labels - 1) logits), reduced (libnd4j's hinge_loss).");
  libops::ops::loss_weighted_io(args, "logits", "the scores", "0 or 1 (read as -1 or 1), logits' shape");
  libops::ops::loss_reduction_arg(args);
}
