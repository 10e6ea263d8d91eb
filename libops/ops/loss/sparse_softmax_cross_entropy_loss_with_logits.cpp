// sparse_softmax_cross_entropy_loss_with_logits: libnd4j's
// (generic/loss/sparseSoftmaxCrossEntropyWithLogits.cpp) and TensorFlow's
// tf.nn.sparse_softmax_cross_entropy_with_logits. Inputs (labels, logits):
// labels first, as libnd4j. labels are integer class indices of logits'
// shape less the last axis, which holds the C classes. Per example:
//   z = -log_softmax(logits)[labels]
// A label outside [0, C) is an error naming it (libnd4j reads past the row;
// TensorFlow's CPU kernel refuses it too).
#include "libops/ops/loss/loss_common.h"

#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

Status sparse_softmax_cross_entropy_run(Context& block) {
  const NDArray& labels = *block.input(0);
  const NDArray& logits = *block.input(1);
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  NDArray checked, index, log_p, picked, picked_flat, losses;
  RETURN_IF_ERROR(checked_int64_on_host(block, labels, "labels", "a class", 0, logits.dim(logits.rank() - 1), checked));
  Dims index_shape = labels.shape();
  index_shape.push_back(1);
  RETURN_IF_ERROR(with_op_name(block, checked.reshape(index_shape, index)));
  RETURN_IF_ERROR(run_nested(block, "log_softmax", {&logits}, {.i = {-1}}, log_p));
  RETURN_IF_ERROR(run_nested(block, "gather_elements", {&log_p, &index}, {.i = {-1}}, picked));
  RETURN_IF_ERROR(with_op_name(block, picked.reshape(labels.shape(), picked_flat)));
  RETURN_IF_ERROR(run_nested(block, "neg", {&picked_flat}, {}, losses));
  return assign_on_device(block, *z, losses);
}

Status sparse_softmax_cross_entropy_shape(Context& block, ShapeList& shapes) {
  const NDArray& labels = *block.input(0);
  const NDArray& logits = *block.input(1);
  Dims want;
  for (int d = 0; d + 1 < logits.rank(); ++d) want.push_back(logits.dim(d));
  REQUIRE_TRUE(logits.rank() >= 1 && labels.shape() == want, OPS_ERR_SHAPE,
               "labels%s must have logits%s's shape less the last axis (the classes)", labels.shape().str().c_str(),
               logits.shape().str().c_str());
  shapes.push_back(TensorShape{logits.dtype(), labels.shape(), 'c'});
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(sparse_softmax_cross_entropy_loss_with_logits, 2, 1, false, 0, 0) {
  return libops::ops::sparse_softmax_cross_entropy_run(block);
}
DECLARE_SHAPE_FN(sparse_softmax_cross_entropy_loss_with_logits) {
  return libops::ops::sparse_softmax_cross_entropy_shape(block, shapes);
}
DECLARE_TYPES(sparse_softmax_cross_entropy_loss_with_logits) {
  // Nested ops on the call's device; the labels are checked on the host first.
  descriptor.allow_input(0, libops::types::kInt).allow_input(1, libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}
DECLARE_ARGS(sparse_softmax_cross_entropy_loss_with_logits) {
  args.describe("Softmax cross-entropy -log_softmax(logits)[labels] of class indices (libnd4j's and TensorFlow's "
                "sparse_softmax_cross_entropy_with_logits).");
  args.input("labels", "class indices in [0, C), logits' shape less the last axis");
  args.input("logits", "the scores, the C classes along the last axis");
  args.output("z", "the losses, labels' shape, logits' dtype");
}
