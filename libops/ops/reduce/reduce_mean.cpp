// reduce_mean: mean of x over the i-arg axes (none = all); b arg 0 keeps the
// reduced dims as 1. Float inputs keep their dtype; integer inputs give
// float32 (float_result_type). An empty reduction gives NaN (0/0).
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/reduce/reduce_common.h"

// A custom op rather than REDUCTION_OP_IMPL: the default reduction shape
// function keeps x's dtype, and the mean of integers is a float.
CUSTOM_OP_IMPL(reduce_mean, -1, 1, false, 0, 0) {
  return libops::ops::reduce_exec(block, OPS_REDUCE_FLOAT, static_cast<int>(libops::legacy::ReduceFloatOp::mean));
}

DECLARE_SHAPE_FN(reduce_mean) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  Dims axes;
  RETURN_IF_ERROR(ops::reduction_axes(block, axes));
  const bool keep_dims = B_ARG(0);
  shapes.push_back(TensorShape{float_result_type(x->dtype()), reduced_shape(x->shape(), axes, keep_dims), 'c'});
  return Status::ok();
}

DECLARE_TYPES(reduce_mean) {
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(reduce_mean) {
  args.describe("Mean over axes.");
  libops::ops::reduction_args(args, "the mean over the axes; float inputs keep their dtype, integers give float32");
}
