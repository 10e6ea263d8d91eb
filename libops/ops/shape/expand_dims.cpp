// expand_dims: x with a new axis of extent 1 inserted at `axis`, counted in
// the output's dims (numpy.expand_dims): in [-rank - 1, rank].
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

CUSTOM_OP_IMPL(expand_dims, -1, 1, false, 0, 0) {
  libops::NDArray view;
  RETURN_IF_ERROR(INPUT_VARIABLE(0)->reshape(OUTPUT_VARIABLE(0)->shape(), view));  // inserting extent 1: a view
  return libops::ops::assign_on_device(block, *OUTPUT_VARIABLE(0), view);
}

DECLARE_SHAPE_FN(expand_dims) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  int64_t axis = INT_ARG(0);
  if (block.num_inputs() > 1) {
    std::vector<int64_t> v;
    RETURN_IF_ERROR(block.int_values(1, "axis", v));
    REQUIRE_TRUE(v.size() == 1, 0, "axis given as input 1 must hold one value, got %zu", v.size());
    axis = v[0];
  }
  REQUIRE_TRUE(axis >= -x->rank() - 1 && axis <= x->rank(), 0,
               "axis %lld is out of range for x%s: it must be in [%d, %d]", static_cast<long long>(axis),
               x->shape().str().c_str(), -x->rank() - 1, x->rank());
  REQUIRE_TRUE(x->rank() < kMaxRank, OPS_ERR_SHAPE, "x%s has rank %d; the result would exceed the maximum %d",
               x->shape().str().c_str(), x->rank(), kMaxRank);
  NDArray view;
  RETURN_IF_ERROR(NDArray::shape_only(TensorShape{x->dtype(), x->shape(), 'c'}).expand_dims(static_cast<int>(axis), view));
  shapes.push_back(TensorShape{x->dtype(), view.shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(expand_dims) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_ARGS(expand_dims) {
  args.describe("Inserts an axis of extent 1.");
  args.input("x", "any array");
  args.optional_input("axis", "the axis as an integer scalar, instead of the i arg");
  args.output("z", "x with one more axis");
  args.i_arg("axis", 0, "where the new axis goes, in the output's dims; negative counts from the end");
}

DECLARE_SYN(unsqueeze, expand_dims)
