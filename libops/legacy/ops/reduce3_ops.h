// REDUCE3: reductions over pairs (x, y) of equal shape: distances and
// similarities. z is float (integers computed in float, C is float or
// double). kArity = 2. Empty reductions: Note [Empty reductions].
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <cstdint>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

// sum over pairs of Map(x, y); Finish turns the sum into the result.
template <typename C, typename Map, typename Finish> struct PairSum {
  static constexpr int kArity = 2;
  using Acc = C;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return C(0); }
  LIBOPS_HOST_DEVICE static Acc map(C x, C y, const ExtraParams&) { return Map::apply(x, y); }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return a + b; }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t, const ExtraParams&) { return Finish::apply(a); }
};

struct MapProduct { template <typename C> LIBOPS_HOST_DEVICE static C apply(C x, C y) { return x * y; } };
struct MapAbsDiff { template <typename C> LIBOPS_HOST_DEVICE static C apply(C x, C y) { return std::fabs(x - y); } };
struct MapSquaredDiff { template <typename C> LIBOPS_HOST_DEVICE static C apply(C x, C y) { return (x - y) * (x - y); } };
struct KeepSum { template <typename C> LIBOPS_HOST_DEVICE static C apply(C a) { return a; } };
struct TakeSqrt { template <typename C> LIBOPS_HOST_DEVICE static C apply(C a) { return std::sqrt(a); } };

// dot: sum x * y
template <typename C> using Dot = PairSum<C, MapProduct, KeepSum>;
// manhattan: sum |x - y|
template <typename C> using Manhattan = PairSum<C, MapAbsDiff, KeepSum>;
// euclidean: sqrt(sum (x - y)^2)
template <typename C> using Euclidean = PairSum<C, MapSquaredDiff, TakeSqrt>;

template <typename C> struct CosineSums {
  C xy, xx, yy;
};

// cosine_similarity: sum(x*y) / (sqrt(sum x^2) * sqrt(sum y^2)); NaN when
// x or y is all zeros (0/0).
template <typename C> struct CosineSimilarity {
  static constexpr int kArity = 2;
  using Acc = CosineSums<C>;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return {C(0), C(0), C(0)}; }
  LIBOPS_HOST_DEVICE static Acc map(C x, C y, const ExtraParams&) { return {x * y, x * x, y * y}; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return {a.xy + b.xy, a.xx + b.xx, a.yy + b.yy}; }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t, const ExtraParams&) { return a.xy / (std::sqrt(a.xx) * std::sqrt(a.yy)); }
};

// cosine_distance: 1 - cosine_similarity
template <typename C> struct CosineDistance : CosineSimilarity<C> {
  LIBOPS_HOST_DEVICE static C finish(CosineSums<C> a, int64_t n, const ExtraParams& e) {
    return C(1) - CosineSimilarity<C>::finish(a, n, e);
  }
};

// equals_with_eps: the number of mismatching pairs, as a float. A pair
// matches when x == y or |x - y| <= eps, eps = extra[0] (default 1e-5); a
// NaN never matches. 0 means "all equal within eps".
template <typename C> struct EqualsWithEps {
  static constexpr int kArity = 2;
  using Acc = int64_t;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return 0; }
  LIBOPS_HOST_DEVICE static Acc map(C x, C y, const ExtraParams& e) {
    return (x == y || std::fabs(x - y) <= C(e.get(0, 1e-5))) ? 0 : 1;
  }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return a + b; }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t, const ExtraParams&) { return C(a); }
  static Status check(const char* op, const ExtraParams& e) {
    const double eps = e.get(0, 1e-5);
    if (!(eps >= 0))
      return Status::error(StatusCode::kInvalidArgument, "%s: eps (extra[0]) is %g; expected a number >= 0", op, eps);
    return Status::ok();
  }
};

template <typename C> struct MinMaxSums {
  C min, max;
};

// jaccard_distance: 1 - sum min(x, y) / sum max(x, y) (weighted Jaccard,
// meant for non-negative inputs); NaN when both sums are 0 (0/0).
template <typename C> struct JaccardDistance {
  static constexpr int kArity = 2;
  using Acc = MinMaxSums<C>;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return {C(0), C(0)}; }
  LIBOPS_HOST_DEVICE static Acc map(C x, C y, const ExtraParams&) { return {x < y ? x : y, x < y ? y : x}; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return {a.min + b.min, a.max + b.max}; }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t, const ExtraParams&) { return C(1) - a.min / a.max; }
};

// hamming_distance: the fraction of pairs with x != y (count / n, as
// scipy's hamming); a NaN differs from everything; NaN when empty (0/0).
template <typename C> struct HammingDistance {
  static constexpr int kArity = 2;
  using Acc = int64_t;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return 0; }
  LIBOPS_HOST_DEVICE static Acc map(C x, C y, const ExtraParams&) { return x != y ? 1 : 0; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return a + b; }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t n, const ExtraParams&) { return C(a) / C(n); }
};

}  // namespace libops::legacy::fn

// X(number, name, functor, type set). Numbers are stable: append only.
#define LIBOPS_REDUCE3_OPS(X)                                  \
  X(0, dot, fn::Dot, kFloatTypes)                              \
  X(1, manhattan, fn::Manhattan, kFloatTypes)                  \
  X(2, euclidean, fn::Euclidean, kFloatTypes)                  \
  X(3, cosine_similarity, fn::CosineSimilarity, kFloatTypes)   \
  X(4, cosine_distance, fn::CosineDistance, kFloatTypes)       \
  X(5, equals_with_eps, fn::EqualsWithEps, kFloatTypes)        \
  X(6, jaccard_distance, fn::JaccardDistance, kFloatTypes)     \
  X(7, hamming_distance, fn::HammingDistance, kFloatTypes)
#define LIBOPS_REDUCE3_COUNT 8

namespace libops::legacy {
enum class Reduce3Op : int { LIBOPS_REDUCE3_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
