// Float math in plain, branch-free C++ that the compiler vectorizes inside
// the element-wise loops (loops/elementwise.h), where a call to the C
// library's expf would keep the loop scalar.
//
// Note [Vectorizable exp]
// exp_f32(x) = 2^n * exp(r), x = n ln2 + r, |r| <= ln2 / 2 (+ rounding):
//  * n = round(x / ln2) by adding 1.5 * 2^23, which leaves n in the low
//    mantissa bits of the sum (round to nearest, |n| < 2^22); n is read back
//    from those bits as an integer, never by a float-to-int conversion (UB
//    for NaN);
//  * r = x - n ln2 in two steps (Cody-Waite): ln2_hi has 9 significant bits,
//    so n * ln2_hi is exact for |n| < 2^15 and only the small ln2_lo term
//    rounds;
//  * exp(r) = 1 + r + r^2 P(r), P of degree 4 fitted to (e^r - 1 - r) / r^2
//    by weighted least squares iterated towards minimax relative error on
//    |r| <= 0.349 (truncation error 3.2e-9 relative, 0.05 ulp, before the
//    coefficients are rounded to float), evaluated in two short chains with
//    fused multiply-adds where the target has them; the final 1 + (...) is
//    the only rounding at the scale of the result;
//  * 2^n is applied as 2^n1 * 2^n2 with n1 = floor(n / 2), n2 = n - n1, so
//    each factor is a normal float for every n in the clamped range: for
//    normal results both products are exact, for results in the subnormal
//    range the second product rounds once (gradual underflow, not a flush to
//    0), and above FLT_MAX it overflows to +inf. Both factors are built from
//    the exponent bits with integer shifts.
// x is first clamped to [-110, 100], beyond which the result is 0 or +inf
// anyway, so n stays within [-159, 145]. NaN passes the clamp (comparisons
// with NaN are false) and propagates through the polynomial; exp(+-inf) =
// +inf / 0, exp(0) = 1 exactly. Measured over all 2^32 floats against
// exp in double: at most 1.03 ulp of error, never more than one float away
// from the correctly rounded result (tests_cpu/core/fast_math_test.cpp
// checks <= 2 ulp on a sweep).
#pragma once

#include "libops/core/host_device.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "libops/core/cpu_isa.h"

// exp_f32_x8 exists where the AVX2 copies of Note [Runtime ISA dispatch]
// do (core/cpu_isa.h); it may run only where cpu_isa() is avx2 or above.
#if LIBOPS_ISA_DISPATCH
#include <immintrin.h>
#define LIBOPS_HAVE_EXP_F32_X8 1
#else
#define LIBOPS_HAVE_EXP_F32_X8 0
#endif

namespace libops {

namespace detail {

// a * b + c, fused where the target has an FMA instruction (std::fma would
// otherwise be a slow library call).
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float mul_add_f32(float a, float b, float c) {
#if defined(__FMA__) || defined(__aarch64__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

// c ? a : b as a bit mask: GCC if-converts and vectorizes this where a
// float ternary or std::min/max can stay a branch (and so keep the whole
// loop scalar) unless NaNs are assumed away.
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float select_f32(bool c, float a, float b) {
  const uint32_t mask = 0u - static_cast<uint32_t>(c);
  return std::bit_cast<float>((std::bit_cast<uint32_t>(a) & mask) | (std::bit_cast<uint32_t>(b) & ~mask));
}

}  // namespace detail

namespace detail {

inline constexpr float kExpLog2e = 1.44269504088896341f;
inline constexpr float kExpLn2Hi = 0.693359375f;              // 0x1.63p-1: 9 significant bits
inline constexpr float kExpLn2Lo = -2.12194440054690583e-4f;  // ln2 - kExpLn2Hi
inline constexpr float kExpShifter = 0x1.8p23f;               // 1.5 * 2^23

// Note [Subnormal exps without assists]
// Where exp's result is subnormal or underflows to 0 (n <= -126 in the
// reduction of Note [Vectorizable exp]), x86 cores do the final scaling in
// a microcode assist, a hundred or more cycles a lane: the exp op on 16M
// float32 values of -95 (results subnormal) or -1000 (results 0) ran 10x
// slower than on -1 at one thread, sigmoid of +-95 7-17x, and a softmax
// whose masked entries hold -3.4e38 (float32's lowest, as exporters mask
// attention) 3.4x. The SIMD exps give such lanes their bits from integers
// instead: for n <= -126 the result p 2^n (p = round(1 + q) in [0.7, 1.5))
// is round(p 2^(n + 149)) units of 2^-149, the bits of a float whose
// exponent field is 0 or 1, and p 2^(n + 149) is a normal float that
// cvtps2dq rounds to the nearest integer, ties to even, as the scaling
// rounds: the same bits, no assist. A vector without such a lane pays one
// compare and a predicted branch. The scalar exp_f32, which the
// element-wise loops vectorize, takes the same route branch-free; device
// code, GPUs taking subnormals at full speed, keeps the products.
inline constexpr float kExpTinyN = -125.5f;  // lanes with n below: n <= -126

// Note [Tanh as one rational function]
// tanh(x) = a P(u) / Q(u) with a = |x| clamped to 9.02 (beyond it tanh is
// 1 in float), u = a^2, P = 1 + u P1(u), Q = 1 + u Q1(u): P1 of degree 4
// and Q1 of degree 3, a minimax fit of relative error 1.3e-9 (0.02 ulp),
// made by tools/fit_tanh_f32.py. Below a = 1 the quotient is taken as
// a + a u (P1 - Q1) / Q, whose correction is at most a third of the
// result, where a P / Q would carry the roundings of P and Q near 1 in
// full; above it a P / Q. Both forms share the one division. Checked on
// every float against long double: within 1.41 ulp below 1, 5.1 ulp above
// (an absolute error of 3.1e-7 on values in [0.76, 1)). The exp-based form
// before kept 1.3 ulp throughout, at 1.04 ns an element in cache on this
// project's AVX2 EPYC against 0.63 now (8 lanes, one run), and tanh, and
// every chain holding one, was bound by its arithmetic instead of memory:
// the tanh op over 16M floats at one thread took 20.5 ms, now 12.6-14.6
// (a STREAM copy 9.8-13.0).
// tanh_f32 (below) and its 8- and 16-lane forms run the same operations
// in the same order: the same bits.
inline constexpr float kTanhClamp = 9.02f;
inline constexpr float kTanhP5 = -0x1.ad5d42p-37f, kTanhP4 = 0x1.06b898p-25f, kTanhP3 = 0x1.d5e2aap-16f,
                       kTanhP2 = 0x1.fb075ep-9f, kTanhP1 = 0x1.182a22p-3f;
inline constexpr float kTanhQ4 = 0x1.5992a4p-20f, kTanhQ3 = 0x1.9cfe94p-12f, kTanhQ2 = 0x1.be654p-6f,
                       kTanhQ1 = 0x1.e16a66p-2f;

// e^r - 1 on exp_f32's reduced range |r| <= 0.347:
// (e^r - 1 - r) / r^2 ~ c2 + c3 r + c4 r^2 + c5 r^3 + c6 r^4, so
// e^r - 1 = r + r^2 (c2 + c3 r + r^2 (c4 + c5 r + c6 r^2)): short
// dependency chains, and r itself enters last, exactly.
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float exp_poly_f32(float r) {
  constexpr float c2 = 0x1.fffffcp-2f, c3 = 0x1.55548cp-3f, c4 = 0x1.555906p-5f, c5 = 0x1.123d48p-7f,
                  c6 = 0x1.6a1e6ap-10f;
  const float r2 = r * r;
  const float lo = mul_add_f32(c3, r, c2);
  const float hi = mul_add_f32(c6, r2, mul_add_f32(c5, r, c4));
  return mul_add_f32(mul_add_f32(hi, r2, lo), r2, r);
}

// 2^n e^r, from t = n + kExpShifter (n in the low mantissa bits) and the
// reduced argument r: the second half of exp_f32.
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float exp_f32_scale(float t, float r) {
  constexpr float kShifter = kExpShifter;
  const float q = exp_poly_f32(r);
  // t and the shifter share their exponent (ulp 1), so their bit patterns
  // differ by n; m = n + 254 makes both halves biased exponents directly:
  // m >> 1 = floor(n / 2) + 127 and m - (m >> 1) = n - floor(n / 2) + 127.
  const auto m = static_cast<int32_t>(std::bit_cast<uint32_t>(t) - (std::bit_cast<uint32_t>(kShifter) - 254u));
  const int32_t m1 = m >> 1;
  const float s1 = std::bit_cast<float>(static_cast<uint32_t>(m1) << 23);
  const float s2 = std::bit_cast<float>(static_cast<uint32_t>(m - m1) << 23);
  // s1 (1 + q) in one step: s1 is a power of two and the product a normal
  // float, so this is s1 * round(1 + q), the only rounding at the scale of
  // the result before the final product.
#if defined(__CUDA_ARCH__)
  return mul_add_f32(q, s1, s1) * s2;  // GPUs take subnormals at full speed
#else
  // Note [Subnormal exps without assists], branch-free so that the loops
  // around it still vectorize: a result below 2^-126 (n <= -126; NaN is
  // never tiny) is round(v), v = round(1 + q) 2^(n + 149) in [0, 1.5 2^23),
  // as an integer bit pattern: v + 2^23 - 2^23 rounds v to an integer,
  // ties to even, where v < 2^23 (and from 2^23 up v is one already), so
  // the conversion truncates nothing. The product by s2 is by 1 there.
  const float n = t - kShifter;
  const bool tiny = n < kExpTinyN;
  const float normal = mul_add_f32(q, s1, s1) * select_f32(tiny, 1.0f, s2);
  const float k = select_f32(n < -173.0f, -24.0f, select_f32(tiny, n + 149.0f, 23.0f));  // tiny: n + 149 <= 23
  const float pow2k = std::bit_cast<float>(static_cast<uint32_t>(static_cast<int32_t>(k) + 127) << 23);
  const float v = (1.0f + q) * pow2k;
  const float whole = select_f32(v < 0x1p23f, (v + 0x1p23f) - 0x1p23f, v);
  const auto bits = static_cast<uint32_t>(static_cast<int32_t>(select_f32(tiny, whole, 0.0f)));
  return select_f32(tiny, std::bit_cast<float>(bits), normal);
#endif
}

}  // namespace detail

// e^x for float, vectorizable: Note [Vectorizable exp].
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float exp_f32(float x) {
  using detail::mul_add_f32;
  x = detail::select_f32(x > 100.0f, 100.0f, x);  // NaN compares false and stays
  x = detail::select_f32(x < -110.0f, -110.0f, x);
  const float t = mul_add_f32(x, detail::kExpLog2e, detail::kExpShifter);
  const float n = t - detail::kExpShifter;
  float r = mul_add_f32(n, -detail::kExpLn2Hi, x);
  r = mul_add_f32(n, -detail::kExpLn2Lo, r);
  return detail::exp_f32_scale(t, r);
}

// e^x - 1 for float, vectorizable, keeping relative accuracy near 0 where
// exp_f32(x) - 1 would cancel. With exp_f32's reduction x = n ln2 + r,
// e^x - 1 = 2^n q + (2^n - 1), q = e^r - 1 from the reduced-range
// polynomial (r enters it exactly): for n = 0 (|x| < 0.3466) that is q
// itself; otherwise h = 2^(n-1) and 2 (h q + (h - 1/2)) in one fused
// rounding (h - 1/2 exact for the n where it matters; the final doubling
// exact, or the overflow to +inf past 88.72). x is first clamped to
// [-30, 88.8] (the result is -1 below, +inf above; NaN passes), so h is a
// normal float built from n's bits. Within 1.5 ulp on a sweep
// (tests_cpu/core/fast_math_test.cpp); -0 stays -0.
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float expm1_f32(float x) {
  using detail::mul_add_f32;
  float xc = detail::select_f32(x > 88.8f, 88.8f, x);
  xc = detail::select_f32(xc < -30.0f, -30.0f, xc);
  const float t = mul_add_f32(xc, detail::kExpLog2e, detail::kExpShifter);
  const float n = t - detail::kExpShifter;
  float r = mul_add_f32(n, -detail::kExpLn2Hi, xc);
  r = mul_add_f32(n, -detail::kExpLn2Lo, r);
  const float q = detail::exp_poly_f32(r);
  // h = 2^(n - 1): t's bits differ from the shifter's by n.
  const float h = std::bit_cast<float>(
      static_cast<uint32_t>(std::bit_cast<uint32_t>(t) - std::bit_cast<uint32_t>(detail::kExpShifter) + 126u) << 23);
  const float y = 2.0f * mul_add_f32(h, q, h - 0.5f);
  return detail::select_f32(x == 0.0f, x, y);
}

// tanh for float32, one rational function (Note [Tanh as one rational
// function]): within 1.41 ulp below |x| = 1, an absolute 3.1e-7 above.
// On |x|, x's sign put back last (-0 stays -0); NaN passes the clamps
// (their comparisons are false) and stays NaN.
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float tanh_f32(float x) {
  using detail::mul_add_f32;
  using detail::select_f32;
  const float a0 = std::fabs(x);
  const float a = select_f32(detail::kTanhClamp < a0, detail::kTanhClamp, a0), u = a * a;
  float p = mul_add_f32(detail::kTanhP5, u, detail::kTanhP4);
  p = mul_add_f32(p, u, detail::kTanhP3);
  p = mul_add_f32(p, u, detail::kTanhP2);
  p = mul_add_f32(p, u, detail::kTanhP1);
  float q = mul_add_f32(detail::kTanhQ4, u, detail::kTanhQ3);
  q = mul_add_f32(q, u, detail::kTanhQ2);
  q = mul_add_f32(q, u, detail::kTanhQ1);
  const float big_num = a * mul_add_f32(p, u, 1.0f);
  const float small_num = (a * u) * (p - q);
  const bool small = a < 1.0f;
  const float d = select_f32(small, small_num, big_num) / mul_add_f32(q, u, 1.0f);
  const float r = d + select_f32(small, a, 0.0f);
  return std::copysign(select_f32(1.0f < r, 1.0f, r), x);
}

namespace detail {
// log(1 + f) - f = f^3 P(f) - f^2 / 2 for f in [sqrt(1/2) - 1, sqrt(2) - 1]
// (Note [Vectorizable log]); f itself is added by the caller.
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float log1p_poly_f32(float f) {
  constexpr float kP[] = {0x1.555544p-2f, -0x1.0001acp-2f, 0x1.99a852p-3f, -0x1.54985p-3f,
                          0x1.2247f6p-3f, -0x1.0b8ca0p-3f, 0x1.08437ap-3f, -0x1.49fc2ap-4f};
  float p = mul_add_f32(kP[7], f, kP[6]);
  p = mul_add_f32(p, f, kP[5]);
  p = mul_add_f32(p, f, kP[4]);
  p = mul_add_f32(p, f, kP[3]);
  p = mul_add_f32(p, f, kP[2]);
  p = mul_add_f32(p, f, kP[1]);
  p = mul_add_f32(p, f, kP[0]);
  const float f2 = f * f;
  return mul_add_f32(-0.5f, f2, (f * f2) * p);
}
}  // namespace detail

// Note [Vectorizable log]
// log_f32(x) for float, branch-free, so the loops around it vectorize:
//  * x = m 2^e with m in [sqrt(1/2), sqrt(2)), read from the bits: e is the
//    difference of x's bits and sqrt(1/2)'s, shifted (so m lands on the
//    right side of 1 without a compare), and m has x's mantissa with that
//    exponent taken off; subnormal x is first scaled by 2^23;
//  * log(1 + f), f = m - 1 in [-0.293, 0.414], is f - f^2 / 2 + f^3 P(f),
//    P of degree 7 fitted by iteratively reweighted least squares to the
//    relative error of log(1 + f) (tools/fit_log_f32.py);
//  * e ln2 added in two parts (ln2_hi with 9 bits, exact for every e),
//    the small terms first.
// Within 1 ulp on a sweep (tests_cpu/core/fast_math_test.cpp); log(+-0) =
// -inf, negative x and NaN give NaN, log(+inf) = +inf.
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float log_f32(float x) {
  using detail::mul_add_f32;
  using detail::select_f32;
  const bool subnormal = x < 0x1p-126f;  // also 0 and negatives, fixed below
  const float xs = select_f32(subnormal, x * 0x1p23f, x);
  // Unsigned arithmetic: negative x (fixed below) must not overflow.
  const uint32_t bits = std::bit_cast<uint32_t>(xs);
  const int32_t e = static_cast<int32_t>(bits - 0x3f3504f3u) >> 23;  // 0x3f3504f3: sqrt(1/2)
  const float m = std::bit_cast<float>(bits - (static_cast<uint32_t>(e) << 23));
  const float f = m - 1.0f;
  const float ef = static_cast<float>(e) - select_f32(subnormal, 23.0f, 0.0f);
  float r = mul_add_f32(ef, detail::kExpLn2Lo, detail::log1p_poly_f32(f));
  r = f + r;
  r = mul_add_f32(ef, detail::kExpLn2Hi, r);
  constexpr float kInf = std::numeric_limits<float>::infinity();
  r = select_f32(x == 0.0f, -kInf, r);
  r = select_f32(x < 0.0f, std::numeric_limits<float>::quiet_NaN(), r);
  r = select_f32(x == kInf, x, r);
  return select_f32(x != x, x, r);
}

// log(1 + x) for float, vectorizable. On log_f32's reduced range
// (sqrt(1/2) - 1 <= x < sqrt(2) - 1) its polynomial takes x exactly; beyond,
// log_f32(u) x / (u - 1) with u = 1 + x rounded, which corrects u's
// rounding to first order. x itself where u rounds to 1 (|x| < 2^-24, -0
// kept). Within 2.5 ulp on a sweep (the far side's two extra roundings);
// -1 gives -inf, below it NaN, +inf stays.
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float log1p_f32(float x) {
  using detail::select_f32;
  const bool reduced = (x >= -0.29289321f) & (x < 0.41421356f);  // no branch
  const float near = x + detail::log1p_poly_f32(select_f32(reduced, x, 0.0f));
  const float u = 1.0f + x;
  const float far = log_f32(u) * (x / (u - 1.0f));
  const float r = select_f32(reduced, near, select_f32(x == std::numeric_limits<float>::infinity(), x, far));
  return select_f32(u == 1.0f, x, r);
}

// Note [Vectorizable erf]
// erf_f32(x) for float, branch-free, so the loops around it vectorize.
// With a = |x| and x's sign put back last (-0 stays -0):
//  * a < 0.875: erf(a) = a + a R(a^2), R of degree 5 fitted to
//    erf(a) / a - 1 (relative error 8.5e-9 before rounding to float);
//  * 0.875 <= a: erf(a) = 1 - exp(L(a - 2.4375) - a^2), L of degree 9
//    fitted to log(erfc(a)) + a^2 on [0.875, 4] (absolute error 1.1e-8,
//    a relative error of erfc <= 0.22, so about 2.4e-9 on erf), with a
//    first clamped to 4, where erf rounds to 1 in float (1 - 1.5e-8). +inf
//    gives 1; NaN fails both comparisons and stays NaN.
// Both polynomials come from tools/fit_erf_f32.py. Within 1.4 ulp on a
// sweep (tests_cpu/core/fast_math_test.cpp). The C library's erff is a
// scalar call: the erf op over 4M float32 on one thread of a 2-core EPYC
// ran at 0.55 GB/s through it, 10.6 with this (ONNX Runtime: 15.7).
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float erf_f32(float x) {
  using detail::mul_add_f32;
  using detail::select_f32;
  constexpr float kR[] = {0x1.06eba6p-3f, -0x1.81270cp-2f, 0x1.ce212p-4f, -0x1.b6f3a2p-6f, 0x1.49ca74p-8f,
                          -0x1.453c6ap-11f};
  constexpr float kL[] = {-0x1.88d854p+0f, -0x1.70758ap-2f, 0x1.dcb9f2p-5f,  -0x1.7618c6p-7f, 0x1.2d9b04p-9f,
                          -0x1.d8429cp-12f, 0x1.5de894p-14f, -0x1.d80d4ap-17f, 0x1.af3d9ep-20f, -0x1.ff5666p-28f};
  const float a = std::fabs(x);
  const float u = a * a;
  float r = mul_add_f32(kR[5], u, kR[4]);
  r = mul_add_f32(r, u, kR[3]);
  r = mul_add_f32(r, u, kR[2]);
  r = mul_add_f32(r, u, kR[1]);
  r = mul_add_f32(r, u, kR[0]);
  const float small = mul_add_f32(a, r, a);
  const float ac = select_f32(a > 4.0f, 4.0f, a);  // NaN stays NaN
  const float s = ac - 2.4375f;
  float l = mul_add_f32(kL[9], s, kL[8]);
  l = mul_add_f32(l, s, kL[7]);
  l = mul_add_f32(l, s, kL[6]);
  l = mul_add_f32(l, s, kL[5]);
  l = mul_add_f32(l, s, kL[4]);
  l = mul_add_f32(l, s, kL[3]);
  l = mul_add_f32(l, s, kL[2]);
  l = mul_add_f32(l, s, kL[1]);
  l = mul_add_f32(l, s, kL[0]);
  const float large = 1.0f - exp_f32(mul_add_f32(-ac, ac, l));
  return std::copysign(select_f32(a < 0.875f, small, large), x);
}

// Note [Vectorizable atan]
// atan_f32(x) for float, branch-free. With a = |x| (x's sign put back
// last, so -0 stays -0), one division reduces a to |z| <= tan(pi / 8):
//     a > tan(3 pi / 8):  atan(a) = pi / 2 + atan(-1 / a)
//     a > tan(pi / 8):    atan(a) = pi / 4 + atan((a - 1) / (a + 1))
//     else                atan(a) = atan(a)
// and atan(z) = z + z^3 P(z^2), P of degree 4 fitted to atan's relative
// error (6.7e-10 before rounding to float; tools/fit_atan_f32.py). The
// multiple of pi / 4 is added in two parts, the small one first. Within
// 1.8 ulp on a sweep (tests_cpu/core/fast_math_test.cpp); +-inf gives
// +-pi / 2 and NaN stays NaN. The atan op over 4M float32 on one thread
// of a 2-core EPYC: 0.69 GB/s through the C library's atanf, 21.6 with this
// (ONNX Runtime: 8.9).
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float atan_f32(float x) {
  using detail::mul_add_f32;
  using detail::select_f32;
  constexpr float kP[] = {-0x1.55554ap-2f, 0x1.999196p-3f, -0x1.23b524p-3f, 0x1.b1ec34p-4f, -0x1.f1ed9ap-5f};
  constexpr float kPi2Hi = 0x1.921fb6p+0f, kPi2Lo = -0x1.777a5cp-25f;  // pi / 2 = hi + lo
  const float a = std::fabs(x);
  const bool far = a > 2.41421356f, mid = a > 0.41421356f;
  const float num = select_f32(far, -1.0f, select_f32(mid, a - 1.0f, a));
  const float den = select_f32(far, a, select_f32(mid, a + 1.0f, 1.0f));
  const float z = num / den;
  const float u = z * z;
  float p = mul_add_f32(kP[4], u, kP[3]);
  p = mul_add_f32(p, u, kP[2]);
  p = mul_add_f32(p, u, kP[1]);
  p = mul_add_f32(p, u, kP[0]);
  const float hi = select_f32(far, kPi2Hi, select_f32(mid, 0.5f * kPi2Hi, 0.0f));
  const float lo = select_f32(far, kPi2Lo, select_f32(mid, 0.5f * kPi2Lo, 0.0f));
  return std::copysign(hi + (z + mul_add_f32(z * u, p, lo)), x);
}

// e^(hi + lo) for a sum the float hi + lo would round: hi enters the
// reduction directly (hi - n ln2_hi is exact for 4 <= |hi| < 128: both are
// multiples of ulp(hi) >= 2^-21 and the difference is below 4) and lo is
// added to the reduced argument, so the result keeps exp_f32's relative
// accuracy where hi is large (gelu's -y^2 / 2 down to -98, whose rounding
// error lo carries). One exp where e^hi e^lo took two, and closer: within
// 2.4 ulp of e^(hi + lo) on the test's sample, where the product of two
// exp_f32 reaches 3.6 (tests_cpu/core/fast_math_test.cpp). The worst cases
// have |hi| < 4 and |lo| near 2, where hi - n ln2_hi rounds.
// Requires |lo| <= 2 and hi + lo within [-110, 100] (no clamping); NaN
// propagates.
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE float exp_f32_sum(float hi, float lo) {
  using detail::mul_add_f32;
  const float t = mul_add_f32(hi + lo, detail::kExpLog2e, detail::kExpShifter);
  const float n = t - detail::kExpShifter;
  // lo joins before the ln2_lo term: where |hi| >= 4, hi - n ln2_hi and lo
  // are multiples of 2^-22 whose sum is the small reduced argument, so the
  // sum is exact and only the ln2_lo term rounds, at the scale of r.
  float r = mul_add_f32(n, -detail::kExpLn2Hi, hi) + lo;
  r = mul_add_f32(n, -detail::kExpLn2Lo, r);
  return detail::exp_f32_scale(t, r);
}

#if LIBOPS_HAVE_EXP_F32_X8
// exp_f32 on 8 lanes with AVX2 + FMA, bit for bit exp_f32 as the AVX2 and
// AVX-512 copies compile it, with fused multiply-adds (Note [Dense kernels]
// in loops/dense_kernel.h). The clamps become one instruction each:
//  * max(-110, x) with the constant first returns x when x is NaN;
//  * the upper clamp moves from x to t: min(t, shifter + 145) caps n at 145
//    for x > 100.5, +inf, and x so large that x log2e overflows; NaN x
//    gives n = 145 there, but r (from x) is NaN, so the result is NaN.
// For x <= 100.5 both forms give the same n, r and result; above it both
// overflow to +inf.
LIBOPS_TARGET_AVX2 inline __m256 exp_f32_x8(__m256 x) {
  constexpr float kShifter = 0x1.8p23f;
  const __m256 shifter = _mm256_set1_ps(kShifter);
  x = _mm256_max_ps(_mm256_set1_ps(-110.0f), x);
  __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), shifter);
  t = _mm256_min_ps(t, _mm256_set1_ps(kShifter + 145.0f));
  const __m256 n = _mm256_sub_ps(t, shifter);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440054690583e-4f), r);
  const __m256 r2 = _mm256_mul_ps(r, r);
  const __m256 lo = _mm256_fmadd_ps(_mm256_set1_ps(0x1.55548cp-3f), r, _mm256_set1_ps(0x1.fffffcp-2f));
  const __m256 hi = _mm256_fmadd_ps(_mm256_set1_ps(0x1.6a1e6ap-10f), r2,
                                    _mm256_fmadd_ps(_mm256_set1_ps(0x1.123d48p-7f), r, _mm256_set1_ps(0x1.555906p-5f)));
  const __m256 q = _mm256_fmadd_ps(_mm256_fmadd_ps(hi, r2, lo), r2, r);
  const __m256i m = _mm256_sub_epi32(_mm256_castps_si256(t),
                                     _mm256_set1_epi32(static_cast<int32_t>(std::bit_cast<uint32_t>(kShifter) - 254u)));
  const __m256i m1 = _mm256_srai_epi32(m, 1);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(m1, 23));
  __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(m, m1), 23));
  // Note [Subnormal exps without assists]
  const __m256 tiny = _mm256_cmp_ps(n, _mm256_set1_ps(detail::kExpTinyN), _CMP_LT_OQ);
  if (_mm256_movemask_ps(tiny) == 0) [[likely]]
    return _mm256_mul_ps(_mm256_fmadd_ps(q, s1, s1), s2);
  // Tiny lanes: the scaling by s2 = 1 (a normal product, then dropped),
  // their bits from the integer route.
  s2 = _mm256_blendv_ps(s2, _mm256_set1_ps(1.0f), tiny);
  const __m256 normal = _mm256_mul_ps(_mm256_fmadd_ps(q, s1, s1), s2);
  const __m256 k = _mm256_max_ps(_mm256_min_ps(_mm256_add_ps(n, _mm256_set1_ps(149.0f)), _mm256_set1_ps(23.0f)),
                                 _mm256_set1_ps(-24.0f));
  const __m256 pow2k =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23));
  const __m256 p = _mm256_add_ps(q, _mm256_set1_ps(1.0f));
  const __m256 sub = _mm256_castsi256_ps(_mm256_cvtps_epi32(_mm256_mul_ps(p, pow2k)));
  return _mm256_blendv_ps(normal, sub, tiny);
}

// sigmoid_f32_x16 and tanh_f32_x16 (below) on 8 lanes around exp_f32_x8:
// the functors' operations in the same order, so the same bits, for the
// avx2 level's dense kernels.
LIBOPS_TARGET_AVX2 inline __m256 sigmoid_f32_x8(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
  const __m256 t = exp_f32_x8(_mm256_or_ps(x, sign));  // exp(-|x|)
  const __m256 num = _mm256_blendv_ps(t, one, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
  // As sigmoid_c: lanes whose t is subnormal divide 1 by 1, then take num.
  const __m256 tiny = _mm256_cmp_ps(t, _mm256_set1_ps(std::numeric_limits<float>::min()), _CMP_LT_OQ);
  const __m256 q = _mm256_div_ps(_mm256_blendv_ps(num, one, tiny), _mm256_add_ps(one, _mm256_andnot_ps(tiny, t)));
  return _mm256_blendv_ps(q, num, tiny);
}

LIBOPS_TARGET_AVX2 inline __m256 tanh_f32_x8(__m256 x) {  // Note [Tanh as one rational function]
  const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
  // min(c, a) with the constant first returns a when a is NaN.
  const __m256 a = _mm256_min_ps(_mm256_set1_ps(detail::kTanhClamp), _mm256_andnot_ps(sign, x));
  const __m256 u = _mm256_mul_ps(a, a);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(detail::kTanhP5), u, _mm256_set1_ps(detail::kTanhP4));
  p = _mm256_fmadd_ps(p, u, _mm256_set1_ps(detail::kTanhP3));
  p = _mm256_fmadd_ps(p, u, _mm256_set1_ps(detail::kTanhP2));
  p = _mm256_fmadd_ps(p, u, _mm256_set1_ps(detail::kTanhP1));
  __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(detail::kTanhQ4), u, _mm256_set1_ps(detail::kTanhQ3));
  q = _mm256_fmadd_ps(q, u, _mm256_set1_ps(detail::kTanhQ2));
  q = _mm256_fmadd_ps(q, u, _mm256_set1_ps(detail::kTanhQ1));
  const __m256 big_num = _mm256_mul_ps(a, _mm256_fmadd_ps(p, u, one));
  const __m256 small_num = _mm256_mul_ps(_mm256_mul_ps(a, u), _mm256_sub_ps(p, q));
  const __m256 small = _mm256_cmp_ps(a, one, _CMP_LT_OQ);
  const __m256 d = _mm256_div_ps(_mm256_blendv_ps(big_num, small_num, small), _mm256_fmadd_ps(q, u, one));
  const __m256 r = _mm256_min_ps(one, _mm256_add_ps(d, _mm256_and_ps(small, a)));
  return _mm256_or_ps(r, _mm256_and_ps(x, sign));  // copysign(r, x): r >= 0 or NaN
}

LIBOPS_TARGET_AVX2 inline void exp_f32_dense_avx2(const float* x, float* z, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(z + i, exp_f32_x8(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) z[i] = exp_f32(x[i]);
}

// exp_f32_scale on 16 lanes, from the integer-valued n (not t) and the
// reduced argument r.
LIBOPS_TARGET_AVX512 inline __m512 exp_f32_scale_x16(__m512 n, __m512 r) {
  constexpr __mmask16 kAll = 0xffff;
  const __m512 r2 = _mm512_mul_ps(r, r);
  const __m512 lo = _mm512_fmadd_ps(_mm512_set1_ps(0x1.55548cp-3f), r, _mm512_set1_ps(0x1.fffffcp-2f));
  const __m512 hi = _mm512_fmadd_ps(_mm512_set1_ps(0x1.6a1e6ap-10f), r2,
                                    _mm512_fmadd_ps(_mm512_set1_ps(0x1.123d48p-7f), r, _mm512_set1_ps(0x1.555906p-5f)));
  const __m512 q = _mm512_fmadd_ps(_mm512_fmadd_ps(hi, r2, lo), r2, r);
  // round(1 + q) * 2^n in one rounding: vscalefps scales by 2^n exactly
  // where the result is normal and rounds once into the subnormal range,
  // which is what exp_f32's two exact power-of-two products give (the
  // same bits), in two instructions instead of seven.
  const __m512 p = _mm512_add_ps(q, _mm512_set1_ps(1.0f));
  // Note [Subnormal exps without assists]
  const __mmask16 tiny = _mm512_cmp_ps_mask(n, _mm512_set1_ps(detail::kExpTinyN), _CMP_LT_OQ);
  if (tiny == 0) [[likely]]
    return _mm512_mask_scalef_ps(p, kAll, p, n);
  // Tiny lanes: scaled by at least 2^-125 (a normal result, then dropped),
  // their bits from the integer route.
  const __m512 normal = _mm512_mask_scalef_ps(p, kAll, p, _mm512_mask_max_ps(n, kAll, n, _mm512_set1_ps(-125.0f)));
  const __m512 k = _mm512_mask_max_ps(
      n, kAll, _mm512_mask_min_ps(n, kAll, _mm512_add_ps(n, _mm512_set1_ps(149.0f)), _mm512_set1_ps(23.0f)),
      _mm512_set1_ps(-24.0f));
  const __m512i zero = _mm512_setzero_si512();
  const __m512i biased = _mm512_add_epi32(_mm512_mask_cvtps_epi32(zero, kAll, k), _mm512_set1_epi32(127));
  const __m512 pow2k = _mm512_castsi512_ps(_mm512_mask_slli_epi32(zero, kAll, biased, 23));
  const __m512 sub = _mm512_castsi512_ps(_mm512_mask_cvtps_epi32(zero, kAll, _mm512_mul_ps(p, pow2k)));
  return _mm512_mask_blend_ps(tiny, normal, sub);
}

// exp_f32_x8 on 16 lanes with AVX-512, the same bits, for cpu_isa()
// avx512: exp is bound by arithmetic, and one instruction for 16 lanes
// instead of two for 8 ran the exp op (16M float32, one thread of a 2-core
// EPYC) at 25 GB/s instead of 22, and vscalefps for the final scaling at
// 28 instead of 25.
LIBOPS_TARGET_AVX512 inline __m512 exp_f32_x16(__m512 x) {
  // The all-lanes masked forms: GCC 12 warns that the unmasked ones'
  // pass-through operand "may be used uninitialized" (a false positive).
  constexpr __mmask16 kAll = 0xffff;
  constexpr float kShifter = detail::kExpShifter;
  const __m512 shifter = _mm512_set1_ps(kShifter);
  x = _mm512_mask_max_ps(x, kAll, _mm512_set1_ps(-110.0f), x);
  __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(detail::kExpLog2e), shifter);
  t = _mm512_mask_min_ps(t, kAll, t, _mm512_set1_ps(kShifter + 145.0f));
  const __m512 n = _mm512_sub_ps(t, shifter);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(detail::kExpLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(detail::kExpLn2Lo), r);
  return exp_f32_scale_x16(n, r);
}

// exp_f32_sum on 16 lanes, the same bits.
LIBOPS_TARGET_AVX512 inline __m512 exp_f32_sum_x16(__m512 hi, __m512 lo) {
  const __m512 shifter = _mm512_set1_ps(detail::kExpShifter);
  const __m512 t = _mm512_fmadd_ps(_mm512_add_ps(hi, lo), _mm512_set1_ps(detail::kExpLog2e), shifter);
  const __m512 n = _mm512_sub_ps(t, shifter);
  __m512 r = _mm512_add_ps(_mm512_fnmadd_ps(n, _mm512_set1_ps(detail::kExpLn2Hi), hi), lo);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(detail::kExpLn2Lo), r);
  return exp_f32_scale_x16(n, r);
}

// The sigmoid and tanh ops' functors (sigmoid_c, tanh_c in
// legacy/ops/transform_strict_ops.h) on 16 lanes: the same operations in
// the same order around exp_f32_x16, so the same bits (Note [Dense
// kernels]). The ops' dense kernels and the LSTM cell use them.
LIBOPS_TARGET_AVX512 inline __m512 sigmoid_f32_x16(__m512 x) {
  const __m512 sign = _mm512_set1_ps(-0.0f), one = _mm512_set1_ps(1.0f);
  const __m512 t = exp_f32_x16(_mm512_or_ps(x, sign));  // exp(-|x|)
  const __m512 num = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ), t, one);
  // Where t is subnormal (|x| > 87.3), 1 + t is 1 and the quotient num
  // itself: those lanes skip the add and the division, whose subnormal
  // operands would cost a microcode assist each (Note [Subnormal exps
  // without assists]). The same bits.
  const __mmask16 normal = _mm512_cmp_ps_mask(t, _mm512_set1_ps(std::numeric_limits<float>::min()), _CMP_GE_OQ);
  return _mm512_mask_div_ps(num, normal, num, _mm512_mask_add_ps(one, normal, one, t));
}

LIBOPS_TARGET_AVX512 inline __m512 tanh_f32_x16(__m512 x) {  // Note [Tanh as one rational function]
  constexpr __mmask16 kAll = 0xffff;
  const __m512 sign = _mm512_set1_ps(-0.0f), one = _mm512_set1_ps(1.0f);
  // Masked forms throughout, where GCC 12 misreports the unmasked ones'
  // undefined sources as uninitialised.
  const __m512 clamp = _mm512_set1_ps(detail::kTanhClamp);
  const __m512 a = _mm512_mask_min_ps(clamp, kAll, clamp, _mm512_andnot_ps(sign, x));
  const __m512 u = _mm512_mul_ps(a, a);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(detail::kTanhP5), u, _mm512_set1_ps(detail::kTanhP4));
  p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(detail::kTanhP3));
  p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(detail::kTanhP2));
  p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(detail::kTanhP1));
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(detail::kTanhQ4), u, _mm512_set1_ps(detail::kTanhQ3));
  q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(detail::kTanhQ2));
  q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(detail::kTanhQ1));
  const __m512 big_num = _mm512_mul_ps(a, _mm512_fmadd_ps(p, u, one));
  const __m512 small_num = _mm512_mul_ps(_mm512_mul_ps(a, u), _mm512_sub_ps(p, q));
  const __mmask16 small = _mm512_cmp_ps_mask(a, one, _CMP_LT_OQ);
  const __m512 num = _mm512_mask_blend_ps(small, big_num, small_num);
  const __m512 d = _mm512_mask_div_ps(num, kAll, num, _mm512_fmadd_ps(q, u, one));
  const __m512 r = _mm512_mask_min_ps(one, kAll, one, _mm512_mask_add_ps(d, small, d, a));
  return _mm512_or_ps(r, _mm512_and_ps(x, sign));  // copysign(r, x): r >= 0 or NaN
}

LIBOPS_TARGET_AVX512 inline void exp_f32_dense_avx512(const float* x, float* z, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(z + i, exp_f32_x16(_mm512_loadu_ps(x + i)));
  for (; i < n; ++i) z[i] = exp_f32(x[i]);
}
#endif

// z[i] = exp_f32(x[i]) for i in [0, n); z may be x. The same bits as
// exp_f32 at the current cpu_isa() (Note [Runtime ISA dispatch]).
inline void exp_f32_dense(const float* x, float* z, int64_t n) {
#if LIBOPS_HAVE_EXP_F32_X8
  if (cpu_isa() == CpuIsa::kAvx512) return exp_f32_dense_avx512(x, z, n);
  if (cpu_isa() != CpuIsa::kBaseline) return exp_f32_dense_avx2(x, z, n);
#endif
  for (int64_t i = 0; i < n; ++i) z[i] = exp_f32(x[i]);
}

}  // namespace libops
