// Transform "bool": z = predicate(x), z of dtype bool, x any numeric dtype
// (computed in x's compute type, Note [Compute types]). Integers are never
// NaN or infinite, and always integer-valued. NaN is neither positive,
// negative nor zero.
//
// To add an op: write a functor `template <typename C> struct Name { static
// bool op(C x, const ExtraParams& e); };` and add a row with the next unused
// number. Never renumber a row.
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <type_traits>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn::transform_bool {

template <typename C> struct IsNan {
  LIBOPS_HOST_DEVICE static bool op(C x, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return std::isnan(x);
    else return false;
  }
};
template <typename C> struct IsInf {
  LIBOPS_HOST_DEVICE static bool op(C x, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return std::isinf(x);
    else return false;
  }
};
template <typename C> struct IsFinite {
  LIBOPS_HOST_DEVICE static bool op(C x, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return std::isfinite(x);
    else return true;
  }
};
template <typename C> struct IsInfOrNan {
  LIBOPS_HOST_DEVICE static bool op(C x, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return !std::isfinite(x);
    else return false;
  }
};
template <typename C> struct IsPositive {
  LIBOPS_HOST_DEVICE static bool op(C x, const ExtraParams&) { return x > C(0); }
};
template <typename C> struct IsNegative {
  LIBOPS_HOST_DEVICE static bool op(C x, const ExtraParams&) {
    if constexpr (std::is_unsigned_v<C>) return false;
    else return x < C(0);
  }
};
// True for +0 and -0.
template <typename C> struct IsZero {
  LIBOPS_HOST_DEVICE static bool op(C x, const ExtraParams&) { return x == C(0); }
};
// numpy.logical_not: x == 0, the same predicate as is_zero under the name
// logical code looks for.
template <typename C> struct LogicalNot {
  LIBOPS_HOST_DEVICE static bool op(C x, const ExtraParams&) { return x == C(0); }
};
// Finite with no fractional part (floats); always true for integers.
template <typename C> struct IsIntegerValue {
  LIBOPS_HOST_DEVICE static bool op(C x, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return std::isfinite(x) && std::trunc(x) == x;
    else return true;
  }
};

}  // namespace libops::legacy::fn::transform_bool

// X(number, name, functor, type set). Never renumber a row.
#define LIBOPS_TRANSFORM_BOOL_OPS(X)                                         \
  X(0, is_nan, fn::transform_bool::IsNan, kNumericTypes)                     \
  X(1, is_inf, fn::transform_bool::IsInf, kNumericTypes)                     \
  X(2, is_finite, fn::transform_bool::IsFinite, kNumericTypes)               \
  X(3, is_inf_or_nan, fn::transform_bool::IsInfOrNan, kNumericTypes)         \
  X(4, is_positive, fn::transform_bool::IsPositive, kNumericTypes)           \
  X(5, is_negative, fn::transform_bool::IsNegative, kNumericTypes)           \
  X(6, is_zero, fn::transform_bool::IsZero, kNumericTypes)                   \
  X(7, logical_not, fn::transform_bool::LogicalNot, kNumericTypes)           \
  X(8, is_integer_value, fn::transform_bool::IsIntegerValue, kNumericTypes)
#define LIBOPS_TRANSFORM_BOOL_COUNT 9

namespace libops::legacy {
enum class TransformBoolOp : int { LIBOPS_TRANSFORM_BOOL_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
