// libops: 16-bit float storage types (IEEE binary16 and bfloat16).
//
// These are storage types only: the engine loads them as float, computes in
// float and converts back on store, so there is no arithmetic here. All
// conversions are exact IEEE: round to nearest, ties to even; subnormals,
// signed zero, Inf and NaN are preserved (NaNs come out quiet, sign kept).
#ifndef LIBOPS_CORE_HALF_H
#define LIBOPS_CORE_HALF_H

#include <concepts>
#include <cstdint>
#include <cstring>
#include <type_traits>

// Another header (e.g. a CUDA-wide config header) may define this first.
#include "libops/core/host_device.h"

// Host code on x86 with F16C converts binary16 in one instruction, with the
// same results as the portable code below (IEEE round to nearest even, NaNs
// quieted with their top payload bits kept): the portable float-to-half
// path is a dozen branches per element, 20x slower in a cast.
#if defined(__F16C__) && !defined(__CUDA_ARCH__)
#include <immintrin.h>
#endif

#include "libops/core/api.h"

LIBOPS_API_BEGIN

namespace libops {

namespace detail {

// memcpy rather than bit_cast or intrinsics: it works the same in host and
// device code and compiles to a register move.
LIBOPS_HOST_DEVICE inline uint32_t float_to_u32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

LIBOPS_HOST_DEVICE inline float u32_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

LIBOPS_HOST_DEVICE inline uint64_t double_to_u64(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// Rounds sig * 2^(exp - frac_bits) to nearest, ties to even, in a binary
// format with man_bits stored fraction bits and normal exponents in
// [emin, emax]. sig is normalised (its top set bit is bit frac_bits) and
// frac_bits > man_bits. Returns the magnitude bits, without sign.
LIBOPS_HOST_DEVICE inline uint32_t round_to_format(int exp, uint64_t sig, int frac_bits,
                                                   int man_bits, int emin, int emax) {
  const uint32_t inf = uint32_t(2 * emax + 1) << man_bits;
  if (exp > emax) return inf;
  // Below half the smallest subnormal: rounds to zero. Exactly half (or a
  // bit more) has exp == emin - man_bits - 1 and is rounded below.
  if (exp < emin - man_bits - 1) return 0;
  // Bits to drop. Subnormals have their exponent pinned at emin, so they
  // lose one more bit for each step below it.
  int shift = frac_bits - man_bits + (exp < emin ? emin - exp : 0);
  uint64_t q = sig >> shift;
  uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
  uint64_t halfway = uint64_t{1} << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1))) ++q;
  if (exp < emin) return uint32_t(q);  // q == 1 << man_bits is the smallest normal
  // q still holds the implicit bit, which adds one to the exponent field;
  // a rounding carry out of the fraction moves on to the next binade, and
  // from the top binade to Inf, with no special case.
  return (uint32_t(exp - emin) << man_bits) + uint32_t(q);
}

}  // namespace detail

// ---- IEEE binary16 -------------------------------------------------------

namespace detail {

// The portable conversions: device code, and hosts without F16C (the
// tests hold them to F16C's results bit for bit).
LIBOPS_HOST_DEVICE inline float half_bits_to_float_portable(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t frac = h & 0x3ffu;
  if (exp == 0x1f) {
    uint32_t nan = frac ? 0x400000u | (frac << 13) : 0;  // quiet bit set
    return detail::u32_to_float(sign | 0x7f800000u | nan);
  }
  if (exp == 0) {
    if (frac == 0) return detail::u32_to_float(sign);
    // Subnormal half: normal in float. Shift the leading one up to the
    // implicit-bit position, lowering the exponent from 2^-14 as we go.
    uint32_t e = 127 - 14;
    while (!(frac & 0x400u)) {
      frac <<= 1;
      --e;
    }
    return detail::u32_to_float(sign | (e << 23) | ((frac & 0x3ffu) << 13));
  }
  return detail::u32_to_float(sign | ((exp + 127 - 15) << 23) | (frac << 13));
}

LIBOPS_HOST_DEVICE inline uint16_t float_to_half_bits_portable(float f) {
  uint32_t x = detail::float_to_u32(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t frac = x & 0x7fffffu;
  if (exp == 0xff) {
    // Keep the top payload bits and force the quiet bit, so a NaN whose
    // payload sits only in the low bits cannot turn into Inf.
    return uint16_t(sign | (frac ? 0x7e00u | (frac >> 13) : 0x7c00u));
  }
  // Zero or float subnormal (< 2^-126): far below half the smallest half.
  if (exp == 0) return uint16_t(sign);
  return uint16_t(sign | detail::round_to_format(int(exp) - 127, frac | 0x800000u, 23, 10, -14, 15));
}

}  // namespace detail

LIBOPS_HOST_DEVICE inline float half_bits_to_float(uint16_t h) {
#if defined(__F16C__) && !defined(__CUDA_ARCH__)
  return _cvtsh_ss(h);
#else
  return detail::half_bits_to_float_portable(h);
#endif
}

LIBOPS_HOST_DEVICE inline uint16_t float_to_half_bits(float f) {
#if defined(__F16C__) && !defined(__CUDA_ARCH__)
  return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
#else
  return detail::float_to_half_bits_portable(f);
#endif
}

// Rounds once, straight from double. Going through float would round twice
// and can land on a half tie that the double was not on.
LIBOPS_HOST_DEVICE inline uint16_t float_to_half_bits(double d) {
  uint64_t x = detail::double_to_u64(d);
  uint32_t sign = uint32_t(x >> 48) & 0x8000u;
  uint32_t exp = uint32_t(x >> 52) & 0x7ffu;
  uint64_t frac = x & 0xfffffffffffffull;
  if (exp == 0x7ff) return uint16_t(sign | (frac ? 0x7e00u | uint32_t(frac >> 42) : 0x7c00u));
  if (exp == 0) return uint16_t(sign);  // zero or double subnormal
  uint64_t sig = frac | (uint64_t{1} << 52);
  return uint16_t(sign | detail::round_to_format(int(exp) - 1023, sig, 52, 10, -14, 15));
}

// ---- bfloat16 (the top half of a float) ----------------------------------

LIBOPS_HOST_DEVICE inline float bf16_bits_to_float(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  if ((b & 0x7fffu) > 0x7f80u) x |= 0x400000u;  // NaN: make it quiet
  return detail::u32_to_float(x);
}

LIBOPS_HOST_DEVICE inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x = detail::float_to_u32(f);
  // NaN: truncation could drop the whole payload and yield Inf, so set the
  // quiet bit (bf16 bit 6) explicitly.
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);
  // Round to nearest even by adding just under half an ulp, plus one more
  // when the kept part is odd. A carry into the exponent is the correct
  // result, including FLT_MAX -> Inf.
  x += 0x7fffu + ((x >> 16) & 1u);
  return uint16_t(x >> 16);
}

LIBOPS_HOST_DEVICE inline uint16_t float_to_bf16_bits(double d) {
  uint64_t x = detail::double_to_u64(d);
  uint32_t sign = uint32_t(x >> 48) & 0x8000u;
  uint32_t exp = uint32_t(x >> 52) & 0x7ffu;
  uint64_t frac = x & 0xfffffffffffffull;
  if (exp == 0x7ff) return uint16_t(sign | (frac ? 0x7fc0u | uint32_t(frac >> 45) : 0x7f80u));
  if (exp == 0) return uint16_t(sign);  // zero or double subnormal
  uint64_t sig = frac | (uint64_t{1} << 52);
  return uint16_t(sign | detail::round_to_format(int(exp) - 1023, sig, 52, 7, -126, 127));
}

// ---- bulk converters (half.cpp; SIMD where available) --------------------
// Bit-identical to the scalar functions above.

void half_to_float_n(const uint16_t* src, float* dst, int64_t n);
void float_to_half_n(const float* src, uint16_t* dst, int64_t n);
void bf16_to_float_n(const uint16_t* src, float* dst, int64_t n);
void float_to_bf16_n(const float* src, uint16_t* dst, int64_t n);

// ---- storage types ---------------------------------------------------------
// Integer constructors go through double: exact for every integer type into
// float16 (anything >= 65520 is Inf either way), and for |v| < 2^53 into
// bfloat16; larger 64-bit integers may be rounded twice.

struct float16 {
  uint16_t bits = 0;

  float16() = default;
  LIBOPS_HOST_DEVICE explicit float16(float f) : bits(float_to_half_bits(f)) {}
  LIBOPS_HOST_DEVICE explicit float16(double d) : bits(float_to_half_bits(d)) {}
  template <std::integral T>
  LIBOPS_HOST_DEVICE explicit float16(T v) : bits(float_to_half_bits(static_cast<double>(v))) {}

  LIBOPS_HOST_DEVICE static constexpr float16 from_bits(uint16_t b) {
    float16 h;
    h.bits = b;
    return h;
  }

  LIBOPS_HOST_DEVICE explicit operator float() const { return half_bits_to_float(bits); }
  LIBOPS_HOST_DEVICE explicit operator double() const { return half_bits_to_float(bits); }

  // Sign flip only, as IEEE negate: works on NaN and zero too.
  LIBOPS_HOST_DEVICE float16 operator-() const { return from_bits(uint16_t(bits ^ 0x8000u)); }

  // IEEE semantics (NaN unordered, -0 == +0) by comparing as float.
  LIBOPS_HOST_DEVICE friend bool operator==(float16 a, float16 b) { return float(a) == float(b); }
  LIBOPS_HOST_DEVICE friend bool operator!=(float16 a, float16 b) { return float(a) != float(b); }
  LIBOPS_HOST_DEVICE friend bool operator<(float16 a, float16 b) { return float(a) < float(b); }
  LIBOPS_HOST_DEVICE friend bool operator<=(float16 a, float16 b) { return float(a) <= float(b); }
  LIBOPS_HOST_DEVICE friend bool operator>(float16 a, float16 b) { return float(a) > float(b); }
  LIBOPS_HOST_DEVICE friend bool operator>=(float16 a, float16 b) { return float(a) >= float(b); }
};

struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  LIBOPS_HOST_DEVICE explicit bfloat16(float f) : bits(float_to_bf16_bits(f)) {}
  LIBOPS_HOST_DEVICE explicit bfloat16(double d) : bits(float_to_bf16_bits(d)) {}
  template <std::integral T>
  LIBOPS_HOST_DEVICE explicit bfloat16(T v) : bits(float_to_bf16_bits(static_cast<double>(v))) {}

  LIBOPS_HOST_DEVICE static constexpr bfloat16 from_bits(uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }

  LIBOPS_HOST_DEVICE explicit operator float() const { return bf16_bits_to_float(bits); }
  LIBOPS_HOST_DEVICE explicit operator double() const { return bf16_bits_to_float(bits); }

  LIBOPS_HOST_DEVICE bfloat16 operator-() const { return from_bits(uint16_t(bits ^ 0x8000u)); }

  LIBOPS_HOST_DEVICE friend bool operator==(bfloat16 a, bfloat16 b) { return float(a) == float(b); }
  LIBOPS_HOST_DEVICE friend bool operator!=(bfloat16 a, bfloat16 b) { return float(a) != float(b); }
  LIBOPS_HOST_DEVICE friend bool operator<(bfloat16 a, bfloat16 b) { return float(a) < float(b); }
  LIBOPS_HOST_DEVICE friend bool operator<=(bfloat16 a, bfloat16 b) { return float(a) <= float(b); }
  LIBOPS_HOST_DEVICE friend bool operator>(bfloat16 a, bfloat16 b) { return float(a) > float(b); }
  LIBOPS_HOST_DEVICE friend bool operator>=(bfloat16 a, bfloat16 b) { return float(a) >= float(b); }
};

// Tensors hold these in raw buffers and memcpy them around.
static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2);
static_assert(std::is_trivially_copyable_v<float16> && std::is_trivially_copyable_v<bfloat16>);
static_assert(std::is_standard_layout_v<float16> && std::is_standard_layout_v<bfloat16>);

}  // namespace libops

LIBOPS_API_END

#endif  // LIBOPS_CORE_HALF_H
