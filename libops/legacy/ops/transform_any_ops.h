// Transform "any": z = f(x) with any input and output dtypes; the compute
// type is that of the common dtype of x and z (Note [Type promotion]). The
// conversion to z's dtype follows loops/convert.h: floats to integers
// truncate toward zero and saturate, NaN -> 0; anything to bool is x != 0.
//
// To add an op: functor + one row with the next unused number (see
// transform_same_ops.h).
#pragma once

#include "libops/core/host_device.h"

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn::transform_any {

// Copy with conversion (numpy's astype, i.e. a cast).
template <typename C> struct Assign {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return x; }
};

}  // namespace libops::legacy::fn::transform_any

// X(number, name, functor, type set). Never renumber a row.
#define LIBOPS_TRANSFORM_ANY_OPS(X) \
  X(0, assign, fn::transform_any::Assign, kNumericTypes)
#define LIBOPS_TRANSFORM_ANY_COUNT 1

namespace libops::legacy {
enum class TransformAnyOp : int { LIBOPS_TRANSFORM_ANY_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
