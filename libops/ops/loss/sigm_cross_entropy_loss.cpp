// sigm_cross_entropy_loss: libnd4j's (generic/loss/sigmCrossEntropy.cpp) and
// TensorFlow's tf.losses.sigmoid_cross_entropy. Inputs (logits, weights,
// labels), labels of logits' shape; i arg 0 the reduction (Note [Loss
// reduction] in loss_common.h); t arg 0 label smoothing s (libnd4j's calls
// always give it, 0 for none), which moves the labels toward 1/2:
//   labels' = labels * (1 - s) + 0.5 * s
// Per element, the logistic loss in its overflow-free form, x = logits:
//   L = max(x, 0) - x * labels' + log(1 + exp(-|x|))
// libnd4j takes any s (its tests use 5); so does this op.
#include "libops/ops/loss/loss_common.h"

namespace libops::ops {
namespace {

Status sigmoid_cross_entropies(const Context& block, const NDArray& x, const NDArray& y, NDArray& losses) {
  const DataType dt = x.dtype();
  const double s = block.t_arg(0);
  NDArray labels = y;
  if (s != 0) {
    NDArray keep, toward, kept;
    RETURN_IF_ERROR(loss_scalar(block, dt, 1.0 - s, keep));
    RETURN_IF_ERROR(loss_scalar(block, dt, 0.5 * s, toward));
    RETURN_IF_ERROR(run_nested(block, "multiply", {&y, &keep}, {}, kept));
    RETURN_IF_ERROR(run_nested(block, "add", {&kept, &toward}, {}, labels));
  }
  NDArray zero, positive, xy, ax, nax, e, softplus, head;
  RETURN_IF_ERROR(loss_scalar(block, dt, 0.0, zero));
  RETURN_IF_ERROR(run_nested(block, "maximum", {&x, &zero}, {}, positive));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&x, &labels}, {}, xy));
  RETURN_IF_ERROR(run_nested(block, "abs", {&x}, {}, ax));
  RETURN_IF_ERROR(run_nested(block, "neg", {&ax}, {}, nax));
  RETURN_IF_ERROR(run_nested(block, "exp", {&nax}, {}, e));
  RETURN_IF_ERROR(run_nested(block, "log1p", {&e}, {}, softplus));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&positive, &xy}, {}, head));
  return run_nested(block, "add", {&head, &softplus}, {}, losses);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(sigm_cross_entropy_loss, 3, 1, false, 0, 1) {
  return libops::ops::elementwise_loss_run(block, libops::ops::sigmoid_cross_entropies);
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
