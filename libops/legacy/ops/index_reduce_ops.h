// INDEX_REDUCE: the position (int64, C-order index within the reduced
// dims) of the element picked by the op; -1 for an empty reduction.
// Ties pick the first position. A NaN wins every comparison, so index_max,
// index_min and the absolute variants find the first NaN, as numpy's argmax
// and argmin do.
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "libops/legacy/dispatch.h"
#include "libops/legacy/ops/reduce_ops.h"

namespace libops::legacy::fn {

template <typename C>
struct ValueIndex {
  C value;
  int64_t index;
};

struct Greater { template <typename C> LIBOPS_HOST_DEVICE static bool better(C a, C b) { return a > b; } };
struct Less { template <typename C> LIBOPS_HOST_DEVICE static bool better(C a, C b) { return a < b; } };

// True when b should replace a: b is NaN-first better, ties go to the
// smaller index; index -1 marks the identity (no element yet).
template <typename Cmp, typename C> LIBOPS_HOST_DEVICE inline bool beats(const ValueIndex<C>& b, const ValueIndex<C>& a) {
  if (b.index < 0) return false;
  if (a.index < 0) return true;
  const bool bn = is_nan_value(b.value), an = is_nan_value(a.value);
  if (bn || an) return bn && (!an || b.index < a.index);
  return Cmp::better(b.value, a.value) || (b.value == a.value && b.index < a.index);
}

// Picks the element with the best key(x) under Cmp.
template <typename C, typename Cmp, bool kAbs> struct IndexPick {
  static constexpr bool kIndexed = true;
  // For the loop engine's dense fast path (fold_pick in loops/reduce.h).
  using Compare = Cmp;
  static constexpr bool kAbsolute = kAbs;
  static constexpr bool kLargest = std::is_same_v<Cmp, Greater>;
  using Acc = ValueIndex<C>;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return {C(0), -1}; }
  LIBOPS_HOST_DEVICE static Acc map(C x, int64_t i, const ExtraParams&) { return {kAbs ? abs_value(x) : x, i}; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return beats<Cmp>(b, a) ? b : a; }
  LIBOPS_HOST_DEVICE static int64_t finish(Acc a, int64_t, const ExtraParams&) { return a.index; }
};

// index_max: first position of the largest x
template <typename C> using IndexMax = IndexPick<C, Greater, false>;
// index_min: first position of the smallest x
template <typename C> using IndexMin = IndexPick<C, Less, false>;
// index_absolute_max: first position of the largest |x|
template <typename C> using IndexAbsoluteMax = IndexPick<C, Greater, true>;
// index_absolute_min: first position of the smallest |x|
template <typename C> using IndexAbsoluteMin = IndexPick<C, Less, true>;

// first_index: the first position whose element matches the condition of
// Note [Match conditions] (extra = mode, value, eps); -1 when none does.
template <typename C> struct FirstIndex {
  static constexpr bool kIndexed = true;
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  using Acc = int64_t;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return kNone; }
  LIBOPS_HOST_DEVICE static Acc map(C x, int64_t i, const ExtraParams& e) { return matches(x, e) ? i : kNone; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return a < b ? a : b; }
  LIBOPS_HOST_DEVICE static int64_t finish(Acc a, int64_t, const ExtraParams&) { return a == kNone ? -1 : a; }
  static Status check(const char* op, const ExtraParams& e) { return check_match_params(op, e); }
};

// last_index: the last position whose element matches; -1 when none does.
template <typename C> struct LastIndex {
  static constexpr bool kIndexed = true;
  using Acc = int64_t;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return -1; }
  LIBOPS_HOST_DEVICE static Acc map(C x, int64_t i, const ExtraParams& e) { return matches(x, e) ? i : -1; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return a > b ? a : b; }
  LIBOPS_HOST_DEVICE static int64_t finish(Acc a, int64_t, const ExtraParams&) { return a; }
  static Status check(const char* op, const ExtraParams& e) { return check_match_params(op, e); }
};

}  // namespace libops::legacy::fn

// X(number, name, functor, type set). Numbers are stable: append only.
#define LIBOPS_INDEX_REDUCE_OPS(X)                                 \
  X(0, index_max, fn::IndexMax, kNumericTypes)                     \
  X(1, index_min, fn::IndexMin, kNumericTypes)                     \
  X(2, index_absolute_max, fn::IndexAbsoluteMax, kNumericTypes)    \
  X(3, index_absolute_min, fn::IndexAbsoluteMin, kNumericTypes)    \
  X(4, first_index, fn::FirstIndex, kNumericTypes)                 \
  X(5, last_index, fn::LastIndex, kNumericTypes)
#define LIBOPS_INDEX_REDUCE_COUNT 6

namespace libops::legacy {
enum class IndexReduceOp : int { LIBOPS_INDEX_REDUCE_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
