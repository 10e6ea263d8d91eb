// cosine_distance_loss: libnd4j's (generic/loss/cosineDistance.cpp) and
// TensorFlow's tf.losses.cosine_distance. Inputs (predictions, weights,
// labels) of one shape, both expected unit-normalized along dim (neither
// libnd4j nor this op normalizes); i arg 0 the reduction (Note [Loss
// reduction] in loss_common.h); i arg 1 dim. Per slice along dim:
//   L = 1 - sum(predictions * labels, dim), dim kept as extent 1
// so the losses (and weights) have the labels' rank. For reduction 3
// libnd4j's forward op counts the nonzero weighted losses where its other
// losses, and its own gradient, count the nonzero weights; this op counts
// the weights, as Note [Loss reduction] says.
#include "libops/ops/loss/loss_common.h"

namespace libops::ops {
namespace {

LossShape cosine_shape(const Context& block) {
  const NDArray& labels = *block.input(2);
  const int64_t dim = block.i_arg(1) < 0 ? block.i_arg(1) + labels.rank() : block.i_arg(1);
  LossShape shape{labels.shape(), {}};
  shape.loss[static_cast<int>(dim)] = 1;
  return shape;
}

Status cosine_distances(Context& block) {
  const DataType dt = block.output(0)->dtype();
  NDArray p, y, products, dots, one, losses;
  RETURN_IF_ERROR(loss_as_dtype(block, *block.input(0), dt, p));
  RETURN_IF_ERROR(loss_as_dtype(block, *block.input(2), dt, y));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&p, &y}, {}, products));
  RETURN_IF_ERROR(run_nested(block, "reduce_sum", {&products}, {.i = {block.i_arg(1)}, .b = {true}}, dots));
  RETURN_IF_ERROR(loss_scalar(block, dt, 1.0, one));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&one, &dots}, {}, losses));
  return loss_reduce_into(block, losses, cosine_shape(block));
}

Status cosine_distance_shape(Context& block, ShapeList& shapes) {
  RETURN_IF_ERROR(loss_check_same_shape(block, *block.input(2), "predictions"));
  const LossShape shape = cosine_shape(block);
  RETURN_IF_ERROR(loss_check_weights(block, shape));
  loss_output_shape(block, shape, shapes);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(cosine_distance_loss, 3, 1, false, 0, 2) { return libops::ops::cosine_distances(block); }
DECLARE_SHAPE_FN(cosine_distance_loss) { return libops::ops::cosine_distance_shape(block, shapes); }
DECLARE_TYPES(cosine_distance_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(cosine_distance_loss) {
  args.describe("Weighted cosine distance 1 - sum(predictions * labels) along dim of unit vectors, reduced "
                "(libnd4j's cosine_distance_loss).");
  libops::ops::loss_weighted_io(args, "predictions", "unit vectors along dim",
                                "unit vectors along dim, predictions' shape");
  libops::ops::loss_reduction_arg(args);
  args.i_arg("dim", "the axis the vectors lie along; the losses keep it as extent 1").axis(0);
}
