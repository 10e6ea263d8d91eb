// Transform "same": z = f(x) with z's dtype equal to x's, for every numeric
// dtype (integers and floats alike).
//
// To add an op: write a functor `template <typename C> struct Name { static C
// op(C x, const ExtraParams& e); };` and add a row X(number, name, Functor,
// type set) with the next unused number. Never renumber a row.
#pragma once

#include <cmath>
#include <type_traits>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

template <typename C> struct Abs {
  static C op(C x, const ExtraParams&) {
    if constexpr (std::is_unsigned_v<C>) return x;
    else return x < C(0) ? C(-x) : x;
  }
};
template <typename C> struct Neg {
  static C op(C x, const ExtraParams&) { return C(-x); }
};

}  // namespace libops::legacy::fn

// X(number, name, functor, type set)
#define LIBOPS_TRANSFORM_SAME_OPS(X) \
  X(0, abs, fn::Abs, kNumericTypes)  \
  X(1, neg, fn::Neg, kNumericTypes)
#define LIBOPS_TRANSFORM_SAME_COUNT 2

namespace libops::legacy {
enum class TransformSameOp : int { LIBOPS_TRANSFORM_SAME_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
