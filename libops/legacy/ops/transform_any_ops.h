// Transform "any": z = f(x) with any input and output dtypes; the compute
// type is that of the common dtype of x and z (Note [Type promotion]).
#pragma once

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

// Copy with conversion (numpy's astype).
template <typename C> struct Assign {
  static C op(C x, const ExtraParams&) { return x; }
};

}  // namespace libops::legacy::fn

#define LIBOPS_TRANSFORM_ANY_OPS(X) \
  X(0, assign, fn::Assign, kNumericTypes)
#define LIBOPS_TRANSFORM_ANY_COUNT 1

namespace libops::legacy {
enum class TransformAnyOp : int { LIBOPS_TRANSFORM_ANY_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
