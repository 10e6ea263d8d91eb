// log_loss: libnd4j's (generic/loss/logLoss.cpp) and TensorFlow's
// tf.losses.log_loss. Inputs (predictions, weights, labels), labels of
// predictions' shape, predictions probabilities in [0, 1]; i arg 0 the
// reduction (Note [Loss reduction] in loss_common.h); t arg 0 epsilon,
// which keeps the logs finite (libnd4j's calls always give it; TensorFlow's
// default 1e-7 when they do not). Per element, as libnd4j:
//   L = -labels * log(p + epsilon) - (1 - labels) * log(1 - p + epsilon)
#include "libops/ops/loss/loss_formula.h"

namespace libops::ops {
namespace {

Status log_losses(Context& block) {
  const double eps = block.t_arg(0);
  return elementwise_loss_run(block, [eps](auto p, auto y) {
    return -(y * log(p + eps) + (1.0 - y) * log((1.0 + eps) - p));
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(log_loss, 3, 1, false, 0, 1) { return libops::ops::log_losses(block); }
DECLARE_SHAPE_FN(log_loss) { return libops::ops::elementwise_loss_shape(block, "predictions", shapes); }
DECLARE_TYPES(log_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(log_loss) {
  args.describe("Weighted binary cross-entropy of probabilities, reduced (libnd4j's log_loss).");
  libops::ops::loss_weighted_io(args, "predictions", "probabilities in [0, 1]",
                                "the true values (0 or 1, or in between), predictions' shape");
  libops::ops::loss_reduction_arg(args);
  args.t_arg("epsilon", 1e-7, "added inside each log, keeping it finite").at_least(0).finite();
}
