// Integer-only binary ops (shifts, bitwise): the shared table of SCALAR_INT,
// PAIRWISE_INT and BROADCAST_INT. Inputs and z are integer dtypes.
#pragma once

#include <type_traits>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

template <typename C> struct BitwiseAnd {
  static C op(C x, C y, const ExtraParams&) { return C(x & y); }
};

}  // namespace libops::legacy::fn

#define LIBOPS_BINARY_INT_OPS(X) \
  X(0, bitwise_and, fn::BitwiseAnd, kIntTypes)
#define LIBOPS_BINARY_INT_COUNT 1

namespace libops::legacy {
enum class BinaryIntOp : int { LIBOPS_BINARY_INT_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
