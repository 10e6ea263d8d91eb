// Transform "same": z = f(x) with z's dtype equal to x's, for every numeric
// dtype (integers and floats alike) unless a row says kFloatTypes.
//
// Note [Transform integer semantics]
// Integer inputs compute in int32/int64/uint64 (Note [Compute types]) and
// never hit undefined behaviour: abs, neg, square and cube wrap modulo 2^n
// like the binary ops (Note [Integer overflow] in wrapping.h), so
// abs(INT32_MIN) = INT32_MIN and neg(INT64_MIN) = INT64_MIN, as in numpy.
// Narrow dtypes wrap on store (abs(int8 -128) = -128). reciprocal on
// integers is 1 / x truncated with 1 / 0 = 0 (Note [Integer division]): 1 for
// 1, -1 for -1, else 0. Rounding ops (floor, ceil, round, trunc) return
// integers unchanged.
//
// NaN: sign, floor, ceil, round, trunc, frac, relu, relu6 and clip_by_value
// propagate NaN; step gives 0 for NaN (as the binary step); ones_as and
// zeros_as ignore the value.
//
// round is half away from zero (C's round: round(2.5) = 3, round(-0.5) = -1);
// for half to even use transform_strict rint.
//
// clip_by_value reads min = extra[0] and max = extra[1] (defaults -inf and
// +inf: no clipping). For integer dtypes the bounds convert like a float
// stored to an integer (truncated toward zero, saturated at the range, NaN
// -> 0). When min > max every element becomes max, as numpy.clip.
//
// bitwise_not and population_count take integers and bool and work on the
// bits of x's own dtype: the legacy layer passes that width as extra[0]
// (1 for bool, so bitwise_not(true) = false). population_count gives the
// number of set bits in x's dtype (popcount(int8 -1) = 8), in x's dtype.
//
// To add an op: write a functor `template <typename C> struct Name { static C
// op(C x, const ExtraParams& e); };` and add a row X(number, name, Functor,
// type set) with the next unused number. Never renumber a row.
#pragma once

#include "libops/core/fast_math.h"
#include "libops/core/host_device.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "libops/legacy/dispatch.h"
#include "libops/legacy/ops/wrapping.h"
#include "libops/loops/convert.h"

namespace libops::legacy::fn::transform_same {

namespace detail {

template <typename C> LIBOPS_HOST_DEVICE inline bool is_negative(C x) {
  if constexpr (std::is_unsigned_v<C>) return false;
  else return x < C(0);
}

}  // namespace detail

template <typename C> struct Abs {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if constexpr (std::is_floating_point_v<C>) return std::fabs(x);
    else return detail::is_negative(x) ? wrap_neg(x) : x;
  }
};
template <typename C> struct Neg {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return wrap_neg(x); }
};
// -1, 0 or 1; signed zeros and NaN come back unchanged.
template <typename C> struct Sign {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (x > C(0)) return C(1);
    if (detail::is_negative(x)) return C(-1);
    return x;
  }
};
template <typename C> struct Square {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return wrap_mul(x, x); }
};
template <typename C> struct Cube {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return wrap_mul(wrap_mul(x, x), x); }
};
template <typename C> struct Floor {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if constexpr (std::is_floating_point_v<C>) return std::floor(x);
    else return x;
  }
};
template <typename C> struct Ceil {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if constexpr (std::is_floating_point_v<C>) return std::ceil(x);
    else return x;
  }
};
// Half away from zero, as C's round.
// Half away from zero, as std::round, but from trunc, a compare and a
// select, which vectorize (std::round stays a call: 1.6 GB/s on one core).
// x - trunc(x) is exact; NaN and infinities come back as they are, and
// -0.4 gives -0.
template <typename C> struct Round {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if constexpr (std::is_floating_point_v<C>) {
      const C t = std::trunc(x);
      if constexpr (std::is_same_v<C, float>) return ::libops::detail::select_f32(std::fabs(x - t) >= 0.5f, t + std::copysign(1.0f, x), t);
      else return std::fabs(x - t) >= C(0.5) ? t + std::copysign(C(1), x) : t;
    } else {
      return x;
    }
  }
};
template <typename C> struct Identity {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return x; }
};
template <typename C> struct Reciprocal {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if constexpr (std::is_integral_v<C>)
      if (x == C(0)) return C(0);  // Note [Integer division]
    return C(C(1) / x);            // integers: 1 / INT_MIN = 0, never traps
  }
};
// max(x, 0), NaN kept.
template <typename C> struct Relu {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return detail::is_negative(x) ? C(0) : x; }
};
// min(max(x, 0), 6), NaN kept.
template <typename C> struct Relu6 {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (detail::is_negative(x)) return C(0);
    return x > C(6) ? C(6) : x;
  }
};
template <typename C> struct OnesAs {
  LIBOPS_HOST_DEVICE static C op(C, const ExtraParams&) { return C(1); }
};
template <typename C> struct ZerosAs {
  LIBOPS_HOST_DEVICE static C op(C, const ExtraParams&) { return C(0); }
};
template <typename C> struct ClipByValue {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams& e) {
    const C lo = convert_value<C>(e.get(0, -std::numeric_limits<double>::infinity()));
    const C hi = convert_value<C>(e.get(1, std::numeric_limits<double>::infinity()));
    const C y = x < lo ? lo : x;
    return y > hi ? hi : y;
  }
};
// 1 where x > 0, else 0 (also for NaN).
template <typename C> struct Step {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return x > C(0) ? C(1) : C(0); }
};
template <typename C> struct Trunc {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if constexpr (std::is_floating_point_v<C>) return std::trunc(x);
    else return x;
  }
};
// x - trunc(x), with x's sign (frac(-1.25) = -0.25); +-0 at +-inf.
template <typename C> struct Frac {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    C int_part;
    return std::modf(x, &int_part);
  }
};

namespace detail {
// x's bits in its storage width (extra[0]; default: all of C's).
template <typename C> LIBOPS_HOST_DEVICE inline std::make_unsigned_t<C> storage_bits(C x, const ExtraParams& e) {
  using U = std::make_unsigned_t<C>;
  const int width = static_cast<int>(e.get(0, 8.0 * sizeof(C)));
  U u = static_cast<U>(x);
  if (width > 0 && width < static_cast<int>(8 * sizeof(C))) u &= static_cast<U>((U(1) << width) - U(1));
  return u;
}
}  // namespace detail

template <typename C> struct BitwiseNot {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams& e) {
    return static_cast<C>(detail::storage_bits(static_cast<C>(~x), e));
  }
};
template <typename C> struct PopulationCount {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams& e) {
    auto u = detail::storage_bits(x, e);
    C n = 0;
    for (; u != 0; u &= u - 1) ++n;
    return n;
  }
};

}  // namespace libops::legacy::fn::transform_same

// X(number, name, functor, type set). Never renumber a row.
#define LIBOPS_TRANSFORM_SAME_OPS(X)                                   \
  X(0, abs, fn::transform_same::Abs, kNumericTypes)                    \
  X(1, neg, fn::transform_same::Neg, kNumericTypes)                    \
  X(2, sign, fn::transform_same::Sign, kNumericTypes)                  \
  X(3, square, fn::transform_same::Square, kNumericTypes)              \
  X(4, cube, fn::transform_same::Cube, kNumericTypes)                  \
  X(5, floor, fn::transform_same::Floor, kNumericTypes)                \
  X(6, ceil, fn::transform_same::Ceil, kNumericTypes)                  \
  X(7, round, fn::transform_same::Round, kNumericTypes)                \
  X(8, identity, fn::transform_same::Identity, kNumericTypes)          \
  X(9, reciprocal, fn::transform_same::Reciprocal, kNumericTypes)      \
  X(10, relu, fn::transform_same::Relu, kNumericTypes)                 \
  X(11, relu6, fn::transform_same::Relu6, kNumericTypes)               \
  X(12, ones_as, fn::transform_same::OnesAs, kNumericTypes)            \
  X(13, zeros_as, fn::transform_same::ZerosAs, kNumericTypes)          \
  X(14, clip_by_value, fn::transform_same::ClipByValue, kNumericTypes) \
  X(15, step, fn::transform_same::Step, kNumericTypes)                 \
  X(16, trunc, fn::transform_same::Trunc, kNumericTypes)               \
  X(17, frac, fn::transform_same::Frac, kFloatTypes)                   \
  X(18, bitwise_not, fn::transform_same::BitwiseNot, kIntTypes)        \
  X(19, population_count, fn::transform_same::PopulationCount, kIntTypes)
#define LIBOPS_TRANSFORM_SAME_COUNT 20

namespace libops::legacy {
enum class TransformSameOp : int { LIBOPS_TRANSFORM_SAME_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
