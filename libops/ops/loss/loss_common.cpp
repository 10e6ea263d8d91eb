#include "libops/ops/loss/loss_common.h"

#include "libops/ops/device_copy.h"
#include "libops/ops/formula.h"

namespace libops::ops {
namespace {

// L's shape with extent 1 on the axes L lacks: the labels' rank.
Dims kept_shape(const LossShape& shape) {
  Dims kept;
  const int rank = shape.loss.size() + shape.dropped.size();
  for (int d = 0, k = 0, j = 0; d < rank; ++d) {
    if (j < shape.dropped.size() && shape.dropped[j] == d) {
      kept.push_back(1);
      ++j;
    } else {
      kept.push_back(shape.loss[k++]);
    }
  }
  return kept;
}

bool broadcasts_to(const Dims& w, const Dims& target) {
  if (w.size() != target.size()) return false;
  for (int d = 0; d < w.size(); ++d)
    if (w[d] != target[d] && w[d] != 1) return false;
  return true;
}

}  // namespace

// The weights in dtype `dt`, shaped to broadcast against L itself: one value
// as a scalar, the labels' rank without the axes L lacks.
Status loss_weights(const Context& block, const LossShape& shape, DataType dt, NDArray& w) {
  NDArray given;
  RETURN_IF_ERROR(loss_as_dtype(block, *block.input(1), dt, given));
  if (given.length() == 1) return with_op_name(block, given.reshape(Dims{}, w));
  if (given.rank() == shape.loss.size()) {
    w = given;
    return Status::ok();
  }
  Dims without;
  for (int d = 0, j = 0; d < given.rank(); ++d) {
    if (j < shape.dropped.size() && shape.dropped[j] == d) {
      ++j;
      continue;
    }
    without.push_back(given.dim(d));
  }
  return with_op_name(block, given.reshape(without, w));
}

void loss_reduction_arg(OpSignature& args) {
  args.i_arg("reduction", "how the weighted losses reduce (Note [Loss reduction] in loss_common.h)")
      .one_of({{0, "none"}, {1, "sum"}, {2, "mean_by_weight"}, {3, "mean_by_nonzero_weight"}});
}

void loss_weighted_io(OpSignature& args, const char* x, const char* x_doc, const char* labels_doc) {
  args.input(x, x_doc);
  args.input("weights", "one value, or broadcast against the per-example losses (Note [Loss reduction])");
  args.input("labels", labels_doc);
  args.output("z", "the weighted per-example losses (reduction none) or their reduction, a scalar; in input 0's "
                   "float dtype");
}

void loss_weighted_types(OpDescriptor& descriptor, bool float_x) {
  descriptor.allow_input(0, float_x ? types::kFloat : types::kNumeric);
  descriptor.allow_input(1, types::kNumeric).allow_input(2, types::kNumeric);
  descriptor.allow_outputs(types::kFloat);
}

Status loss_check_same_shape(const Context& block, const NDArray& labels, const char* x_name) {
  const NDArray& x = *block.input(0);
  REQUIRE_TRUE(labels.shape() == x.shape(), OPS_ERR_SHAPE, "labels%s must have %s%s's shape",
               labels.shape().str().c_str(), x_name, x.shape().str().c_str());
  return Status::ok();
}

Status loss_check_weights(const Context& block, const LossShape& shape) {
  const NDArray& w = *block.input(1);
  if (w.length() == 1 || broadcasts_to(w.shape(), shape.loss)) return Status::ok();
  if (shape.dropped.empty())
    return block.error(StatusCode::kShape,
                       "weights%s do not broadcast against the losses%s: weights must be one value or have rank %d "
                       "with each extent the losses' or 1",
                       w.shape().str().c_str(), shape.loss.str().c_str(), shape.loss.size());
  const Dims kept = kept_shape(shape);
  if (broadcasts_to(w.shape(), kept)) return Status::ok();
  return block.error(StatusCode::kShape,
                     "weights%s do not broadcast against the losses%s: weights must be one value or have rank %d "
                     "with each extent the losses' or 1 (or rank %d against %s)",
                     w.shape().str().c_str(), shape.loss.str().c_str(), shape.loss.size(), kept.size(),
                     kept.str().c_str());
}

void loss_output_shape(const Context& block, const LossShape& shape, ShapeList& shapes) {
  const bool none = static_cast<LossReduction>(block.i_arg(0)) == LossReduction::kNone;
  shapes.push_back(TensorShape{float_result_type(block.input(0)->dtype()), none ? shape.loss : Dims{}, 'c'});
}

Status loss_as_dtype(const Context& block, const NDArray& a, DataType dt, NDArray& out) {
  return formula_operand(block, a, dt, out);
}

Status loss_scalar(const Context& block, DataType dt, double value, NDArray& out) {
  return with_op_name(block, NDArray::scalar(dt, value, out));
}

Status loss_reduce_into(Context& block, const NDArray& losses, const LossShape& shape) {
  NDArray* z = block.output(0);
  const DataType dt = z->dtype();
  const auto mode = static_cast<LossReduction>(block.i_arg(0));
  if (mode == LossReduction::kNone && z->length() == 0) return Status::ok();
  NDArray w, weighted, total;
  RETURN_IF_ERROR(loss_weights(block, shape, dt, w));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&losses, &w}, {}, weighted));
  if (mode == LossReduction::kNone) return assign_on_device(block, *z, weighted);
  RETURN_IF_ERROR(run_nested(block, "reduce_sum", {&weighted}, {}, total));
  if (mode == LossReduction::kSum) return assign_on_device(block, *z, total);
  return loss_mean_into(block, total, w, shape);
}

Status loss_mean_into(Context& block, const NDArray& total, const NDArray& w, const LossShape& shape) {
  NDArray* z = block.output(0);
  const DataType dt = z->dtype();
  const auto mode = static_cast<LossReduction>(block.i_arg(0));
  // Broadcasting repeats each weight this many times.
  const int64_t repeats = w.length() == 0 ? 0 : shape.loss.product() / w.length();
  NDArray per_weight, times, denominator, mean;
  if (mode == LossReduction::kMeanByWeight) {
    RETURN_IF_ERROR(run_nested(block, "reduce_sum", {&w}, {}, per_weight));
  } else {
    NDArray nonzero;
    RETURN_IF_ERROR(run_nested(block, "count_nonzero", {&w}, {}, nonzero));
    RETURN_IF_ERROR(loss_as_dtype(block, nonzero, dt, per_weight));
  }
  RETURN_IF_ERROR(loss_scalar(block, dt, static_cast<double>(repeats), times));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&per_weight, &times}, {}, denominator));
  // 0 where the denominator is 0, as libnd4j.
  RETURN_IF_ERROR(run_nested(block, "divide_no_nan", {&total, &denominator}, {}, mean));
  return assign_on_device(block, *z, mean);
}

Status elementwise_loss_shape(Context& block, const char* x_name, ShapeList& shapes) {
  RETURN_IF_ERROR(loss_check_same_shape(block, *block.input(2), x_name));
  const LossShape shape{block.input(2)->shape(), {}};
  RETURN_IF_ERROR(loss_check_weights(block, shape));
  loss_output_shape(block, shape, shapes);
  return Status::ok();
}

}  // namespace libops::ops
