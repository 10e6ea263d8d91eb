// Binary predicates: the shared table of SCALAR_BOOL, PAIRWISE_BOOL and
// BROADCAST_BOOL. z (bool) = op(x, y), compared in the compute type of the
// common dtype of x and y (Note [Type promotion]), so int32 vs float32
// compares as float32 and uint64 vs int64 as int64.
//
// NaN compares unequal to everything (not_equals is true, the others false),
// as IEEE 754. The logical ops treat any nonzero value (NaN included) as true.
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <type_traits>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn::binary_bool {

template <typename C> struct Equal {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams&) { return x == y; }
};
template <typename C> struct LessThan {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams&) { return x < y; }
};
template <typename C> struct GreaterThan {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams&) { return x > y; }
};
template <typename C> struct LessOrEqual {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams&) { return x <= y; }
};
template <typename C> struct GreaterOrEqual {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams&) { return x >= y; }
};
template <typename C> struct NotEqual {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams&) { return x != y; }
};
// |x - y| <= eps with eps = extra[0] (default 1e-5), for every group. Equal
// values (infinities included) always match; NaN never does. The difference
// is taken in the compute type; integers use the exact unsigned distance.
template <typename C> struct EqualWithEps {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams& e) {
    if (x == y) return true;
    const double eps = e.get(0, 1e-5);
    if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      const U distance = x > y ? U(U(x) - U(y)) : U(U(y) - U(x));
      return static_cast<double>(distance) <= eps;
    } else {
      return static_cast<double>(std::fabs(x - y)) <= eps;
    }
  }
};
template <typename C> struct LogicalAnd {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams&) { return x != C(0) && y != C(0); }
};
template <typename C> struct LogicalOr {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams&) { return x != C(0) || y != C(0); }
};
template <typename C> struct LogicalXor {
  LIBOPS_HOST_DEVICE static bool op(C x, C y, const ExtraParams&) { return (x != C(0)) != (y != C(0)); }
};

}  // namespace libops::legacy::fn::binary_bool

// number, name, functor, compute types.
#define LIBOPS_BINARY_BOOL_OPS(X)                                         \
  X(0, equals, fn::binary_bool::Equal, kNumericTypes)                     \
  X(1, less_than, fn::binary_bool::LessThan, kNumericTypes)               \
  X(2, greater_than, fn::binary_bool::GreaterThan, kNumericTypes)         \
  X(3, less_or_equal, fn::binary_bool::LessOrEqual, kNumericTypes)        \
  X(4, greater_or_equal, fn::binary_bool::GreaterOrEqual, kNumericTypes)  \
  X(5, not_equals, fn::binary_bool::NotEqual, kNumericTypes)              \
  X(6, equals_with_eps, fn::binary_bool::EqualWithEps, kNumericTypes)     \
  X(7, logical_and, fn::binary_bool::LogicalAnd, kNumericTypes)           \
  X(8, logical_or, fn::binary_bool::LogicalOr, kNumericTypes)             \
  X(9, logical_xor, fn::binary_bool::LogicalXor, kNumericTypes)
#define LIBOPS_BINARY_BOOL_COUNT 10

namespace libops::legacy {
enum class BinaryBoolOp : int { LIBOPS_BINARY_BOOL_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
