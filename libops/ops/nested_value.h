// Arrays computed by nested op calls (nested_call.h) on the call's device,
// written with operators: `abs(p - y) * 0.5` runs subtract, abs and
// multiply. An op body that must run on every device can state a formula
// once as a generic lambda over its values and get, on the CPU, the same
// formula as a one-pass expression (libops/expr/expr.h), whose leaves and
// functions have these names too (Note [Op formulas] in formula.h).
//
// The first failing call's Status is kept in the Status every value of one
// formula shares; the calls after it do nothing, and the caller checks that
// Status once at the end.
#pragma once

#include "libops/ops/context.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {

class NestedValue {
 public:
  NestedValue(const Context& block, NDArray a, Status& status) : block_(&block), a_(std::move(a)), status_(&status) {}

  const NDArray& array() const { return a_; }

  // op(this, other) and op(this) as nested calls; numbers become scalars
  // of this value's dtype.
  NestedValue call(const char* op, const NestedValue* other) const {
    NDArray out;
    if (status_->is_ok()) {
      *status_ = other != nullptr ? run_nested(*block_, op, {&a_, &other->a_}, {}, out)
                                  : run_nested(*block_, op, {&a_}, {}, out);
    }
    return NestedValue(*block_, out, *status_);
  }
  NestedValue number(double v) const {
    NDArray s;
    if (status_->is_ok()) *status_ = NDArray::scalar(a_.dtype(), v, s);
    return NestedValue(*block_, s, *status_);
  }

 private:
  const Context* block_;
  NDArray a_;
  Status* status_;
};

#define LIBOPS_NESTED_BINARY(FN, OP)                                                           \
  inline NestedValue FN(const NestedValue& a, const NestedValue& b) { return a.call(OP, &b); } \
  inline NestedValue FN(const NestedValue& a, double b) {                                      \
    const NestedValue n = a.number(b);                                                         \
    return a.call(OP, &n);                                                                     \
  }                                                                                            \
  inline NestedValue FN(double a, const NestedValue& b) { return b.number(a).call(OP, &b); }
LIBOPS_NESTED_BINARY(operator+, "add")
LIBOPS_NESTED_BINARY(operator-, "subtract")
LIBOPS_NESTED_BINARY(operator*, "multiply")
LIBOPS_NESTED_BINARY(operator/, "divide")
LIBOPS_NESTED_BINARY(min, "minimum")
LIBOPS_NESTED_BINARY(max, "maximum")
#undef LIBOPS_NESTED_BINARY

#define LIBOPS_NESTED_UNARY(FN, OP) \
  inline NestedValue FN(const NestedValue& a) { return a.call(OP, nullptr); }
LIBOPS_NESTED_UNARY(operator-, "neg")
LIBOPS_NESTED_UNARY(abs, "abs")
LIBOPS_NESTED_UNARY(square, "square")
LIBOPS_NESTED_UNARY(exp, "exp")
LIBOPS_NESTED_UNARY(log, "log")
LIBOPS_NESTED_UNARY(log1p, "log1p")
#undef LIBOPS_NESTED_UNARY

}  // namespace libops::ops
