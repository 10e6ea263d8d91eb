// Scalar math for the transform_strict functors: overflow-free forms of the
// logistic family and the special functions the C library does not have
// (digamma) or has only in a thread-unsafe form (lgamma sets signgam).
//
// Every helper takes and returns the compute type C (float or double) and
// keeps IEEE semantics: NaN in gives NaN out, infinities give the limit.
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace libops::legacy::fn::transform_math {

// 1 / (1 + exp(-x)), with exp only ever taken of a value <= 0, so it cannot
// overflow: for x < 0 the equal form exp(x) / (1 + exp(x)) is used.
template <typename C> LIBOPS_HOST_DEVICE inline C sigmoid(C x) {
  if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
  const C t = std::exp(x);
  return t / (C(1) + t);
}

// log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): no overflow for large x and
// full relative accuracy for very negative x (where the result is ~exp(x)).
template <typename C> LIBOPS_HOST_DEVICE inline C softplus(C x) {
  return (x > C(0) ? x : C(0)) + std::log1p(std::exp(-std::fabs(x)));
}

// 1 - tanh(x)^2 as 1 / cosh(x)^2: the subtraction would cancel to 0 once
// tanh(x) rounds to 1 (|x| > 9 in float) while the true value is ~4 exp(-2|x|).
template <typename C> LIBOPS_HOST_DEVICE inline C sech_squared(C x) {
  const C s = C(1) / std::cosh(x);
  return s * s;
}

// log|gamma(x)| without touching the global signgam (lgamma is not
// thread-safe in glibc; the device's is); the sign is dropped, as in
// std::lgamma.
LIBOPS_HOST_DEVICE inline float log_abs_gamma(float x) {
#if defined(__CUDA_ARCH__)
  return ::lgammaf(x);
#elif defined(__GLIBC__)
  int sign;
  return ::lgammaf_r(x, &sign);
#else
  return std::lgamma(x);
#endif
}
LIBOPS_HOST_DEVICE inline double log_abs_gamma(double x) {
#if defined(__CUDA_ARCH__)
  return ::lgamma(x);
#elif defined(__GLIBC__)
  int sign;
  return ::lgamma_r(x, &sign);
#else
  return std::lgamma(x);
#endif
}

// Note [Digamma]
// psi(x) = d/dx log gamma(x), evaluated in double for every input type:
//   * x <= 0: poles at 0, -1, -2, ... give NaN, except that +-0 give -+inf
//     (the one-sided limit on the side of the zero's sign);
//   * x < 0 otherwise: reflection psi(x) = psi(1 - x) - pi cot(pi x), with
//     cot(pi x) reduced through the exact fraction x - floor(x);
//   * 0 < x < 10: recurrence psi(x) = psi(x + 1) - 1 / x up to x >= 10;
//   * x >= 10: the asymptotic series log x - 1/(2x) - sum B_2k / (2k x^2k),
//     through B_14 (truncation error below 1e-17 relative).
// Double keeps float results correctly rounded near the positive root
// x0 = 1.4616..., where the recurrence cancels: the absolute error there is a
// few 1e-16, so float64 results near x0 are good to about 1e-15 absolute.
LIBOPS_HOST_DEVICE inline double digamma(double x) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (std::isnan(x)) return x;
  if (x == 0.0) return std::signbit(x) ? kInf : -kInf;
  if (std::isinf(x)) return x > 0 ? x : std::numeric_limits<double>::quiet_NaN();
  double result = 0.0;
  if (x < 0.0) {
    const double fl = std::floor(x);
    if (x == fl) return std::numeric_limits<double>::quiet_NaN();
    const double r = x - fl;  // exact, in (0, 1); cot(pi x) = cot(pi r)
    const double pi = std::numbers::pi;
    const double cot = r <= 0.5 ? std::cos(pi * r) / std::sin(pi * r)
                                : -std::cos(pi * (1.0 - r)) / std::sin(pi * (1.0 - r));
    result = -pi * cot;
    x = 1.0 - x;
  }
  while (x < 10.0) {
    result -= 1.0 / x;
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  // B2/2, B4/4, ... B14/14 with alternating signs folded in.
  const double series =
      f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132 - f * (691.0 / 32760 -
                                                                                                  f * (1.0 / 12)))))));
  return result + std::log(x) - 0.5 / x - series;
}

}  // namespace libops::legacy::fn::transform_math
