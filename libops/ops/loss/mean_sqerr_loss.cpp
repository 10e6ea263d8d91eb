// mean_sqerr_loss: libnd4j's (generic/loss/meanSqErr.cpp) and TensorFlow's
// tf.losses.mean_squared_error. Inputs (predictions, weights, labels),
// labels of predictions' shape; i arg 0 the reduction (Note [Loss
// reduction] in loss_common.h). Per element:
//   L = (predictions - labels)^2
// The "mean" is the reduction's: reduction 0 or 1 gives no mean at all.
#include "libops/ops/loss/loss_formula.h"

namespace libops::ops {
namespace {

auto squared_error = [](auto p, auto y) { return square(p - y); };

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(mean_sqerr_loss, 3, 1, false, 0, 1) {
  return libops::ops::elementwise_loss_run(block, libops::ops::squared_error);
}
DECLARE_SHAPE_FN(mean_sqerr_loss) { return libops::ops::elementwise_loss_shape(block, "predictions", shapes); }
DECLARE_TYPES(mean_sqerr_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(mean_sqerr_loss) {
  args.describe("Weighted (predictions - labels)^2, reduced (libnd4j's mean_sqerr_loss).");
  libops::ops::loss_weighted_io(args, "predictions", "the predicted values", "the true values, predictions' shape");
  libops::ops::loss_reduction_arg(args);
}
