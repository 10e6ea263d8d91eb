// moments: the mean and the (biased, over n) variance of x over axes, two
// outputs in x's float dtype (integers give float32), as TensorFlow's
// nn.moments. Two legacy reductions on the call's device (mean, and the
// summary-stats variance, Welford's merge: accurate for data far from 0).
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/ops/summary_stats_ops.h"
#include "libops/ops/reduce/reduce_common.h"

CUSTOM_OP_IMPL(moments, -1, 2, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  Dims axes;
  RETURN_IF_ERROR(reduction_axes(block, axes));
  const NDArray& x = *INPUT_VARIABLE(0);
  RETURN_IF_ERROR(reduce_into(block, OPS_REDUCE_FLOAT, static_cast<int>(legacy::ReduceFloatOp::mean), x, axes,
                              *OUTPUT_VARIABLE(0)));
  const double biased = 0.0;  // summary_stats_ops.h: extra[0] = bias corrected
  return reduce_into(block, OPS_SUMMARY_STATS, static_cast<int>(legacy::SummaryStatsOp::variance), x, axes,
                     *OUTPUT_VARIABLE(1), ExtraParams::from(&biased, 1));
}

DECLARE_SHAPE_FN(moments) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  Dims axes;
  RETURN_IF_ERROR(ops::reduction_axes(block, axes));
  const TensorShape s{float_result_type(x->dtype()), reduced_shape(x->shape(), axes, B_ARG(0)), 'c'};
  shapes.push_back(s);
  shapes.push_back(s);
  return Status::ok();
}

DECLARE_TYPES(moments) {
  descriptor.allow_input(0, libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_input(1, libops::types::kInt);
}

DECLARE_ARGS(moments) {
  args.describe("Mean and biased variance over axes.");
  libops::ops::reduction_args(args, "the mean over the axes, in x's float dtype");
  args.output("variance", "the variance over the axes (over n), in x's float dtype");
}
