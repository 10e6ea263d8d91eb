// REDUCE3: reductions over pairs (x, y) of equal shape: distances and
// similarities. z is float (integers computed in float). kArity = 2.
#pragma once

#include <cmath>
#include <cstdint>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

template <typename C> struct Dot {
  static constexpr int kArity = 2;
  using Acc = C;
  static Acc identity(const ExtraParams&) { return C(0); }
  static Acc map(C x, C y, const ExtraParams&) { return x * y; }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static C finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

}  // namespace libops::legacy::fn

#define LIBOPS_REDUCE3_OPS(X) X(0, dot, fn::Dot, kFloatTypes)
#define LIBOPS_REDUCE3_COUNT 1

namespace libops::legacy {
enum class Reduce3Op : int { LIBOPS_REDUCE3_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
