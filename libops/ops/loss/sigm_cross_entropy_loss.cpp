// sigm_cross_entropy_loss: libnd4j's (generic/loss/sigmCrossEntropy.cpp) and
// TensorFlow's tf.losses.sigmoid_cross_entropy. Inputs (logits, weights,
// labels), labels of logits' shape; i arg 0 the reduction (Note [Loss
// reduction] in loss_common.h); t arg 0 label smoothing s (libnd4j's calls
// always give it, 0 for none), which moves the labels toward 1/2:
//   labels' = labels * (1 - s) + 0.5 * s
// Per element, the logistic loss in its overflow-free form, x = logits:
//   L = max(x, 0) - x * labels' + log(1 + exp(-|x|))
// libnd4j takes any s (its tests use 5); so does this op.
#include "libops/ops/loss/loss_formula.h"

namespace libops::ops {
namespace {

// max(x, 0) - x * labels + log(1 + e^-|x|), labels smoothed toward 1/2 by s.
Status sigmoid_cross_entropies(Context& block) {
  const double s = block.t_arg(0);
  auto entropy = [](auto x, auto labels) { return (max(x, 0.0) - x * labels) + log1p(exp(-abs(x))); };
  if (s == 0) return elementwise_loss_run(block, entropy);
  return elementwise_loss_run(block, [s, entropy](auto x, auto y) { return entropy(x, y * (1.0 - s) + 0.5 * s); });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(sigm_cross_entropy_loss, 3, 1, false, 0, 1) {
  return libops::ops::sigmoid_cross_entropies(block);
}
DECLARE_SHAPE_FN(sigm_cross_entropy_loss) { return libops::ops::elementwise_loss_shape(block, "logits", shapes); }
DECLARE_TYPES(sigm_cross_entropy_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(sigm_cross_entropy_loss) {
  args.describe("Weighted sigmoid cross-entropy of logits against 0/1 labels, reduced (libnd4j's "
                "sigm_cross_entropy_loss).");
  libops::ops::loss_weighted_io(args, "logits", "the scores", "0 or 1 (or in between), logits' shape");
  libops::ops::loss_reduction_arg(args);
  args.t_arg("label_smoothing", 0.0, "s: labels become labels * (1 - s) + s / 2").finite();
}
