// Tests for the legacy RANDOM table (libops/legacy/ops/random_ops.h): the
// moments of every distribution against their analytic values, bit-exact
// reproducibility across thread counts and z layouts, dropout's kept values,
// linspace's exact values, choice's support and frequencies, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/random_ops.h"
#include "test_util.h"

using namespace libops;
using namespace libops::test;
using libops::legacy::RandomOp;

namespace {

constexpr uint64_t kSeed = 0x1234abcd5678ef01ULL;
constexpr int64_t kN = 100000;

Status run_random(RandomOp op, uint64_t seed, NDArray& z, const std::vector<double>& extra,
                  const NDArray* x = nullptr, const NDArray* y = nullptr) {
  legacy::LegacyCall c;
  c.group = OPS_RANDOM;
  c.num = static_cast<int>(op);
  c.x = x;
  c.y = y;
  c.z = &z;
  c.seed = seed;
  c.extra = ExtraParams::from(extra.data(), static_cast<int>(extra.size()));
  return legacy::exec(c);
}

NDArray empty_like(DataType dtype, const Dims& shape) {
  NDArray a;
  EXPECT_OK(NDArray::create(dtype, shape, 'c', a));
  return a;
}

// Draws kN values of `op` into a float64 (or the given dtype) z.
std::vector<double> draw(RandomOp op, const std::vector<double>& extra, DataType dtype = DataType::kFloat64,
                         uint64_t seed = kSeed) {
  NDArray z = empty_like(dtype, {kN});
  EXPECT_OK(run_random(op, seed, z, extra));
  return values(z);
}

// Sample mean and variance within 5 standard errors of the analytic ones.
// mu4 is the distribution's 4th central moment (the variance of the sample
// variance is about (mu4 - var^2) / n).
void expect_moments(const std::vector<double>& v, double mean, double var, double mu4) {
  const double n = static_cast<double>(v.size());
  double m = 0;
  for (double a : v) m += a;
  m /= n;
  double s2 = 0;
  for (double a : v) s2 += (a - m) * (a - m);
  s2 /= n - 1;
  EXPECT_NEAR(m, mean, 5 * std::sqrt(var / n)) << "mean";
  EXPECT_NEAR(s2, var, 5 * std::sqrt((mu4 - var * var) / n)) << "variance";
}

double normal_mu4(double sd) { return 3 * std::pow(sd, 4); }

// ---- the table ----

TEST(RandomTable, ListsOpsInNumberOrder) {
  const legacy::LegacyOpInfo* ops = nullptr;
  const int n = legacy::list_ops(OPS_RANDOM, &ops);
  const std::vector<std::string> want = {"uniform",     "gaussian",         "bernoulli",        "binomial",
                                         "exponential", "log_normal",       "truncated_normal", "poisson",
                                         "gamma",       "dropout",          "dropout_inverted", "alpha_dropout",
                                         "linspace",    "choice"};
  ASSERT_EQ(n, static_cast<int>(want.size()));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(ops[i].num, i);
    EXPECT_EQ(ops[i].name, want[static_cast<size_t>(i)]);
  }
  EXPECT_EQ(legacy::find_op(OPS_RANDOM, "choice"), static_cast<int>(RandomOp::choice));
}

// ---- moments of every distribution ----

TEST(RandomMoments, Uniform) {
  const double lo = -2, hi = 3, w = hi - lo;
  std::vector<double> v = draw(RandomOp::uniform, {lo, hi});
  for (double a : v) ASSERT_TRUE(a >= lo && a < hi) << a;
  expect_moments(v, (lo + hi) / 2, w * w / 12, std::pow(w, 4) / 80);
  std::vector<double> f = draw(RandomOp::uniform, {}, DataType::kFloat32);  // defaults [0, 1)
  expect_moments(f, 0.5, 1.0 / 12, 1.0 / 80);
}

TEST(RandomMoments, Gaussian) {
  expect_moments(draw(RandomOp::gaussian, {1.5, 2}), 1.5, 4, normal_mu4(2));
  expect_moments(draw(RandomOp::gaussian, {-3, 0.5}, DataType::kFloat32), -3, 0.25, normal_mu4(0.5));
}

TEST(RandomMoments, GaussianWithZeroStddevIsTheMean) {
  std::vector<double> v = draw(RandomOp::gaussian, {0.25, 0});
  for (double a : v) ASSERT_EQ(a, 0.25);
}

TEST(RandomMoments, Exponential) {
  const double lambda = 2.5;
  std::vector<double> v = draw(RandomOp::exponential, {lambda});
  for (double a : v) ASSERT_GE(a, 0);
  expect_moments(v, 1 / lambda, 1 / (lambda * lambda), 9 / std::pow(lambda, 4));
}

TEST(RandomMoments, LogNormal) {
  const double mu = 0.3, sd = 0.5, s2 = sd * sd;
  std::vector<double> v = draw(RandomOp::log_normal, {mu, sd});
  for (double a : v) ASSERT_GT(a, 0);
  const double mean = std::exp(mu + s2 / 2);
  const double var = (std::exp(s2) - 1) * std::exp(2 * mu + s2);
  const double excess = std::exp(4 * s2) + 2 * std::exp(3 * s2) + 3 * std::exp(2 * s2) - 6;
  expect_moments(v, mean, var, var * var * (3 + excess));
}

TEST(RandomMoments, TruncatedNormal) {
  const double mu = 1, sd = 3;
  std::vector<double> v = draw(RandomOp::truncated_normal, {mu, sd});
  for (double a : v) ASSERT_LE(std::fabs(a - mu), 2 * sd + 1e-12) << a;
  // Standard normal cut to [-2, 2]: E z^2 = 1 - 2 a phi(a) / P, E z^4 = 3 E z^2 - 2 a^3 phi(a) / P.
  const double a = 2, phi = std::exp(-a * a / 2) / std::sqrt(2 * M_PI), mass = std::erf(a / std::sqrt(2.0));
  const double m2 = 1 - 2 * a * phi / mass, m4 = 3 * m2 - 2 * a * a * a * phi / mass;
  expect_moments(v, mu, sd * sd * m2, std::pow(sd, 4) * m4);
}

TEST(RandomMoments, GammaUsesRate) {
  for (double alpha : {2.5, 0.5}) {
    const double beta = 2;  // rate: mean alpha / beta
    std::vector<double> v = draw(RandomOp::gamma, {alpha, beta});
    for (double x : v) ASSERT_GE(x, 0);
    expect_moments(v, alpha / beta, alpha / (beta * beta), 3 * alpha * (alpha + 2) / std::pow(beta, 4));
  }
}

TEST(RandomMoments, BernoulliInEveryDtypeIsZeroOrOne) {
  const double p = 0.3, var = p * (1 - p);
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kUInt8, DataType::kBool,
                     DataType::kInt64}) {
    std::vector<double> v = draw(RandomOp::bernoulli, {p}, t);
    for (double a : v) ASSERT_TRUE(a == 0 || a == 1) << dtype_name(t) << ": " << a;
    SCOPED_TRACE(dtype_name(t));
    expect_moments(v, p, var, var * (1 - 3 * var));
  }
  for (double a : draw(RandomOp::bernoulli, {1.0}, DataType::kInt8)) ASSERT_EQ(a, 1);
  for (double a : draw(RandomOp::bernoulli, {0.0}, DataType::kFloat32)) ASSERT_EQ(a, 0);
}

TEST(RandomMoments, BinomialSmallAndLargeTrials) {
  struct Case {
    double trials, p;
    DataType dtype;
  };
  // 20 trials: sums of Bernoullis; 1000 x 0.3: BTRS; 500 x 0.01: inversion;
  // p > 1/2 goes through the symmetry.
  for (Case c : {Case{20, 0.35, DataType::kInt32}, Case{1000, 0.3, DataType::kInt64},
                 Case{500, 0.01, DataType::kInt16}, Case{200, 0.9, DataType::kFloat32}}) {
    SCOPED_TRACE(std::to_string(c.trials) + " " + dtype_name(c.dtype));
    std::vector<double> v = draw(RandomOp::binomial, {c.trials, c.p}, c.dtype);
    for (double a : v) ASSERT_TRUE(a >= 0 && a <= c.trials && a == std::floor(a)) << a;
    const double n = c.trials, pq = c.p * (1 - c.p);
    expect_moments(v, n * c.p, n * pq, n * pq * (1 + 3 * (n - 2) * pq));
  }
}

TEST(RandomMoments, PoissonSmallAndLargeLambda) {
  for (double lambda : {3.5, 100.0}) {
    for (DataType t : {DataType::kInt64, DataType::kFloat32}) {
      SCOPED_TRACE(std::to_string(lambda) + " " + dtype_name(t));
      std::vector<double> v = draw(RandomOp::poisson, {lambda}, t);
      for (double a : v) ASSERT_TRUE(a >= 0 && a == std::floor(a)) << a;
      expect_moments(v, lambda, lambda, lambda * (1 + 3 * lambda));
    }
  }
}

TEST(RandomMoments, PoissonSaturatesANarrowIntegerZ) {
  std::vector<double> v = draw(RandomOp::poisson, {300}, DataType::kInt8);
  for (double a : v) ASSERT_EQ(a, 127);  // P(k < 127) is about 1e-30
  std::vector<double> u = draw(RandomOp::poisson, {300}, DataType::kUInt8);
  int capped = 0;
  for (double a : u) capped += a == 255;
  EXPECT_GT(capped, kN * 0.9);  // P(k >= 255) = 0.996
}

TEST(RandomMoments, Float16AndBFloat16Z) {
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(t));
    // Rounding to 8 or 11 significant bits on store adds a variance of at
    // most ulp^2 / 12 and no bias worth 5 standard errors at this size.
    std::vector<double> u = draw(RandomOp::uniform, {1, 2}, t);
    for (double a : u) ASSERT_TRUE(a >= 1 && a <= 2) << a;
    expect_moments(u, 1.5, 1.0 / 12, 1.0 / 80);
    std::vector<double> g = draw(RandomOp::gaussian, {0.5, 1.5}, t);
    expect_moments(g, 0.5, 2.25, normal_mu4(1.5));
  }
}

// ---- reproducibility ----

struct OpCase {
  RandomOp op;
  std::vector<double> extra;
  DataType dtype;
  bool takes_x;
};

std::vector<OpCase> all_per_element_cases() {
  return {{RandomOp::uniform, {-1, 1}, DataType::kFloat32, false},
          {RandomOp::gaussian, {0, 1}, DataType::kFloat64, false},
          {RandomOp::bernoulli, {0.4}, DataType::kInt32, false},
          {RandomOp::binomial, {100, 0.25}, DataType::kInt64, false},
          {RandomOp::exponential, {1.5}, DataType::kFloat32, false},
          {RandomOp::log_normal, {0, 0.7}, DataType::kFloat64, false},
          {RandomOp::truncated_normal, {2, 1}, DataType::kFloat32, false},
          {RandomOp::poisson, {40}, DataType::kInt32, false},
          {RandomOp::gamma, {0.7, 1}, DataType::kFloat64, false},
          {RandomOp::dropout, {0.6}, DataType::kFloat32, true},
          {RandomOp::dropout_inverted, {0.6}, DataType::kFloat64, true},
          {RandomOp::alpha_dropout, {0.6}, DataType::kFloat32, true},
          {RandomOp::linspace, {-1, 4}, DataType::kFloat64, false}};
}

// 12120 elements: 2 threads split them mid-row (the grain is 4096).
constexpr int64_t kRows = 101, kCols = 120;

// x for the ops that take one: distinct, nonzero values.
NDArray dropout_input() { return make(DataType::kFloat32, {kRows, kCols}, iota(kRows * kCols, 0.01, 1)); }

Status run_case(const OpCase& c, uint64_t seed, NDArray& z) {
  static const NDArray x = dropout_input();
  return run_random(c.op, seed, z, c.extra, c.takes_x ? &x : nullptr);
}

// Compares bit patterns through double (exact for every dtype used here).
::testing::AssertionResult same_values(const NDArray& a, const NDArray& b) {
  if (a.length() != b.length()) return ::testing::AssertionFailure() << "lengths differ";
  for (int64_t i = 0; i < a.length(); ++i) {
    const double u = a.get_double(i), v = b.get_double(i);
    if (!(u == v || (std::isnan(u) && std::isnan(v))))
      return ::testing::AssertionFailure() << "element " << i << ": " << u << " vs " << v;
  }
  return ::testing::AssertionSuccess();
}

class RandomThreadsGuard {
 public:
  ~RandomThreadsGuard() { set_num_threads(0); }
};

TEST(RandomReproducible, SameSeedSameBitsForOneAndTwoThreads) {
  RandomThreadsGuard restore;
  for (const OpCase& c : all_per_element_cases()) {
    SCOPED_TRACE(legacy::op_name(OPS_RANDOM, static_cast<int>(c.op)));
    NDArray one = empty_like(c.dtype, {kRows, kCols}), two = empty_like(c.dtype, {kRows, kCols});
    NDArray again = empty_like(c.dtype, {kRows, kCols});
    set_num_threads(1);
    ASSERT_OK(run_case(c, kSeed, one));
    ASSERT_OK(run_case(c, kSeed, again));
    set_num_threads(2);
    ASSERT_OK(run_case(c, kSeed, two));
    EXPECT_TRUE(same_values(one, again));
    EXPECT_TRUE(same_values(one, two));
  }
}

TEST(RandomReproducible, StridedAndTransposedZMatchDenseZ) {
  for (const OpCase& c : all_per_element_cases()) {
    SCOPED_TRACE(legacy::op_name(OPS_RANDOM, static_cast<int>(c.op)));
    NDArray dense = empty_like(c.dtype, {kRows, kCols});
    ASSERT_OK(run_case(c, kSeed, dense));
    // Column-major view: the same logical [kRows, kCols] with strides (1, kRows).
    NDArray t = empty_like(c.dtype, {kCols, kRows}).transpose();
    ASSERT_OK(run_case(c, kSeed, t));
    EXPECT_TRUE(same_values(dense, t));
    // Every other column of a wider array, walked backwards along rows.
    NDArray wide = empty_like(c.dtype, {kRows, 2 * kCols}), stepped, flipped;
    ASSERT_OK(wide.slice(1, 0, 2 * kCols, 2, stepped));
    ASSERT_OK(stepped.flip(0, flipped));
    ASSERT_OK(run_case(c, kSeed, flipped));
    EXPECT_TRUE(same_values(dense, flipped));
  }
}

TEST(RandomReproducible, ValueDependsOnIndexNotOnZSize) {
  for (const OpCase& c : all_per_element_cases()) {
    if (c.takes_x || c.op == RandomOp::linspace) continue;  // x's shape / n itself matter there
    SCOPED_TRACE(legacy::op_name(OPS_RANDOM, static_cast<int>(c.op)));
    NDArray small = empty_like(c.dtype, {7}), big = empty_like(c.dtype, {kRows, kCols}), flat, head;
    ASSERT_OK(run_random(c.op, kSeed, small, c.extra));
    ASSERT_OK(run_random(c.op, kSeed, big, c.extra));
    ASSERT_OK(big.reshape({kRows * kCols}, flat));
    ASSERT_OK(flat.slice(0, 0, 7, 1, head));
    EXPECT_TRUE(same_values(small, head));
  }
}

TEST(RandomReproducible, DifferentSeedsDiffer) {
  for (const OpCase& c : all_per_element_cases()) {
    if (c.op == RandomOp::linspace) continue;  // draws nothing
    SCOPED_TRACE(legacy::op_name(OPS_RANDOM, static_cast<int>(c.op)));
    NDArray a = empty_like(c.dtype, {kRows, kCols}), b = empty_like(c.dtype, {kRows, kCols});
    ASSERT_OK(run_case(c, kSeed, a));
    ASSERT_OK(run_case(c, kSeed + 1, b));
    int64_t equal = 0;
    for (int64_t i = 0; i < a.length(); ++i) equal += a.get_double(i) == b.get_double(i);
    // Discrete ops and the dropouts (p = 0.4 or 0.6) agree by chance on
    // about 52% of elements; continuous ones almost never.
    EXPECT_LT(equal, a.length() * 6 / 10);
  }
}

TEST(RandomReproducible, LinspaceIgnoresTheSeed) {
  NDArray a = empty_like(DataType::kFloat64, {9}), b = empty_like(DataType::kFloat64, {9});
  ASSERT_OK(run_random(RandomOp::linspace, 1, a, {0, 8}));
  ASSERT_OK(run_random(RandomOp::linspace, 2, b, {0, 8}));
  EXPECT_TRUE(same_values(a, b));
}

// ---- dropout family ----

TEST(RandomDropout, KeepsXOrZeroAtRateP) {
  const double p = 0.7;
  NDArray x = make(DataType::kFloat32, {kN}, iota(kN, 0.5, 1));  // 1, 1.5, 2, ...: never 0
  NDArray z = empty_like(DataType::kFloat32, {kN});
  ASSERT_OK(run_random(RandomOp::dropout, kSeed, z, {p}, &x));
  int64_t kept = 0;
  for (int64_t i = 0; i < kN; ++i) {
    const double v = z.get_double(i);
    ASSERT_TRUE(v == 0 || v == x.get_double(i)) << i << ": " << v;
    kept += v != 0;
  }
  EXPECT_NEAR(static_cast<double>(kept) / kN, p, 5 * std::sqrt(p * (1 - p) / kN));
}

TEST(RandomDropout, ExtremeKeepProbabilities) {
  NDArray x = make(DataType::kFloat64, {5}, {1, -2, 3, -4, 5});
  NDArray z = empty_like(DataType::kFloat64, {5});
  ASSERT_OK(run_random(RandomOp::dropout, kSeed, z, {1.0}, &x));
  EXPECT_TRUE(all_close(z, {1, -2, 3, -4, 5}, 0, 0));
  ASSERT_OK(run_random(RandomOp::dropout, kSeed, z, {0.0}, &x));
  EXPECT_TRUE(all_close(z, {0, 0, 0, 0, 0}, 0, 0));
  ASSERT_OK(run_random(RandomOp::dropout_inverted, kSeed, z, {1.0}, &x));
  EXPECT_TRUE(all_close(z, {1, -2, 3, -4, 5}, 0, 0));
  ASSERT_OK(run_random(RandomOp::alpha_dropout, kSeed, z, {1.0}, &x));
  EXPECT_TRUE(all_close(z, {1, -2, 3, -4, 5}, 0, 0));
}

TEST(RandomDropout, BroadcastsXAndRunsInPlace) {
  // x [3] broadcast over z [4, 3]: each kept element is its column's x.
  NDArray x = make(DataType::kFloat64, {3}, {2, 4, 8});
  NDArray z = empty_like(DataType::kFloat64, {4, 3});
  ASSERT_OK(run_random(RandomOp::dropout, kSeed, z, {0.5}, &x));
  for (int64_t i = 0; i < 12; ++i) {
    const double v = z.get_double(i);
    EXPECT_TRUE(v == 0 || v == x.get_double(i % 3)) << v;
  }
  // In place (z is x): the same result as into a separate z.
  NDArray in = make(DataType::kFloat32, {64}, iota(64, 1, 1));
  NDArray out = empty_like(DataType::kFloat32, {64});
  ASSERT_OK(run_random(RandomOp::dropout_inverted, kSeed, out, {0.5}, &in));
  ASSERT_OK(run_random(RandomOp::dropout_inverted, kSeed, in, {0.5}, &in));
  EXPECT_TRUE(same_values(in, out));
}

TEST(RandomDropout, InvertedScalesKeptValuesByOneOverP) {
  const float p = 0.25f;
  NDArray x = make(DataType::kFloat32, {kN}, iota(kN, 0.01, -400));
  NDArray z = empty_like(DataType::kFloat32, {kN});
  ASSERT_OK(run_random(RandomOp::dropout_inverted, kSeed, z, {p}, &x));
  int64_t kept = 0;
  for (int64_t i = 0; i < kN; ++i) {
    const float xv = static_cast<float>(x.get_double(i)), v = static_cast<float>(z.get_double(i));
    const bool keep = v == xv / p;
    ASSERT_TRUE(keep || v == 0) << i << ": " << v;
    kept += keep && xv != 0;
  }
  EXPECT_NEAR(static_cast<double>(kept) / kN, p, 5 * std::sqrt(p * (1 - p) / kN));
}

TEST(RandomDropout, AlphaDropoutKeepsMeanAndVariance) {
  using P = legacy::fn::AlphaDropoutParams;
  const double q = 0.8;
  NDArray x = empty_like(DataType::kFloat64, {kN});
  ASSERT_OK(run_random(RandomOp::gaussian, kSeed + 7, x, {0, 1}));
  NDArray z = empty_like(DataType::kFloat64, {kN});
  ASSERT_OK(run_random(RandomOp::alpha_dropout, kSeed, z, {q}, &x));
  // Hand values of Note [Alpha dropout] for q = 0.8.
  const double ap = -1.0507009873554805 * 1.6732632423543772;
  const double a = 1 / std::sqrt(q + ap * ap * q * (1 - q)), b = -a * (1 - q) * ap;
  EXPECT_NEAR(ap, -1.7580993408473769, 1e-15);
  EXPECT_NEAR(a, 0.8789035834435329, 1e-15);
  EXPECT_NEAR(b, 0.3090399621440945, 1e-15);
  EXPECT_DOUBLE_EQ(P::kAlphaPrime, ap);
  const double dropped = a * ap + b;
  int64_t kept = 0;
  std::vector<double> v = values(z);
  double m4 = 0;
  for (int64_t i = 0; i < kN; ++i) {
    const double want_kept = a * x.get_double(i) + b;
    const bool keep = std::fabs(v[size_t(i)] - want_kept) <= 1e-12;
    ASSERT_TRUE(keep || std::fabs(v[size_t(i)] - dropped) <= 1e-12) << i << ": " << v[size_t(i)];
    kept += keep;
    m4 += std::pow(v[size_t(i)], 4) / kN;
  }
  EXPECT_NEAR(static_cast<double>(kept) / kN, q, 5 * std::sqrt(q * (1 - q) / kN));
  expect_moments(v, 0, 1, m4);  // mu4 from the sample: z is a mixture
}

// ---- linspace ----

TEST(RandomLinspace, HandValues) {
  NDArray f = empty_like(DataType::kFloat32, {5});
  ASSERT_OK(run_random(RandomOp::linspace, 0, f, {1, 3}));
  EXPECT_TRUE(all_close(f, {1, 1.5, 2, 2.5, 3}, 0, 0));
  // float64 over a [2, 3] z in C order; descending.
  NDArray d = empty_like(DataType::kFloat64, {2, 3});
  ASSERT_OK(run_random(RandomOp::linspace, 0, d, {1.5, -1}));
  EXPECT_TRUE(all_close(d, {1.5, 1, 0.5, 0, -0.5, -1}, 0, 0));
  // The same values land at the same logical index of a transposed z.
  NDArray t = empty_like(DataType::kFloat64, {3, 2}).transpose();
  ASSERT_OK(run_random(RandomOp::linspace, 0, t, {1.5, -1}));
  EXPECT_TRUE(all_close(t, {1.5, 1, 0.5, 0, -0.5, -1}, 0, 0));
}

TEST(RandomLinspace, SingleElementIsStartAndLastIsStop) {
  NDArray one = empty_like(DataType::kFloat64, {1, 1});
  ASSERT_OK(run_random(RandomOp::linspace, 0, one, {-7.25, 100}));
  EXPECT_EQ(one.get_double(0), -7.25);
  // 11 points in [0, 1]: z[i] = i * 0.1 in double (3 * 0.1 is
  // 0.30000000000000004, not 0.3), and the last point is 1 exactly.
  NDArray d = empty_like(DataType::kFloat64, {11});
  ASSERT_OK(run_random(RandomOp::linspace, 0, d, {0, 1}));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(d.get_double(i), i * 0.1) << i;
  EXPECT_EQ(d.get_double(3), 0.30000000000000004);
  EXPECT_EQ(d.get_double(10), 1.0);
  // Defaults [0, 1]; two points are the endpoints.
  NDArray two = empty_like(DataType::kFloat32, {2});
  ASSERT_OK(run_random(RandomOp::linspace, 0, two, {}));
  EXPECT_TRUE(all_close(two, {0, 1}, 0, 0));
}

// ---- choice ----

TEST(RandomChoice, DrawsOnlyXWithFrequenciesOfY) {
  NDArray x = make(DataType::kFloat32, {5}, {10, 20, 30, 40, 50});
  NDArray y = make(DataType::kFloat64, {5}, {0.1, 0, 0.4, 0.5, 0});
  for (DataType t : {DataType::kInt32, DataType::kFloat64}) {
    SCOPED_TRACE(dtype_name(t));
    NDArray z = empty_like(t, {kN / 500, 500});
    ASSERT_OK(run_random(RandomOp::choice, kSeed, z, {}, &x, &y));
    std::map<double, int64_t> count;
    for (double v : values(z)) ++count[v];
    EXPECT_EQ(count.count(20), 0u);
    EXPECT_EQ(count.count(50), 0u);
    ASSERT_EQ(count.size(), 3u);
    const std::map<double, double> want = {{10, 0.1}, {30, 0.4}, {40, 0.5}};
    for (auto [v, p] : want) EXPECT_NEAR(count[v] / double(kN), p, 5 * std::sqrt(p * (1 - p) / kN)) << v;
  }
}

TEST(RandomChoice, IntegerWeightsAndExactInt64Values) {
  // Values above 2^53 survive only if x is not routed through double.
  const int64_t big = (int64_t{1} << 60) + 3;
  NDArray x = empty_like(DataType::kInt64, {3});
  x.data_as<int64_t>()[0] = big;
  x.data_as<int64_t>()[1] = -big;
  x.data_as<int64_t>()[2] = 7;
  NDArray y = make(DataType::kInt32, {3}, {1, 3, 0});  // weights, not summing to 1
  NDArray z = empty_like(DataType::kInt64, {kN});
  ASSERT_OK(run_random(RandomOp::choice, kSeed, z, {}, &x, &y));
  int64_t first = 0;
  for (int64_t i = 0; i < kN; ++i) {
    const int64_t v = z.data_as<int64_t>()[i];
    ASSERT_TRUE(v == big || v == -big) << v;
    first += v == big;
  }
  EXPECT_NEAR(first / double(kN), 0.25, 5 * std::sqrt(0.25 * 0.75 / kN));
}

TEST(RandomChoice, ReproducibleAcrossThreadsAndLayouts) {
  RandomThreadsGuard restore;
  NDArray x = make(DataType::kFloat64, {4}, {-1, 2.5, 3, 9});
  NDArray y = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  NDArray one = empty_like(DataType::kFloat64, {kRows, kCols}), two = empty_like(DataType::kFloat64, {kRows, kCols});
  set_num_threads(1);
  ASSERT_OK(run_random(RandomOp::choice, kSeed, one, {}, &x, &y));
  set_num_threads(2);
  ASSERT_OK(run_random(RandomOp::choice, kSeed, two, {}, &x, &y));
  EXPECT_TRUE(same_values(one, two));
  NDArray t = empty_like(DataType::kFloat64, {kCols, kRows}).transpose();
  ASSERT_OK(run_random(RandomOp::choice, kSeed, t, {}, &x, &y));
  EXPECT_TRUE(same_values(one, t));
  // Strided (reversed) x and y: still only x's values, each of them drawn.
  NDArray xr, yr, r = empty_like(DataType::kFloat64, {kRows, kCols});
  ASSERT_OK(x.flip(0, xr));
  ASSERT_OK(y.flip(0, yr));
  ASSERT_OK(run_random(RandomOp::choice, kSeed, r, {}, &xr, &yr));
  const std::vector<double> rv = values(r);
  EXPECT_EQ(std::set<double>(rv.begin(), rv.end()), (std::set<double>{-1, 2.5, 3, 9}));
  NDArray other = empty_like(DataType::kFloat64, {kRows, kCols});
  ASSERT_OK(run_random(RandomOp::choice, kSeed + 1, other, {}, &x, &y));
  int64_t equal = 0;
  for (int64_t i = 0; i < one.length(); ++i) equal += one.get_double(i) == other.get_double(i);
  EXPECT_LT(equal, one.length() / 2);  // another seed: agreement only by chance (30%)
}

// ---- empty z ----

TEST(RandomEmpty, EmptyZDoesNothing) {
  NDArray z = empty_like(DataType::kFloat32, {0, 4});
  for (RandomOp op : {RandomOp::uniform, RandomOp::gaussian, RandomOp::poisson, RandomOp::linspace})
    EXPECT_OK(run_random(op, kSeed, z, {}));
  NDArray x = empty_like(DataType::kFloat32, {0, 4});
  EXPECT_OK(run_random(RandomOp::dropout, kSeed, z, {0.5}, &x));
  NDArray cx = make(DataType::kFloat32, {2}, {1, 2}), cy = make(DataType::kFloat32, {2}, {1, 1});
  EXPECT_OK(run_random(RandomOp::choice, kSeed, z, {}, &cx, &cy));
  // Checks still run: a bad param or dtype is an error even for an empty z.
  EXPECT_EQ(run_random(RandomOp::gaussian, kSeed, z, {0, -1}).code(), StatusCode::kInvalidArgument);
  NDArray zi = empty_like(DataType::kInt32, {0});
  EXPECT_EQ(run_random(RandomOp::gaussian, kSeed, zi, {}).code(), StatusCode::kDtype);
}

// ---- errors ----

void expect_error(Status s, StatusCode code, const std::string& message) {
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_EQ(s.message(), message);
}

TEST(RandomErrors, BadParamsNameTheOpAndValue) {
  NDArray z = empty_like(DataType::kFloat32, {8});
  NDArray x = make(DataType::kFloat32, {8}, iota(8, 1, 1));
  const StatusCode bad = StatusCode::kInvalidArgument;
  expect_error(run_random(RandomOp::uniform, 1, z, {2, 1}), bad, "uniform: hi = 1 is invalid: must be >= lo");
  expect_error(run_random(RandomOp::uniform, 1, z, {0, INFINITY}), bad, "uniform: hi = inf is invalid: must be finite");
  expect_error(run_random(RandomOp::gaussian, 1, z, {0, -0.5}), bad,
               "gaussian: stddev = -0.5 is invalid: must be finite and >= 0");
  expect_error(run_random(RandomOp::gaussian, 1, z, {NAN, 1}), bad, "gaussian: mean = nan is invalid: must be finite");
  expect_error(run_random(RandomOp::bernoulli, 1, z, {1.0000001}), bad,
               "bernoulli: p = 1.0000001 is invalid: must be in [0, 1]");
  expect_error(run_random(RandomOp::bernoulli, 1, z, {-0.1}), bad, "bernoulli: p = -0.1 is invalid: must be in [0, 1]");
  expect_error(run_random(RandomOp::binomial, 1, z, {-1, 0.5}), bad,
               "binomial: trials = -1 is invalid: must be a whole number in [0, 2^53]");
  expect_error(run_random(RandomOp::binomial, 1, z, {2.5, 0.5}), bad,
               "binomial: trials = 2.5 is invalid: must be a whole number in [0, 2^53]");
  expect_error(run_random(RandomOp::binomial, 1, z, {10, 2}), bad, "binomial: p = 2 is invalid: must be in [0, 1]");
  expect_error(run_random(RandomOp::exponential, 1, z, {0}), bad,
               "exponential: lambda = 0 is invalid: must be finite and > 0");
  expect_error(run_random(RandomOp::log_normal, 1, z, {0, -1}), bad,
               "log_normal: stddev = -1 is invalid: must be finite and >= 0");
  expect_error(run_random(RandomOp::truncated_normal, 1, z, {0, NAN}), bad,
               "truncated_normal: stddev = nan is invalid: must be finite and >= 0");
  expect_error(run_random(RandomOp::poisson, 1, z, {-3}), bad, "poisson: lambda = -3 is invalid: must be finite and > 0");
  expect_error(run_random(RandomOp::gamma, 1, z, {0, 1}), bad, "gamma: alpha = 0 is invalid: must be finite and > 0");
  expect_error(run_random(RandomOp::gamma, 1, z, {1, -2}), bad, "gamma: beta = -2 is invalid: must be finite and > 0");
  expect_error(run_random(RandomOp::dropout, 1, z, {1.5}, &x), bad, "dropout: p = 1.5 is invalid: must be in [0, 1]");
  expect_error(run_random(RandomOp::dropout_inverted, 1, z, {0}, &x), bad,
               "dropout_inverted: p = 0 is invalid: must be in (0, 1]");
  expect_error(run_random(RandomOp::alpha_dropout, 1, z, {-0.5}, &x), bad,
               "alpha_dropout: p = -0.5 is invalid: must be in (0, 1]");
  expect_error(run_random(RandomOp::linspace, 1, z, {0, NAN}), bad, "linspace: stop = nan is invalid: must be finite");
  expect_error(run_random(RandomOp::gaussian, 1, z, {0, 1, 2}), bad,
               "gaussian: got 3 extra params; takes at most 2 (mean, stddev)");
}

TEST(RandomErrors, BinomialTrialsMustFitAnIntegerZ) {
  NDArray z = empty_like(DataType::kInt8, {4});
  expect_error(run_random(RandomOp::binomial, 1, z, {200, 0.5}), StatusCode::kInvalidArgument,
               "binomial: trials = 200 does not fit output z of dtype int8 (max 127)");
  EXPECT_OK(run_random(RandomOp::binomial, 1, z, {127, 0.5}));
}

TEST(RandomErrors, FloatOnlyOpRejectsIntegerZ) {
  NDArray z = empty_like(DataType::kInt32, {4});
  expect_error(run_random(RandomOp::gaussian, 1, z, {}), StatusCode::kDtype,
               "gaussian: unsupported dtype int32 (computes in int32); supported: float16, bfloat16, float32, float64");
  NDArray x = make(DataType::kInt32, {4}, {1, 2, 3, 4});
  expect_error(run_random(RandomOp::dropout, 1, z, {0.5}, &x), StatusCode::kDtype,
               "dropout: unsupported dtype int32 (computes in int32); supported: float16, bfloat16, float32, float64");
  // An integer x into a float z is fine.
  NDArray zf = empty_like(DataType::kFloat32, {4});
  EXPECT_OK(run_random(RandomOp::dropout, 1, zf, {0.5}, &x));
}

TEST(RandomErrors, InputsTheOpReadsAreRequired) {
  NDArray z = empty_like(DataType::kFloat32, {4});
  NDArray x = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  const StatusCode bad = StatusCode::kInvalidArgument;
  expect_error(run_random(RandomOp::dropout, 1, z, {0.5}), bad, "dropout: input x is required");
  expect_error(run_random(RandomOp::choice, 1, z, {}, &x), bad, "choice: input y is required");
  NDArray x3 = make(DataType::kFloat32, {3}, {1, 2, 3});
  expect_error(run_random(RandomOp::dropout, 1, z, {0.5}, &x3), StatusCode::kShape,
               "dropout: input x[3] does not broadcast to z[4]");
  expect_error(run_random(RandomOp::gaussian, 1, z, {}, &x3), StatusCode::kShape,
               "gaussian: input x[3] does not broadcast to z[4]");
}

TEST(RandomReproducible, InputsAnOpDoesNotTakeAreNotRead) {
  // A graph passes x to give z its shape; the values drawn are those without it.
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6, 2, -5)), y = make(DataType::kInt32, {3}, {7, 8, 9});
  NDArray plain = empty_like(DataType::kFloat32, {2, 3}), with = empty_like(DataType::kFloat32, {2, 3});
  ASSERT_OK(run_random(RandomOp::gaussian, kSeed, plain, {1, 2}));
  ASSERT_OK(run_random(RandomOp::gaussian, kSeed, with, {1, 2}, &x, &y));
  EXPECT_TRUE(same_values(plain, with));
  ASSERT_OK(run_random(RandomOp::dropout, kSeed, plain, {0.5}, &x));
  ASSERT_OK(run_random(RandomOp::dropout, kSeed, with, {0.5}, &x, &y));
  EXPECT_TRUE(same_values(plain, with));
}

TEST(RandomErrors, DropoutRejectsPartialOverlap) {
  NDArray buf = make(DataType::kFloat32, {8}, iota(8, 1, 1)), head, tail;
  ASSERT_OK(buf.slice(0, 0, 6, 1, head));
  ASSERT_OK(buf.slice(0, 2, 8, 1, tail));
  Status s = run_random(RandomOp::dropout, 1, tail, {0.5}, &head);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("partially overlaps input x"), std::string::npos) << s.message();
}

TEST(RandomErrors, ChoiceChecksShapesAndWeights) {
  NDArray z = empty_like(DataType::kInt32, {16});
  NDArray x = make(DataType::kInt32, {3}, {1, 2, 3});
  const StatusCode bad = StatusCode::kInvalidArgument;
  NDArray y4 = make(DataType::kFloat32, {4}, {1, 1, 1, 1});
  expect_error(run_random(RandomOp::choice, 1, z, {}, &x, &y4), StatusCode::kShape,
               "choice: x[3] and y[4] must be 1-D with the same length (values and their weights)");
  NDArray y2d = make(DataType::kFloat32, {1, 3}, {1, 1, 1});
  EXPECT_EQ(run_random(RandomOp::choice, 1, z, {}, &x, &y2d).code(), StatusCode::kShape);
  NDArray neg = make(DataType::kFloat32, {3}, {0.5, -0.25, 0.75});
  expect_error(run_random(RandomOp::choice, 1, z, {}, &x, &neg), bad,
               "choice: weight y[1] = -0.25 is invalid: must be finite and >= 0");
  NDArray nan = make(DataType::kFloat64, {3}, {0.5, 0.5, NAN});
  expect_error(run_random(RandomOp::choice, 1, z, {}, &x, &nan), bad,
               "choice: weight y[2] = nan is invalid: must be finite and >= 0");
  NDArray zeros3 = make(DataType::kFloat32, {3}, {0, 0, 0});
  expect_error(run_random(RandomOp::choice, 1, z, {}, &x, &zeros3), bad,
               "choice: all 3 weights in y are 0: at least one must be > 0");
  NDArray ok = make(DataType::kFloat32, {3}, {1, 1, 1});
  expect_error(run_random(RandomOp::choice, 1, z, {0.5}, &x, &ok), bad,
               "choice: got 1 extra params; takes at most 0 (none)");
}

TEST(RandomErrors, UnknownOpNumber) {
  NDArray z = empty_like(DataType::kFloat32, {4});
  legacy::LegacyCall c;
  c.group = OPS_RANDOM;
  c.num = LIBOPS_RANDOM_COUNT;
  c.z = &z;
  EXPECT_EQ(legacy::exec(c).code(), StatusCode::kUnknownOp);
}

}  // namespace
