// The k largest (or smallest) values along an axis and their positions,
// under two conventions (docs/ops.md, "libnd4j's conventions"):
//  - top_k, libnd4j's and TF's: i args k, then whether to sort (libnd4j's
//    needSort); always the last axis, the largest values;
//  - topk, ONNX's TopK and torch.topk: i args k, then the axis; b arg
//    largest.
// k <= the axis extent; sorted by value, ties by the lower index (also
// when top_k is told not to sort: sorted is a valid unsorted order); NaN
// counts as larger than every number, as in PyTorch (Note [Sort order]).
// Indices are int64.
#include "libops/ops/sort/sort_call.h"

namespace libops::ops {
namespace {

// libnd4j's top_k has no axis arg: the last one. `libnd4j` picks the convention.
Status top_k_axis(Context& block, bool libnd4j, int& axis, int64_t& k) {
  const NDArray& x = *block.input(0);
  REQUIRE_TRUE(x.rank() >= 1, OPS_ERR_SHAPE, "x%s must have rank >= 1", x.shape().str().c_str());
  const int64_t a = libnd4j ? -1 : INT_ARG(1);
  axis = static_cast<int>(a < 0 ? a + x.rank() : a);
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

Status run_top_k(Context& block, bool libnd4j) {
  int axis = 0;
  int64_t k = 0;
  RETURN_IF_ERROR(top_k_axis(block, libnd4j, axis, k));
  SortDesc d;
  d.k = k;
  d.descending = libnd4j || block.b_arg(0);
  d.nan_first = d.descending;  // NaN is the largest (Note [Sort order])
  return sort_along(block, *block.input(0), axis, d, block.output(0), block.output(1));
}

Status top_k_shapes(Context& block, bool libnd4j, ShapeList& shapes) {
  int axis = 0;
  int64_t k = 0;
  RETURN_IF_ERROR(top_k_axis(block, libnd4j, axis, k));
  const NDArray* x = block.input(0);
  Dims s = x->shape();
  s[axis] = k;
  shapes.push_back(TensorShape{x->dtype(), s, 'c'});
  shapes.push_back(TensorShape{DataType::kInt64, s, 'c'});
  return Status::ok();
}

void top_k_io(OpSignature& args) {
  args.input("x", "numeric or bool array, rank >= 1");
  args.optional_input("k", "integer scalar, instead of i arg 0");
  args.output("values", "the k values, x's dtype, in order");
  args.output("indices", "their int64 positions along the axis");
  args.i_arg("k", 1, "how many values (when not given as input 1)").at_least(0);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(top_k, -1, 2, false, 0, 0) { return libops::ops::run_top_k(block, true); }
DECLARE_SHAPE_FN(top_k) { return libops::ops::top_k_shapes(block, true, shapes); }
DECLARE_TYPES(top_k) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}
DECLARE_ARGS(top_k) {
  args.describe("The k largest values along the last axis, largest first, with their positions (libnd4j's and "
                "TF's top_k; topk takes an axis and the smallest too).");
  libops::ops::top_k_io(args);
  args.i_arg("sorted", 1, "libnd4j's needSort: 1 sorts by value; 0 lets any order do (this one is sorted too)")
      .flag();
}

CUSTOM_OP_IMPL(topk, -1, 2, false, 0, 0) { return libops::ops::run_top_k(block, false); }
DECLARE_SHAPE_FN(topk) { return libops::ops::top_k_shapes(block, false, shapes); }
DECLARE_TYPES(topk) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}
DECLARE_ARGS(topk) {
  args.describe("The k largest (or smallest) values along an axis, with their positions (ONNX's TopK, "
                "torch.topk).");
  libops::ops::top_k_io(args);
  args.i_arg("axis", -1, "the axis to take them along").axis(0);
  args.b_arg("largest", true, "the largest values, largest first; false: the smallest, smallest first");
}
