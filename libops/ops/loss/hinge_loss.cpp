// hinge_loss: libnd4j's (generic/loss/hingeLoss.cpp) and TensorFlow's
// tf.losses.hinge_loss. Inputs (logits, weights, labels), labels 0 or 1 of
// logits' shape, read as -1 or 1; i arg 0 the reduction (Note [Loss
// reduction] in loss_common.h). Per element:
//   L = max(0, 1 - (2 * labels - 1) * logits)
#include "libops/ops/loss/loss_formula.h"

namespace libops::ops {
namespace {

auto hinge = [](auto x, auto y) { return max(1.0 - (y * 2.0 - 1.0) * x, 0.0); };

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(hinge_loss, 3, 1, false, 0, 1) { return libops::ops::elementwise_loss_run(block, libops::ops::hinge); }
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
