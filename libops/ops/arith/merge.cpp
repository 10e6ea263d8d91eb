// libnd4j's merge ops (transforms.h): element-wise over any number of
// arrays of one shape and dtype.
//
//   mergeadd       x_0 + x_1 + ... (aliases mergesum, add_n, addn,
//                  accumulate_n, accumulaten); integers wrap
//   mergeavg       (x_0 + ... + x_{n-1}) / n; floats only (libnd4j's integer
//                  average truncates, which is rarely what a caller means)
//   mergemax       the largest x_k; NaN if any is (maximum's rule)
//   mergemaxindex  the k of the largest x_k, first on ties; NaN never wins,
//                  as in libnd4j's strict v > max scan. dtype: d arg 0,
//                  int32 by default (libnd4j gives it as i arg 0 in its
//                  own dtype numbering; here it is a d arg)
//
// Built from add, divide, maximum, greater and where on the call's
// device; float16 and bfloat16 sums run in float32 and round once.
#include <limits>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {
namespace {

bool low_precision(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }

// out = x_0 <op> x_1 <op> ..., left to right; float16 and bfloat16 start
// from x_0 in float32, so the rest promote to it.
Status fold_inputs(const Context& block, const char* op, NDArray& out) {
  const NDArray& x0 = *block.input(0);
  if (low_precision(x0.dtype()))
    RETURN_IF_ERROR(run_nested(block, "cast", {&x0}, {.i = {static_cast<int64_t>(DataType::kFloat32)}}, out));
  else
    out = x0;
  for (int k = 1; k < block.num_inputs(); ++k) RETURN_IF_ERROR(run_nested(block, op, {&out, block.input(k)}, {}, out));
  return Status::ok();
}

Status run_merge(Context& block, const char* op) {
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  NDArray folded;
  RETURN_IF_ERROR(fold_inputs(block, op, folded));
  return assign_on_device(block, *z, folded);
}

Status run_merge_avg(Context& block) {
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  NDArray sum, n, mean;
  RETURN_IF_ERROR(fold_inputs(block, "add", sum));
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(sum.dtype(), block.num_inputs(), n)));
  RETURN_IF_ERROR(run_nested(block, "divide", {&sum, &n}, {}, mean));
  return assign_on_device(block, *z, mean);
}

Status run_merge_max_index(Context& block) {
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  // A running maximum and its input's index: x_k takes over where it is
  // strictly larger, so the first of equal maxima keeps its place and a
  // NaN (never larger) never wins. A NaN in x_0 starts as -inf.
  NDArray best = *block.input(0), index, zero;
  if (dtype_is_float(best.dtype())) {
    NDArray is_nan, low;
    RETURN_IF_ERROR(run_nested(block, "is_nan", {&best}, {}, is_nan));
    RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(best.dtype(), -std::numeric_limits<double>::infinity(), low)));
    RETURN_IF_ERROR(run_nested(block, "where", {&is_nan, &low, &best}, {}, best));
  }
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(DataType::kInt64, 0, zero)));
  RETURN_IF_ERROR(with_op_name(block, zero.broadcast_to(best.shape(), index)));
  for (int k = 1; k < block.num_inputs(); ++k) {
    const NDArray& x = *block.input(k);
    NDArray larger, at;
    RETURN_IF_ERROR(run_nested(block, "greater", {&x, &best}, {}, larger));
    RETURN_IF_ERROR(run_nested(block, "where", {&larger, &x, &best}, {}, best));
    RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(DataType::kInt64, k, at)));
    RETURN_IF_ERROR(run_nested(block, "where", {&larger, &at, &index}, {}, index));
  }
  return assign_on_device(block, *z, index);
}

Status merge_shape(Context& block, DataType out, ShapeList& shapes) {
  const NDArray& x0 = *block.input(0);
  for (int k = 1; k < block.num_inputs(); ++k) {
    const NDArray& x = *block.input(k);
    REQUIRE_TRUE(x.shape() == x0.shape(), OPS_ERR_SHAPE, "input %d%s differs in shape from input 0%s: the inputs "
                 "must have one shape", k, x.shape().str().c_str(), x0.shape().str().c_str());
  }
  shapes.push_back(TensorShape{out, x0.shape(), 'c'});
  return Status::ok();
}

void merge_args(OpSignature& args, const char* what, const char* result) {
  args.describe(what);
  args.inputs_variadic("xs", "arrays of one shape and dtype");
  args.output("z", result);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(mergeadd, -1, 1, false, 0, 0) { return libops::ops::run_merge(block, "add"); }
DECLARE_SHAPE_FN(mergeadd) { return libops::ops::merge_shape(block, INPUT_VARIABLE(0)->dtype(), shapes); }
DECLARE_TYPES(mergeadd) {
  descriptor.allow_inputs(libops::types::kNumeric).require_same_type().runs_on_any_device();  // nested ops
}
DECLARE_ARGS(mergeadd) {
  libops::ops::merge_args(args, "The element-wise sum of the inputs.", "the sum, the inputs' dtype");
}
DECLARE_SYN(mergesum, mergeadd)
DECLARE_SYN(add_n, mergeadd)
DECLARE_SYN(addn, mergeadd)
DECLARE_SYN(accumulate_n, mergeadd)
DECLARE_SYN(accumulaten, mergeadd)

CUSTOM_OP_IMPL(mergeavg, -1, 1, false, 0, 0) { return libops::ops::run_merge_avg(block); }
DECLARE_SHAPE_FN(mergeavg) { return libops::ops::merge_shape(block, INPUT_VARIABLE(0)->dtype(), shapes); }
DECLARE_TYPES(mergeavg) {
  descriptor.allow_inputs(libops::types::kFloat).require_same_type().runs_on_any_device();
}
DECLARE_ARGS(mergeavg) {
  libops::ops::merge_args(args, "The element-wise mean of the inputs.", "the mean, the inputs' dtype");
}

CUSTOM_OP_IMPL(mergemax, -1, 1, false, 0, 0) { return libops::ops::run_merge(block, "maximum"); }
DECLARE_SHAPE_FN(mergemax) { return libops::ops::merge_shape(block, INPUT_VARIABLE(0)->dtype(), shapes); }
DECLARE_TYPES(mergemax) {
  descriptor.allow_inputs(libops::types::kNumeric).require_same_type().runs_on_any_device();
}
DECLARE_ARGS(mergemax) {
  libops::ops::merge_args(args, "The element-wise maximum of the inputs; NaN if any is NaN.",
                          "the maximum, the inputs' dtype");
}
DECLARE_SYN(MergeMax, mergemax)

CUSTOM_OP_IMPL(mergemaxindex, -1, 1, false, 0, 0) { return libops::ops::run_merge_max_index(block); }
DECLARE_SHAPE_FN(mergemaxindex) {
  using namespace libops;
  const DataType t = D_ARG(0);
  REQUIRE_TRUE(types::kInt.contains(t), 0, "dtype %s is not an integer dtype: the result holds input indices",
               dtype_name(t));
  return ops::merge_shape(block, t, shapes);
}
DECLARE_TYPES(mergemaxindex) {
  descriptor.allow_inputs(libops::types::kNumeric).require_same_type().runs_on_any_device();
  descriptor.allow_outputs(libops::types::kInt);
}
DECLARE_ARGS(mergemaxindex) {
  libops::ops::merge_args(args,
                          "The index of the input holding the element-wise maximum; first on ties, NaN never wins.",
                          "the input index, in dtype");
  args.d_arg("dtype", libops::DataType::kInt32, "z's dtype, an integer dtype");
}
DECLARE_SYN(MergeMaxIndex, mergemaxindex)
