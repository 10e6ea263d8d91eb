// Tests for libops/random: Philox known answers, per-element determinism,
// and moment / goodness-of-fit checks for every distribution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <set>
#include <utility>
#include <vector>

#include "libops/random/distributions.h"
#include "libops/random/philox.h"

namespace libops::random {
namespace {

constexpr uint64_t kSeed = 0x5eed1234abcdULL;
constexpr int kSamples = 200000;

void expect_block(Uint4 got, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  EXPECT_EQ(got.v[0], a);
  EXPECT_EQ(got.v[1], b);
  EXPECT_EQ(got.v[2], c);
  EXPECT_EQ(got.v[3], d);
}

// Known-answer vectors from Random123's kat_vectors (philox4x32, 10 rounds).
TEST(Philox4x32, KnownAnswers) {
  expect_block(Philox4x32::round10(Uint4{{0, 0, 0, 0}}, Uint2{{0, 0}}),
               0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8);
  expect_block(Philox4x32::round10(
                   Uint4{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
                   Uint2{{0xffffffff, 0xffffffff}}),
               0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd);
  expect_block(Philox4x32::round10(
                   Uint4{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
                   Uint2{{0xa4093822, 0x299f31d0}}),
               0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1);
}

// The stream must be exactly Philox applied to the documented counter layout.
TEST(ElementStream, CounterLayout) {
  uint64_t seed = 0x0123456789abcdefULL;
  uint64_t index = 0xfedcba9876543210ULL;
  ElementStream s(seed, index);
  Uint2 key{{0x89abcdef, 0x01234567}};
  for (uint32_t j = 0; j < 3; ++j) {
    Uint4 block =
        Philox4x32::round10(Uint4{{0x76543210, 0xfedcba98, j, 0}}, key);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(s.next_u32(), block.v[w]);
  }
}

TEST(ElementStream, ConversionsUseDocumentedBits) {
  ElementStream words(kSeed, 7);
  ElementStream s(kSeed, 7);
  uint32_t w0 = words.next_u32();
  EXPECT_EQ(s.next_float01(), static_cast<float>(w0 >> 8) * 0x1.0p-24f);
  uint32_t w1 = words.next_u32();
  EXPECT_EQ(s.next_float_open01(),
            static_cast<float>((w1 >> 8) + 1) * 0x1.0p-24f);
  uint64_t hi = words.next_u32();
  uint64_t lo = words.next_u32();
  EXPECT_EQ(s.next_u64(), (hi << 32) | lo);  // crosses into block 1 next
  uint64_t d = words.next_u64();
  EXPECT_EQ(s.next_double01(), static_cast<double>(d >> 11) * 0x1.0p-53);
}

TEST(ElementStream, RangesOfUniforms) {
  for (uint64_t i = 0; i < 20000; ++i) {
    ElementStream s(kSeed, i);
    float f = s.next_float01();
    float fo = s.next_float_open01();
    double d = s.next_double01();
    double dopen = s.next_double_open01();
    ASSERT_TRUE(f >= 0.0f && f < 1.0f);
    ASSERT_TRUE(fo > 0.0f && fo <= 1.0f);
    ASSERT_TRUE(d >= 0.0 && d < 1.0);
    ASSERT_TRUE(dopen > 0.0 && dopen <= 1.0);
  }
}

TEST(ElementStream, Determinism) {
  // Same (seed, index) -> same words, whatever else was computed before.
  std::vector<uint64_t> forward, backward(1000);
  for (uint64_t i = 0; i < 1000; ++i) {
    ElementStream s(kSeed, i);
    forward.push_back(s.next_u64());
  }
  for (uint64_t i = 1000; i-- > 0;) {
    ElementStream s(kSeed, i);
    backward[i] = s.next_u64();
  }
  EXPECT_EQ(forward, backward);
  // Different indices (and seeds) -> different values.
  std::set<uint64_t> distinct(forward.begin(), forward.end());
  EXPECT_EQ(distinct.size(), forward.size());
  ElementStream other_seed(kSeed + 1, 0);
  EXPECT_NE(other_seed.next_u64(), forward[0]);
  // Indices that differ only in the high word must not collide.
  ElementStream low(kSeed, 5), high(kSeed, 5 + (uint64_t{1} << 32));
  EXPECT_NE(low.next_u64(), high.next_u64());
  // Distribution values are also per-element deterministic.
  for (uint64_t i = 0; i < 100; ++i) {
    ElementStream a(kSeed, i), b(kSeed, i);
    EXPECT_EQ(gamma<double>(a, 0.5, 1.0), gamma<double>(b, 0.5, 1.0));
    EXPECT_EQ(poisson<float>(a, 50.0f), poisson<float>(b, 50.0f));
  }
}

// The Stirling-based log pmf used by PTRS must match lgamma, including the
// small-k table and the switch to the asymptotic series at k = 10.
TEST(Distributions, PoissonLogPmfHelper) {
  for (double lambda : {30.0, 500.0}) {
    for (double k = 0; k <= 600; ++k) {
      double want = -lambda + k * std::log(lambda) - std::lgamma(k + 1);
      ASSERT_NEAR(detail::poisson_log_pmf(k, lambda), want,
                  1e-12 * (1 + std::fabs(want)))
          << "k = " << k << ", lambda = " << lambda;
    }
  }
}

struct Moments {
  double mean;
  double var;
  double m4;  // fourth central moment
};

template <typename Sampler>
Moments sample_moments(Sampler sampler, std::vector<double>* keep = nullptr) {
  std::vector<double> x(kSamples);
  for (int i = 0; i < kSamples; ++i) {
    ElementStream s(kSeed, static_cast<uint64_t>(i));
    x[i] = static_cast<double>(sampler(s));
  }
  double sum = 0;
  for (double v : x) sum += v;
  double mean = sum / kSamples;
  double s2 = 0, s4 = 0;
  for (double v : x) {
    double d = (v - mean) * (v - mean);
    s2 += d;
    s4 += d * d;
  }
  if (keep) *keep = std::move(x);
  return {mean, s2 / (kSamples - 1), s4 / kSamples};
}

// Checks sample mean and variance against the analytic values, each within
// 5 standard errors: SE(mean) = sqrt(var / n), SE(var) = sqrt((m4 - var^2) /
// n) with the fourth central moment m4 estimated from the sample.
void expect_moments(const Moments& m, double mean, double var) {
  double n = kSamples;
  double se_mean = std::sqrt(var / n);
  double se_var = std::sqrt(std::max(m.m4 - m.var * m.var, 0.0) / n);
  EXPECT_NEAR(m.mean, mean, 5 * se_mean) << "variance " << m.var;
  EXPECT_NEAR(m.var, var, 5 * se_var) << "mean " << m.mean;
}

// Pearson chi-square goodness of fit of integer samples against pmf(k).
// Cells are the values lo..hi around `mode` whose expected count is >= 20;
// the end cells also take the tails (<= lo, >= hi), so every cell expects
// >= 20 samples. The statistic has mean df and sd sqrt(2 df); we accept up
// to df + 5 sqrt(2 df), a ~5-sigma bound. This catches shape errors in the
// rejection samplers that leave the mean and variance nearly unchanged.
template <typename Pmf>
void expect_fits_pmf(const std::vector<double>& x, Pmf pmf, double mode) {
  double n = static_cast<double>(x.size());
  double lo = mode, hi = mode;
  while (lo > 0 && pmf(lo - 1) * n >= 20) --lo;
  while (pmf(hi + 1) * n >= 20) ++hi;
  std::vector<double> expected;
  double below = 0;  // P(X < lo)
  for (double k = 0; k < lo; ++k) below += pmf(k);
  double cumulative = below;  // P(X < k) inside the loop
  for (double k = lo; k < hi; ++k) {
    expected.push_back(pmf(k) * n);
    cumulative += pmf(k);
  }
  expected.front() += below * n;
  expected.push_back((1 - cumulative) * n);  // P(X >= hi)
  std::vector<double> counts(expected.size(), 0.0);
  for (double v : x) {
    double k = std::min(std::max(v, lo), hi);
    counts[static_cast<size_t>(k - lo)] += 1;
  }
  double chi2 = 0;
  for (size_t c = 0; c < counts.size(); ++c) {
    chi2 += (counts[c] - expected[c]) * (counts[c] - expected[c]) / expected[c];
  }
  double df = static_cast<double>(counts.size() - 1);
  EXPECT_LT(chi2, df + 5 * std::sqrt(2 * df)) << "df = " << df;
}

void expect_integers_in(const std::vector<double>& x, double lo, double hi) {
  for (double v : x) {
    ASSERT_EQ(v, std::floor(v));
    ASSERT_GE(v, lo);
    ASSERT_LE(v, hi);
  }
}

TEST(Distributions, Uniform) {
  // U(lo, hi): mean (lo + hi) / 2, variance (hi - lo)^2 / 12.
  std::vector<double> x;
  auto m = sample_moments(
      [](ElementStream& s) { return uniform<float>(s, -2.0f, 3.0f); }, &x);
  expect_moments(m, 0.5, 25.0 / 12);
  for (double v : x) ASSERT_TRUE(v >= -2.0 && v <= 3.0);
  m = sample_moments(
      [](ElementStream& s) { return uniform<double>(s, 10.0, 11.0); });
  expect_moments(m, 10.5, 1.0 / 12);
}

TEST(Distributions, Normal) {
  // N(mu, sigma): mean mu, variance sigma^2.
  auto m = sample_moments(
      [](ElementStream& s) { return normal<float>(s, 1.5f, 2.0f); });
  expect_moments(m, 1.5, 4.0);
  m = sample_moments(
      [](ElementStream& s) { return normal<double>(s, -3.0, 0.5); });
  expect_moments(m, -3.0, 0.25);
}

TEST(Distributions, Bernoulli) {
  // Bernoulli(p): values 0/1, mean p, variance p (1 - p).
  std::vector<double> x;
  auto m = sample_moments(
      [](ElementStream& s) { return bernoulli<float>(s, 0.3f); }, &x);
  expect_moments(m, 0.3, 0.21);
  expect_integers_in(x, 0, 1);
  ElementStream s(kSeed, 0);
  EXPECT_EQ(bernoulli<double>(s, 0.0), 0.0);
  EXPECT_EQ(bernoulli<double>(s, 1.0), 1.0);
}

// Binomial(n, p): integers in [0, n], mean n p, variance n p (1 - p). Each
// case exercises one code path.
void check_binomial(int64_t n, double p) {
  SCOPED_TRACE(testing::Message() << "n = " << n << ", p = " << p);
  std::vector<double> x;
  auto m = sample_moments(
      [n, p](ElementStream& s) { return binomial<double>(s, n, p); }, &x);
  expect_moments(m, n * p, n * p * (1 - p));
  expect_integers_in(x, 0, static_cast<double>(n));
  auto pmf = [n, p](double k) {
    return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1) -
                    std::lgamma(n - k + 1) + k * std::log(p) +
                    (n - k) * std::log1p(-p));
  };
  expect_fits_pmf(x, pmf, std::floor((n + 1) * p));
}

TEST(Distributions, Binomial) {
  check_binomial(20, 0.4);      // sum of Bernoullis
  check_binomial(1000, 0.004);  // inversion (n p = 4)
  check_binomial(1000, 0.3);    // BTRS
  check_binomial(500, 0.9);     // BTRS on 1 - p, mirrored
  ElementStream s(kSeed, 0);
  EXPECT_EQ(binomial<float>(s, 0, 0.5f), 0.0f);
  EXPECT_EQ(binomial<float>(s, 100, 1.0f), 100.0f);
  EXPECT_TRUE(std::isnan(binomial<float>(s, 10, 1.5f)));
  EXPECT_TRUE(std::isnan(binomial<float>(s, -1, 0.5f)));
}

TEST(Distributions, Exponential) {
  // Exp(lambda): mean 1 / lambda, variance 1 / lambda^2.
  std::vector<double> x;
  auto m = sample_moments(
      [](ElementStream& s) { return exponential<float>(s, 2.0f); }, &x);
  expect_moments(m, 0.5, 0.25);
  for (double v : x) ASSERT_GE(v, 0.0);
}

TEST(Distributions, LogNormal) {
  // exp(N(mu, s)): mean exp(mu + s^2 / 2), variance (e^{s^2} - 1) e^{2mu+s^2}.
  double mu = 0.5, sd = 0.5;
  auto m = sample_moments(
      [=](ElementStream& s) { return log_normal<double>(s, mu, sd); });
  expect_moments(m, std::exp(mu + sd * sd / 2),
                 (std::exp(sd * sd) - 1) * std::exp(2 * mu + sd * sd));
}

TEST(Distributions, TruncatedNormal) {
  // N(mu, sigma) truncated to mu +- 2 sigma: mean mu, variance
  // sigma^2 (1 - 2 * 2 phi(2) / (2 Phi(2) - 1)).
  double mu = 1.0, sd = 3.0;
  std::vector<double> x;
  auto m = sample_moments(
      [=](ElementStream& s) {
        return truncated_normal<float>(s, static_cast<float>(mu),
                                       static_cast<float>(sd));
      },
      &x);
  double phi2 = std::exp(-2.0) / std::sqrt(2 * std::numbers::pi);
  double mass = std::erf(2 / std::sqrt(2.0));
  expect_moments(m, mu, sd * sd * (1 - 4 * phi2 / mass));
  for (double v : x) {
    ASSERT_GE(v, mu - 2 * sd - 1e-5);
    ASSERT_LE(v, mu + 2 * sd + 1e-5);
  }
}

// Poisson(lambda): non-negative integers, mean = variance = lambda.
void check_poisson(double lambda) {
  SCOPED_TRACE(testing::Message() << "lambda = " << lambda);
  std::vector<double> x;
  auto m = sample_moments(
      [lambda](ElementStream& s) { return poisson<double>(s, lambda); }, &x);
  expect_moments(m, lambda, lambda);
  expect_integers_in(x, 0, 1e9);
  auto pmf = [lambda](double k) {
    return std::exp(-lambda + k * std::log(lambda) - std::lgamma(k + 1));
  };
  expect_fits_pmf(x, pmf, std::floor(lambda));
}

TEST(Distributions, Poisson) {
  check_poisson(4.0);     // Knuth
  check_poisson(29.5);    // Knuth, top of its range
  check_poisson(30.0);    // PTRS, bottom of its range
  check_poisson(1000.0);  // PTRS
  ElementStream s(kSeed, 0);
  EXPECT_EQ(poisson<float>(s, 0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(poisson<float>(s, -1.0f)));
  EXPECT_TRUE(std::isnan(poisson<double>(s, std::nan(""))));
}

// Empirical CDF of x at t against cdf_t within 5 standard errors of a
// proportion.
void expect_cdf_at(const std::vector<double>& x, double t, double cdf_t) {
  double below = 0;
  for (double v : x) below += (v <= t);
  double n = static_cast<double>(x.size());
  EXPECT_NEAR(below / n, cdf_t, 5 * std::sqrt(cdf_t * (1 - cdf_t) / n))
      << "at t = " << t;
}

// Gamma(alpha, rate beta): positive, mean alpha / beta, variance
// alpha / beta^2. The shape is checked through closed-form CDFs at a few
// points: alpha = 1/2 gives 2 beta X ~ chi-square(1), so
// P(X <= t) = erf(sqrt(beta t)); alpha = 3 gives
// P(X <= t) = 1 - e^{-y} (1 + y + y^2 / 2) with y = beta t.
TEST(Distributions, Gamma) {
  double beta = 2.0;
  auto cdf = [beta](double alpha, double t) {
    double y = beta * t;
    return alpha == 0.5 ? std::erf(std::sqrt(y))
                        : 1 - std::exp(-y) * (1 + y + y * y / 2);
  };
  for (double alpha : {0.5, 3.0}) {
    SCOPED_TRACE(testing::Message() << "alpha = " << alpha);
    std::vector<double> x;
    auto m = sample_moments(
        [=](ElementStream& s) { return gamma<double>(s, alpha, beta); }, &x);
    expect_moments(m, alpha / beta, alpha / (beta * beta));
    for (double v : x) ASSERT_GE(v, 0.0);
    for (double t : {0.01, 0.1, 0.5, 1.0, 2.5}) {
      expect_cdf_at(x, t, cdf(alpha, t));
    }
    m = sample_moments(
        [=](ElementStream& s) {
          return gamma<float>(s, static_cast<float>(alpha),
                              static_cast<float>(beta));
        },
        &x);
    expect_moments(m, alpha / beta, alpha / (beta * beta));
    for (double t : {0.01, 0.5, 2.5}) expect_cdf_at(x, t, cdf(alpha, t));
  }
  ElementStream s(kSeed, 0);
  EXPECT_TRUE(std::isnan(gamma<float>(s, 0.0f, 1.0f)));
  EXPECT_TRUE(std::isnan(gamma<float>(s, 1.0f, -1.0f)));
  EXPECT_TRUE(std::isnan(gamma<double>(s, std::nan(""), 1.0)));
}

}  // namespace
}  // namespace libops::random
