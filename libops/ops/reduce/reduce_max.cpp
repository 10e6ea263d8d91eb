// reduce_max: maximum of x over the i-arg axes (none = all); b arg 0 keeps
// the reduced dims as 1. The output has x's dtype. An empty reduction gives
// the identity, -inf or the lowest integer (Note [Empty reductions]).
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/reduce/reduce_common.h"

// The default reduction shape function (declarable_op.cpp) checks the axes
// and gives x's dtype with the reduced shape.
REDUCTION_OP_IMPL(reduce_max, -1, 1, false, 0, 0) {
  return libops::ops::reduce_exec(block, OPS_REDUCE_SAME, static_cast<int>(libops::legacy::ReduceSameOp::max));
}

DECLARE_TYPES(reduce_max) {
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kNumeric);
}

DECLARE_ARGS(reduce_max) {
  args.describe("Maximum over axes; NaN wins.");
  libops::ops::reduction_args(args, "the maximum over the axes, in x's dtype");
}
