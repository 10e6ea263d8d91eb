// huber_loss: libnd4j's (generic/loss/huberLoss.cpp) and TensorFlow's
// tf.losses.huber_loss. Inputs (predictions, weights, labels), labels of
// predictions' shape; i arg 0 the reduction (Note [Loss reduction] in
// loss_common.h); t arg 0 delta, where the loss turns from quadratic to
// linear. Per element, with d = |predictions - labels| and q = min(d, delta):
//   L = 0.5 * q^2 + delta * (d - q)
// that is 0.5 d^2 up to delta, then delta * (d - delta / 2).
#include "libops/ops/loss/loss_formula.h"

namespace libops::ops {
namespace {

Status huber_losses(Context& block) {
  const double delta = block.t_arg(0);
  return elementwise_loss_run(block, [delta](auto p, auto y) {
    const auto d = abs(p - y);
    const auto q = min(d, delta);
    return square(q) * 0.5 + (d - q) * delta;
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(huber_loss, 3, 1, false, 1, 1) {
  return libops::ops::huber_losses(block);
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
