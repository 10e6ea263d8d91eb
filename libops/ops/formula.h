// One formula, every device (Note [Op formulas]).
//
// Note [Op formulas]
// An op whose output is an element-wise function of a few arrays can state
// that function once, as a generic lambda over values:
//   formula_into(block, *z, x, norm, [clip](auto x, auto n) { return x * (clip / max(n, clip)); });
// and get two evaluations from the one text:
// - on the CPU an expression (libops/expr/expr.h): one pass over the
//   inputs, broadcast to z's shape, straight into z, with no temporary. It
//   computes in float32 (float64 for a float64 z; 16-bit floats are widened
//   first and the result rounded once), with typed leaves, so the formula
//   is compiled for those two types alone;
// - on other devices nested op calls on the call's device (NestedValue,
//   nested_value.h: each operator one op), then a copy into z.
// The functions a formula may use are those both provide: the operators,
// unary -, abs, square, exp, log, log1p, min and max (NaN-propagating, as
// the legacy rows and the maximum / minimum ops are). Numbers are scalars
// of the compute dtype on either path. The element-wise losses build on it
// (loss/loss_formula.h, which also folds the weighting and the sum into the
// CPU pass). Tests set formulas_as_nested_ops to run the other devices'
// path on the CPU, so that each formula's nested form is checked where no
// device is.
#pragma once

#include <type_traits>

#include "libops/expr/expr.h"
#include "libops/ops/context.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_value.h"

namespace libops::ops {

inline thread_local bool formulas_as_nested_ops = false;

// The expression path runs: on the CPU unless a test asks otherwise.
inline bool formula_by_expression(const Context& block) {
  return block.device().is_cpu() && !formulas_as_nested_ops;
}

// The float dtype a formula computes in for an output of dtype `dt`, and
// `a` in dtype `ct` (itself, or a converted copy on the call's device; the
// losses' loss_as_dtype too).
inline DataType formula_compute_dtype(DataType dt) {
  return dt == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
}
inline Status formula_operand(const Context& block, const NDArray& a, DataType ct, NDArray& out) {
  if (a.dtype() == ct) {
    out = a;
    return Status::ok();
  }
  RETURN_IF_ERROR(with_op_name(block, NDArray::create(ct, a.shape(), 'c', out)));
  return assign_on_device(block, out, a);
}

// z = f(a, b), a and b broadcast to z's shape (Note [Op formulas]).
template <typename Formula>
Status formula_into(const Context& block, NDArray& z, const NDArray& a, const NDArray& b, const Formula& f) {
  if (z.length() == 0) return Status::ok();
  if (!formula_by_expression(block)) {
    Status status;
    const NestedValue result = f(NestedValue(block, a, status), NestedValue(block, b, status));
    RETURN_IF_ERROR(status);
    return assign_on_device(block, z, result.array());
  }
  auto run = [&](auto tag) -> Status {
    using C = decltype(tag);
    const DataType ct = std::is_same_v<C, double> ? DataType::kFloat64 : DataType::kFloat32;
    NDArray ac, bc;
    RETURN_IF_ERROR(formula_operand(block, a, ct, ac));
    RETURN_IF_ERROR(formula_operand(block, b, ct, bc));
    return with_op_name(block, (expr::out(z) = f(expr::in<C>(ac), expr::in<C>(bc))).run());
  };
  return formula_compute_dtype(z.dtype()) == DataType::kFloat64 ? run(double{}) : run(float{});
}

}  // namespace libops::ops
