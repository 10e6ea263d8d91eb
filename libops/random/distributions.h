// Per-element samplers for libops random ops.
//
// Each function draws only from the ElementStream it is given, so a sample
// is a pure function of (seed, element index, params). Samplers that reject
// simply keep drawing from the same element's stream; the loop is bounded
// only by acceptance, never by a cap. binomial, poisson and gamma return NaN
// for parameters they cannot sample (NaN, a negative rate, ...) instead of a
// plausible value; the closed-form samplers just evaluate their formula.
//
// T is the result type (float or double). Continuous samplers compute in T
// (a float sample uses 24-bit uniforms, so e.g. normal<float> tails stop at
// about 5.8 sigma). Discrete samplers (bernoulli, binomial, poisson) return
// integer values stored in T, as torch does; binomial and poisson compute
// internally in double, but counts above 2^24 are not exact in float.
//
// Note [Random numbers on CUDA]
// Every sampler is host+device code, so a CUDA kernel that builds
// ElementStream(seed, i) for element i draws the same words as the CPU.
// What can still differ is rounding, in two places:
//   * Contraction. GCC (with FMA hardware) and nvcc fuse a * b + c into one
//     fused multiply-add at their own discretion, and a build without FMA
//     does not fuse at all. So every multiply-add here is written as
//     fused_mul_add (below): both sides round it once, whatever the flags,
//     and no bare product feeds an addition. (A CPU without FMA pays for a
//     libm fma call instead, and gets the same numbers as one with it.)
//     Division and sqrt are IEEE (correctly rounded) on both sides (libops
//     never builds CUDA code with fast math).
//   * The math library. CUDA's log, exp, cos, pow and log1p are within 1-2
//     ulp (CUDA C Programming Guide, "Mathematical Functions"), glibc's
//     within 1, and they need not agree on the last bit. So:
//       - uniform, bernoulli, binomial with trials <= 64, dropout,
//         dropout_inverted, alpha_dropout, linspace and choice use no
//         library function: equal bit for bit;
//       - normal, log_normal, truncated_normal, exponential and gamma pass
//         log/cos/exp/pow results into the value: equal up to a few ulp of
//         the compute type;
//       - binomial (trials > 64) and poisson are integers; the library
//         functions only set constants and decide accept/reject tests, so a
//         result differs only when a test value lies within an ulp of its
//         bound (about 1e-15 per draw): equal in practice. gamma and
//         truncated_normal can likewise accept another candidate, which
//         gives an unrelated value for that element: about once in 1e7
//         draws in float, 1e16 in double.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "libops/random/philox.h"

namespace libops::random {

// a * b + c rounded once (Note [Random numbers on CUDA]): the same bits on
// the host, with or without FMA hardware, and on a CUDA device.
template <typename T>
LIBOPS_HOST_DEVICE inline T fused_mul_add(T a, T b, T c) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "T must be float or double");
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fmaf_rn(a, b, c);
  } else {
    return __fma_rn(a, b, c);
  }
#else
  return std::fma(a, b, c);
#endif
}

namespace detail {

template <typename T>
LIBOPS_HOST_DEVICE inline T uniform01(ElementStream& s) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "T must be float or double");
  if constexpr (std::is_same_v<T, float>) {
    return s.next_float01();
  } else {
    return s.next_double01();
  }
}

template <typename T>
LIBOPS_HOST_DEVICE inline T uniform_open01(ElementStream& s) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "T must be float or double");
  if constexpr (std::is_same_v<T, float>) {
    return s.next_float_open01();
  } else {
    return s.next_double_open01();
  }
}

// NAN rather than std::numeric_limits: the latter is host-only in CUDA.
template <typename T>
LIBOPS_HOST_DEVICE inline T quiet_nan() {
  return static_cast<T>(NAN);
}

// f_c(k) = ln(k!) - [(k + 1/2) ln(k + 1) - (k + 1) + ln(2 pi) / 2], the
// error of Stirling's formula. Exact table for small k, asymptotic series in
// x = k + 1 otherwise (next term is below 1e-10 at k = 10).
LIBOPS_HOST_DEVICE inline double stirling_tail(double k) {
  if (k < 10) {
    constexpr double kTable[10] = {
        0.08106146679532725822, 0.04134069595540929409, 0.02767792568499833915,
        0.02079067210376509311, 0.01664469118982119216, 0.01387612882307074800,
        0.01189670994589177010, 0.01041126526197209650, 0.00925546218271273292,
        0.00833056343336287126};
    return kTable[static_cast<int>(k)];
  }
  double x = k + 1;
  double x2 = x * x;
  return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - 1.0 / (1680 * x2)) / x2) / x2) /
         x;
}

// ln(lambda^k e^-lambda / k!) for integer-valued k >= 0. Written through
// Stirling so that nothing large cancels even for big lambda and k.
LIBOPS_HOST_DEVICE inline double poisson_log_pmf(double k, double lambda) {
  constexpr double kHalfLog2Pi = 0.91893853320467274178;
  double sum = fused_mul_add(k, std::log(lambda / (k + 1)), k + 1 - lambda);
  sum = fused_mul_add(-0.5, std::log(k + 1), sum);
  return sum - kHalfLog2Pi - stirling_tail(k);
}

// Binomial for 0 < p <= 1/2 and trials > 64 (double-valued trials n).
LIBOPS_HOST_DEVICE inline double binomial_large(ElementStream& s, double n,
                                                double p) {
  double q = 1 - p;
  if (n * p < 10) {
    // Sequential-search inversion: walk the pmf from k = 0, using
    // f(k) = f(k-1) * ((n + 1) / k - 1) * p / q. Expected steps ~ n p + 1.
    double r = p / q;
    double a = (n + 1) * r;
    double f0 = std::exp(n * std::log1p(-p));
    for (;;) {
      double u = s.next_double01();
      double f = f0;
      double k = 0;
      // If rounding leaves u above the summed mass (f underflows or k
      // passes n), redraw: that is rejection of a ~1e-16 sliver, not a cap.
      while (u >= f && f > 0 && k <= n) {
        u -= f;
        k += 1;
        f *= a / k - r;
      }
      if (u < f && k <= n) return k;
    }
  }
  // BTRS: transformed rejection with squeeze, Hormann, "The generation of
  // binomial random variates", J. Stat. Comput. Simul. 46 (1993). Valid for
  // n p >= 10; the log acceptance bound is Hormann's Stirling form of
  // ln(f(k) / f(m)), m the mode.
  double spq = std::sqrt(n * p * q);
  double b = fused_mul_add(2.53, spq, 1.15);
  double a = fused_mul_add(0.01, p, fused_mul_add(0.0248, b, -0.0873));
  double c = fused_mul_add(n, p, 0.5);
  double v_r = 0.92 - 4.2 / b;
  double alpha = (2.83 + 5.1 / b) * spq;
  double r = p / q;
  double m = std::floor((n + 1) * p);
  for (;;) {
    double u = s.next_double01() - 0.5;
    double v = s.next_double01();
    double us = 0.5 - std::fabs(u);
    double k = std::floor(fused_mul_add(2 * a / us + b, u, c));
    if (!(k >= 0 && k <= n)) continue;  // also rejects -inf from us == 0
    if (us >= 0.07 && v <= v_r) return k;
    double log_v = std::log(v * alpha / (a / (us * us) + b));
    double bound = fused_mul_add(
        m + 0.5, std::log((m + 1) / (r * (n - m + 1))),
        (n + 1) * std::log((n - m + 1) / (n - k + 1)));
    bound = fused_mul_add(k + 0.5, std::log(r * (n - k + 1) / (k + 1)), bound);
    bound = bound + stirling_tail(m) + stirling_tail(n - m) - stirling_tail(k) -
            stirling_tail(n - k);
    if (log_v <= bound) return k;
  }
}

}  // namespace detail

// Uniform in [lo, hi) (hi itself can appear through rounding of
// lo + (hi - lo) * u, as with any affine map of a [0, 1) uniform).
template <typename T>
LIBOPS_HOST_DEVICE inline T uniform(ElementStream& s, T lo, T hi) {
  return fused_mul_add(hi - lo, detail::uniform01<T>(s), lo);
}

// Normal via Box-Muller. Only the cosine branch is used: the sine partner
// would belong to a second element, which would tie elements together.
template <typename T>
LIBOPS_HOST_DEVICE inline T normal(ElementStream& s, T mean, T stddev) {
  constexpr T kTwoPi = static_cast<T>(6.283185307179586476925);
  T u1 = detail::uniform_open01<T>(s);  // (0, 1] so log(u1) is finite
  T u2 = detail::uniform01<T>(s);
  T radius = std::sqrt(T(-2) * std::log(u1));
  return fused_mul_add(stddev * radius, std::cos(kTwoPi * u2), mean);
}

// 1 with probability p, else 0.
template <typename T>
LIBOPS_HOST_DEVICE inline T bernoulli(ElementStream& s, T p) {
  return detail::uniform01<T>(s) < p ? T(1) : T(0);
}

// Number of successes in `trials` independent Bernoulli(p) trials.
// trials <= 64: exact sum of Bernoulli draws. Otherwise (with p folded to
// <= 1/2 by symmetry): sequential-search inversion when n p < 10, else
// Hormann's BTRS rejection. Invalid p or trials < 0 give NaN.
template <typename T>
LIBOPS_HOST_DEVICE inline T binomial(ElementStream& s, int64_t trials, T p) {
  double pd = static_cast<double>(p);
  if (trials < 0 || !(pd >= 0 && pd <= 1)) return detail::quiet_nan<T>();
  if (trials <= 64) {
    int64_t count = 0;
    for (int64_t t = 0; t < trials; ++t) count += s.next_double01() < pd;
    return static_cast<T>(count);
  }
  double n = static_cast<double>(trials);
  if (pd == 0) return T(0);
  if (pd == 1) return static_cast<T>(n);
  if (pd <= 0.5) return static_cast<T>(detail::binomial_large(s, n, pd));
  return static_cast<T>(n - detail::binomial_large(s, n, 1 - pd));
}

// Exponential with rate lambda (mean 1 / lambda).
template <typename T>
LIBOPS_HOST_DEVICE inline T exponential(ElementStream& s, T lambda) {
  return -std::log(detail::uniform_open01<T>(s)) / lambda;
}

// exp(X) with X ~ normal(mean, stddev); mean/stddev are of X, as in torch.
template <typename T>
LIBOPS_HOST_DEVICE inline T log_normal(ElementStream& s, T mean, T stddev) {
  return std::exp(normal<T>(s, mean, stddev));
}

// Normal restricted to mean +- 2 stddev by redrawing the standard normal
// while |z| > 2 (TensorFlow's truncated_normal). Acceptance is ~95.4%.
template <typename T>
LIBOPS_HOST_DEVICE inline T truncated_normal(ElementStream& s, T mean,
                                             T stddev) {
  for (;;) {
    T z = normal<T>(s, T(0), T(1));
    if (std::fabs(z) <= T(2)) return fused_mul_add(stddev, z, mean);
  }
}

// Poisson(lambda). lambda < 30: Knuth's product of uniforms (expected
// lambda + 1 draws). lambda >= 30: PTRS transformed rejection, Hormann,
// "The transformed rejection method for generating Poisson random
// variables", Insurance: Math. and Econ. 12 (1993), valid for lambda >= 10.
// NaN, negative or infinite lambda give NaN.
template <typename T>
LIBOPS_HOST_DEVICE inline T poisson(ElementStream& s, T lambda) {
  double lam = static_cast<double>(lambda);
  if (!(lam >= 0) || std::isinf(lam)) {
    return detail::quiet_nan<T>();
  }
  if (lam < 30) {
    double limit = std::exp(-lam);
    double product = s.next_double01();
    double k = 0;
    while (product > limit) {
      product *= s.next_double01();
      k += 1;
    }
    return static_cast<T>(k);
  }
  double b = fused_mul_add(2.53, std::sqrt(lam), 0.931);
  double a = fused_mul_add(0.02483, b, -0.059);
  double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  double v_r = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    double u = s.next_double01() - 0.5;
    double v = s.next_double01();
    double us = 0.5 - std::fabs(u);
    double k = std::floor(fused_mul_add(2 * a / us + b, u, lam) + 0.43);
    if (!(k >= 0)) continue;  // also rejects -inf from us == 0
    if (us >= 0.07 && v <= v_r) return static_cast<T>(k);
    if (us < 0.013 && v > us) continue;
    double log_hat = std::log(v * inv_alpha / (a / (us * us) + b));
    if (log_hat <= detail::poisson_log_pmf(k, lam)) return static_cast<T>(k);
  }
}

// Gamma with shape alpha and rate beta (mean alpha / beta, variance
// alpha / beta^2), as in TensorFlow's random_gamma. Marsaglia & Tsang, "A
// simple method for generating gamma variables" (2000); for alpha < 1 it
// samples Gamma(alpha + 1) and multiplies by u^(1 / alpha).
// Non-positive or NaN parameters give NaN.
template <typename T>
LIBOPS_HOST_DEVICE inline T gamma(ElementStream& s, T alpha, T beta) {
  if (!(alpha > T(0)) || !(beta > T(0))) return detail::quiet_nan<T>();
  if (std::isinf(alpha)) return alpha;
  T boost = T(1);
  T shape = alpha;
  if (alpha < T(1)) {
    boost = std::pow(detail::uniform_open01<T>(s), T(1) / alpha);
    shape = alpha + T(1);
  }
  T d = shape - T(1) / T(3);
  T c = T(1) / std::sqrt(T(9) * d);
  for (;;) {
    T x = normal<T>(s, T(0), T(1));
    T v = fused_mul_add(c, x, T(1));
    if (v <= T(0)) continue;
    v = v * v * v;
    T u = detail::uniform_open01<T>(s);
    T x2 = x * x;
    // Cheap squeeze first, then the exact log test.
    if (u < fused_mul_add(-(T(0.0331) * x2), x2, T(1)) ||
        std::log(u) <
            fused_mul_add(T(0.5), x2, d * (T(1) - v + std::log(v)))) {
      return d * v * boost / beta;
    }
  }
}

}  // namespace libops::random
