// mean_pairwssqerr_loss: libnd4j's (generic/loss/meanPairWsSqErr.cpp), the
// mean pairwise squared error. Inputs (predictions, weights, labels) of one
// shape, dim 0 the batch; i arg 0 the reduction (Note [Loss reduction] in
// loss_common.h). Per batch row b, with d = predictions - labels over the
// row's n elements, libnd4j's definition (after Wei et al., CVPR 2018): the
// sum over ordered pairs i != j of (d_i - d_j)^2 divided by n (n - 1) / 2,
// in closed form
//   L_b = 4 / (n (n - 1)) * (n * sum(d^2) - sum(d)^2)
// (TensorFlow's mean_pairwise_squared_error normalizes differently.) The
// losses have shape [batch]; weights broadcast against it, or come as
// libnd4j's calls give them, [batch, 1, ...] of the labels' rank.
// Where libnd4j differs:
//   - it takes n = labels.dim(1), which is the row's length only for rank 2;
//     this op takes the row's length at every rank;
//   - its reduction none gives labels' shape less the last dim, which holds
//     the [batch] losses only at rank 2; this op gives [batch];
//   - a row of one element (n = 1, and every row of rank-1 labels) has no
//     pairs: loss 0 here, as libnd4j for rank 1 (it divides by 0 at n = 1).
#include "libops/ops/loss/loss_common.h"

#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

LossShape pairwise_shape(const NDArray& labels) {
  LossShape shape{Dims{labels.dim(0)}, {}};
  for (int d = 1; d < labels.rank(); ++d) shape.dropped.push_back(d);
  return shape;
}

Status mean_pairwise_squared_errors(Context& block) {
  const NDArray& labels = *block.input(2);
  const DataType dt = block.output(0)->dtype();
  const int64_t batch = labels.dim(0);
  int64_t n = 1;
  for (int d = 1; d < labels.rank(); ++d) n *= labels.dim(d);
  NDArray losses;
  if (n < 2) {
    RETURN_IF_ERROR(with_op_name(block, NDArray::zeros(dt, Dims{batch}, 'c', losses)));
    return loss_reduce_into(block, losses, pairwise_shape(labels));
  }
  NDArray p, y, diff, rows, squares, sum_sq, sum_d, sq_sum, n_s, scaled, spread, factor;
  RETURN_IF_ERROR(loss_as_dtype(block, *block.input(0), dt, p));
  RETURN_IF_ERROR(loss_as_dtype(block, labels, dt, y));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&p, &y}, {}, diff));
  RETURN_IF_ERROR(with_op_name(block, diff.reshape(Dims{batch, n}, rows)));  // a fresh dense array: a view
  RETURN_IF_ERROR(run_nested(block, "square", {&rows}, {}, squares));
  RETURN_IF_ERROR(run_nested(block, "reduce_sum", {&squares}, {.i = {1}}, sum_sq));
  RETURN_IF_ERROR(run_nested(block, "reduce_sum", {&rows}, {.i = {1}}, sum_d));
  RETURN_IF_ERROR(run_nested(block, "square", {&sum_d}, {}, sq_sum));
  const double rn = static_cast<double>(n);
  RETURN_IF_ERROR(loss_scalar(block, dt, rn, n_s));
  RETURN_IF_ERROR(loss_scalar(block, dt, 4.0 / (rn * (rn - 1.0)), factor));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&sum_sq, &n_s}, {}, scaled));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&scaled, &sq_sum}, {}, spread));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&spread, &factor}, {}, losses));
  return loss_reduce_into(block, losses, pairwise_shape(labels));
}

Status mean_pairwise_shape(Context& block, ShapeList& shapes) {
  const NDArray& labels = *block.input(2);
  RETURN_IF_ERROR(loss_check_same_shape(block, labels, "predictions"));
  REQUIRE_TRUE(labels.rank() >= 1, OPS_ERR_SHAPE, "labels%s must have rank >= 1: dim 0 is the batch",
               labels.shape().str().c_str());
  const LossShape shape = pairwise_shape(labels);
  RETURN_IF_ERROR(loss_check_weights(block, shape));
  loss_output_shape(block, shape, shapes);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(mean_pairwssqerr_loss, 3, 1, false, 0, 1) { return libops::ops::mean_pairwise_squared_errors(block); }
DECLARE_SHAPE_FN(mean_pairwssqerr_loss) { return libops::ops::mean_pairwise_shape(block, shapes); }
DECLARE_TYPES(mean_pairwssqerr_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(mean_pairwssqerr_loss) {
  args.describe("Weighted mean pairwise squared error per batch row, reduced (libnd4j's mean_pairwssqerr_loss).");
  libops::ops::loss_weighted_io(args, "predictions", "the predicted values, dim 0 the batch",
                                "the true values, predictions' shape");
  libops::ops::loss_reduction_arg(args);
}
