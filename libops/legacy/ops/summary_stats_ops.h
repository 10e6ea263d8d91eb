// SUMMARY_STATS: variance and standard deviation, merged with Chan et al.'s
// parallel formula so any split of the data gives the same statistic.
// extra[0] = 1 (the default) for bias correction (divide by n - 1), 0 to
// divide by n. Both are NaN when the divisor is 0 (Note [Empty reductions]).
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <cstdint>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn {

struct Moments {
  double n, mean, m2;
};

LIBOPS_HOST_DEVICE inline Moments merge_moments(const Moments& a, const Moments& b) {
  if (a.n == 0) return b;
  if (b.n == 0) return a;
  double n = a.n + b.n, d = b.mean - a.mean;
  return {n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n)};
}

LIBOPS_HOST_DEVICE inline double finish_variance(const Moments& m, const ExtraParams& e) {
  double denom = e.get(0, 1.0) != 0.0 ? m.n - 1 : m.n;
  return denom > 0 ? m.m2 / denom : std::nan("");
}

template <typename C> struct Variance {
  using Acc = Moments;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return {0, 0, 0}; }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams&) { return {1, double(x), 0}; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return merge_moments(a, b); }
  LIBOPS_HOST_DEVICE static double finish(Acc a, int64_t, const ExtraParams& e) { return finish_variance(a, e); }
};

template <typename C> struct StandardDeviation {
  using Acc = Moments;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return {0, 0, 0}; }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams&) { return {1, double(x), 0}; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return merge_moments(a, b); }
  LIBOPS_HOST_DEVICE static double finish(Acc a, int64_t, const ExtraParams& e) { return std::sqrt(finish_variance(a, e)); }
};

}  // namespace libops::legacy::fn

#define LIBOPS_SUMMARY_STATS_OPS(X)             \
  X(0, variance, fn::Variance, kNumericTypes)   \
  X(1, standard_deviation, fn::StandardDeviation, kNumericTypes)
#define LIBOPS_SUMMARY_STATS_COUNT 2

namespace libops::legacy {
enum class SummaryStatsOp : int { LIBOPS_SUMMARY_STATS_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
