// exp_f32 (core/fast_math.h) against the double-precision std::exp, which
// is accurate far beyond float, so its value rounded to float is the
// correctly rounded result: a sweep of float bit patterns, the special values
// and the subnormal range, and the legacy exp op, whose float32 path is
// exp_f32 inside a vectorized loop; and the float32 sigmoid built on it.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

#include "libops/core/fast_math.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/nn/gelu_math.h"
#include "test_util.h"

namespace libops {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// exp_f32 as the kernels compile it at the current cpu_isa() (with fused
// multiply-adds from AVX2 up: Note [Runtime ISA dispatch]). The suite runs
// at every level the machine has, so each form is checked.
float exp_at_isa(float x) {
  return isa_dispatch([x] { return exp_f32(x); });
}

// |got - exact| in units of the float spacing at `exact` (2^-149 in the
// subnormal range), so a correctly rounded result is within 0.5.
double ulp_error(float got, double exact) {
  const double mag = std::fabs(exact);
  int e = 0;
  std::frexp(mag, &e);  // mag = f 2^e, f in [0.5, 1)
  const double ulp = mag < double(FLT_MIN) ? std::ldexp(1.0, -149) : std::ldexp(1.0, e - 24);
  return std::fabs(double(got) - exact) / ulp;
}

struct SweepResult {
  double max_ulp = 0;
  float worst_x = 0;
  int64_t checked = 0, bad_special = 0;
};

// Every `step`-th bit pattern of [first, last]: finite results within the
// ulp bound, results that round to 0 or overflow equal to the rounded
// reference, NaN for NaN.
void sweep(uint32_t first, uint32_t last, uint32_t step, SweepResult& r) {
  for (uint64_t b = first; b <= last; b += step) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(b));
    const float got = exp_at_isa(x);
    ++r.checked;
    if (std::isnan(x)) {
      r.bad_special += !std::isnan(got);
      continue;
    }
    const double exact = std::exp(double(x));
    const float rounded = static_cast<float>(exact);
    if (std::isinf(rounded) || std::isinf(got)) {
      r.bad_special += got != rounded;
      continue;
    }
    const double err = ulp_error(got, exact);
    if (err > r.max_ulp) {
      r.max_ulp = err;
      r.worst_x = x;
    }
  }
}

// |x| in [2^-26, 104] holds every result that is neither 1 nor 0 nor inf;
// an odd step varies the low mantissa bits. ~4M values; the max over
// every float is 1.02 ulp.
// The largest ulp error of f against `exact` (in double) over every 509th
// positive float below +inf, and where; with `odd`, also the first x where
// f(-x) is not -f(x) bit for bit (0 if none).
struct PositiveSweep {
  double max_ulp = 0;
  float worst = 0, not_odd = 0;
};
template <typename F, typename Exact>
PositiveSweep sweep_positive_floats(F f, Exact exact, bool odd) {
  PositiveSweep s;
  for (uint64_t b = 1; b < std::bit_cast<uint32_t>(kInf); b += 509) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(b));
    const double err = ulp_error(f(x), exact(double(x)));
    if (err > s.max_ulp) s.max_ulp = err, s.worst = x;
    if (odd && s.not_odd == 0 && std::bit_cast<uint32_t>(f(-x)) != std::bit_cast<uint32_t>(-f(x))) s.not_odd = x;
  }
  return s;
}

TEST(FastMathTest, ExpWithinTwoUlpOnSweep) {
  SweepResult r;
  const uint32_t lo = std::bit_cast<uint32_t>(0x1p-26f), hi = std::bit_cast<uint32_t>(104.0f);
  sweep(lo, hi, 127, r);
  sweep(lo | 0x80000000u, hi | 0x80000000u, 127, r);
  RecordProperty("max_ulp", std::to_string(r.max_ulp));
  EXPECT_LE(r.max_ulp, 2.0) << "worst at x = " << r.worst_x;
  EXPECT_GT(r.max_ulp, 0.0);  // the sweep ran and compared
  EXPECT_EQ(r.bad_special, 0);
  EXPECT_GT(r.checked, 4000000);
}

// The whole bit space, coarsely: tiny |x| (result 1), overflow to inf,
// underflow to 0, and NaN patterns of both signs.
TEST(FastMathTest, ExpWholeRangeCoarse) {
  SweepResult r;
  sweep(0, 0xffffffffu, 65521, r);
  sweep(0x7f800001u, 0x7fffffffu, 4099, r);  // positive NaNs
  sweep(0xff800001u, 0xffffffffu, 4099, r);  // negative NaNs
  EXPECT_LE(r.max_ulp, 2.0) << "worst at x = " << r.worst_x;
  EXPECT_EQ(r.bad_special, 0);
}

// exp_f32_sum(hi, lo) = e^(hi + lo) with hi + lo taken exactly (in
// double), within 2.4 ulp (the product e^hi e^lo of two exp_f32 reaches
// 3.6 on this sample), where exp_f32(hi + lo) would lose the rounding of the sum
// (up to 98 * 2^-24 relative at hi = -98, some 200 ulp). hi from
// -100 to 86, lo up to 2 either way (results below FLT_MAX), including the gelu tail's case: hi
// = -y^2 / 2 and lo its rounding error.
TEST(FastMathTest, ExpOfSumMatchesTheExactSum) {
  double worst = 0;
  float worst_hi = 0, worst_lo = 0;
  int checked = 0;
  uint32_t state = 12345;
  auto uniform = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / double(1 << 24);
  };
  for (int i = 0; i < 200000; ++i) {
    float hi, lo;
    if (i % 2 == 0) {
      hi = static_cast<float>(-100.0 + 186.0 * uniform());
      lo = static_cast<float>(-2.0 + 4.0 * uniform());
    } else {
      const float y = static_cast<float>(14.0 * uniform());
      const float y2 = y * y;
      hi = -0.5f * y2;
      lo = -0.5f * std::fma(y, y, -y2) + static_cast<float>(-1.0 + 1.5 * uniform());
    }
    const float got = isa_dispatch([hi, lo] { return exp_f32_sum(hi, lo); });
    const double exact = std::exp(double(hi) + double(lo));
    if (exact < double(FLT_MIN)) continue;  // the subnormal range is exp_f32's own test
    const double e = ulp_error(got, exact);
    if (e > worst) worst = e, worst_hi = hi, worst_lo = lo;
    ++checked;
  }
  EXPECT_LE(worst, 2.4) << "worst at hi = " << worst_hi << ", lo = " << worst_lo;
  EXPECT_GT(checked, 150000);
  EXPECT_TRUE(std::isnan(exp_f32_sum(std::nanf(""), 0.5f)));
  EXPECT_TRUE(std::isnan(exp_f32_sum(-3.0f, std::nanf(""))));
}

TEST(FastMathTest, ExpSpecialValues) {
  EXPECT_TRUE(std::isnan(exp_at_isa(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(exp_at_isa(-std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(exp_at_isa(kInf), kInf);
  EXPECT_EQ(exp_at_isa(-kInf), 0.0f);
  EXPECT_EQ(exp_at_isa(0.0f), 1.0f);
  EXPECT_EQ(exp_at_isa(-0.0f), 1.0f);
  EXPECT_EQ(exp_at_isa(1.0f), static_cast<float>(std::exp(1.0)));
  // The largest x with a finite result, and the next float up.
  const float x_max = 0x1.62e42ep6f;  // 88.7228317
  EXPECT_EQ(exp_at_isa(x_max), static_cast<float>(std::exp(double(x_max))));
  EXPECT_LT(exp_at_isa(x_max), kInf);
  EXPECT_EQ(exp_at_isa(std::nextafter(x_max, kInf)), kInf);
  EXPECT_EQ(exp_at_isa(89.0f), kInf);
  EXPECT_EQ(exp_at_isa(1e30f), kInf);
  EXPECT_EQ(exp_at_isa(FLT_MAX), kInf);
  EXPECT_EQ(exp_at_isa(-1e30f), 0.0f);
  EXPECT_EQ(exp_at_isa(-FLT_MAX), 0.0f);
}

// Results below FLT_MIN (x < -87.34) underflow gradually down to 2^-149
// (x ~ -103.97) instead of being flushed to 0.
TEST(FastMathTest, ExpSubnormalResults) {
  const float xs[] = {-87.3f, -87.33f, -87.34f, -87.5f, -88.0f, -90.0f, -95.5f, -100.0f,
                      -102.3f, -103.0f, -103.9f, -103.96f, -103.97f, -103.972f, -103.98f, -104.0f, -110.0f};
  for (float x : xs) {
    const double exact = std::exp(double(x));
    const float got = exp_at_isa(x);
    EXPECT_LE(ulp_error(got, exact), 1.0) << "x = " << x << " got " << got << " want " << exact;
    if (static_cast<float>(exact) > 0.0f) EXPECT_GT(got, 0.0f) << "x = " << x << " was flushed to 0";
    else EXPECT_EQ(got, 0.0f) << "x = " << x;
  }
  EXPECT_EQ(exp_at_isa(-87.5f), static_cast<float>(std::exp(-87.5)));
  EXPECT_EQ(exp_at_isa(-103.97f), std::bit_cast<float>(uint32_t{1}));  // 2^-149, the smallest subnormal
}

// The legacy exp op on float32 (the vectorized contiguous loop, and a
// strided view that takes the scalar loop) gives exactly exp_f32.
TEST(FastMathTest, LegacyExpFloat32IsExpF32) {
  const int64_t n = 4099;  // not a multiple of the vector width
  NDArray x = test::zeros(DataType::kFloat32, {n});
  float* xp = x.data_as<float>();
  for (int64_t i = 0; i < n; ++i) xp[i] = -105.0f + 195.0f * float(i) / float(n - 1) + 1e-3f * float(i % 7);
  xp[0] = std::numeric_limits<float>::quiet_NaN();
  xp[1] = -kInf;
  xp[2] = kInf;
  xp[3] = 0.0f;

  auto run_exp = [](const NDArray& in, NDArray& out) {
    legacy::LegacyCall c;
    c.group = OPS_TRANSFORM_STRICT;
    c.num = static_cast<int>(legacy::TransformStrictOp::exp);
    c.x = &in;
    c.z = &out;
    return legacy::exec(c);
  };
  NDArray z = test::zeros(DataType::kFloat32, {n});
  ASSERT_OK(run_exp(x, z));
  const float* zp = z.data_as<float>();
  EXPECT_TRUE(std::isnan(zp[0]));
  for (int64_t i = 1; i < n; ++i) ASSERT_EQ(zp[i], exp_at_isa(xp[i])) << "i = " << i << " x = " << xp[i];

  // Every other element, through a strided view.
  NDArray xs;
  ASSERT_OK(x.slice(0, 0, n, 2, xs));
  NDArray zs = test::zeros(DataType::kFloat32, {xs.dim(0)});
  ASSERT_OK(run_exp(xs, zs));
  for (int64_t i = 1; i < xs.dim(0); ++i) {
    const float got = zs.data_as<float>()[i], want = exp_at_isa(xp[2 * i]);
#if defined(__clang__)
    // Clang's flatten inlines one level only (CMakeLists.txt, sanitizer
    // builds): the strided loop may run the baseline code, whose unfused
    // multiply-adds round apart, one float away at most.
    ASSERT_TRUE(got == want || got == std::nextafter(want, got)) << "i = " << i << ": " << got << " vs " << want;
#else
    ASSERT_EQ(got, want) << "i = " << i;
#endif
  }
}

// A dense kernel (Note [Dense kernels]) gives its functor's bits at the
// same level: a sweep of float bit patterns (every 4099th, both signs, NaNs,
// infinities and subnormals), values at the kernels' switch points (exp's
// clamps and overflow, tanh's 0.625, -0), every length 0..19 at every start
// offset (the vector body and the tail), and in place. exp's kernel runs
// AVX2 intrinsics from the avx2 level up; sigmoid's and tanh's 16 lanes
// where the level is avx512. Also every third float of +-[86, 105], where
// exp's results are subnormal or 0 (Note [Subnormal exps without assists]:
// such lanes take their bits from integers), each vector mixing them with
// ordinary values.
template <typename Op>
void expect_dense_kernel_is_functor_bit_for_bit() {
  const ExtraParams e;
  std::vector<float> x;
  for (uint64_t u = 0; u <= 0xffffffffull; u += 4099) x.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  for (uint32_t u = std::bit_cast<uint32_t>(86.0f), k = 0; u <= std::bit_cast<uint32_t>(105.0f); u += 3, ++k) {
    const float v = std::bit_cast<float>(u);
    x.push_back(k % 2 ? v : -v);
    x.push_back(-v);
    if (k % 5 == 0) x.push_back(0.25f * static_cast<float>(k % 9) - 1.0f);
  }
  for (float v : {0.0f, -0.0f, kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), 100.0f, 100.5f, 101.0f, 88.72f,
                  -103.97f, -110.0f, -111.0f, 3.0e38f, -3.0e38f, 0.625f, -0.625f, std::nextafter(0.625f, 0.0f),
                  1e-30f, -1e-30f, 0x1p-140f, 9.0f, -9.0f, 50.0f, -104.0f})
    x.push_back(v);
  auto at_isa = [&](float v) { return isa_dispatch([&] { return Op::op(v, e); }); };
  // As the engine calls it: inside its copy for the current level, where
  // the per-element fallback is compiled for that level too.
  auto dense = [&](const float* in, float* out, int64_t n) { isa_dispatch([&] { DenseKernel<Op>::run(in, out, n, e); }); };
  auto same = [](float a, float b) {
    if (std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) || (a != a && b != b)) return true;
#if defined(__clang__)
    // Clang's flatten inlines one level only (CMakeLists.txt, sanitizer
    // builds): a helper left as a call runs its baseline copy, whose
    // unfused multiply-adds round apart. A few floats away at most (selu's
    // expm1 chains several); GCC's builds, which ship, match bit for bit.
    const int64_t ia = std::bit_cast<int32_t>(a), ib = std::bit_cast<int32_t>(b);
    return (ia < 0) == (ib < 0) && std::llabs(ia - ib) <= 4;
#else
    return false;
#endif
  };
  std::vector<float> z(x.size());
  dense(x.data(), z.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(same(z[i], at_isa(x[i]))) << "x = " << x[i] << ": " << z[i];
  for (int64_t start = 0; start < 8; ++start) {
    for (int64_t n = 0; n < 20; ++n) {
      std::vector<float> out(static_cast<size_t>(n + 1), -7.0f);
      dense(x.data() + 1000 + start, out.data(), n);
      for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(same(out[i], at_isa(x[1000 + start + i]))) << start << " " << n;
      EXPECT_EQ(out[static_cast<size_t>(n)], -7.0f) << "wrote past the end, n = " << n;
    }
  }
  std::vector<float> in_place(x.begin(), x.begin() + 1001);
  dense(in_place.data(), in_place.data(), 1001);
  for (size_t i = 0; i < in_place.size(); ++i) ASSERT_TRUE(same(in_place[i], at_isa(x[i]))) << i;
}

TEST(FastMathTest, DenseKernelIsExpF32BitForBit) {
  expect_dense_kernel_is_functor_bit_for_bit<legacy::fn::transform_strict::Exp<float>>();
}

// The float32 sigmoid (1 / (1 + t) or t / (1 + t), t = exp_f32(-|x|)) on a
// sweep against double: 2.3 ulp at most, as with the C library's expf (the
// division and 1 + t round too). Tails: sigmoid(-100) ~ 3.7e-44 is a
// subnormal, not 0; sigmoid(+-inf) = 1 / 0.
TEST(FastMathTest, Float32SigmoidOnSweep) {
  using legacy::fn::transform_strict::Sigmoid;
  const ExtraParams e;
  double max_ulp = 0;
  float worst = 0;
  const uint32_t lo = std::bit_cast<uint32_t>(0x1p-26f), hi = std::bit_cast<uint32_t>(104.0f);
  for (uint32_t sign : {0u, 0x80000000u}) {
    for (uint64_t b = lo; b <= hi; b += 1021) {
      const float x = std::bit_cast<float>(static_cast<uint32_t>(b) | sign);
      const double t = std::exp(-std::fabs(double(x)));
      const double exact = x >= 0 ? 1 / (1 + t) : t / (1 + t);
      const double err = ulp_error(Sigmoid<float>::op(x, e), exact);
      if (err > max_ulp) {
        max_ulp = err;
        worst = x;
      }
    }
  }
  EXPECT_LE(max_ulp, 3.0) << "worst at x = " << worst;
  EXPECT_GT(Sigmoid<float>::op(-100.0f, e), 0.0f);
  EXPECT_EQ(Sigmoid<float>::op(kInf, e), 1.0f);
  EXPECT_EQ(Sigmoid<float>::op(-kInf, e), 0.0f);
  EXPECT_EQ(Sigmoid<float>::op(0.0f, e), 0.5f);
  EXPECT_TRUE(std::isnan(Sigmoid<float>::op(std::numeric_limits<float>::quiet_NaN(), e)));
}

// expm1_f32 on a sweep of both signs from 2^-30 (where e^x - 1 rounds to
// x) to the overflow, against double: within 1.5 ulp, in the polynomial's
// range and past it. Limits: -1 at -inf and far below, +inf at +inf and
// past 88.72, NaN, and -0 / +0 kept.
TEST(FastMathTest, Expm1F32OnSweep) {
  double max_ulp = 0;
  float worst = 0;
  const uint32_t lo = std::bit_cast<uint32_t>(0x1p-30f), hi = std::bit_cast<uint32_t>(88.0f);
  for (uint32_t sign : {0u, 0x80000000u}) {
    for (uint64_t b = lo; b <= hi; b += 517) {
      const float x = std::bit_cast<float>(static_cast<uint32_t>(b) | sign);
      const double err = ulp_error(expm1_f32(x), std::expm1(double(x)));
      if (err > max_ulp) {
        max_ulp = err;
        worst = x;
      }
    }
  }
  EXPECT_LE(max_ulp, 1.5) << "worst at x = " << worst;
  EXPECT_EQ(expm1_f32(-kInf), -1.0f);
  EXPECT_EQ(expm1_f32(88.8f), kInf);
  EXPECT_LT(expm1_f32(88.72f), kInf);
  EXPECT_EQ(expm1_f32(-200.0f), -1.0f);
  EXPECT_EQ(expm1_f32(kInf), kInf);
  EXPECT_TRUE(std::isnan(expm1_f32(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::signbit(expm1_f32(-0.0f)) && expm1_f32(-0.0f) == 0.0f);
  EXPECT_FALSE(std::signbit(expm1_f32(0.0f)));
  EXPECT_EQ(expm1_f32(0x1p-30f), 0x1p-30f);
}

// log_f32 over positive floats, subnormals included (every 509th bit
// pattern), against double: within 1 ulp (Note [Vectorizable log]); and its
// special values. log1p_f32 over both signs from 2^-30 (where it returns x)
// to 1e30, and down to -1: within 2.5 ulp.
TEST(FastMathTest, LogF32OnSweep) {
  const PositiveSweep s = sweep_positive_floats([](float x) { return log_f32(x); },
                                                [](double x) { return std::log(x); }, false);
  EXPECT_LE(s.max_ulp, 1.0) << "worst at x = " << s.worst;
  EXPECT_EQ(log_f32(1.0f), 0.0f);
  EXPECT_EQ(log_f32(0.0f), -kInf);
  EXPECT_EQ(log_f32(-0.0f), -kInf);
  EXPECT_EQ(log_f32(kInf), kInf);
  EXPECT_TRUE(std::isnan(log_f32(-1.0f)));
  EXPECT_TRUE(std::isnan(log_f32(-kInf)));
  EXPECT_TRUE(std::isnan(log_f32(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_NEAR(log_f32(std::numeric_limits<float>::denorm_min()), std::log(double(std::numeric_limits<float>::denorm_min())), 1e-5);
}

TEST(FastMathTest, Log1pF32OnSweep) {
  double max_ulp = 0;
  float worst = 0;
  auto check = [&](float x) {
    const double err = ulp_error(log1p_f32(x), std::log1p(double(x)));
    if (err > max_ulp) max_ulp = err, worst = x;
  };
  const uint32_t lo = std::bit_cast<uint32_t>(0x1p-30f);
  for (uint64_t b = lo; b <= std::bit_cast<uint32_t>(1e30f); b += 509) check(std::bit_cast<float>(static_cast<uint32_t>(b)));
  for (uint64_t b = lo; b < std::bit_cast<uint32_t>(1.0f); b += 509)
    check(-std::bit_cast<float>(static_cast<uint32_t>(b)));
  EXPECT_LE(max_ulp, 2.5) << "worst at x = " << worst;
  EXPECT_EQ(log1p_f32(0x1p-30f), 0x1p-30f);
  EXPECT_TRUE(std::signbit(log1p_f32(-0.0f)));
  EXPECT_EQ(log1p_f32(-1.0f), -kInf);
  EXPECT_EQ(log1p_f32(kInf), kInf);
  EXPECT_TRUE(std::isnan(log1p_f32(-2.0f)));
  EXPECT_TRUE(std::isnan(log1p_f32(std::numeric_limits<float>::quiet_NaN())));
}

TEST(FastMathTest, ErfF32OnSweep) {
  // The tiny floats (erf(x) = 2x / sqrt(pi) to the last bit), both sides
  // of the switch at 0.875, and the flat top where erf rounds to 1.
  const PositiveSweep s = sweep_positive_floats([](float x) { return erf_f32(x); },
                                                [](double x) { return std::erf(x); }, true);
  EXPECT_LE(s.max_ulp, 1.5) << "worst at x = " << s.worst;
  EXPECT_EQ(s.not_odd, 0.0f) << "erf(-x) != -erf(x) at x = " << s.not_odd;
  EXPECT_EQ(erf_f32(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(erf_f32(-0.0f)));
  EXPECT_EQ(erf_f32(kInf), 1.0f);
  EXPECT_EQ(erf_f32(-kInf), -1.0f);
  EXPECT_EQ(erf_f32(4.0f), 1.0f);
  EXPECT_TRUE(std::isnan(erf_f32(std::numeric_limits<float>::quiet_NaN())));
}

TEST(FastMathTest, AtanF32OnSweep) {
  // Each of the three reductions and the switches between them at
  // tan(pi / 8) and tan(3 pi / 8).
  const PositiveSweep s = sweep_positive_floats([](float x) { return atan_f32(x); },
                                                [](double x) { return std::atan(x); }, true);
  EXPECT_LE(s.max_ulp, 2.0) << "worst at x = " << s.worst;
  EXPECT_EQ(s.not_odd, 0.0f) << "atan(-x) != -atan(x) at x = " << s.not_odd;
  EXPECT_EQ(atan_f32(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(atan_f32(-0.0f)));
  EXPECT_EQ(atan_f32(1.0f), 0x1.921fb6p-1f);  // pi / 4 rounded
  EXPECT_EQ(atan_f32(kInf), 0x1.921fb6p+0f);  // pi / 2 rounded
  EXPECT_EQ(atan_f32(-kInf), -0x1.921fb6p+0f);
  EXPECT_TRUE(std::isnan(atan_f32(std::numeric_limits<float>::quiet_NaN())));
}

TEST(FastMathTest, SigmoidDenseKernelIsTheFunctorBitForBit) {
  expect_dense_kernel_is_functor_bit_for_bit<legacy::fn::transform_strict::Sigmoid<float>>();
}

TEST(FastMathTest, SeluDenseKernelIsTheFunctorBitForBit) {
  expect_dense_kernel_is_functor_bit_for_bit<legacy::fn::transform_strict::Selu<float>>();
}

TEST(FastMathTest, TanhDenseKernelIsTheFunctorBitForBit) {
  expect_dense_kernel_is_functor_bit_for_bit<legacy::fn::transform_strict::Tanh<float>>();
}

#if LIBOPS_HAVE_EXP_F32_X8
// The gelu op's 16-lane erf form gives gelu_erf_f32's bits at the avx512
// level (Note [Vectorized gelu]): a sweep of float bit patterns, both signs,
// and the switch points (|x| = 14, the tail's 0, -inf's -0, NaN).
TEST(FastMathTest, GeluErf16LanesIsTheScalarFormBitForBit) {
  if (cpu_isa() != CpuIsa::kAvx512) GTEST_SKIP() << "the 16-lane form runs where cpu_isa() is avx512";
  std::vector<float> x;
  for (uint64_t u = 0; u <= 0xffffffffull; u += 4099) x.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  for (float v : {0.0f, -0.0f, kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), 14.0f, -14.0f,
                  std::nextafter(14.0f, 0.0f), std::nextafter(-14.0f, 0.0f), 13.99f, -13.99f, -5.5f, -9.0f, 1e-30f,
                  -1e-30f, 0x1p-140f, 3.0e38f, -3.0e38f})
    x.push_back(v);
  auto same = [](float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) || (a != a && b != b); };
  auto want = [&](float v) { return isa_dispatch([&] { return ops::nn::gelu_erf_f32(v); }); };
  std::vector<float> z(x.size());
  ops::nn::gelu_erf_dense_x16(x.data(), z.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(same(z[i], want(x[i]))) << "x = " << x[i] << ": " << z[i];
  for (int64_t n = 0; n < 20; ++n) {  // the masked tail, and nothing written past n
    std::vector<float> out(static_cast<size_t>(n + 1), -7.0f);
    ops::nn::gelu_erf_dense_x16(x.data() + 1001, out.data(), n);
    for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(same(out[i], want(x[1001 + i]))) << n;
    EXPECT_EQ(out[static_cast<size_t>(n)], -7.0f) << "wrote past the end, n = " << n;
  }
}
#endif

}  // namespace
}  // namespace libops
