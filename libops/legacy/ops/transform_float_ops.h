// Transform "float": z = f(x) for any numeric x with a floating-point z: ops
// whose result is inherently fractional even for integer input.
// Float inputs compute in their own compute type (float for float16,
// bfloat16, float32; double for float64); integer and bool inputs compute in
// z's (so int32 -> float64 is exact in double). NaN in gives NaN out; see
// each functor for zeros and negative inputs.
//
// To add an op: functor + one row with the next unused number (see
// transform_same_ops.h).
#pragma once

#include "libops/core/host_device.h"

#include <cmath>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn::transform_float {

// sqrt(-0) = -0, sqrt(x < 0) = NaN.
template <typename C> struct Sqrt {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::sqrt(x); }
};
// 1 / sqrt(x), computed exactly that way (no fast inverse-sqrt estimate):
// +-0 -> +-inf, inf -> 0, x < 0 -> NaN.
template <typename C> struct Rsqrt {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return C(1) / std::sqrt(x); }
};
// Real cube root, defined for negative x: cbrt(-8) = -2.
template <typename C> struct Cbrt {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::cbrt(x); }
};

}  // namespace libops::legacy::fn::transform_float

// X(number, name, functor, type set). Never renumber a row. The type set is
// always kFloatTypes: integer inputs already compute in z's float type.
#define LIBOPS_TRANSFORM_FLOAT_OPS(X)                  \
  X(0, sqrt, fn::transform_float::Sqrt, kFloatTypes)   \
  X(1, rsqrt, fn::transform_float::Rsqrt, kFloatTypes) \
  X(2, cbrt, fn::transform_float::Cbrt, kFloatTypes)
#define LIBOPS_TRANSFORM_FLOAT_COUNT 3

namespace libops::legacy {
enum class TransformFloatOp : int { LIBOPS_TRANSFORM_FLOAT_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
