// Binary predicates: the shared table of SCALAR_BOOL, PAIRWISE_BOOL and
// BROADCAST_BOOL. z (bool) = op(x, y), compared in the compute type of the
// common dtype of x and y.
#pragma once

#include <cmath>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

template <typename C> struct Equal {
  static bool op(C x, C y, const ExtraParams&) { return x == y; }
};
template <typename C> struct LessThan {
  static bool op(C x, C y, const ExtraParams&) { return x < y; }
};

}  // namespace libops::legacy::fn

#define LIBOPS_BINARY_BOOL_OPS(X)        \
  X(0, equals, fn::Equal, kNumericTypes) \
  X(1, less_than, fn::LessThan, kNumericTypes)
#define LIBOPS_BINARY_BOOL_COUNT 2

namespace libops::legacy {
enum class BinaryBoolOp : int { LIBOPS_BINARY_BOOL_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
