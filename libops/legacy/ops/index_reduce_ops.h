// INDEX_REDUCE: the position (int64, C-order index within the reduced
// dims) of the element picked by the op. Ties pick the first position; a NaN
// counts as the largest value, so index_max finds the first NaN, as numpy's
// argmax does.
#pragma once

#include <cmath>
#include <cstdint>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

template <typename C>
struct ValueIndex {
  C value;
  int64_t index;
};

template <typename C> inline bool is_nan_value(C v) {
  if constexpr (is_float_compute_v<C>) return std::isnan(v);
  else return false;
}

// True when b beats a for "largest" (NaN largest; ties: smaller index).
template <typename C> inline bool beats_max(const ValueIndex<C>& b, const ValueIndex<C>& a) {
  if (b.index < 0) return false;
  if (a.index < 0) return true;
  bool bn = is_nan_value(b.value), an = is_nan_value(a.value);
  if (bn || an) return bn && (!an || b.index < a.index);
  return b.value > a.value || (b.value == a.value && b.index < a.index);
}

template <typename C> struct IndexMax {
  static constexpr bool kIndexed = true;
  using Acc = ValueIndex<C>;
  static Acc identity(const ExtraParams&) { return {C(0), -1}; }
  static Acc map(C x, int64_t i, const ExtraParams&) { return {x, i}; }
  static Acc merge(Acc a, Acc b) { return beats_max(b, a) ? b : a; }
  static int64_t finish(Acc a, int64_t, const ExtraParams&) { return a.index; }
};

}  // namespace libops::legacy::fn

#define LIBOPS_INDEX_REDUCE_OPS(X) X(0, index_max, fn::IndexMax, kNumericTypes)
#define LIBOPS_INDEX_REDUCE_COUNT 1

namespace libops::legacy {
enum class IndexReduceOp : int { LIBOPS_INDEX_REDUCE_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
