// Transform "float": z = f(x) for any numeric x with a floating-point z.
// Integer and bool inputs are computed in float (float64 stays double).
#pragma once

#include <cmath>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

template <typename C> struct Sqrt {
  static C op(C x, const ExtraParams&) { return std::sqrt(x); }
};

}  // namespace libops::legacy::fn

#define LIBOPS_TRANSFORM_FLOAT_OPS(X) \
  X(0, sqrt, fn::Sqrt, kFloatTypes)
#define LIBOPS_TRANSFORM_FLOAT_COUNT 1

namespace libops::legacy {
enum class TransformFloatOp : int { LIBOPS_TRANSFORM_FLOAT_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
