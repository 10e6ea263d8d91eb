// Reduction functors for the REDUCE_FLOAT, REDUCE_SAME, REDUCE_BOOL and
// REDUCE_LONG groups, and their tables. The functor contract is in
// loops/reduce.h (identity / map / merge / finish).
//
//   REDUCE_FLOAT: any numeric x, float z (integers computed in float)
//   REDUCE_SAME:  z has x's dtype
//   REDUCE_BOOL:  z is bool
//   REDUCE_LONG:  z is int64
//
// Note [Empty reductions]
// Reducing zero elements gives the identity, finished: sum 0, prod 1,
// mean NaN (0/0), max -inf / lowest integer, any false, all true.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

// Integer sums accumulate in 64 bits so int8/int16/int32 inputs do not wrap.
template <typename C>
using sum_acc_t = std::conditional_t<std::is_same_v<C, int32_t>, int64_t, C>;

template <typename C> struct Sum {
  using Acc = sum_acc_t<C>;
  static Acc identity(const ExtraParams&) { return Acc(0); }
  static Acc map(C x, const ExtraParams&) { return Acc(x); }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static C finish(Acc a, int64_t, const ExtraParams&) { return C(a); }
};

template <typename C> struct Mean {
  using Acc = C;
  static Acc identity(const ExtraParams&) { return Acc(0); }
  static Acc map(C x, const ExtraParams&) { return x; }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static C finish(Acc a, int64_t n, const ExtraParams&) { return a / C(n); }
};

template <typename C> struct Any {
  using Acc = bool;
  static Acc identity(const ExtraParams&) { return false; }
  static Acc map(C x, const ExtraParams&) { return x != C(0); }
  static Acc merge(Acc a, Acc b) { return a || b; }
  static bool finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

template <typename C> struct CountNonZero {
  using Acc = int64_t;
  static Acc identity(const ExtraParams&) { return 0; }
  static Acc map(C x, const ExtraParams&) { return x != C(0) ? 1 : 0; }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static int64_t finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

}  // namespace libops::legacy::fn

// X(number, name, functor, type set)
#define LIBOPS_REDUCE_FLOAT_OPS(X) X(0, mean, fn::Mean, kFloatTypes)
#define LIBOPS_REDUCE_FLOAT_COUNT 1
#define LIBOPS_REDUCE_SAME_OPS(X) X(0, sum, fn::Sum, kNumericTypes)
#define LIBOPS_REDUCE_SAME_COUNT 1
#define LIBOPS_REDUCE_BOOL_OPS(X) X(0, any, fn::Any, kNumericTypes)
#define LIBOPS_REDUCE_BOOL_COUNT 1
#define LIBOPS_REDUCE_LONG_OPS(X) X(0, count_nonzero, fn::CountNonZero, kNumericTypes)
#define LIBOPS_REDUCE_LONG_COUNT 1

namespace libops::legacy {
enum class ReduceFloatOp : int { LIBOPS_REDUCE_FLOAT_OPS(LIBOPS_TABLE_ENUM_ROW) };
enum class ReduceSameOp : int { LIBOPS_REDUCE_SAME_OPS(LIBOPS_TABLE_ENUM_ROW) };
enum class ReduceBoolOp : int { LIBOPS_REDUCE_BOOL_OPS(LIBOPS_TABLE_ENUM_ROW) };
enum class ReduceLongOp : int { LIBOPS_REDUCE_LONG_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
