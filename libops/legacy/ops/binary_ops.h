// Binary ops with a numeric result: the shared table of the SCALAR,
// PAIRWISE and BROADCAST groups. z = op(x, y), computed in the compute type
// of the common dtype of x and y (Note [Type promotion]); z may be any
// numeric dtype (converted on store). In the scalar group y is the one
// scalar; ops that read a parameter (relu's threshold, leaky_relu's alpha)
// take it from y, so scalar, pairwise and broadcast calls all work.
//
// Note [Integer division]
// Integer division and remainder never trap: x / 0 = 0 and x % 0 = 0 for
// every integer op here (divide, mod, floor_div, floor_mod, truncate_*,
// safe_divide, ...); INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 = 0.
// Floats follow IEEE 754 (x / 0 = +-inf or NaN; fmod(x, 0) = NaN).
//
// Integer add, subtract, multiply, pow and squared_subtract wrap
// (Note [Integer overflow] in wrapping.h).
//
// Note [Binary NaN policy]
// max, min, amax, amin, relu and relu6 propagate NaN (as numpy.maximum);
// step gives 0 and the comparisons in binary_bool_ops.h give false for NaN.
//
// To add an op: functor + one row with the next unused number.
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "libops/core/fast_math.h"
#include "libops/legacy/dispatch.h"
#include "libops/legacy/ops/wrapping.h"

namespace libops::legacy::fn::binary {

namespace detail {

template <typename C>
inline constexpr bool kSignedInt = std::is_integral_v<C> && std::is_signed_v<C>;

// |x|, as an unsigned value for integers so |INT_MIN| is representable.
template <typename C> LIBOPS_HOST_DEVICE inline auto magnitude(C x) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::fabs(x);
  } else if constexpr (std::is_signed_v<C>) {
    using U = std::make_unsigned_t<C>;
    return x < 0 ? U(U(0) - U(x)) : U(x);
  } else {
    return x;
  }
}

// Truncating integer division and remainder, Note [Integer division].
template <typename C> LIBOPS_HOST_DEVICE inline C int_div(C x, C y) {
  if (y == C(0)) return C(0);
  if constexpr (std::is_signed_v<C>)
    if (y == C(-1)) return wrap_neg(x);
  return C(x / y);
}
template <typename C> LIBOPS_HOST_DEVICE inline C int_rem(C x, C y) {
  if (y == C(0)) return C(0);
  if constexpr (std::is_signed_v<C>)
    if (y == C(-1)) return C(0);
  return C(x % y);
}

// Floor division and python-style modulo (sign of the divisor).
template <typename C> LIBOPS_HOST_DEVICE inline C int_floor_div(C x, C y) {
  C q = int_div(x, y);
  if constexpr (std::is_signed_v<C>)
    if (y != C(0) && y != C(-1) && x % y != C(0) && ((x < 0) != (y < 0))) q = C(q - 1);
  return q;
}
template <typename C> LIBOPS_HOST_DEVICE inline C int_floor_mod(C x, C y) {
  C r = int_rem(x, y);
  if constexpr (std::is_signed_v<C>)
    if (r != C(0) && ((r < 0) != (y < 0))) r = C(r + y);  // opposite signs: cannot overflow
  return r;
}

// Float floor division that agrees with the exact quotient's floor: the
// remainder from fmod is exact, so (x - fmod(x, y)) / y is within rounding of
// an integer and is snapped to it (floor(x / y) itself can be off by one,
// e.g. 1 / 0.1 rounds up to 10 while the floor of the exact quotient is 9).
template <typename C> LIBOPS_HOST_DEVICE inline C float_floor_div(C x, C y) {
  if (y == C(0)) return x / y;  // IEEE: +-inf, or NaN for 0 / 0
  const C m = std::fmod(x, y);
  C d = (x - m) / y;
  if (m != C(0) && (std::signbit(y) != std::signbit(m))) d -= C(1);
  if (d == C(0)) return std::copysign(C(0), x / y);
  C f = std::floor(d);
  if (d - f > C(0.5)) f += C(1);
  return f;
}
template <typename C> LIBOPS_HOST_DEVICE inline C float_floor_mod(C x, C y) {
  C m = std::fmod(x, y);  // NaN for y == 0 or x infinite
  if (m == C(0)) return std::copysign(C(0), y);
  if (std::signbit(y) != std::signbit(m)) m += y;
  return m;
}

// Integer power by squaring, wrapping (Note [Integer overflow]). A negative
// exponent gives 1 / x^-y truncated toward zero: 0, except for x = 1 (1)
// and x = -1 (+-1 by parity of y).
template <typename C> LIBOPS_HOST_DEVICE inline C int_pow(C x, C y) {
  if constexpr (std::is_signed_v<C>) {
    if (y < 0) {
      if (x == C(1)) return C(1);
      if (x == C(-1)) return (y & C(1)) ? C(-1) : C(1);
      return C(0);
    }
  }
  using U = std::make_unsigned_t<C>;
  U base = U(x), e = U(y), r = 1;
  while (e != 0) {
    if (e & 1u) r = U(r * base);
    base = U(base * base);
    e >>= 1;
  }
  return C(r);
}

// Note [Incomplete gamma]
// igamma(a, x) = P(a, x) = gamma(a, x) / Gamma(a), the regularized lower
// incomplete gamma function, and igammac(a, x) = Q(a, x) = 1 - P(a, x),
// computed in double for every compute type:
//   * x < a + 1: the power series of P, all terms positive, so P keeps full
//     relative accuracy. Q = 1 - P while P < 0.9; above that a < 1 and
//     x < 2, and Q comes from its own series (igamma_q_small_a), so a small
//     Q is not the difference of two numbers near 1.
//   * x >= a + 1: the continued fraction of Q (modified Lentz), and
//     P = 1 - Q, where Q <= 1/2 so P keeps its accuracy.
// The common factor x^a e^-x / Gamma(a) uses tgamma for a < 20 and Stirling's
// series for larger a, with a log(x/a) + a - x written as
// a (log1p(d) - d), d = (x - a) / a, so x near a >> 1 does not cancel.
// (Near x = a the result still moves by about a * eps relative per ulp of x:
// that is the function's own conditioning, not rounding in the algorithm.)
// Both loops stop when a term no longer changes the result in double, or
// after kIgammaMaxTerms (they need about 9 sqrt(a) terms, so the results stay
// accurate up to a of about 1e8).
// Special values: NaN in -> NaN; a <= 0 or x < 0 -> NaN; x = 0 -> P = 0;
// x = +inf -> P = 1 (NaN if a is also +inf); a = +inf with finite x -> P = 0.
inline constexpr int kIgammaMaxTerms = 100000;
inline constexpr double kIgammaEps = 0x1p-54;

// log Gamma(1 + a) for 0 <= a < 1, accurate relative to its value for small a
// (forming 1 + a first would drop the low bits of a).
LIBOPS_HOST_DEVICE inline double log_gamma_1p(double a) {
  if (a >= 0.2) return std::log(std::tgamma(1.0 + a));
  // log Gamma(1 + a) = -euler_gamma a + sum_{k >= 2} (-1)^k zeta(k) a^k / k
  constexpr double kZeta[] = {0, 0, 1.6449340668482264, 1.2020569031595943, 1.0823232337111382,
                              1.0369277551433699, 1.0173430619844491, 1.0083492773819228,
                              1.0040773561979443, 1.0020083928260822, 1.0009945751278181};
  double sum = -0.57721566490153286 * a, power = -a;
  for (int k = 2; k <= 24; ++k) {
    power *= -a;  // (-a)^k = (-1)^k a^k
    const double zeta = k <= 10 ? kZeta[k]
                                : 1.0 + std::exp2(-k) + std::pow(3.0, -k) + std::pow(4.0, -k) + std::pow(5.0, -k);
    sum += zeta * power / k;
  }
  return sum;
}

// x^a e^-x / Gamma(a + 1) (the factor of the series); x > 0, a > 0.
LIBOPS_HOST_DEVICE inline double igamma_factor_over_a(double a, double x) {
  if (a < 20) return std::exp(a * std::log(x) - x) / std::tgamma(a + 1);
  // Stirling: log Gamma(a) = (a - 1/2) log a - a + log(2 pi) / 2 + corr(a).
  const double r = 1 / a, r2 = r * r;
  const double corr = r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 / 1188))));
  // log(x / a) - d with d = (x - a) / a: log1p near x = a, where it does not
  // cancel; log(x / a) far from it, where 1 + d would lose the low bits of x / a.
  const double d = (x - a) / a;
  const double log_ratio = std::fabs(d) < 0.5 ? std::log1p(d) : std::log(x / a);
  return std::sqrt(1 / (2 * std::numbers::pi * a)) * std::exp(a * (log_ratio - d) - corr);
}

LIBOPS_HOST_DEVICE inline double igamma_p_series(double a, double x) {  // x < a + 1
  double sum = 1, term = 1;
  for (int n = 1; n < kIgammaMaxTerms; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term <= sum * kIgammaEps) break;
  }
  return sum * igamma_factor_over_a(a, x);
}

LIBOPS_HOST_DEVICE inline double igamma_q_continued_fraction(double a, double x) {  // x >= a + 1
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < kIgammaMaxTerms; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) <= kIgammaEps) break;
  }
  return h * a * igamma_factor_over_a(a, x);
}

// Q(a, x) for a < 1, 0 < x < 2, from
//   P = x^a / Gamma(a + 1) + (x^a / Gamma(a)) sum_{n >= 1} (-x)^n / (n! (a + n)),
// with 1 - x^a / Gamma(a + 1) = -expm1(a log x - log Gamma(1 + a)).
LIBOPS_HOST_DEVICE inline double igamma_q_small_a(double a, double x) {
  const double t = a * std::log(x) - log_gamma_1p(a);
  double sum = 0, term = 1;
  for (int n = 1; n < 200; ++n) {
    term *= -x / n;
    const double c = term / (a + n);
    sum += c;
    if (std::fabs(c) <= std::fabs(sum) * kIgammaEps) break;
  }
  return -std::expm1(t) - a * std::exp(t) * sum;
}

// Special values shared by P and Q; returns true with P in `p` when handled.
LIBOPS_HOST_DEVICE inline bool igamma_special(double a, double x, double& p) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(a) || std::isnan(x) || a <= 0 || x < 0) return p = kNaN, true;
  if (x == 0) return p = 0, true;
  if (std::isinf(x)) return p = std::isinf(a) ? kNaN : 1.0, true;
  if (std::isinf(a)) return p = 0, true;
  return false;
}

LIBOPS_HOST_DEVICE inline double igamma_p(double a, double x) {
  double p;
  if (igamma_special(a, x, p)) return p;
  if (x < a + 1) return igamma_p_series(a, x);
  return 1 - igamma_q_continued_fraction(a, x);
}

LIBOPS_HOST_DEVICE inline double igamma_q(double a, double x) {
  double p;
  if (igamma_special(a, x, p)) return 1 - p;
  if (x < a + 1) {
    p = igamma_p_series(a, x);
    return (p < 0.9 || a >= 1) ? 1 - p : igamma_q_small_a(a, x);
  }
  return igamma_q_continued_fraction(a, x);
}

}  // namespace detail

template <typename C> struct Add {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return wrap_add(x, y); }
};
template <typename C> struct Subtract {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return wrap_sub(x, y); }
};
template <typename C> struct Multiply {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return wrap_mul(x, y); }
};
// Integers truncate toward zero (Note [Integer division]).
template <typename C> struct Divide {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (std::is_integral_v<C>) return detail::int_div(x, y);
    else return x / y;
  }
};
template <typename C> struct ReverseSubtract {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams& e) { return Subtract<C>::op(y, x, e); }
};
template <typename C> struct ReverseDivide {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams& e) { return Divide<C>::op(y, x, e); }
};
template <typename C> struct Max {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>)
      if (x != x) return x;
    return x > y ? x : y;  // y NaN: the comparison fails and y is returned
  }
};
template <typename C> struct Min {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>)
      if (x != x) return x;
    return x < y ? x : y;
  }
};
// The operand with the larger absolute value (x on ties), itself, sign kept.
template <typename C> struct AbsMax {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>)
      if (x != x) return x;
    return detail::magnitude(x) >= detail::magnitude(y) ? x : y;
  }
};
// The operand with the smaller absolute value (x on ties).
template <typename C> struct AbsMin {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>)
      if (x != x) return x;
    return detail::magnitude(x) <= detail::magnitude(y) ? x : y;
  }
};
// x^3 for float through double, where x * x is exact and x^3 rounds to 53
// bits before float: the correctly rounded cube but for double rounding's
// rare ties, with pow's NaN, infinities, signed zeros and overflow.
LIBOPS_HOST_DEVICE inline float cube_f32(float x) {
  const double d = x;
  return static_cast<float>(d * d * d);
}
// Floats: std::pow, but float cubes (x^3 in GELU's tanh form as exporters
// write it) by cube_f32: the exponent is one value for a whole call, so the
// loop is unswitched and the cube's copy vectorizes, where the C library's
// powf ran per element (16M float32 at one thread: 104 -> 5.2-9.9 ms).
// Integers: exact, wrapping; negative exponents as int_pow.
template <typename C> struct Pow {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (std::is_same_v<C, float>) return y == 3.0f ? cube_f32(x) : std::pow(x, y);
    else if constexpr (is_float_compute_v<C>) return std::pow(x, y);
    else return detail::int_pow(x, y);
  }
};
// Truncated remainder, the sign of x (C's %, std::fmod). Also used for fmod
// and truncate_mod, which libnd4j and TensorFlow name separately.
template <typename C> struct Mod {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return std::fmod(x, y);
    else return detail::int_rem(x, y);
  }
};
// IEEE 754 remainder: x - n y with n = x / y rounded to nearest even.
template <typename C> struct Remainder {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return std::remainder(x, y); }
};
template <typename C> struct FloorDiv {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return detail::float_floor_div(x, y);
    else return detail::int_floor_div(x, y);
  }
};
// Python-style modulo: the sign of y; x == floor_div(x, y) * y + floor_mod(x, y).
template <typename C> struct FloorMod {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return detail::float_floor_mod(x, y);
    else return detail::int_floor_mod(x, y);
  }
};
// x / y rounded toward zero (integers: the same as divide).
template <typename C> struct TruncateDiv {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return std::trunc(x / y);
    else return detail::int_div(x, y);
  }
};
// atan2(x, y): the angle of the point (y, x), as numpy.arctan2(x, y).
template <typename C> struct Atan2 {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return std::atan2(x, y); }
};
template <typename C> struct SquaredSubtract {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    const C d = wrap_sub(x, y);
    return wrap_mul(d, d);
  }
};
// x / y, but 0 wherever y == 0 (even for x NaN or infinite), as TensorFlow's
// div_no_nan; safe_divide and divide_no_nan are the same op.
template <typename C> struct SafeDivide {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams& e) { return y == C(0) ? C(0) : Divide<C>::op(x, y, e); }
};
// z = y (with the scalar group: fill with the scalar).
template <typename C> struct Copy {
  LIBOPS_HOST_DEVICE static C op(C, C y, const ExtraParams&) { return y; }
};
template <typename C> struct ReverseMod {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams& e) { return Mod<C>::op(y, x, e); }
};
// Thresholded relu: x where x > y, else 0 (y is the threshold; 0 gives relu).
template <typename C> struct Relu {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>)
      if (x != x) return x;
    return x > y ? x : C(0);
  }
};
// min(relu(x, threshold y), 6).
template <typename C> struct Relu6 {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams& e) {
    const C r = Relu<C>::op(x, y, e);
    return r > C(6) ? C(6) : r;
  }
};
// y * x where x < 0, else x (y is alpha).
template <typename C> struct LeakyRelu {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return x < C(0) ? wrap_mul(y, x) : x; }
};
// y * (exp(x) - 1) where x < 0, else x (y is alpha).
// For float the vectorizable expm1_f32 (core/fast_math.h, within 1.5 ulp),
// as the unary elu's: the C library's expm1 kept the loop scalar (16M
// float32 at one thread: 120-130 ms, 8x the unary selu's time).
template <typename C> struct Elu {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (std::is_same_v<C, float>) return libops::detail::select_f32(x < 0.0f, y * expm1_f32(x), x);
    else return x < C(0) ? C(y * std::expm1(x)) : x;
  }
};
// 1 where x > y, else 0 (also for NaN).
template <typename C> struct Step {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return x > y ? C(1) : C(0); }
};
// y where x is NaN, else x (integers: x).
template <typename C> struct ReplaceNans {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if constexpr (is_float_compute_v<C>) return x != x ? y : x;
    else return x;
  }
};
// P(a = x, x = y), as TensorFlow's igamma(a, x); Note [Incomplete gamma].
template <typename C> struct Igamma {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    return C(detail::igamma_p(static_cast<double>(x), static_cast<double>(y)));
  }
};
// Q(a = x, x = y) = 1 - P, as TensorFlow's igammac(a, x).
template <typename C> struct Igammac {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    return C(detail::igamma_q(static_cast<double>(x), static_cast<double>(y)));
  }
};
// log base y of x: log(x) / log(y).
template <typename C> struct LogX {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return std::log(x) / std::log(y); }
};

}  // namespace libops::legacy::fn::binary

// number, name, functor, compute types. fmod and truncate_mod share Mod;
// truncate_div on integers equals divide; divide_no_nan equals safe_divide.
#define LIBOPS_BINARY_OPS(X)                                        \
  X(0, add, fn::binary::Add, kNumericTypes)                         \
  X(1, subtract, fn::binary::Subtract, kNumericTypes)               \
  X(2, multiply, fn::binary::Multiply, kNumericTypes)               \
  X(3, divide, fn::binary::Divide, kNumericTypes)                   \
  X(4, reverse_subtract, fn::binary::ReverseSubtract, kNumericTypes) \
  X(5, reverse_divide, fn::binary::ReverseDivide, kNumericTypes)    \
  X(6, max, fn::binary::Max, kNumericTypes)                         \
  X(7, min, fn::binary::Min, kNumericTypes)                         \
  X(8, amax, fn::binary::AbsMax, kNumericTypes)                     \
  X(9, amin, fn::binary::AbsMin, kNumericTypes)                     \
  X(10, pow, fn::binary::Pow, kNumericTypes)                        \
  X(11, mod, fn::binary::Mod, kNumericTypes)                        \
  X(12, fmod, fn::binary::Mod, kNumericTypes)                       \
  X(13, remainder, fn::binary::Remainder, kFloatTypes)              \
  X(14, floor_div, fn::binary::FloorDiv, kNumericTypes)             \
  X(15, floor_mod, fn::binary::FloorMod, kNumericTypes)             \
  X(16, truncate_div, fn::binary::TruncateDiv, kNumericTypes)       \
  X(17, truncate_mod, fn::binary::Mod, kNumericTypes)               \
  X(18, atan2, fn::binary::Atan2, kFloatTypes)                      \
  X(19, squared_subtract, fn::binary::SquaredSubtract, kNumericTypes) \
  X(20, safe_divide, fn::binary::SafeDivide, kNumericTypes)         \
  X(21, divide_no_nan, fn::binary::SafeDivide, kNumericTypes)       \
  X(22, copy, fn::binary::Copy, kNumericTypes)                      \
  X(23, reverse_mod, fn::binary::ReverseMod, kNumericTypes)         \
  X(24, relu, fn::binary::Relu, kNumericTypes)                      \
  X(25, relu6, fn::binary::Relu6, kNumericTypes)                    \
  X(26, leaky_relu, fn::binary::LeakyRelu, kNumericTypes)           \
  X(27, elu, fn::binary::Elu, kFloatTypes)                          \
  X(28, step, fn::binary::Step, kNumericTypes)                      \
  X(29, replace_nans, fn::binary::ReplaceNans, kNumericTypes)       \
  X(30, igamma, fn::binary::Igamma, kFloatTypes)                    \
  X(31, igammac, fn::binary::Igammac, kFloatTypes)                  \
  X(32, log_x, fn::binary::LogX, kFloatTypes)
#define LIBOPS_BINARY_COUNT 33

namespace libops::legacy {
enum class BinaryOp : int { LIBOPS_BINARY_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
