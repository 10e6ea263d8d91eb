// top_k: the k largest (or smallest) values along an axis and their
// positions (TF's top_k, ONNX's TopK, libnd4j's top_k): k <= the axis
// extent; sorted by value, ties by the lower index; NaN counts as larger
// than every number, as in PyTorch (Note [Sort order]). Indices are int64.
#include "libops/ops/sort/sort_call.h"

namespace libops::ops {
namespace {

Status top_k_axis(Context& block, int& axis, int64_t& k) {
  const NDArray& x = *block.input(0);
  axis = static_cast<int>(INT_ARG(1) < 0 ? INT_ARG(1) + x.rank() : INT_ARG(1));
  k = INT_ARG(0);
  if (block.num_inputs() > 1) {
    std::vector<int64_t> v;
    RETURN_IF_ERROR(block.int_values(1, "k", v));
    REQUIRE_TRUE(v.size() == 1, 0, "k given as input 1 must hold one value, got %zu", v.size());
    k = v[0];
  }
  REQUIRE_TRUE(k >= 0 && k <= x.dim(axis), OPS_ERR_SHAPE, "k is %lld: it must be in [0, %lld], the extent of axis %d of x%s",
               static_cast<long long>(k), static_cast<long long>(x.dim(axis)), axis, x.shape().str().c_str());
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(top_k, -1, 2, false, 0, 0) {
  using namespace libops;
  int axis = 0;
  int64_t k = 0;
  RETURN_IF_ERROR(ops::top_k_axis(block, axis, k));
  ops::SortDesc d;
  d.k = k;
  d.descending = B_ARG(0);
  d.nan_first = d.descending;  // NaN is the largest (Note [Sort order])
  return ops::sort_along(block, *INPUT_VARIABLE(0), axis, d, OUTPUT_VARIABLE(0), OUTPUT_VARIABLE(1));
}

DECLARE_SHAPE_FN(top_k) {
  using namespace libops;
  int axis = 0;
  int64_t k = 0;
  RETURN_IF_ERROR(ops::top_k_axis(block, axis, k));
  const NDArray* x = INPUT_VARIABLE(0);
  Dims s = x->shape();
  s[axis] = k;
  shapes.push_back(TensorShape{x->dtype(), s, 'c'});
  shapes.push_back(TensorShape{DataType::kInt64, s, 'c'});
  return Status::ok();
}

DECLARE_TYPES(top_k) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_ARGS(top_k) {
  args.describe("The k largest (or smallest) values along an axis, with their positions.");
  args.input("x", "numeric or bool array, rank >= 1");
  args.optional_input("k", "integer scalar, instead of i arg 0");
  args.output("values", "the k values, x's dtype, in order");
  args.output("indices", "their int64 positions along the axis");
  args.i_arg("k", 1, "how many values (when not given as input 1)").at_least(0);
  args.i_arg("axis", -1, "the axis to take them along").axis(0);
  args.b_arg("largest", true, "the largest values, largest first; false: the smallest, smallest first");
}
