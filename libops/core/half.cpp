// Bulk 16-bit float conversions. F16C does 8 halves per instruction
// (where cpu_isa() has it: Note [Runtime ISA dispatch]); its
// rounding (nearest-even, NaNs quieted with the payload kept) matches the
// scalar functions in half.h bit for bit, so the scalar tail and fallback
// give the same results.
#include "libops/core/half.h"

#include "libops/core/cpu_isa.h"

#if LIBOPS_ISA_DISPATCH
#include <immintrin.h>
#endif

namespace libops {

namespace {

#if LIBOPS_ISA_DISPATCH
// F16C comes with every CPU of the avx2 level and above (Note [Runtime ISA
// dispatch]). Each returns the elements done (whole groups of 8).
LIBOPS_TARGET_AVX2 int64_t half_to_float_f16c(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  return i;
}

// Float subnormals round to zero in half either way, so MXCSR.DAZ (set by
// -ffast-math builds) cannot change the result.
LIBOPS_TARGET_AVX2 int64_t float_to_half_f16c(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 f = _mm256_loadu_ps(src + i);
    __m128i h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  return i;
}
#endif

}  // namespace

void half_to_float_n(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
#if LIBOPS_ISA_DISPATCH
  if (cpu_isa() != CpuIsa::kBaseline) i = half_to_float_f16c(src, dst, n);
#endif
  for (; i < n; ++i) dst[i] = half_bits_to_float(src[i]);
}

void float_to_half_n(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
#if LIBOPS_ISA_DISPATCH
  if (cpu_isa() != CpuIsa::kBaseline) i = float_to_half_f16c(src, dst, n);
#endif
  for (; i < n; ++i) dst[i] = float_to_half_bits(src[i]);
}

// bf16 is a shift plus an integer rounding step; these loops vectorise.
void bf16_to_float_n(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_bits_to_float(src[i]);
}

void float_to_bf16_n(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = float_to_bf16_bits(src[i]);
}

}  // namespace libops
