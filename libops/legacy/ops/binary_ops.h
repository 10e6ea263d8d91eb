// Binary ops with a numeric result: the shared table of the SCALAR,
// PAIRWISE and BROADCAST groups. z = op(x, y), computed in the compute type
// of the common dtype of x and y (Note [Type promotion]); z may be any
// numeric dtype (converted on store).
//
// Note [Integer division]
// Integer division by zero is defined, never a trap: x / 0 = 0 and
// x % 0 = 0 for integers (divide_no_nan style); floats follow IEEE 754.
//
// To add an op: functor + one row with the next unused number.
#pragma once

#include <cmath>
#include <type_traits>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

template <typename C> struct Add {
  static C op(C x, C y, const ExtraParams&) { return C(x + y); }
};
template <typename C> struct Subtract {
  static C op(C x, C y, const ExtraParams&) { return C(x - y); }
};
template <typename C> struct Multiply {
  static C op(C x, C y, const ExtraParams&) { return C(x * y); }
};
template <typename C> struct Divide {
  static C op(C x, C y, const ExtraParams&) {
    if constexpr (std::is_integral_v<C>) {
      if (y == C(0)) return C(0);  // Note [Integer division]
      if constexpr (std::is_signed_v<C>)
        if (y == C(-1)) return C(C(0) - x);  // INT_MIN / -1 wraps instead of trapping
    }
    return C(x / y);
  }
};
template <typename C> struct ReverseSubtract {
  static C op(C x, C y, const ExtraParams& e) { return Subtract<C>::op(y, x, e); }
};
template <typename C> struct ReverseDivide {
  static C op(C x, C y, const ExtraParams& e) { return Divide<C>::op(y, x, e); }
};

}  // namespace libops::legacy::fn

#define LIBOPS_BINARY_OPS(X)                              \
  X(0, add, fn::Add, kNumericTypes)                       \
  X(1, subtract, fn::Subtract, kNumericTypes)             \
  X(2, multiply, fn::Multiply, kNumericTypes)             \
  X(3, divide, fn::Divide, kNumericTypes)                 \
  X(4, reverse_subtract, fn::ReverseSubtract, kNumericTypes) \
  X(5, reverse_divide, fn::ReverseDivide, kNumericTypes)
#define LIBOPS_BINARY_COUNT 6

namespace libops::legacy {
enum class BinaryOp : int { LIBOPS_BINARY_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
