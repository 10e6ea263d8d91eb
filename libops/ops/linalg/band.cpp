// matrix_band_part, triu and tril: each matrix of x [..., rows, cols] with
// the elements outside a band of diagonals set to 0 (TF's
// matrix_band_part, numpy's triu and tril, libnd4j's triu/tril). With
// d = col - row, an element is kept when
//   matrix_band_part  (num_lower < 0 or -d <= num_lower) and
//                     (num_upper < 0 or d <= num_upper)
//   triu(k)           d >= k
//   tril(k)           d <= k
// The mask comes from two evenly spaced vectors (rows down, cols across),
// their broadcast difference and comparisons, then the select kernel
// (select/where.h) keeps x or 0: every step on the call's device, and a NaN
// outside the band becomes 0.
#include <cmath>
#include <limits>

#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/random_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/select/where.h"

namespace libops::ops {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// mask[r, c] = lo <= c - r <= hi, a bool [rows, cols] array on the device.
Status band_mask(const Context& block, int64_t rows, int64_t cols, double lo, double hi, NDArray& mask) {
  NDArray r, c, d, above, below, lo_s, hi_s;
  RETURN_IF_ERROR(step_array(block, DataType::kFloat64, Dims{rows, 1}, r));
  RETURN_IF_ERROR(step_array(block, DataType::kFloat64, Dims{1, cols}, c));
  RETURN_IF_ERROR(step_array(block, DataType::kFloat64, Dims{rows, cols}, d));
  RETURN_IF_ERROR(step_array(block, DataType::kBool, Dims{rows, cols}, above));
  RETURN_IF_ERROR(step_array(block, DataType::kBool, Dims{rows, cols}, below));
  RETURN_IF_ERROR(step_array(block, DataType::kBool, Dims{rows, cols}, mask));
  RETURN_IF_ERROR(iota_into(block, r));
  RETURN_IF_ERROR(iota_into(block, c));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::subtract), c, &r, d));
  RETURN_IF_ERROR(NDArray::scalar(DataType::kFloat64, lo, lo_s));
  RETURN_IF_ERROR(NDArray::scalar(DataType::kFloat64, hi, hi_s));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE_BOOL, static_cast<int>(legacy::BinaryBoolOp::greater_or_equal), d,
                              &lo_s, above));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE_BOOL, static_cast<int>(legacy::BinaryBoolOp::less_or_equal), d,
                              &hi_s, below));
  return legacy_step(block, OPS_PAIRWISE_BOOL, static_cast<int>(legacy::BinaryBoolOp::logical_and), above, &below, mask);
}

// z = x inside the band lo <= col - row <= hi, else 0.
Status keep_band(const Context& block, double lo, double hi) {
  const NDArray& x = *block.input(0);
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  NDArray mask, zero;
  RETURN_IF_ERROR(band_mask(block, x.dim(x.rank() - 2), x.dim(x.rank() - 1), lo, hi, mask));
  RETURN_IF_ERROR(NDArray::scalar(x.dtype(), 0.0, zero));
  return select_into(block, mask, x, zero, *z);
}

// triu's and tril's diagonal: input 1 (an integer scalar, ONNX Trilu's k,
// known only at run time) when given, else the i arg.
Status band_k(const Context& block, double& k) {
  k = static_cast<double>(INT_ARG(0));
  if (block.num_inputs() < 2) return Status::ok();
  std::vector<int64_t> v;
  RETURN_IF_ERROR(block.int_values(1, "k", v));
  REQUIRE_TRUE(v.size() == 1, 0, "k given as input 1 must hold one value, got %zu", v.size());
  k = static_cast<double>(v[0]);
  return Status::ok();
}

Status matrix_shape(Context& block, ShapeList& shapes) {
  const NDArray* x = block.input(0);
  REQUIRE_TRUE(x->rank() >= 2, OPS_ERR_SHAPE, "x%s must have rank >= 2 ([..., rows, cols])", x->shape().str().c_str());
  shapes.push_back(TensorShape{x->dtype(), x->shape(), 'c'});
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(matrix_band_part, 1, 1, false, 0, 2) {
  const int64_t lower = INT_ARG(0), upper = INT_ARG(1);
  return libops::ops::keep_band(block, lower < 0 ? -libops::ops::kInf : -static_cast<double>(lower),
                                upper < 0 ? libops::ops::kInf : static_cast<double>(upper));
}
DECLARE_SHAPE_FN(matrix_band_part) { return libops::ops::matrix_shape(block, shapes); }
DECLARE_TYPES(matrix_band_part) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }
DECLARE_ARGS(matrix_band_part) {
  args.describe("Zeros outside a band of diagonals of each matrix.");
  args.input("x", "[..., rows, cols]");
  args.output("z", "x inside the band, 0 outside");
  args.i_arg("num_lower", "diagonals kept below the main one; < 0 keeps all");
  args.i_arg("num_upper", "diagonals kept above the main one; < 0 keeps all");
}

CUSTOM_OP_IMPL(triu, -1, 1, false, 0, 0) {
  double k = 0;
  RETURN_IF_ERROR(libops::ops::band_k(block, k));
  return libops::ops::keep_band(block, k, libops::ops::kInf);
}
DECLARE_SHAPE_FN(triu) { return libops::ops::matrix_shape(block, shapes); }
DECLARE_TYPES(triu) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}
DECLARE_ARGS(triu) {
  args.describe("The upper triangle of each matrix: zeros below diagonal k.");
  args.input("x", "[..., rows, cols]");
  args.optional_input("k", "the diagonal as an integer scalar, instead of the i arg");
  args.output("z", "x where col - row >= k, else 0");
  args.i_arg("k", 0, "the lowest diagonal kept: 0 main, > 0 above, < 0 below");
}

CUSTOM_OP_IMPL(tril, -1, 1, false, 0, 0) {
  double k = 0;
  RETURN_IF_ERROR(libops::ops::band_k(block, k));
  return libops::ops::keep_band(block, -libops::ops::kInf, k);
}
DECLARE_SHAPE_FN(tril) { return libops::ops::matrix_shape(block, shapes); }
DECLARE_TYPES(tril) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}
DECLARE_ARGS(tril) {
  args.describe("The lower triangle of each matrix: zeros above diagonal k.");
  args.input("x", "[..., rows, cols]");
  args.optional_input("k", "the diagonal as an integer scalar, instead of the i arg");
  args.output("z", "x where col - row <= k, else 0");
  args.i_arg("k", 0, "the highest diagonal kept: 0 main, > 0 above, < 0 below");
}
