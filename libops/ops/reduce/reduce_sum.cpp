// reduce_sum: sum of x over the i-arg axes (none = all); b arg 0 keeps the
// reduced dims as 1. The output has x's dtype; integer sums accumulate in
// 64 bits and wrap only on store. An empty reduction gives 0.
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/reduce/reduce_common.h"

// The default reduction shape function (declarable_op.cpp) checks the axes
// and gives x's dtype with the reduced shape.
REDUCTION_OP_IMPL(reduce_sum, -1, 1, false, 0, 0) {
  return libops::ops::reduce_exec(block, OPS_REDUCE_SAME, static_cast<int>(libops::legacy::ReduceSameOp::sum));
}

DECLARE_TYPES(reduce_sum) {
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kNumeric);
}

DECLARE_ARGS(reduce_sum) {
  args.describe("Sum over axes.");
  libops::ops::reduction_args(args, "the sum over the axes, in x's dtype");
}
