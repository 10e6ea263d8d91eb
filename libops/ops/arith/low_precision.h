// Types narrower than libops' dtypes, as ONNX defines them: the float8
// formats E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ and E8M0, the float4 E2M1, and the
// integers INT4, UINT4, INT2, UINT2. libops holds such a value one element a
// byte: the float formats as their bit patterns in uint8, UINT4 and UINT2 as
// their values in uint8, INT4 and INT2 as their values in int8. The op
// cast_low_precision (cast_low_precision.cpp) converts between them and
// libops' dtypes; these functions are its arithmetic, on the host and on
// devices alike.
//
// Note [Low-precision rounding]
//  As ONNX's Cast defines them (and its reference computes them):
//  - to a float8 format: round to nearest, ties to even. With saturate (the
//    default) a value beyond the largest, infinities included, becomes the
//    largest; without, it becomes NaN (E4M3FN, the FNUZ formats) or an
//    infinity (E5M2). NaN stays NaN; -0 is -0 except in the FNUZ formats,
//    which have no -0.
//  - to E8M0 (a power of two, 2^(e - 127)): from float32's exponent, rounded
//    up, down or to nearest by round_mode; NaN and infinities become NaN
//    (code 255); saturate keeps a rounding-up from passing the largest.
//  - to E2M1: nearest, ties to even, always saturating; NaN becomes -0 (the
//    format has no NaN; what ONNX's reference gives).
//  - to the integers: from a float, truncated toward zero, then wrapped to
//    the type's bits (two's complement), as an integer is; NaN, infinities
//    and values beyond int64 become 0.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "libops/core/host_device.h"

namespace libops::ops {

enum class LowPrecision : int {
  kNone = 0,  // a libops dtype
  kFloat8E4M3FN = 1,
  kFloat8E4M3FNUZ = 2,
  kFloat8E5M2 = 3,
  kFloat8E5M2FNUZ = 4,
  kFloat8E8M0 = 5,
  kFloat4E2M1 = 6,
  kInt4 = 7,
  kUInt4 = 8,
  kInt2 = 9,
  kUInt2 = 10,
};
inline constexpr int kNumLowPrecision = 11;

enum class RoundMode : int { kUp = 0, kDown = 1, kNearest = 2 };

LIBOPS_HOST_DEVICE inline bool lowp_is_float(LowPrecision f) {
  return f >= LowPrecision::kFloat8E4M3FN && f <= LowPrecision::kFloat4E2M1;
}
LIBOPS_HOST_DEVICE inline bool lowp_is_signed_int(LowPrecision f) {
  return f == LowPrecision::kInt4 || f == LowPrecision::kInt2;
}

// The layout of the sign-exponent-mantissa formats (not E8M0).
struct LowpFloatLayout {
  int mantissa_bits, bias, max_code;  // max_code: the largest finite positive code
  bool fnuz, has_inf;
  int bits;  // 8, or 4 for E2M1
};

LIBOPS_HOST_DEVICE inline LowpFloatLayout lowp_layout(LowPrecision f) {
  switch (f) {
    case LowPrecision::kFloat8E4M3FN: return {3, 7, 0x7E, false, false, 8};
    case LowPrecision::kFloat8E4M3FNUZ: return {3, 8, 0x7F, true, false, 8};
    case LowPrecision::kFloat8E5M2: return {2, 15, 0x7B, false, true, 8};
    case LowPrecision::kFloat8E5M2FNUZ: return {2, 16, 0x7F, true, false, 8};
    default: return {1, 1, 0x7, false, false, 4};  // E2M1
  }
}

// The value of positive code c (0 <= c <= max_code) of a float layout.
LIBOPS_HOST_DEVICE inline double lowp_positive(const LowpFloatLayout& l, int c) {
  const int m = c & ((1 << l.mantissa_bits) - 1), e = c >> l.mantissa_bits;
  const double frac = static_cast<double>(m) / static_cast<double>(1 << l.mantissa_bits);
  return e == 0 ? ldexp(frac, 1 - l.bias) : ldexp(1.0 + frac, e - l.bias);
}

// The value a stored element means. `stored`: the byte as held (codes for
// the float formats, values for the integers).
LIBOPS_HOST_DEVICE inline double lowp_decode(LowPrecision f, int32_t stored) {
  switch (f) {
    case LowPrecision::kInt4:
    case LowPrecision::kInt2:
    case LowPrecision::kUInt4:
    case LowPrecision::kUInt2: return static_cast<double>(stored);
    case LowPrecision::kFloat8E8M0: {
      const int c = stored & 0xFF;
      return c == 0xFF ? NAN : ldexp(1.0, c - 127);
    }
    default: break;
  }
  const LowpFloatLayout l = lowp_layout(f);
  const int code = stored & ((1 << l.bits) - 1);
  const int sign_bit = 1 << (l.bits - 1);
  if (l.fnuz && code == sign_bit) return NAN;
  const int c = code & (sign_bit - 1);
  const bool negative = (code & sign_bit) != 0;
  // NaNs keep their sign, as ONNX's and ml_dtypes' conversions do.
  if (f == LowPrecision::kFloat8E4M3FN && c == 0x7F) return negative ? -NAN : NAN;
  if (f == LowPrecision::kFloat8E5M2 && c > 0x7B)
    return c == 0x7C ? (negative ? -INFINITY : INFINITY) : (negative ? -NAN : NAN);
  const double v = lowp_positive(l, c);
  return negative ? -v : v;
}

// E8M0 from float32's bits (Note [Low-precision rounding]).
LIBOPS_HOST_DEVICE inline int32_t lowp_encode_e8m0(float x, bool saturate, RoundMode mode) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  uint32_t exponent = (bits >> 23) & 0xFF;
  if (exponent == 0xFF) return 0xFF;
  if (mode == RoundMode::kNearest) {
    const bool g = (bits & 0x400000) != 0, r = (bits & 0x200000) != 0, s = (bits & 0x1FFFFF) != 0;
    const bool lsb = exponent > 0;
    const bool up = g && (r || s || lsb);
    if (up && !(saturate && exponent == 0xFE)) ++exponent;
  } else if (mode == RoundMode::kUp) {
    const bool up = (bits & 0x7FFFFF) != 0;
    if (up && !(saturate && exponent == 0xFE)) ++exponent;
  }
  return static_cast<int32_t>(exponent & 0xFF);
}

LIBOPS_HOST_DEVICE inline bool lowp_sign(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return (bits >> 63) != 0;
}

// The stored element for value v (Note [Low-precision rounding]).
// `integer`: v came from an integer dtype, as the exact `iv`.
LIBOPS_HOST_DEVICE inline int32_t lowp_encode(LowPrecision f, double v, bool integer, int64_t iv, bool saturate,
                                              RoundMode mode) {
  if (f >= LowPrecision::kInt4) {
    int64_t i = iv;
    if (!integer) i = (v != v || fabs(v) >= 9.2233720368547758e18) ? 0 : static_cast<int64_t>(trunc(v));
    const int bits = f == LowPrecision::kInt4 || f == LowPrecision::kUInt4 ? 4 : 2;
    const int64_t mask = (int64_t{1} << bits) - 1;
    int64_t low = i & mask;
    if (lowp_is_signed_int(f) && low >= (int64_t{1} << (bits - 1))) low -= int64_t{1} << bits;
    return static_cast<int32_t>(low);
  }
  if (f == LowPrecision::kFloat8E8M0) return lowp_encode_e8m0(static_cast<float>(v), saturate, mode);
  const LowpFloatLayout l = lowp_layout(f);
  const int sign_bit = 1 << (l.bits - 1);
  const bool e2m1 = f == LowPrecision::kFloat4E2M1;
  if (v != v) {  // NaN
    if (e2m1) return sign_bit;
    if (l.fnuz) return 0x80;
    const int nan = f == LowPrecision::kFloat8E5M2 ? 0x7E : 0x7F;
    return lowp_sign(v) ? (nan | 0x80) : nan;
  }
  const bool negative = lowp_sign(v);
  const double a = fabs(v);
  auto with_sign = [&](int c) { return negative && !(l.fnuz && c == 0) ? (c | sign_bit) : c; };
  const double max = lowp_positive(l, l.max_code);
  const double next = max + (max - lowp_positive(l, l.max_code - 1));  // the value one step past the largest
  const double half = (max + next) / 2;
  const bool overflow = a > half || (a == half && (l.max_code & 1) != 0);  // a tie rounds to the even code
  if (overflow) {
    if (saturate || e2m1) return with_sign(l.max_code);
    if (l.has_inf) return with_sign(0x7C);
    return l.fnuz ? 0x80 : with_sign(0x7F);
  }
  // The largest code whose value is <= a, then to nearest, ties to even.
  int lo = 0, hi = l.max_code;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (lowp_positive(l, mid) <= a) lo = mid;
    else hi = mid - 1;
  }
  int c = lo;
  if (c < l.max_code) {
    const double below = lowp_positive(l, c), above = lowp_positive(l, c + 1);
    if (a - below > above - a || (a - below == above - a && (c & 1) != 0)) c = c + 1;
  }
  return with_sign(c);
}

// What cast_low_precision computes, element by element.
struct LowpCastDesc {
  LowPrecision from = LowPrecision::kNone, to = LowPrecision::kNone;
  bool saturate = true;
  RoundMode round_mode = RoundMode::kUp;
  bool integer_source = false;  // from is kNone and x's dtype is an integer (or bool)
};

}  // namespace libops::ops
