// softmax_cross_entropy_loss_with_logits: libnd4j's
// (generic/loss/softmaxCrossEntropyWithLogits.cpp) and TensorFlow's
// tf.nn.softmax_cross_entropy_with_logits: unweighted, unreduced. Inputs
// (logits, labels) of one shape; i arg 0 classes_dim, the classes axis
// (default the last). Per slice along it:
//   z = -sum(labels * log_softmax(logits), classes_dim)
// of logits' shape less that axis.
#include "libops/ops/loss/loss_common.h"

#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

Status softmax_cross_entropy_with_logits_run(Context& block) {
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  const DataType dt = z->dtype();
  const int64_t axis = block.i_arg(0);
  NDArray x, labels, log_p, terms, sum, losses;
  RETURN_IF_ERROR(loss_as_dtype(block, *block.input(0), dt, x));
  RETURN_IF_ERROR(loss_as_dtype(block, *block.input(1), dt, labels));
  RETURN_IF_ERROR(run_nested(block, "log_softmax", {&x}, {.i = {axis}}, log_p));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&labels, &log_p}, {}, terms));
  RETURN_IF_ERROR(run_nested(block, "reduce_sum", {&terms}, {.i = {axis}}, sum));
  RETURN_IF_ERROR(run_nested(block, "neg", {&sum}, {}, losses));
  return assign_on_device(block, *z, losses);
}

Status softmax_cross_entropy_with_logits_shape(Context& block, ShapeList& shapes) {
  const NDArray& logits = *block.input(0);
  REQUIRE_TRUE(block.input(1)->shape() == logits.shape(), OPS_ERR_SHAPE, "labels%s must have logits%s's shape",
               block.input(1)->shape().str().c_str(), logits.shape().str().c_str());
  const int64_t axis = block.i_arg(0) < 0 ? block.i_arg(0) + logits.rank() : block.i_arg(0);
  Dims out;
  for (int d = 0; d < logits.rank(); ++d)
    if (d != axis) out.push_back(logits.dim(d));
  shapes.push_back(TensorShape{float_result_type(logits.dtype()), out, 'c'});
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(softmax_cross_entropy_loss_with_logits, 2, 1, false, 0, 0) {
  return libops::ops::softmax_cross_entropy_with_logits_run(block);
}
DECLARE_SHAPE_FN(softmax_cross_entropy_loss_with_logits) {
  return libops::ops::softmax_cross_entropy_with_logits_shape(block, shapes);
}
DECLARE_TYPES(softmax_cross_entropy_loss_with_logits) {
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();  // nested ops on the call's device
  descriptor.allow_outputs(libops::types::kFloat);
}
DECLARE_ARGS(softmax_cross_entropy_loss_with_logits) {
  args.describe("Softmax cross-entropy -sum(labels * log_softmax(logits)) along the classes axis (libnd4j's and "
                "TensorFlow's softmax_cross_entropy_with_logits).");
  args.input("logits", "the scores");
  args.input("labels", "the class probabilities (one-hot or not), logits' shape");
  args.output("z", "the losses, logits' shape less the classes axis, in logits' float dtype");
  args.i_arg("classes_dim", -1, "the axis that holds the classes").axis(0);
}
