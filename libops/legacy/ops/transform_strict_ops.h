// Transform "strict": z = f(x) for floating-point x, z of the same dtype.
// Computes in float for float16/bfloat16/float32 and double for float64.
//
// Note [Transform special values]
// NaN in gives NaN out for every op here. At +-inf each op returns its
// limit (softsign(-inf) = -1, swish(-inf) = -0, gelu_derivative(inf) = 1,
// ...), never the NaN a naive formula gives (-inf * 0). Outside an op's real
// domain the result is NaN (log(-1), asin(2), digamma at -1, -2, ...), and at
// a pole it is the signed infinity of the C library (log(0) = -inf,
// lgamma(-2) = inf).
//
// Conventions taken from libnd4j where frameworks differ:
//   * hard_sigmoid(x) = clamp(0.2 x + 0.5, 0, 1) (Keras 1 / libnd4j slope
//     0.2, not PyTorch's x / 6 + 1/2);
//   * the derivatives of the piecewise ops count the kinks as inside:
//     hard_tanh_derivative is 1 on [-1, 1], hard_sigmoid_derivative 0.2 on
//     [-2.5, 2.5]; elu_derivative and selu_derivative use the x <= 0 branch
//     at 0;
//   * gelu is the tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//     (its definition, not an approximation of anything here); precise_gelu
//     is the exact x * Phi(x) = 0.5 x erfc(-x / sqrt 2).
// Parameters: elu, elu_derivative and celu read alpha = extra[0] (default
// 1); selu alpha and gamma = extra[0, 1], hard_sigmoid alpha and beta =
// extra[0, 1] (defaults: the fixed constants they had before).
//
// To add an op: functor + one row with the next unused number (see
// transform_same_ops.h).
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "libops/core/fast_math.h"
#include "libops/legacy/dispatch.h"
#include "libops/legacy/ops/transform_strict_math.h"
#include "libops/loops/dense_kernel.h"

namespace libops::legacy::fn::transform_strict {

namespace m = transform_math;

// e^x in the compute type: for float the vectorizable exp of
// core/fast_math.h (<= 1.03 ulp, Note [Vectorizable exp]), for double the C
// library's. The float32 functors built only from it, selects and
// arithmetic (exp, sigmoid and its relatives below) thus vectorize.
template <typename C> LIBOPS_HOST_DEVICE inline C exp_c(C x) {
  if constexpr (std::is_same_v<C, float>) return exp_f32(x);
  else return std::exp(x);
}
// e^x - 1 in the compute type: for float the vectorizable expm1_f32
// (core/fast_math.h, within 1.5 ulp), for double the C library's.
template <typename C> LIBOPS_HOST_DEVICE inline C expm1_c(C x) {
  if constexpr (std::is_same_v<C, float>) return expm1_f32(x);
  else return std::expm1(x);
}
// log and log(1 + x) in the compute type: for float the vectorizable
// log_f32 and log1p_f32 (core/fast_math.h, within 1 and 2.5 ulp), for double
// the C library's.
template <typename C> LIBOPS_HOST_DEVICE inline C log_c(C x) {
  if constexpr (std::is_same_v<C, float>) return log_f32(x);
  else return std::log(x);
}
template <typename C> LIBOPS_HOST_DEVICE inline C log1p_c(C x) {
  if constexpr (std::is_same_v<C, float>) return log1p_f32(x);
  else return std::log1p(x);
}
// c ? a : b; for float as a bit mask, which GCC vectorizes (see select_f32).
template <typename C> LIBOPS_HOST_DEVICE inline C select_c(bool c, C a, C b) {
  if constexpr (std::is_same_v<C, float>) return detail::select_f32(c, a, b);
  else return c ? a : b;
}
// transform_math::sigmoid with exp_c: 1 / (1 + t) for x >= 0, t / (1 + t)
// for x < 0, t = exp(-|x|) <= 1 (no overflow). NaN stays NaN (x >= 0 is
// false and t is NaN).
template <typename C> LIBOPS_HOST_DEVICE inline C sigmoid_c(C x) {
  const C t = exp_c(-std::fabs(x));
  const C num = select_c(x >= C(0), C(1), t);
  // Where t is subnormal (float: |x| > 87.3), 1 + t is 1 and the quotient
  // num itself; the add and the division then run on 0 and 1 instead, as
  // subnormal operands would cost a microcode assist each (Note [Subnormal
  // exps without assists] in core/fast_math.h). The same values.
  const bool tiny = t < std::numeric_limits<C>::min();
  return select_c(tiny, num, select_c(tiny, C(1), num) / (C(1) + select_c(tiny, C(0), t)));
}

// transform_math::softplus with exp_c and log1p_c: max(x, 0) +
// log(1 + e^-|x|), no overflow, the tail's relative accuracy kept.
template <typename C> LIBOPS_HOST_DEVICE inline C softplus_c(C x) {
  const C t = exp_c(-std::fabs(x));
  // Where t is subnormal, log1p(t) is t and max(x, 0) + t is x (x > 87.3,
  // in float) or t: taken as such, with log1p run on 0, since arithmetic
  // on a subnormal costs a microcode assist (Note [Subnormal exps without
  // assists] in core/fast_math.h). The same values; +-inf (t = 0) too.
  const bool tiny = t < std::numeric_limits<C>::min();
  return select_c(tiny, select_c(x > C(0), x, t), select_c(x > C(0), x, C(0)) + log1p_c(select_c(tiny, C(0), t)));
}

// tanh in the compute type; for float tanh_f32 (core/fast_math.h: one
// rational function, vectorizable, within 1.41 ulp below |x| = 1 and an
// absolute 3.1e-7 above), for double the C library's.
template <typename C> LIBOPS_HOST_DEVICE inline C tanh_c(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return tanh_f32(x);
  } else {
    return std::tanh(x);
  }
}

// ---- exponentials and logarithms ----
template <typename C> struct Exp {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return exp_c(x); }
};
template <typename C> struct Log {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return log_c(x); }
};
template <typename C> struct Log1p {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return log1p_c(x); }
};
template <typename C> struct Expm1 {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return expm1_c(x); }
};
template <typename C> struct Log2 {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::log2(x); }
};
template <typename C> struct Log10 {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::log10(x); }
};
template <typename C> struct Exp2 {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::exp2(x); }
};

// ---- trigonometric and hyperbolic ----
template <typename C> struct Sin {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::sin(x); }
};
template <typename C> struct Cos {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::cos(x); }
};
template <typename C> struct Tan {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::tan(x); }
};
template <typename C> struct Asin {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::asin(x); }
};
template <typename C> struct Acos {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::acos(x); }
};
// atan in the compute type: for float the vectorizable atan_f32
// (core/fast_math.h, within 2 ulp), for double the C library's.
template <typename C> struct Atan {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if constexpr (std::is_same_v<C, float>) return atan_f32(x);
    else return std::atan(x);
  }
};
template <typename C> struct Sinh {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::sinh(x); }
};
template <typename C> struct Cosh {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::cosh(x); }
};
template <typename C> struct Tanh {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return tanh_c(x); }
};
template <typename C> struct Asinh {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::asinh(x); }
};
template <typename C> struct Acosh {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::acosh(x); }
};
template <typename C> struct Atanh {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::atanh(x); }
};

// ---- activations ----
template <typename C> struct Sigmoid {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return sigmoid_c(x); }
};
template <typename C> struct Softplus {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return softplus_c(x); }
};
// x / (1 + |x|); +-1 at +-inf (the formula would give inf / inf).
template <typename C> struct Softsign {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::isinf(x)) return std::copysign(C(1), x);
    return x / (C(1) + std::fabs(x));
  }
};
template <typename C> struct HardTanh {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return x < C(-1) ? C(-1) : (x > C(1) ? C(1) : x); }
};
// clamp(alpha x + beta, 0, 1): alpha = extra[0] (default 0.2), beta =
// extra[1] (default 0.5), the slope and offset of Keras, libnd4j and ONNX.
template <typename C> struct HardSigmoid {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams& e) {
    const C y = C(e.get(0, 0.2)) * x + C(e.get(1, 0.5));
    return y < C(0) ? C(0) : (y > C(1) ? C(1) : y);
  }
};

// SELU constants (Klambauer et al. 2017).
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;

// gamma (x > 0 ? x : alpha (e^x - 1)); alpha = extra[0] and gamma =
// extra[1], by default the constants above.
template <typename C> struct Selu {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams& e) {
    const C gamma = C(e.get(1, kSeluScale)), alpha = C(e.get(0, kSeluAlpha));
    return gamma * select_c(x > C(0), x, alpha * expm1_c(x));
  }
};
// x * sigmoid(x); -0 at -inf (x * 0 would be NaN). Selects and sigmoid_c,
// so the float loop vectorizes.
template <typename C> struct Swish {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    return select_c(x == -std::numeric_limits<C>::infinity(), C(-0.0), x * sigmoid_c(x));
  }
};

// gelu's inner argument 2 u = 2 sqrt(2/pi) x (1 + 0.044715 x^2), so that
// 0.5 (1 + tanh(u)) = sigmoid(2 u): no cancellation for negative x.
inline constexpr double kGeluK = 0.79788456080286535587989211986876;  // sqrt(2/pi)
inline constexpr double kGeluC = 0.044715;
template <typename C> LIBOPS_HOST_DEVICE inline C gelu_two_u(C x) { return C(2 * kGeluK) * x * (C(1) + C(kGeluC) * x * x); }

template <typename C> struct Gelu {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::isinf(x)) return x > C(0) ? x : C(-0.0);
    return x * m::sigmoid(gelu_two_u(x));
  }
};
template <typename C> struct PreciseGelu {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::isinf(x)) return x > C(0) ? x : C(-0.0);
    return C(0.5) * x * std::erfc(-x * C(std::numbers::sqrt2 / 2));
  }
};
// x * tanh(softplus(x)); -0 at -inf.
template <typename C> struct Mish {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    return select_c(x == -std::numeric_limits<C>::infinity(), C(-0.0), x * tanh_c(softplus_c(x)));
  }
};
template <typename C> struct Elu {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams& e) {
    return select_c(x > C(0), x, C(e.get(0, 1.0)) * expm1_c(x));
  }
};
// x > 0 ? x : alpha (e^(x / alpha) - 1), alpha = extra[0] (default 1; the
// op refuses 0): ONNX's max(0, x) + min(0, alpha (exp(x / alpha) - 1)),
// whose two terms are never both nonzero. -alpha at -inf.
template <typename C> struct Celu {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams& e) {
    const C alpha = C(e.get(0, 1.0));
    return select_c(x > C(0), x, alpha * expm1_c(x / alpha));
  }
};
// x * clamp(x / 6 + 1/2, 0, 1) (ONNX HardSwish, MobileNetV3). Below -3 the
// factor is 0 and the result -0 (also at -inf, where the product would be
// NaN); above 3 it is x.
template <typename C> struct HardSwish {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (x <= C(-3)) return C(-0.0);
    if (x >= C(3)) return x;
    return x * (x * C(1.0 / 6) + C(0.5));
  }
};
// log(sigmoid(x)) = -softplus(-x) = min(x, 0) - log1p(exp(-|x|)).
template <typename C> struct LogSigmoid {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    // As softplus_c, where exp(-|x|) is subnormal: x (x < -87.3) or -t.
    const C t = exp_c(-std::fabs(x));
    const bool tiny = t < std::numeric_limits<C>::min();
    return select_c(tiny, select_c(x < C(0), x, -t), select_c(x < C(0), x, C(0)) - log1p_c(select_c(tiny, C(0), t)));
  }
};
// max(tanh(x), 0).
template <typename C> struct RectifiedTanh {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    const C t = tanh_c(x);
    return t < C(0) ? C(0) : t;
  }
};

// ---- special functions and rounding ----
// erf in the compute type: for float the vectorizable erf_f32 (core/fast_math.h,
// within 2 ulp), for double the C library's.
template <typename C> struct Erf {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if constexpr (std::is_same_v<C, float>) return erf_f32(x);
    else return std::erf(x);
  }
};
template <typename C> struct Erfc {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::erfc(x); }
};
// Round half to even (numpy.rint), in the default rounding mode.
template <typename C> struct Rint {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return std::nearbyint(x); }
};
// log|gamma(x)|.
template <typename C> struct Lgamma {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return m::log_abs_gamma(x); }
};
// Note [Digamma] in transform_strict_math.h.
template <typename C> struct Digamma {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return C(m::digamma(static_cast<double>(x))); }
};

// ---- derivatives (d/dx of the op of the same name) ----
// sigmoid (1 - sigmoid) with 1 - sigmoid(x) = sigmoid(-x), exact in the tails.
template <typename C> struct SigmoidDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return sigmoid_c(x) * sigmoid_c(-x); }
};
template <typename C> struct TanhDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return m::sech_squared(x); }
};
template <typename C> struct SoftplusDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) { return sigmoid_c(x); }
};
// 1 / (1 + |x|)^2, squared after the division so tiny results stay accurate.
template <typename C> struct SoftsignDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    const C d = C(1) / (C(1) + std::fabs(x));
    return d * d;
  }
};
template <typename C> struct HardTanhDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::isnan(x)) return x;
    return x >= C(-1) && x <= C(1) ? C(1) : C(0);
  }
};
template <typename C> struct HardSigmoidDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::isnan(x)) return x;
    return x >= C(-2.5) && x <= C(2.5) ? C(0.2) : C(0);
  }
};
template <typename C> struct SeluDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    return select_c(x > C(0), C(kSeluScale), C(kSeluScale * kSeluAlpha) * exp_c(x));
  }
};
// s + x s (1 - s) with s = sigmoid(x) and 1 - s = sigmoid(-x).
template <typename C> struct SwishDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::isinf(x)) return x > C(0) ? C(1) : C(0);
    const C s = m::sigmoid(x);
    return s + x * s * m::sigmoid(-x);
  }
};
// d/dx x sigmoid(2u) = s + x s (1 - s) d(2u)/dx, s = sigmoid(2u). Beyond
// |x| = 1e6 the result is exactly 1 or 0 in double (s (1 - s) < exp(-1e16)),
// and x d(2u)/dx could overflow to inf * 0, so it is returned directly.
template <typename C> struct GeluDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::fabs(x) > C(1e6)) return x > C(0) ? C(1) : C(0);
    const C two_u = gelu_two_u(x);
    const C s = m::sigmoid(two_u), s_neg = m::sigmoid(-two_u);
    const C du = C(2 * kGeluK) * (C(1) + C(3 * kGeluC) * x * x);
    return s + x * du * s * s_neg;
  }
};
// Phi(x) + x phi(x).
template <typename C> struct PreciseGeluDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::isinf(x)) return x > C(0) ? C(1) : C(0);
    const C cdf = C(0.5) * std::erfc(-x * C(std::numbers::sqrt2 / 2));
    const C pdf = std::exp(C(-0.5) * x * x) * C(std::numbers::inv_sqrtpi / std::numbers::sqrt2);
    return cdf + x * pdf;
  }
};
// tanh(sp) + x sech(sp)^2 sigmoid(x), sp = softplus(x).
template <typename C> struct MishDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::isinf(x)) return x > C(0) ? C(1) : C(0);
    const C sp = m::softplus(x);
    return std::tanh(sp) + x * m::sech_squared(sp) * m::sigmoid(x);
  }
};
template <typename C> struct EluDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams& e) { return select_c(x > C(0), C(1), C(e.get(0, 1.0)) * exp_c(x)); }
};
// sech(x)^2 where x > 0, else 0.
template <typename C> struct RectifiedTanhDerivative {
  LIBOPS_HOST_DEVICE static C op(C x, const ExtraParams&) {
    if (std::isnan(x)) return x;
    return x > C(0) ? m::sech_squared(x) : C(0);
  }
};

}  // namespace libops::legacy::fn::transform_strict

#if !defined(__CUDACC__)
namespace libops {
// float32 exp over whole dense runs, with AVX2 intrinsics where cpu_isa()
// allows (Note [Dense kernels]).
template <>
struct DenseKernel<legacy::fn::transform_strict::Exp<float>> {
  static constexpr bool kHas = true;
  static void run(const float* x, float* z, int64_t n, const ExtraParams&) { exp_f32_dense(x, z, n); }
};

// selu over dense float32 runs: its two parameters read once, before the
// loop. With both read inside it, as the functor does, GCC left the loop
// scalar (1.5 GB/s on one core of a 2-core EPYC instead of 21).
template <>
struct DenseKernel<legacy::fn::transform_strict::Selu<float>> {
  static constexpr bool kHas = true;
  [[gnu::always_inline]] static inline void run(const float* x, float* z, int64_t n, const ExtraParams& e) {
    using legacy::fn::transform_strict::kSeluAlpha;
    using legacy::fn::transform_strict::kSeluScale;
    const float gamma = static_cast<float>(e.get(1, kSeluScale)), alpha = static_cast<float>(e.get(0, kSeluAlpha));
    for (int64_t i = 0; i < n; ++i) z[i] = gamma * detail::select_f32(x[i] > 0.0f, x[i], alpha * expm1_f32(x[i]));
  }
};

#if LIBOPS_HAVE_EXP_F32_X8
namespace detail {
// z = f(x) over [0, n), the tail as masked lanes of the same instructions.
template <__m512 (*F)(__m512)>
LIBOPS_TARGET_AVX512 void dense_f32_x16(const float* x, float* z, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(z + i, F(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const auto m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(z + i, m, F(_mm512_maskz_loadu_ps(m, x + i)));
  }
}
// The same with 8 lanes; the tail through a zero-padded copy.
template <__m256 (*F)(__m256)>
LIBOPS_TARGET_AVX2 void dense_f32_x8(const float* x, float* z, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(z + i, F(_mm256_loadu_ps(x + i)));
  if (i < n) {
    alignas(32) float tail[8] = {};
    for (int64_t j = i; j < n; ++j) tail[j - i] = x[j];
    _mm256_store_ps(tail, F(_mm256_load_ps(tail)));
    for (int64_t j = i; j < n; ++j) z[j] = tail[j - i];
  }
}
}  // namespace detail

// sigmoid and tanh over whole dense float32 runs: 16 lanes around
// exp_f32_x16 (vscalefps) where cpu_isa() is avx512, 8 around exp_f32_x8
// where it is avx2; the per-element functor at the baseline. 16M float32,
// one thread of a 2-core EPYC: sigmoid 20.3 -> 26.7 GB/s, tanh 16.0 -> 18.8
// (ONNX Runtime 27-29 in the same runs) with 16 lanes. The 8-lane forms keep
// the exps' branch to their subnormal lanes (Note [Subnormal exps without
// assists]) out of the ordinary path, which the functor's branch-free form
// cannot: at the avx2 level, 16M float32 sigmoids at one thread took 30-33
// ms through the functor and 22.6 through them.
template <typename Op, __m512 (*kLanes16)(__m512), __m256 (*kLanes8)(__m256)>
struct DenseKernelLanes {
  static constexpr bool kHas = true;
  [[gnu::always_inline]] static inline void run(const float* x, float* z, int64_t n, const ExtraParams& e) {
    if (cpu_isa() == CpuIsa::kAvx512) return detail::dense_f32_x16<kLanes16>(x, z, n);
    if (cpu_isa() == CpuIsa::kAvx2) return detail::dense_f32_x8<kLanes8>(x, z, n);
    for (int64_t i = 0; i < n; ++i) z[i] = Op::op(x[i], e);
  }
};
template <>
struct DenseKernel<legacy::fn::transform_strict::Sigmoid<float>>
    : DenseKernelLanes<legacy::fn::transform_strict::Sigmoid<float>, sigmoid_f32_x16, sigmoid_f32_x8> {};
template <>
struct DenseKernel<legacy::fn::transform_strict::Tanh<float>>
    : DenseKernelLanes<legacy::fn::transform_strict::Tanh<float>, tanh_f32_x16, tanh_f32_x8> {};
#endif
}  // namespace libops
#endif

// X(number, name, functor, type set). Never renumber a row.
#define LIBOPS_TRANSFORM_STRICT_OPS(X)                                                    \
  X(0, exp, fn::transform_strict::Exp, kFloatTypes)                                       \
  X(1, log, fn::transform_strict::Log, kFloatTypes)                                       \
  X(2, log1p, fn::transform_strict::Log1p, kFloatTypes)                                   \
  X(3, expm1, fn::transform_strict::Expm1, kFloatTypes)                                   \
  X(4, log2, fn::transform_strict::Log2, kFloatTypes)                                     \
  X(5, log10, fn::transform_strict::Log10, kFloatTypes)                                   \
  X(6, exp2, fn::transform_strict::Exp2, kFloatTypes)                                     \
  X(7, sin, fn::transform_strict::Sin, kFloatTypes)                                       \
  X(8, cos, fn::transform_strict::Cos, kFloatTypes)                                       \
  X(9, tan, fn::transform_strict::Tan, kFloatTypes)                                       \
  X(10, asin, fn::transform_strict::Asin, kFloatTypes)                                    \
  X(11, acos, fn::transform_strict::Acos, kFloatTypes)                                    \
  X(12, atan, fn::transform_strict::Atan, kFloatTypes)                                    \
  X(13, sinh, fn::transform_strict::Sinh, kFloatTypes)                                    \
  X(14, cosh, fn::transform_strict::Cosh, kFloatTypes)                                    \
  X(15, tanh, fn::transform_strict::Tanh, kFloatTypes)                                    \
  X(16, asinh, fn::transform_strict::Asinh, kFloatTypes)                                  \
  X(17, acosh, fn::transform_strict::Acosh, kFloatTypes)                                  \
  X(18, atanh, fn::transform_strict::Atanh, kFloatTypes)                                  \
  X(19, sigmoid, fn::transform_strict::Sigmoid, kFloatTypes)                              \
  X(20, softplus, fn::transform_strict::Softplus, kFloatTypes)                            \
  X(21, softsign, fn::transform_strict::Softsign, kFloatTypes)                            \
  X(22, hard_tanh, fn::transform_strict::HardTanh, kFloatTypes)                           \
  X(23, hard_sigmoid, fn::transform_strict::HardSigmoid, kFloatTypes)                     \
  X(24, selu, fn::transform_strict::Selu, kFloatTypes)                                    \
  X(25, swish, fn::transform_strict::Swish, kFloatTypes)                                  \
  X(26, gelu, fn::transform_strict::Gelu, kFloatTypes)                                    \
  X(27, precise_gelu, fn::transform_strict::PreciseGelu, kFloatTypes)                     \
  X(28, mish, fn::transform_strict::Mish, kFloatTypes)                                    \
  X(29, elu, fn::transform_strict::Elu, kFloatTypes)                                      \
  X(30, log_sigmoid, fn::transform_strict::LogSigmoid, kFloatTypes)                       \
  X(31, rectified_tanh, fn::transform_strict::RectifiedTanh, kFloatTypes)                 \
  X(32, erf, fn::transform_strict::Erf, kFloatTypes)                                      \
  X(33, erfc, fn::transform_strict::Erfc, kFloatTypes)                                    \
  X(34, rint, fn::transform_strict::Rint, kFloatTypes)                                    \
  X(35, lgamma, fn::transform_strict::Lgamma, kFloatTypes)                                \
  X(36, digamma, fn::transform_strict::Digamma, kFloatTypes)                              \
  X(37, sigmoid_derivative, fn::transform_strict::SigmoidDerivative, kFloatTypes)         \
  X(38, tanh_derivative, fn::transform_strict::TanhDerivative, kFloatTypes)               \
  X(39, softplus_derivative, fn::transform_strict::SoftplusDerivative, kFloatTypes)       \
  X(40, softsign_derivative, fn::transform_strict::SoftsignDerivative, kFloatTypes)       \
  X(41, hard_tanh_derivative, fn::transform_strict::HardTanhDerivative, kFloatTypes)      \
  X(42, hard_sigmoid_derivative, fn::transform_strict::HardSigmoidDerivative, kFloatTypes) \
  X(43, selu_derivative, fn::transform_strict::SeluDerivative, kFloatTypes)               \
  X(44, swish_derivative, fn::transform_strict::SwishDerivative, kFloatTypes)             \
  X(45, gelu_derivative, fn::transform_strict::GeluDerivative, kFloatTypes)               \
  X(46, precise_gelu_derivative, fn::transform_strict::PreciseGeluDerivative, kFloatTypes) \
  X(47, mish_derivative, fn::transform_strict::MishDerivative, kFloatTypes)               \
  X(48, elu_derivative, fn::transform_strict::EluDerivative, kFloatTypes)                 \
  X(49, rectified_tanh_derivative, fn::transform_strict::RectifiedTanhDerivative, kFloatTypes) \
  X(50, celu, fn::transform_strict::Celu, kFloatTypes)                                     \
  X(51, hard_swish, fn::transform_strict::HardSwish, kFloatTypes)
#define LIBOPS_TRANSFORM_STRICT_COUNT 52

namespace libops::legacy {
enum class TransformStrictOp : int { LIBOPS_TRANSFORM_STRICT_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
