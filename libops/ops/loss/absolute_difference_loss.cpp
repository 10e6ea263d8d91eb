// absolute_difference_loss: libnd4j's (generic/loss/absoluteDifference.cpp)
// and TensorFlow's tf.losses.absolute_difference. Inputs (predictions,
// weights, labels), labels of predictions' shape; i arg 0 the reduction
// (Note [Loss reduction] in loss_common.h). Per element:
//   L = |predictions - labels|
#include "libops/ops/loss/loss_formula.h"

namespace libops::ops {
namespace {

auto absolute_difference = [](auto p, auto y) { return abs(p - y); };

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(absolute_difference_loss, 3, 1, false, 0, 1) {
  return libops::ops::elementwise_loss_run(block, libops::ops::absolute_difference);
}
DECLARE_SHAPE_FN(absolute_difference_loss) {
  return libops::ops::elementwise_loss_shape(block, "predictions", shapes);
}
DECLARE_TYPES(absolute_difference_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(absolute_difference_loss) {
  args.describe("Weighted |predictions - labels|, reduced (libnd4j's absolute_difference_loss).");
  libops::ops::loss_weighted_io(args, "predictions", "the predicted values", "the true values, predictions' shape");
  libops::ops::loss_reduction_arg(args);
}
