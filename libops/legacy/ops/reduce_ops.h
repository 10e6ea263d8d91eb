// Reduction functors for the REDUCE_FLOAT, REDUCE_SAME, REDUCE_BOOL and
// REDUCE_LONG groups, and their tables. The functor contract is in
// loops/reduce.h (identity / map / merge / finish, optional check).
//
//   REDUCE_FLOAT: any numeric x, float z (integers computed in float)
//   REDUCE_SAME:  z has x's dtype
//   REDUCE_BOOL:  z is bool
//   REDUCE_LONG:  z is int64
//
// Note [Empty reductions]
// Reducing zero elements gives the identity, finished: sum/asum 0, prod 1,
// max -inf (integers: the lowest value of z's dtype), min and amin +inf
// (integers: the highest value of z's dtype), amax and norm_max 0, mean and
// amean NaN (0/0), norms 0, entropy -0, log_entropy -inf; any false, all
// true; counts 0; index reductions -1; variance NaN; reduce3 sums 0 and
// ratios NaN (0/0). Integer extremes are clamped into z's dtype by the
// engine, so an empty int8 max is -128.
//
// Note [NaN in reductions]
// max, min, amax, amin and norm_max return NaN when any reduced element is
// NaN (numpy's max/min); sums and products propagate NaN arithmetically.
// Integer sums and products wrap modulo 2^bits of the compute type, which
// after the store into z's dtype equals numpy's result cast to that dtype.
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "libops/legacy/dispatch.h"
#include "libops/legacy/ops/wrapping.h"

namespace libops::legacy::fn {

// ---- shared helpers ----

// |x|; for signed integers the lowest value stays itself (wraps), as numpy's abs.
template <typename C> LIBOPS_HOST_DEVICE inline C abs_value(C x) {
  if constexpr (is_float_compute_v<C>) return std::fabs(x);
  else if constexpr (std::is_unsigned_v<C>) return x;
  else return x < 0 ? wrap_neg(x) : x;
}

template <typename C> LIBOPS_HOST_DEVICE inline bool is_nan_value(C v) {
  if constexpr (is_float_compute_v<C>) return v != v;
  else return false;
}

// NaN-propagating max/min (Note [NaN in reductions]): a NaN a, else x86's
// max (min) instruction, which gives b where b is NaN (and on ties). The
// compiler vectorizes this form as one max, one compare and one blend, in
// the lanes of the generic path and across outputs on the kept-inner path
// (three compares and two blends before: row max of 4096^2 went from 28 to
// 37 GB/s on one thread).
template <typename C> LIBOPS_HOST_DEVICE inline C max_nan(C a, C b) {
  if constexpr (is_float_compute_v<C>) {
    const C larger = a > b ? a : b;
    return a != a ? a : larger;
  } else {
    return a > b ? a : b;
  }
}
template <typename C> LIBOPS_HOST_DEVICE inline C min_nan(C a, C b) {
  if constexpr (is_float_compute_v<C>) {
    const C smaller = a < b ? a : b;
    return a != a ? a : smaller;
  } else {
    return a < b ? a : b;
  }
}

template <typename C> LIBOPS_HOST_DEVICE inline C lowest_value() {
  if constexpr (is_float_compute_v<C>) return -std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::lowest();
}
template <typename C> LIBOPS_HOST_DEVICE inline C highest_value() {
  if constexpr (is_float_compute_v<C>) return std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::max();
}

// Note [Match conditions]
// match_condition, first_index and last_index test each element x against
// extra params (mode, value, eps) = (extra[0], extra[1], extra[2]); eps
// defaults to 0. x and value are compared in double (int64 beyond 2^53 rounds).
//    0 equals              |x - value| <= eps   (or x == value, for infinities)
//    1 not_equals          not equals
//    2 less                x <  value
//    3 less_or_equal       x <= value
//    4 greater             x >  value
//    5 greater_or_equal    x >= value
//    6 abs_less            |x| <  value
//    7 abs_greater         |x| >  value
//    8 is_nan              x is NaN
//    9 is_inf              x is +inf or -inf
//   10 is_finite           x is neither NaN nor infinite
//   11 abs_less_or_equal   |x| <= value
//   12 abs_greater_or_equal |x| >= value
// NaN compares false everywhere except not_equals and is_nan. Any other mode,
// or a negative or NaN eps, is rejected before the reduction runs.
enum class MatchMode : int {
  kEquals = 0, kNotEquals = 1, kLess = 2, kLessOrEqual = 3, kGreater = 4, kGreaterOrEqual = 5,
  kAbsLess = 6, kAbsGreater = 7, kIsNan = 8, kIsInf = 9, kIsFinite = 10, kAbsLessOrEqual = 11,
  kAbsGreaterOrEqual = 12,
};
inline constexpr int kMatchModeCount = 13;

inline Status check_match_params(const char* op, const ExtraParams& e) {
  const double mode = e.get(0, 0.0), eps = e.get(2, 0.0);
  if (!(mode >= 0 && mode < kMatchModeCount && mode == std::floor(mode)))
    return Status::error(StatusCode::kInvalidArgument,
                         "%s: condition mode (extra[0]) is %g; expected an integer 0..%d (Note [Match conditions])",
                         op, mode, kMatchModeCount - 1);
  if (!(eps >= 0))
    return Status::error(StatusCode::kInvalidArgument, "%s: eps (extra[2]) is %g; expected a number >= 0", op, eps);
  return Status::ok();
}

template <typename C> LIBOPS_HOST_DEVICE inline bool matches(C xc, const ExtraParams& e) {
  const double x = double(xc), v = e.get(1, 0.0), eps = e.get(2, 0.0);
  switch (static_cast<MatchMode>(static_cast<int>(e.get(0, 0.0)))) {
    case MatchMode::kEquals: return x == v || std::fabs(x - v) <= eps;
    case MatchMode::kNotEquals: return !(x == v || std::fabs(x - v) <= eps);
    case MatchMode::kLess: return x < v;
    case MatchMode::kLessOrEqual: return x <= v;
    case MatchMode::kGreater: return x > v;
    case MatchMode::kGreaterOrEqual: return x >= v;
    case MatchMode::kAbsLess: return std::fabs(x) < v;
    case MatchMode::kAbsGreater: return std::fabs(x) > v;
    case MatchMode::kIsNan: return std::isnan(x);
    case MatchMode::kIsInf: return std::isinf(x);
    case MatchMode::kIsFinite: return std::isfinite(x);
    case MatchMode::kAbsLessOrEqual: return std::fabs(x) <= v;
    case MatchMode::kAbsGreaterOrEqual: return std::fabs(x) >= v;
  }
  return false;  // unreachable: check_match_params ran first
}

// ---- REDUCE_FLOAT (C is float or double) ----

// Sum of map(x); shared shape of the sum-like functors below.
template <typename C, typename Map, typename Finish> struct SumOf {
  using Acc = C;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return C(0); }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams& e) { return Map::apply(x, e); }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return a + b; }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t n, const ExtraParams& e) { return Finish::apply(a, n, e); }
};

struct MapIdentity { template <typename C> LIBOPS_HOST_DEVICE static C apply(C x, const ExtraParams&) { return x; } };
struct MapAbs { template <typename C> LIBOPS_HOST_DEVICE static C apply(C x, const ExtraParams&) { return std::fabs(x); } };
struct MapSquare { template <typename C> LIBOPS_HOST_DEVICE static C apply(C x, const ExtraParams&) { return x * x; } };
struct MapAbsPow {
  template <typename C> LIBOPS_HOST_DEVICE static C apply(C x, const ExtraParams& e) { return std::pow(std::fabs(x), C(e.get(0, 2.0))); }
};
// x * log(x), with 0 * log(0) taken as its limit 0 (numpy would give NaN);
// a negative x gives NaN.
struct MapXLogX {
  template <typename C> LIBOPS_HOST_DEVICE static C apply(C x, const ExtraParams&) { return x == C(0) ? C(0) : x * std::log(x); }
};
struct MapXLog2X {
  template <typename C> LIBOPS_HOST_DEVICE static C apply(C x, const ExtraParams&) { return x == C(0) ? C(0) : x * std::log2(x); }
};

struct FinishSum { template <typename C> LIBOPS_HOST_DEVICE static C apply(C a, int64_t, const ExtraParams&) { return a; } };
struct FinishMean { template <typename C> LIBOPS_HOST_DEVICE static C apply(C a, int64_t n, const ExtraParams&) { return a / C(n); } };
struct FinishSqrt { template <typename C> LIBOPS_HOST_DEVICE static C apply(C a, int64_t, const ExtraParams&) { return std::sqrt(a); } };
struct FinishRoot {
  template <typename C> LIBOPS_HOST_DEVICE static C apply(C a, int64_t, const ExtraParams& e) { return std::pow(a, C(1.0 / e.get(0, 2.0))); }
};
struct FinishNeg { template <typename C> LIBOPS_HOST_DEVICE static C apply(C a, int64_t, const ExtraParams&) { return -a; } };
struct FinishLogNeg { template <typename C> LIBOPS_HOST_DEVICE static C apply(C a, int64_t, const ExtraParams&) { return std::log(-a); } };

// mean(x)
template <typename C> using Mean = SumOf<C, MapIdentity, FinishMean>;
// mean(|x|)
template <typename C> using AMean = SumOf<C, MapAbs, FinishMean>;
// sum |x|
template <typename C> using Norm1 = SumOf<C, MapAbs, FinishSum>;
// sqrt(sum x^2); also the Frobenius norm of the reduced elements
template <typename C> using Norm2 = SumOf<C, MapSquare, FinishSqrt>;
// sum x^2
template <typename C> using SquaredNorm = SumOf<C, MapSquare, FinishSum>;
// -sum x * log(x) (natural log), 0 * log(0) = 0
template <typename C> using Entropy = SumOf<C, MapXLogX, FinishNeg>;
// log(-sum x * log(x)): the log of entropy
template <typename C> using LogEntropy = SumOf<C, MapXLogX, FinishLogNeg>;
// -sum x * log2(x), 0 * log2(0) = 0
template <typename C> using ShannonEntropy = SumOf<C, MapXLog2X, FinishNeg>;

// (sum |x|^p)^(1/p) with p = extra[0] (default 2); p must be finite and > 0.
template <typename C> struct NormP : SumOf<C, MapAbsPow, FinishRoot> {
  static Status check(const char* op, const ExtraParams& e) {
    const double p = e.get(0, 2.0);
    if (!(p > 0 && std::isfinite(p)))
      return Status::error(StatusCode::kInvalidArgument, "%s: p (extra[0]) is %g; expected a finite number > 0", op, p);
    return Status::ok();
  }
};

// max |x|; NaN if any NaN; 0 when empty.
template <typename C> struct NormMax {
  using Acc = C;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return C(0); }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams&) { return std::fabs(x); }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return max_nan(a, b); }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

// ---- REDUCE_SAME (any compute type) ----

// sum x
template <typename C> struct Sum {
  using Acc = C;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return C(0); }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams&) { return x; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return wrap_add(a, b); }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

// sum |x|
template <typename C> struct ASum : Sum<C> {
  LIBOPS_HOST_DEVICE static C map(C x, const ExtraParams&) { return abs_value(x); }
};

// product of x
template <typename C> struct Prod {
  using Acc = C;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return C(1); }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams&) { return x; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return wrap_mul(a, b); }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

// largest x; NaN if any NaN
template <typename C> struct Max {
  using Acc = C;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return lowest_value<C>(); }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams&) { return x; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return max_nan(a, b); }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

// smallest x; NaN if any NaN
template <typename C> struct Min {
  using Acc = C;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return highest_value<C>(); }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams&) { return x; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return min_nan(a, b); }
  LIBOPS_HOST_DEVICE static C finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

// largest |x|; NaN if any NaN; 0 when empty
template <typename C> struct AMax : Max<C> {
  LIBOPS_HOST_DEVICE static C identity(const ExtraParams&) { return C(0); }
  LIBOPS_HOST_DEVICE static C map(C x, const ExtraParams&) { return abs_value(x); }
};

// smallest |x|; NaN if any NaN
template <typename C> struct AMin : Min<C> {
  LIBOPS_HOST_DEVICE static C map(C x, const ExtraParams&) { return abs_value(x); }
};

// ---- REDUCE_BOOL (any compute type; bool z) ----

// Reduces the predicate P over the elements: "all" (&, empty true) or
// "any" (|, empty false). Written with & and | so the lanes vectorize.
template <typename C, typename P, bool kAll> struct BoolReduce {
  using Acc = bool;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return kAll; }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams&) { return P::test(x); }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return kAll ? (a & b) : (a | b); }
  LIBOPS_HOST_DEVICE static bool finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

struct IsNonZero { template <typename C> LIBOPS_HOST_DEVICE static bool test(C x) { return x != C(0); } };
struct IsFiniteValue {
  template <typename C> LIBOPS_HOST_DEVICE static bool test(C x) {
    if constexpr (is_float_compute_v<C>) return std::isfinite(x);
    else return true;
  }
};
struct IsInfOrNanValue { template <typename C> LIBOPS_HOST_DEVICE static bool test(C x) { return !IsFiniteValue::test(x); } };
struct IsNanValue { template <typename C> LIBOPS_HOST_DEVICE static bool test(C x) { return is_nan_value(x); } };
struct IsInfValue {
  template <typename C> LIBOPS_HOST_DEVICE static bool test(C x) {
    if constexpr (is_float_compute_v<C>) return std::isinf(x);
    else return false;
  }
};
struct IsPositiveValue { template <typename C> LIBOPS_HOST_DEVICE static bool test(C x) { return x > C(0); } };
struct IsNegativeValue { template <typename C> LIBOPS_HOST_DEVICE static bool test(C x) { return x < C(0); } };

// any: some x != 0 (NaN counts as non-zero)
template <typename C> using Any = BoolReduce<C, IsNonZero, false>;
// all: every x != 0
template <typename C> using All = BoolReduce<C, IsNonZero, true>;
// is_finite: every x is finite (integers always are)
template <typename C> using IsFinite = BoolReduce<C, IsFiniteValue, true>;
// is_inf_or_nan: some x is +-inf or NaN
template <typename C> using IsInfOrNan = BoolReduce<C, IsInfOrNanValue, false>;
// is_nan: some x is NaN
template <typename C> using IsNan = BoolReduce<C, IsNanValue, false>;
// is_inf: some x is +inf or -inf
template <typename C> using IsInf = BoolReduce<C, IsInfValue, false>;
// is_positive: every x > 0 (NaN is not)
template <typename C> using IsPositive = BoolReduce<C, IsPositiveValue, true>;
// is_negative: every x < 0 (NaN is not)
template <typename C> using IsNegative = BoolReduce<C, IsNegativeValue, true>;

// ---- REDUCE_LONG (any compute type; int64 z) ----

template <typename C, typename P> struct CountIf {
  using Acc = int64_t;
  LIBOPS_HOST_DEVICE static Acc identity(const ExtraParams&) { return 0; }
  LIBOPS_HOST_DEVICE static Acc map(C x, const ExtraParams& e) { return P::test(x, e) ? 1 : 0; }
  LIBOPS_HOST_DEVICE static Acc merge(Acc a, Acc b) { return a + b; }
  LIBOPS_HOST_DEVICE static int64_t finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

struct NonZeroTest { template <typename C> LIBOPS_HOST_DEVICE static bool test(C x, const ExtraParams&) { return x != C(0); } };
struct ZeroTest { template <typename C> LIBOPS_HOST_DEVICE static bool test(C x, const ExtraParams&) { return x == C(0); } };
struct MatchTest { template <typename C> LIBOPS_HOST_DEVICE static bool test(C x, const ExtraParams& e) { return matches(x, e); } };

// number of x != 0 (NaN counts)
template <typename C> using CountNonZero = CountIf<C, NonZeroTest>;
// number of x == 0
template <typename C> using CountZero = CountIf<C, ZeroTest>;
// number of x matching the condition of Note [Match conditions]
template <typename C> struct MatchCondition : CountIf<C, MatchTest> {
  static Status check(const char* op, const ExtraParams& e) { return check_match_params(op, e); }
};

}  // namespace libops::legacy::fn

// X(number, name, functor, type set). Numbers are stable: append only.
#define LIBOPS_REDUCE_FLOAT_OPS(X)                  \
  X(0, mean, fn::Mean, kFloatTypes)                 \
  X(1, amean, fn::AMean, kFloatTypes)               \
  X(2, norm1, fn::Norm1, kFloatTypes)               \
  X(3, norm2, fn::Norm2, kFloatTypes)               \
  X(4, norm_max, fn::NormMax, kFloatTypes)          \
  X(5, norm_frobenius, fn::Norm2, kFloatTypes)      \
  X(6, norm_p, fn::NormP, kFloatTypes)              \
  X(7, squared_norm, fn::SquaredNorm, kFloatTypes)  \
  X(8, entropy, fn::Entropy, kFloatTypes)           \
  X(9, log_entropy, fn::LogEntropy, kFloatTypes)    \
  X(10, shannon_entropy, fn::ShannonEntropy, kFloatTypes)
#define LIBOPS_REDUCE_FLOAT_COUNT 11

#define LIBOPS_REDUCE_SAME_OPS(X)      \
  X(0, sum, fn::Sum, kNumericTypes)    \
  X(1, max, fn::Max, kNumericTypes)    \
  X(2, min, fn::Min, kNumericTypes)    \
  X(3, prod, fn::Prod, kNumericTypes)  \
  X(4, asum, fn::ASum, kNumericTypes)  \
  X(5, amax, fn::AMax, kNumericTypes)  \
  X(6, amin, fn::AMin, kNumericTypes)
#define LIBOPS_REDUCE_SAME_COUNT 7

#define LIBOPS_REDUCE_BOOL_OPS(X)                     \
  X(0, any, fn::Any, kNumericTypes)                   \
  X(1, all, fn::All, kNumericTypes)                   \
  X(2, is_finite, fn::IsFinite, kNumericTypes)        \
  X(3, is_inf_or_nan, fn::IsInfOrNan, kNumericTypes)  \
  X(4, is_nan, fn::IsNan, kNumericTypes)              \
  X(5, is_inf, fn::IsInf, kNumericTypes)              \
  X(6, is_positive, fn::IsPositive, kNumericTypes)    \
  X(7, is_negative, fn::IsNegative, kNumericTypes)
#define LIBOPS_REDUCE_BOOL_COUNT 8

#define LIBOPS_REDUCE_LONG_OPS(X)                         \
  X(0, count_nonzero, fn::CountNonZero, kNumericTypes)    \
  X(1, count_zero, fn::CountZero, kNumericTypes)          \
  X(2, match_condition, fn::MatchCondition, kNumericTypes)
#define LIBOPS_REDUCE_LONG_COUNT 3

namespace libops::legacy {
enum class ReduceFloatOp : int { LIBOPS_REDUCE_FLOAT_OPS(LIBOPS_TABLE_ENUM_ROW) };
enum class ReduceSameOp : int { LIBOPS_REDUCE_SAME_OPS(LIBOPS_TABLE_ENUM_ROW) };
enum class ReduceBoolOp : int { LIBOPS_REDUCE_BOOL_OPS(LIBOPS_TABLE_ENUM_ROW) };
enum class ReduceLongOp : int { LIBOPS_REDUCE_LONG_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
