// softmax_cross_entropy_loss: libnd4j's (generic/loss/softmaxCrossEntropy.cpp)
// and TensorFlow's tf.losses.softmax_cross_entropy. Inputs (logits, weights,
// labels), labels (one-hot, or any distribution; integers allowed) of
// logits' shape, the classes along the last axis; i arg 0 the reduction
// (Note [Loss reduction] in loss_common.h); t arg 0 label smoothing s
// (libnd4j's calls always give it, 0 for none), which moves the labels
// toward 1 / C for C classes:
//   labels' = labels * (1 - s) + s / C
//   L = -sum(labels' * log_softmax(logits), last axis)
// The losses have logits' shape less the last axis; weights broadcast
// against that, or keep the classes axis as extent 1 ([batch, 1] for
// [batch, C] logits, as libnd4j's tests give them).
// Where libnd4j differs: it takes C = labels.dim(1), the classes only for
// rank 2 (its test with [2, 3, 4] logits and s = 5 expects s / 3), and so
// refuses smoothing for rank 1; this op takes the last axis at every rank.
#include "libops/ops/loss/loss_common.h"

namespace libops::ops {
namespace {

LossShape softmax_loss_shape(const NDArray& logits) {
  LossShape shape;
  for (int d = 0; d + 1 < logits.rank(); ++d) shape.loss.push_back(logits.dim(d));
  shape.dropped.push_back(logits.rank() - 1);
  return shape;
}

Status softmax_cross_entropies(Context& block) {
  const NDArray& logits = *block.input(0);
  const DataType dt = block.output(0)->dtype();
  const double s = block.t_arg(0);
  NDArray x, labels;
  RETURN_IF_ERROR(loss_as_dtype(block, logits, dt, x));
  RETURN_IF_ERROR(loss_as_dtype(block, *block.input(2), dt, labels));
  if (s != 0) {
    NDArray keep, toward, kept, smoothed;
    RETURN_IF_ERROR(loss_scalar(block, dt, 1.0 - s, keep));
    RETURN_IF_ERROR(loss_scalar(block, dt, s / static_cast<double>(logits.dim(logits.rank() - 1)), toward));
    RETURN_IF_ERROR(run_nested(block, "multiply", {&labels, &keep}, {}, kept));
    RETURN_IF_ERROR(run_nested(block, "add", {&kept, &toward}, {}, smoothed));
    labels = smoothed;
  }
  NDArray log_p, terms, sum, losses;
  RETURN_IF_ERROR(run_nested(block, "log_softmax", {&x}, {.i = {-1}}, log_p));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&labels, &log_p}, {}, terms));
  RETURN_IF_ERROR(run_nested(block, "reduce_sum", {&terms}, {.i = {-1}}, sum));
  RETURN_IF_ERROR(run_nested(block, "neg", {&sum}, {}, losses));
  return loss_reduce_into(block, losses, softmax_loss_shape(logits));
}

Status softmax_cross_entropy_shape(Context& block, ShapeList& shapes) {
  const NDArray& logits = *block.input(0);
  RETURN_IF_ERROR(loss_check_same_shape(block, *block.input(2), "logits"));
  REQUIRE_TRUE(logits.rank() >= 1, OPS_ERR_SHAPE, "logits%s must have rank >= 1: the last axis holds the classes",
               logits.shape().str().c_str());
  const LossShape shape = softmax_loss_shape(logits);
  RETURN_IF_ERROR(loss_check_weights(block, shape));
  loss_output_shape(block, shape, shapes);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(softmax_cross_entropy_loss, 3, 1, false, 0, 1) { return libops::ops::softmax_cross_entropies(block); }
DECLARE_SHAPE_FN(softmax_cross_entropy_loss) { return libops::ops::softmax_cross_entropy_shape(block, shapes); }
DECLARE_TYPES(softmax_cross_entropy_loss) {
  libops::ops::loss_weighted_types(descriptor, true);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(softmax_cross_entropy_loss) {
  args.describe("Weighted softmax cross-entropy over the last axis, reduced (libnd4j's softmax_cross_entropy_loss).");
  libops::ops::loss_weighted_io(args, "logits", "the scores, classes along the last axis",
                                "the class probabilities (one-hot or not), logits' shape");
  libops::ops::loss_reduction_arg(args);
  args.t_arg("label_smoothing", 0.0, "s: labels become labels * (1 - s) + s / classes").finite();
}
