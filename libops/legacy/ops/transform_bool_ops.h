// Transform "bool": z = predicate(x), z of dtype bool, x any numeric.
#pragma once

#include <cmath>
#include <type_traits>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

template <typename C> struct IsNan {
  static bool op(C x, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return std::isnan(x);
    else return false;
  }
};

}  // namespace libops::legacy::fn

#define LIBOPS_TRANSFORM_BOOL_OPS(X) \
  X(0, is_nan, fn::IsNan, kNumericTypes)
#define LIBOPS_TRANSFORM_BOOL_COUNT 1

namespace libops::legacy {
enum class TransformBoolOp : int { LIBOPS_TRANSFORM_BOOL_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
