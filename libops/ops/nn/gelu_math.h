// The float32 gelu of dense runs on the CPU: the per-element forms the
// compiler vectorizes, and the erf form on 16 lanes (Note [Vectorized
// gelu]). In a header so the tests can hold the two forms side by side.
#pragma once

#include <cmath>
#include <cstdint>

#include "libops/core/cpu_isa.h"
#include "libops/core/fast_math.h"
#include "libops/legacy/ops/transform_strict_ops.h"

namespace libops::ops::nn {

// Note [Vectorized gelu]
// The C library's erfc is a scalar call, several times slower per element
// than memory delivers float32 on one core. For dense float32 on the CPU
// both forms are computed from exp_f32 (Note [Vectorizable exp]), selects
// and arithmetic, which the compiler vectorizes:
//   erf form: Phi(-y) = 0.5 erfc(y / sqrt 2) for y = |x| is written
//     t exp(-y^2 / 2 + Q(t)), t = 1 / (1 + y / 2), Q a degree-10 polynomial
//     in u = 2 t - 1 fitted (Chebyshev least squares against mpmath) to
//     within 7e-8 on y in [0, 14]; evaluated in float its error stays below
//     2e-7, a relative error of the tail. y^2 / 2 enters exactly: y * y is
//     split into its rounded value and the rounding error (a fused
//     multiply-add), and the error joins the reduced argument of one exp
//     (exp_f32_sum), so the tail keeps its relative accuracy where y^2 / 2
//     is large (-98 at y = 14). Beyond
//     y = 14 the tail is below 1e-44 and taken as 0. Phi(x) = tail for
//     x < 0, 1 - tail otherwise (tail <= 1/2: no cancellation).
//   tanh form: x sigmoid(2 u), the legacy functor's formula, with the
//     vectorizable sigmoid.
// Both give -0 at -inf (x * 0 would be NaN), +inf at +inf, NaN for NaN.
// The loop is bound by arithmetic, not memory, so gelu.cpp is compiled for
// the widest vectors the machine has (LIBOPS_WIDE_VECTOR_SOURCES in
// CMakeLists.txt): on AVX-512, 16M float32 in 31.6 ms instead of 47.5 (an
// older machine). Where cpu_isa() is avx512 the erf form runs as
// gelu_erf_f32_x16, the same bits: the gelu op over 16M float32 on one
// thread of a 2-core Zen 4 EPYC, 15.9 -> 13.5 ms (2 threads: 8.3 -> 6.9).
inline constexpr float kGeluQ[] = {-1.0900371574239403f, 0.49286237215666384f, -0.07862890243061364f,
                        -0.035814588179957946f, 0.020945186709658607f, 0.0010708307086682027f,
                        -0.0057267047026708625f, 0.002089417327110821f, 0.0006843823083154232f,
                        -0.0007645837376777526f, 0.00017249523869812222f};

LIBOPS_FORCE_INLINE float gelu_erf_f32(float x) {
  using detail::mul_add_f32;
  using detail::select_f32;
  const float ax = std::fabs(x);
  const float y = select_f32(ax > 14.0f, 14.0f, ax);  // NaN stays NaN (the comparison is false)
  const float t = 1.0f / mul_add_f32(0.5f, y, 1.0f);
  const float u = mul_add_f32(2.0f, t, -1.0f);
  // Horner written out: a loop here keeps the compiler from vectorizing
  // the loop over elements.
  float q = mul_add_f32(kGeluQ[10], u, kGeluQ[9]);
  q = mul_add_f32(q, u, kGeluQ[8]);
  q = mul_add_f32(q, u, kGeluQ[7]);
  q = mul_add_f32(q, u, kGeluQ[6]);
  q = mul_add_f32(q, u, kGeluQ[5]);
  q = mul_add_f32(q, u, kGeluQ[4]);
  q = mul_add_f32(q, u, kGeluQ[3]);
  q = mul_add_f32(q, u, kGeluQ[2]);
  q = mul_add_f32(q, u, kGeluQ[1]);
  q = mul_add_f32(q, u, kGeluQ[0]);
  const float y2 = y * y;
  const float y2_err = std::fma(y, y, -y2);  // y * y = y2 + y2_err exactly
  float tail = t * exp_f32_sum(-0.5f * y2, mul_add_f32(-0.5f, y2_err, q));
  tail = select_f32(ax >= 14.0f, 0.0f, tail);
  const float phi = select_f32(x < 0.0f, tail, 1.0f - tail);
  return select_f32(x == -INFINITY, -0.0f, x * phi);
}

LIBOPS_FORCE_INLINE float gelu_tanh_f32(float x) {
  using legacy::fn::transform_strict::gelu_two_u;
  using legacy::fn::transform_strict::sigmoid_c;
  return detail::select_f32(x == -INFINITY, -0.0f, x * sigmoid_c(gelu_two_u(x)));
}

#if LIBOPS_HAVE_EXP_F32_X8
// gelu_erf_f32 on 16 lanes: the same operations in the same order, so the
// same bits, with exp_f32_sum_x16 (vscalefps) and no spills; the compiler's
// vectorization of gelu_erf_f32 reloaded constants and scaled 2^n in seven
// instructions.
LIBOPS_TARGET_AVX512 inline __m512 gelu_erf_f32_x16(__m512 x) {
  constexpr __mmask16 kAll = 0xffff;
  const __m512 one = _mm512_set1_ps(1.0f), fourteen = _mm512_set1_ps(14.0f);
  const __m512 ax = _mm512_andnot_ps(_mm512_set1_ps(-0.0f), x);
  const __m512 y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, fourteen, _CMP_GT_OQ), ax, fourteen);  // NaN stays
  const __m512 den = _mm512_fmadd_ps(_mm512_set1_ps(0.5f), y, one);
  const __m512 t = _mm512_mask_div_ps(one, kAll, one, den);
  const __m512 u = _mm512_fmadd_ps(_mm512_set1_ps(2.0f), t, _mm512_set1_ps(-1.0f));
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(kGeluQ[10]), u, _mm512_set1_ps(kGeluQ[9]));
  for (int i = 8; i >= 0; --i) q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(kGeluQ[i]));
  const __m512 y2 = _mm512_mul_ps(y, y);
  const __m512 y2_err = _mm512_fmsub_ps(y, y, y2);
  const __m512 hi = _mm512_mul_ps(_mm512_set1_ps(-0.5f), y2);
  const __m512 lo = _mm512_fmadd_ps(_mm512_set1_ps(-0.5f), y2_err, q);
  __m512 tail = _mm512_mul_ps(t, exp_f32_sum_x16(hi, lo));
  tail = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(ax, fourteen, _CMP_NGE_UQ), tail);  // 0 where ax >= 14
  const __m512 phi =
      _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), _mm512_sub_ps(one, tail), tail);
  const __m512 z = _mm512_mul_ps(x, phi);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(-INFINITY), _CMP_EQ_OQ), z,
                              _mm512_set1_ps(-0.0f));
}

// z = gelu_erf_f32_x16(x) over [0, n), the tail as masked lanes.
LIBOPS_TARGET_AVX512 inline void gelu_erf_dense_x16(const float* x, float* z, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(z + i, gelu_erf_f32_x16(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const auto m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(z + i, m, gelu_erf_f32_x16(_mm512_maskz_loadu_ps(m, x + i)));
  }
}
#endif

}  // namespace libops::ops::nn
