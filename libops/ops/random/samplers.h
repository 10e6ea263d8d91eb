// The distributions of Note [Threefry random numbers] (threefry.h), one
// element at a time: host and device code, so the CPU and a CUDA kernel run
// the same lines and get the same bits.
//
// Every operation here is correctly rounded on both sides (+, -, *, /,
// sqrt, and fused multiply-adds written as such); no math library function
// is called, since CUDA's and glibc's log need not agree on the last bit. A
// product that feeds an addition or subtraction is an explicit fma or exact
// (a power-of-two scaling): a compiler free to fuse a * b + c by itself
// (GCC with FMA, nvcc) would otherwise round it differently on each side.
// For the same reason no test reads x - x of a computed x.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "libops/core/half.h"
#include "libops/ops/random/threefry.h"
#include "libops/random/distributions.h"  // fused_mul_add

namespace libops::ops::rng {

// The dtype a draw is made at (Note [Threefry random numbers]).
enum class Precision : int { kFloat16, kBFloat16, kFloat32, kFloat64 };

template <Precision P>
struct PrecisionTraits {
  using C = float;  // the compute type
  static constexpr int kMantissa = P == Precision::kFloat16 ? 10 : P == Precision::kBFloat16 ? 7 : 23;
  static constexpr int kRandomBits = P == Precision::kFloat16 ? 16 : P == Precision::kBFloat16 ? 8 : 32;
};
template <>
struct PrecisionTraits<Precision::kFloat64> {
  using C = double;
  static constexpr int kMantissa = 52;
  static constexpr int kRandomBits = 64;
};
template <Precision P>
using compute_t = typename PrecisionTraits<P>::C;

inline constexpr double kSqrt2 = 1.41421356237309504880;
inline constexpr double kLn2 = 0.69314718055994530942;

template <typename T>
LIBOPS_HOST_DEVICE inline T fma_rn(T a, T b, T c) {
  return ::libops::random::fused_mul_add(a, b, c);
}

// x rounded to P: to nearest even for the 16-bit dtypes, a no-op otherwise.
template <Precision P>
LIBOPS_HOST_DEVICE inline compute_t<P> round_to(compute_t<P> x) {
  if constexpr (P == Precision::kFloat16) return half_bits_to_float(float_to_half_bits(x));
  else if constexpr (P == Precision::kBFloat16) return bf16_bits_to_float(float_to_bf16_bits(x));
  else return x;
}

// u in [0, 1): P's mantissa bits of element i's random bits, scaled (exact).
template <Precision P>
LIBOPS_HOST_DEVICE inline compute_t<P> unit_uniform(ThreefryKey key, int64_t i) {
  constexpr int m = PrecisionTraits<P>::kMantissa, bits = PrecisionTraits<P>::kRandomBits;
  if constexpr (P == Precision::kFloat64) {
    return static_cast<double>(element_bits64(key, i) >> (64 - m)) * 0x1p-52;
  } else {
    uint32_t b = element_bits32(key, i);
    if constexpr (bits < 32) b &= (1u << bits) - 1u;
    return static_cast<float>(b >> (bits - m)) * (1.0f / static_cast<float>(1u << m));
  }
}

// max(lo, P(fma(u, span, lo))); lo and span are already values of P.
template <Precision P>
LIBOPS_HOST_DEVICE inline compute_t<P> uniform(ThreefryKey key, int64_t i, compute_t<P> lo, compute_t<P> span) {
  const compute_t<P> v = round_to<P>(fma_rn(unit_uniform<P>(key, i), span, lo));
  return v < lo ? lo : v;
}

// The natural logarithm: x = m 2^e with m in [sqrt(1/2), sqrt(2)], then
// log m = 2 atanh(s), s = (m - 1) / (m + 1), by the series
// 2 (s + s^3/3 + s^5/5 + ...) to s^11 in float and s^25 in double (the next
// term is below an ulp: |s| <= 0.172). Within a few ulp of the true value.
// 0 gives -inf, +inf itself, a negative number or NaN NaN.
template <typename T>
LIBOPS_HOST_DEVICE inline T portable_log(T x) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "T must be float or double");
  constexpr bool kWide = std::is_same_v<T, double>;
  using Bits = std::conditional_t<kWide, uint64_t, uint32_t>;
  constexpr int kMant = kWide ? 52 : 23, kBias = kWide ? 1023 : 127, kTerms = kWide ? 12 : 5;
  if (!(x >= T(0))) return static_cast<T>(NAN);
  if (x == T(0)) return -static_cast<T>(INFINITY);
  if (x > T(kWide ? 0x1.fffffffffffffp+1023 : 0x1.fffffep+127)) return x;  // +inf
  int e = 0;
  if (x < T(kWide ? 0x1p-1022 : 0x1p-126)) {  // subnormal: scale into the normal range (exact)
    x *= T(kWide ? 0x1p54 : 0x1p25);
    e = kWide ? -54 : -25;
  }
  Bits b;
  std::memcpy(&b, &x, sizeof b);
  e += static_cast<int>(b >> kMant) - kBias;
  b = (b & ((Bits(1) << kMant) - 1)) | (Bits(kBias) << kMant);
  T m;
  std::memcpy(&m, &b, sizeof m);
  if (m > T(kSqrt2)) {
    m *= T(0.5);
    ++e;
  }
  const T f = m - T(1);  // exact
  const T s = f / (T(2) + f);
  const T t = s * s;
  T p = T(1) / T(2 * kTerms + 1);
  for (int k = kTerms - 1; k >= 1; --k) p = fma_rn(p, t, T(1) / T(2 * k + 1));
  const T r = fma_rn(s * t, p, s);
  return fma_rn(static_cast<T>(e), T(kLn2), r + r);
}

template <typename T, int N>
LIBOPS_HOST_DEVICE inline T horner(const double (&c)[N], T w) {
  T p = static_cast<T>(c[0]);
  for (int k = 1; k < N; ++k) p = fma_rn(p, w, static_cast<T>(c[k]));
  return p;
}

// erfinv(x) for x in (-1, 1): Giles, "Approximating the erfinv function",
// GPU Computing Gems Jade (2011), with his published single- and
// double-precision coefficients, evaluated with fmas over portable_log.
LIBOPS_HOST_DEVICE inline float erfinv(float x) {
  const float w = -portable_log((1.0f - x) * (1.0f + x));
  float p;
  if (w < 5.0f) {
    constexpr double c[9] = {2.81022636e-08,  3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                             -0.00125372503, -0.00417768164, 0.246640727,    1.50140941};
    p = horner(c, w - 2.5f);
  } else {
    constexpr double c[9] = {-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                             -0.0076224613,   0.00943887047,  1.00167406,    2.83297682};
    p = horner(c, std::sqrt(w) - 3.0f);
  }
  return p * x;
}

LIBOPS_HOST_DEVICE inline double erfinv(double x) {
  const double w = -portable_log((1.0 - x) * (1.0 + x));
  double p;
  if (w < 6.25) {
    constexpr double c[23] = {
        -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18,
        1.115787767802518096e-17,   -1.333171662854620906e-16,  2.0972767875968561637e-17,
        6.6376381343583238325e-15,  -4.0545662729752068639e-14, -8.1519341976054721522e-14,
        2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
        1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08,
        4.2347877827932403518e-07,  -1.3654692000834678645e-06, -1.3882523362786468719e-05,
        0.0001867342080340571352,   -0.00074070253416626697512, -0.0060336708714301490533,
        0.24015818242558961693,     1.6536545626831027356};
    p = horner(c, w - 3.125);
  } else if (w < 16.0) {
    constexpr double c[19] = {
        2.2137376921775787049e-09,  9.0756561938885390979e-08, -2.7517406297064545428e-07,
        1.8239629214389227755e-08,  1.5027403968909827627e-06, -4.013867526981545969e-06,
        2.9234449089955446044e-06,  1.2475304481671778723e-05, -4.7318229009055733981e-05,
        6.8284851459573175448e-05,  2.4031110387097893999e-05, -0.0003550375203628474796,
        0.00095328937973738049703,  -0.0016882755560235047313, 0.0024914420961078508066,
        -0.0037512085075692412107,  0.005370914553590063617,   1.0052589676941592334,
        3.0838856104922207635};
    p = horner(c, std::sqrt(w) - 3.25);
  } else {
    constexpr double c[17] = {
        -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
        -3.7894654401267369937e-09, 7.6157012080783393804e-09,  -1.4960026627149240478e-08,
        2.9147953450901080826e-08,  -6.7711997758452339498e-08, 2.2900482228026654717e-07,
        -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
        7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026,
        1.0103004648645343977,      4.8499064014085844221};
    p = horner(c, std::sqrt(w) - 5.0);
  }
  return p * x;
}

// mean + stddev * sqrt(2) erfinv(u), u uniform at P over [lo, lo + span)
// with lo = nextafter(-1, 0) (normal_bounds in draw.cpp).
template <Precision P>
LIBOPS_HOST_DEVICE inline compute_t<P> normal(ThreefryKey key, int64_t i, compute_t<P> lo, compute_t<P> span,
                                              compute_t<P> mean, compute_t<P> stddev) {
  using C = compute_t<P>;
  const C z = static_cast<C>(kSqrt2) * erfinv(uniform<P>(key, i, lo, span));
  return round_to<P>(fma_rn(stddev, z, mean));
}

// 1 with probability p: the float32 uniform below p.
LIBOPS_HOST_DEVICE inline bool bernoulli(ThreefryKey key, int64_t i, float p) {
  return unit_uniform<Precision::kFloat32>(key, i) < p;
}

// Gumbel(0, 1) in C (float or double): -log(-log(u)), u uniform at C's
// precision over [smallest normal, 1), as JAX's gumbel.
template <typename C>
LIBOPS_HOST_DEVICE inline C gumbel(ThreefryKey key, int64_t i) {
  constexpr bool kWide = std::is_same_v<C, double>;
  constexpr Precision P = kWide ? Precision::kFloat64 : Precision::kFloat32;
  const C tiny = static_cast<C>(kWide ? 0x1p-1022 : 0x1p-126);
  const C u = uniform<P>(key, i, tiny, C(1) - tiny);
  return -portable_log(-portable_log(u));
}

}  // namespace libops::ops::rng
