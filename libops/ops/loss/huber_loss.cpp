// huber_loss: libnd4j's (generic/loss/huberLoss.cpp) and TensorFlow's
// tf.losses.huber_loss. Inputs (predictions, weights, labels), labels of
// predictions' shape; i arg 0 the reduction (Note [Loss reduction] in
// loss_common.h); t arg 0 delta, where the loss turns from quadratic to
// linear. Per element, with d = |predictions - labels| and q = min(d, delta):
//   L = 0.5 * q^2 + delta * (d - q)
// that is 0.5 d^2 up to delta, then delta * (d - delta / 2).
#include "libops/ops/loss/loss_common.h"

namespace libops::ops {
namespace {

Status huber_losses(const Context& block, const NDArray& p, const NDArray& y, NDArray& losses) {
  const DataType dt = p.dtype();
  NDArray diff, d, delta, half, q, q2, quadratic, beyond, linear;
  RETURN_IF_ERROR(loss_scalar(block, dt, block.t_arg(0), delta));
  RETURN_IF_ERROR(loss_scalar(block, dt, 0.5, half));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&p, &y}, {}, diff));
  RETURN_IF_ERROR(run_nested(block, "abs", {&diff}, {}, d));
  RETURN_IF_ERROR(run_nested(block, "minimum", {&d, &delta}, {}, q));
  RETURN_IF_ERROR(run_nested(block, "square", {&q}, {}, q2));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&q2, &half}, {}, quadratic));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&d, &q}, {}, beyond));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&beyond, &delta}, {}, linear));
  return run_nested(block, "add", {&quadratic, &linear}, {}, losses);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(huber_loss, 3, 1, false, 1, 1) {
  return libops::ops::elementwise_loss_run(block, libops::ops::huber_losses);
}
DECLARE_SHAPE_FN(huber_loss) { return libops::ops::elementwise_loss_shape(block, "predictions", shapes); }
DECLARE_TYPES(huber_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(huber_loss) {
  args.describe("Weighted Huber loss of predictions - labels, reduced (libnd4j's huber_loss).");
  libops::ops::loss_weighted_io(args, "predictions", "the predicted values", "the true values, predictions' shape");
  libops::ops::loss_reduction_arg(args);
  args.t_arg("delta", "where the loss turns from quadratic to linear").at_least(0).finite();
}
