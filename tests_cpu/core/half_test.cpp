#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "libops/core/half.h"

namespace libops {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

bool is_half_nan(uint16_t h) { return (h & 0x7fff) > 0x7c00; }
bool is_bf16_nan(uint16_t b) { return (b & 0x7fff) > 0x7f80; }

// Value of a half from its fields, computed independently of half.h.
double half_reference(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int frac = h & 0x3ff;
  double mag = exp == 0 ? std::ldexp(frac, -24) : std::ldexp(1024 + frac, exp - 25);
  if (exp == 0x1f) mag = frac ? NAN : INFINITY;
  return (h & 0x8000) ? -mag : mag;
}

TEST(HalfTest, AllHalfPatternsDecodeAndRoundTrip) {
  for (uint32_t i = 0; i < 65536; ++i) {
    uint16_t h = uint16_t(i);
    float f = half_bits_to_float(h);
    uint16_t back = float_to_half_bits(f);
    if (is_half_nan(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << i;
      ASSERT_EQ(std::signbit(f), bool(h & 0x8000)) << std::hex << i;
      // Quieted, payload kept.
      ASSERT_EQ(back, h | 0x0200) << std::hex << i;
    } else {
      ASSERT_EQ(double(f), half_reference(h)) << std::hex << i;
      ASSERT_EQ(std::signbit(f), bool(h & 0x8000)) << std::hex << i;
      ASSERT_EQ(back, h) << std::hex << i;
      ASSERT_EQ(float_to_half_bits(double(f)), h) << std::hex << i;
    }
  }
}

TEST(HalfTest, AllBf16PatternsRoundTrip) {
  for (uint32_t i = 0; i < 65536; ++i) {
    uint16_t b = uint16_t(i);
    float f = bf16_bits_to_float(b);
    uint16_t back = float_to_bf16_bits(f);
    if (is_bf16_nan(b)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << i;
      ASSERT_EQ(back, b | 0x0040) << std::hex << i;
    } else {
      ASSERT_EQ(bits_of(f), i << 16) << std::hex << i;  // bf16 is the top half of a float
      ASSERT_EQ(back, b) << std::hex << i;
      ASSERT_EQ(float_to_bf16_bits(double(f)), b) << std::hex << i;
    }
  }
}

TEST(HalfTest, FloatToHalfCases) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7BFF);  // largest finite half
  // 65520 is exactly halfway between 65504 (0x7BFF, odd) and 65536, which
  // would be 0x7C00; ties-to-even takes the even one, i.e. Inf.
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7C00);
  EXPECT_EQ(float_to_half_bits(65519.99f), 0x7BFF);
  EXPECT_EQ(float_to_half_bits(1e6f), 0x7C00);
  EXPECT_EQ(float_to_half_bits(-1e6f), 0xFC00);
  EXPECT_EQ(float_to_half_bits(INFINITY), 0x7C00);
  EXPECT_EQ(float_to_half_bits(-INFINITY), 0xFC00);

  // Subnormals: the smallest is 2^-24. 2^-25 is half of it, a tie between
  // 0 (even) and 0x0001, so it goes to 0; 3*2^-26 is 0.75 of it, rounds up.
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(float_to_half_bits(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(float_to_half_bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  // 3*2^-25 = 1.5 * 2^-24: tie between 0x0001 (odd) and 0x0002 -> 0x0002.
  EXPECT_EQ(float_to_half_bits(std::ldexp(3.0f, -25)), 0x0002);
  // Largest subnormal rounding up into the smallest normal (2^-14).
  EXPECT_EQ(float_to_half_bits(std::ldexp(2047.0f, -25)), 0x0400);
  EXPECT_EQ(float_to_half_bits(FLT_MIN), 0x0000);       // float normal, far too small
  EXPECT_EQ(float_to_half_bits(-float_of(1)), 0x8000);  // float subnormal keeps sign

  // Normal-range ties. Near 1.0 a half step is 2^-10, so the halfway points
  // are odd multiples of 2^-11.
  // 1 + 2^-11: between 0x3C00 (1.0, even) and 0x3C01 -> down to 0x3C00.
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3*2^-11: between 0x3C01 (odd) and 0x3C02 (even) -> up to 0x3C02.
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(3.0f, -11)), 0x3C02);
  // Just off a tie goes to the nearer side.
  EXPECT_EQ(float_to_half_bits(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3C01);
  // Rounding carries into the exponent: 2 - 2^-12 is above the tie between
  // 0x3FFF and 2.0 (0x4000).
  EXPECT_EQ(float_to_half_bits(2.0f - std::ldexp(1.0f, -12)), 0x4000);

  EXPECT_EQ(float_to_half_bits(0.0f), 0x0000);
  EXPECT_EQ(float_to_half_bits(-0.0f), 0x8000);

  EXPECT_TRUE(is_half_nan(float_to_half_bits(NAN)));
  EXPECT_EQ(float_to_half_bits(-NAN) & 0x8000, 0x8000);
  // Signalling NaN with the payload only in bits that half drops: still NaN.
  EXPECT_TRUE(is_half_nan(float_to_half_bits(float_of(0x7F800001))));
  EXPECT_EQ(float_to_half_bits(float_of(0xFF800001)), 0xFE00);
}

TEST(HalfTest, FloatToBf16Cases) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16_bits(-1.0f), 0xBF80);
  // Ties: 0x3F80|8000 sits between 0x3F80 (even) and 0x3F81 -> 0x3F80;
  // 0x3F81|8000 sits between 0x3F81 (odd) and 0x3F82 -> 0x3F82.
  EXPECT_EQ(float_to_bf16_bits(float_of(0x3F808000)), 0x3F80);
  EXPECT_EQ(float_to_bf16_bits(float_of(0x3F818000)), 0x3F82);
  EXPECT_EQ(float_to_bf16_bits(float_of(0x3F808001)), 0x3F81);
  EXPECT_EQ(float_to_bf16_bits(float_of(0x3F807FFF)), 0x3F80);
  // NaN payload only in the low 16 bits: truncation would give Inf.
  EXPECT_TRUE(is_bf16_nan(float_to_bf16_bits(float_of(0x7F800001))));
  EXPECT_TRUE(is_bf16_nan(float_to_bf16_bits(float_of(0x7F80FFFF))));
  EXPECT_EQ(float_to_bf16_bits(float_of(0xFF800001)), 0xFFC0);
  EXPECT_TRUE(is_bf16_nan(float_to_bf16_bits(NAN)));
  // FLT_MAX = 0x7F7FFFFF: the dropped 0xFFFF is over half, and rounding up
  // past 0x7F7F is 0x7F80, Inf.
  EXPECT_EQ(float_to_bf16_bits(FLT_MAX), 0x7F80);
  EXPECT_EQ(float_to_bf16_bits(-FLT_MAX), 0xFF80);
  EXPECT_EQ(float_to_bf16_bits(float_of(0x7F7F7FFF)), 0x7F7F);
  EXPECT_EQ(float_to_bf16_bits(INFINITY), 0x7F80);
  EXPECT_EQ(float_to_bf16_bits(-0.0f), 0x8000);
  // Subnormal ties behave the same way.
  EXPECT_EQ(float_to_bf16_bits(float_of(0x00008000)), 0x0000);
  EXPECT_EQ(float_to_bf16_bits(float_of(0x00018000)), 0x0002);
  EXPECT_EQ(float_to_bf16_bits(float_of(0x007FFFFF)), 0x0080);  // up to FLT_MIN
}

TEST(HalfTest, DoubleInputRoundsOnce) {
  // 1 + 2^-11 is a half tie (rounds to 0x3C00); the double sits 2^-40 above
  // it. Via float the 2^-40 is lost (float ulp at 1 is 2^-23), the tie
  // rounds to even and gives 0x3C00; the right answer is 0x3C01.
  double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(float_to_half_bits(float(d)), 0x3C00);  // the double rounding
  EXPECT_EQ(float_to_half_bits(d), 0x3C01);
  EXPECT_EQ(float_to_half_bits(-d), 0xBC01);
  EXPECT_EQ(float16(d).bits, 0x3C01);
  // Just below the tie from the other side: 1 + 3*2^-11 - 2^-40 -> 0x3C01.
  EXPECT_EQ(float_to_half_bits(1.0 + std::ldexp(3.0, -11) - std::ldexp(1.0, -40)), 0x3C01);
  // Just below 65520 is finite, and a double subnormal is zero.
  EXPECT_EQ(float_to_half_bits(std::nextafter(65520.0, 0.0)), 0x7BFF);
  EXPECT_EQ(float_to_half_bits(65520.0), 0x7C00);
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0, -25) * (1 + std::ldexp(1.0, -50))), 0x0001);
  EXPECT_EQ(float_to_half_bits(-std::numeric_limits<double>::denorm_min()), 0x8000);
  EXPECT_EQ(float_to_half_bits(1e300), 0x7C00);
  EXPECT_TRUE(is_half_nan(float_to_half_bits(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_TRUE(is_half_nan(float_to_half_bits(-std::numeric_limits<double>::signaling_NaN())));

  // bf16: 1 + 2^-8 is a tie (bf16 ulp at 1 is 2^-7); 2^-40 above it.
  double e = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(float_to_bf16_bits(float(e)), 0x3F80);
  EXPECT_EQ(float_to_bf16_bits(e), 0x3F81);
  EXPECT_EQ(bfloat16(e).bits, 0x3F81);
  EXPECT_EQ(float_to_bf16_bits(double(FLT_MAX)), 0x7F80);
  EXPECT_EQ(float_to_bf16_bits(1e300), 0x7F80);
  EXPECT_TRUE(is_bf16_nan(float_to_bf16_bits(std::numeric_limits<double>::quiet_NaN())));
}

// For each pair of adjacent positive finite halves, the exact midpoint goes
// to the even one and its double neighbours go to the nearer side.
TEST(HalfTest, DoubleMidpointsOfAllHalves) {
  for (uint16_t lo = 0; lo < 0x7C00; ++lo) {
    uint16_t hi = uint16_t(lo + 1);  // 0x7C00 stands for 65536 at the top
    double a = half_reference(lo);
    double b = lo == 0x7BFF ? 65536.0 : half_reference(hi);
    double mid = (a + b) / 2;  // exact: 12 significant bits at most
    uint16_t even = (lo & 1) ? hi : lo;
    ASSERT_EQ(float_to_half_bits(mid), even) << std::hex << lo;
    ASSERT_EQ(float_to_half_bits(float(mid)), even) << std::hex << lo;
    ASSERT_EQ(float_to_half_bits(std::nextafter(mid, 0.0)), lo) << std::hex << lo;
    ASSERT_EQ(float_to_half_bits(std::nextafter(mid, 1e9)), hi) << std::hex << lo;
    ASSERT_EQ(float_to_half_bits(-std::nextafter(mid, 1e9)), hi | 0x8000) << std::hex << lo;
  }
}

TEST(HalfTest, DoubleMidpointsOfAllBf16) {
  for (uint16_t lo = 0; lo < 0x7F80; ++lo) {
    uint16_t hi = uint16_t(lo + 1);
    double a = bf16_bits_to_float(lo);
    double b = lo == 0x7F7F ? std::ldexp(1.0, 128) : double(bf16_bits_to_float(hi));
    double mid = (a + b) / 2;
    uint16_t even = (lo & 1) ? hi : lo;
    ASSERT_EQ(float_to_bf16_bits(mid), even) << std::hex << lo;
    ASSERT_EQ(float_to_bf16_bits(std::nextafter(mid, 0.0)), lo) << std::hex << lo;
    ASSERT_EQ(float_to_bf16_bits(std::nextafter(mid, 1e300)), hi) << std::hex << lo;
    if (lo != 0x7F7F) {  // that midpoint is above FLT_MAX, no float for it
      ASSERT_EQ(float_to_bf16_bits(float(mid)), even) << std::hex << lo;
    }
  }
}

#if defined(__FLT16_MAX__)
// Cross-check against the compiler's own _Float16 conversions where it has
// them (GCC/Clang on x86-64): a sample of all float bit patterns and of
// random doubles.
TEST(HalfTest, MatchesCompilerFloat16) {
  for (uint64_t u = 0; u < (1ull << 32); u += 65521) {
    float f = float_of(uint32_t(u));
    if (std::isnan(f)) continue;
    _Float16 r = static_cast<_Float16>(f);
    uint16_t rb;
    std::memcpy(&rb, &r, 2);
    ASSERT_EQ(float_to_half_bits(f), rb) << std::hex << u;
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    // Doubles around the half range, with random low bits.
    double d = std::ldexp(double(rng() >> 11) / double(1ull << 53) + 1.0, int(rng() % 48) - 30);
    if (rng() & 1) d = -d;
    _Float16 r = static_cast<_Float16>(d);
    uint16_t rb;
    std::memcpy(&rb, &r, 2);
    ASSERT_EQ(float_to_half_bits(d), rb) << d;
  }
}
#endif

// Bit patterns that exercise specials, boundaries and random values.
std::vector<float> sample_floats() {
  std::vector<float> v;
  const uint32_t specials[] = {
      0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF,
      0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF,
      0x3F800000, 0x3F801000, 0x3F803000, 0x477FE000, 0x477FF000, 0x477FEFFF, 0x33000000,
      0x33000001, 0x33400000, 0x38800000, 0x387FC000, 0x3F808000, 0x3F818000, 0x0000FFFF};
  for (uint32_t s : specials) v.push_back(float_of(s));
  std::mt19937 rng(42);
  while (v.size() < 4000) {
    uint32_t u = rng();
    // Put half of them in the half range (float exponent field 0x66..0x8E,
    // 2^-25..2^15), a quarter of those exactly on a half tie.
    if (v.size() % 2) {
      u = (u & 0x80001FFF) | ((0x66 + rng() % 0x29) << 23) | (rng() & 0x7FE000);
      if (rng() % 4 == 0) u = (u & ~0x1FFFu) | 0x1000;
    }
    v.push_back(float_of(u));
  }
  v.resize(3997);  // not a multiple of 8
  return v;
}

TEST(HalfTest, BulkMatchesScalar) {
  std::vector<float> src = sample_floats();
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(7), int64_t(9), int64_t(src.size())}) {
    std::vector<uint16_t> h(n), b(n);
    float_to_half_n(src.data(), h.data(), n);
    float_to_bf16_n(src.data(), b.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(h[i], float_to_half_bits(src[i])) << std::hex << bits_of(src[i]);
      ASSERT_EQ(b[i], float_to_bf16_bits(src[i])) << std::hex << bits_of(src[i]);
    }
  }

  // All 16-bit patterns, offset by 3 so the SIMD blocks are unaligned.
  std::vector<uint16_t> all(65536 + 3);
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = uint16_t(i - 3);
  std::vector<float> out(all.size() - 3);
  half_to_float_n(all.data() + 3, out.data(), int64_t(out.size()) - 5);
  for (size_t i = 0; i + 5 < out.size(); ++i) {
    ASSERT_EQ(bits_of(out[i]), bits_of(half_bits_to_float(all[i + 3]))) << std::hex << i;
  }
  bf16_to_float_n(all.data() + 3, out.data(), int64_t(out.size()) - 5);
  for (size_t i = 0; i + 5 < out.size(); ++i) {
    ASSERT_EQ(bits_of(out[i]), bits_of(bf16_bits_to_float(all[i + 3]))) << std::hex << i;
  }
}

// Where the host has F16C, half_bits_to_float / float_to_half_bits use it;
// the portable code (device code, other hosts) must give the same bits:
// every half pattern, and every float of the half range at each rounding
// position (for each sign, exponent and top 10 fraction bits: ties, either
// side of them, and random low bits, which cover the subnormal-half ties),
// plus the sampled specials.
TEST(HalfTest, PortableMatchesTheHostConversions) {
  for (uint32_t h = 0; h < 65536; ++h)
    ASSERT_EQ(bits_of(detail::half_bits_to_float_portable(uint16_t(h))), bits_of(half_bits_to_float(uint16_t(h))))
        << std::hex << h;
  std::mt19937 rng(7);
  const uint32_t lows[] = {0, 1, 0x0FFF, 0x1000, 0x1001, 0x1FFF};
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t exp = 0x60; exp <= 0x90; ++exp)
      for (uint32_t top = 0; top < 1024; ++top) {
        const uint32_t base = sign | (exp << 23) | (top << 13);
        for (uint32_t low : lows) {
          const float f = float_of(base | low);
          ASSERT_EQ(detail::float_to_half_bits_portable(f), float_to_half_bits(f)) << std::hex << (base | low);
        }
        for (int r = 0; r < 4; ++r) {
          const float f = float_of(base | (rng() & 0x1FFF) | ((rng() & 0x3FF) << 13));
          ASSERT_EQ(detail::float_to_half_bits_portable(f), float_to_half_bits(f)) << std::hex << bits_of(f);
        }
      }
  for (float f : sample_floats())
    ASSERT_EQ(detail::float_to_half_bits_portable(f), float_to_half_bits(f)) << std::hex << bits_of(f);
}

TEST(HalfTest, StorageTypes) {
  EXPECT_EQ(float16().bits, 0);
  EXPECT_EQ(bfloat16().bits, 0);
  EXPECT_EQ(float16(1.0f).bits, 0x3C00);
  EXPECT_EQ(float16(1.0).bits, 0x3C00);
  EXPECT_EQ(float16(3).bits, 0x4200);
  EXPECT_EQ(float16(int64_t(-2)).bits, 0xC000);
  EXPECT_EQ(float16(100000u).bits, 0x7C00);
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3F80);
  EXPECT_EQ(bfloat16(257).bits, 0x4380);  // 257 is a tie between 256 and 258 -> 256
  EXPECT_EQ(bfloat16(259).bits, 0x4382);  // 259: tie between 258 (odd) and 260 -> 260

  constexpr float16 one = float16::from_bits(0x3C00);
  static_assert(one.bits == 0x3C00);
  EXPECT_EQ(static_cast<float>(one), 1.0f);
  EXPECT_EQ(static_cast<double>(float16::from_bits(0x0001)), std::ldexp(1.0, -24));
  EXPECT_EQ(static_cast<float>(bfloat16::from_bits(0xC000)), -2.0f);

  EXPECT_EQ((-one).bits, 0xBC00);
  EXPECT_EQ((-float16()).bits, 0x8000);
  EXPECT_EQ((-bfloat16(1.0f)).bits, 0xBF80);

  float16 two(2.0f), nan = float16::from_bits(0x7E00), zero, neg_zero(-0.0f);
  EXPECT_TRUE(one < two && one <= two && two > one && two >= one && one != two);
  EXPECT_TRUE(one == float16(1.0));
  EXPECT_TRUE(zero == neg_zero);  // IEEE: -0 == +0
  EXPECT_FALSE(nan == nan);
  EXPECT_TRUE(nan != nan);
  EXPECT_FALSE(nan < one || nan <= one || nan > one || nan >= one);

  bfloat16 bnan = bfloat16::from_bits(0x7FC0), bone(1.0f);
  EXPECT_FALSE(bnan == bnan);
  EXPECT_TRUE(bone < bfloat16(1.5f) && bfloat16(-0.0f) == bfloat16());
  EXPECT_TRUE(std::isnan(static_cast<float>(bnan)));
}

}  // namespace
}  // namespace libops
