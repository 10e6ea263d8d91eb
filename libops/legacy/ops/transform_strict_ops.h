// Transform "strict": z = f(x) for floating-point x, z of the same dtype.
// Computes in float for float16/bfloat16/float32 and double for float64.
//
// To add an op: functor + one row with the next unused number (see
// transform_same_ops.h).
#pragma once

#include <cmath>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

template <typename C> struct Exp {
  static C op(C x, const ExtraParams&) { return std::exp(x); }
};

}  // namespace libops::legacy::fn

#define LIBOPS_TRANSFORM_STRICT_OPS(X) \
  X(0, exp, fn::Exp, kFloatTypes)
#define LIBOPS_TRANSFORM_STRICT_COUNT 1

namespace libops::legacy {
enum class TransformStrictOp : int { LIBOPS_TRANSFORM_STRICT_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
