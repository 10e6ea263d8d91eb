// SUMMARY_STATS (float z): variance and standard_deviation; extra[0] = 1
// (default) divides by n - 1, 0 divides by n.
#include <cmath>
#include <cstring>

#include "legacy/reduce_test_util.h"
#include "libops/core/parallel.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

std::vector<double> stat(const char* op, const NDArray& x, const std::vector<int64_t>& axes,
                         std::vector<double> extra = {}, DataType zt = DataType::kFloat64) {
  NDArray z = make_z(zt, reduced_dims(x.shape(), axes, false));
  Status s = run_reduce(OPS_SUMMARY_STATS, op_num(OPS_SUMMARY_STATS, op), x, nullptr, z, axes,
                        ExtraParams::from(extra.data(), static_cast<int>(extra.size())));
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

}  // namespace

TEST(ReduceSummaryStats, EveryOpMatchesNumpyGoldens) { expect_group_goldens(OPS_SUMMARY_STATS); }

TEST(ReduceSummaryStats, BiasCorrectionFlag) {
  NDArray x = make(DataType::kFloat32, {2, 4}, {1, 2, 3, 4, 2, 2, 2, 10});
  EXPECT_TRUE(all_close(stat("variance", x, {1}), {5.0 / 3.0, 16.0}));
  EXPECT_TRUE(all_close(stat("variance", x, {1}, {1}), {5.0 / 3.0, 16.0}));
  EXPECT_TRUE(all_close(stat("variance", x, {1}, {0}), {1.25, 12.0}));
  EXPECT_TRUE(all_close(stat("standard_deviation", x, {1}, {0}), {std::sqrt(1.25), std::sqrt(12.0)}));
  // One element: n - 1 = 0 gives NaN; the uncorrected variance is 0.
  NDArray one = make(DataType::kInt32, {1}, {7});
  EXPECT_TRUE(std::isnan(stat("variance", one, {})[0]));
  EXPECT_TRUE(all_close(stat("variance", one, {}, {0}), {0}));
  NDArray empty = make(DataType::kFloat64, {0, 2}, {});
  std::vector<double> v = stat("variance", empty, {0}, {0});
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
}

TEST(ReduceSummaryStats, LargeReductionIsIdenticalWithOneAndTwoThreads) {
  // 150000 values with a large mean (a hard case for naive variance), on
  // the generic path (one output) and the kept-inner path (three columns).
  const int64_t n = 150000;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = 1e4 + double((i * 37) % 101) * 0.01;
  NDArray x = make(DataType::kFloat64, {n}, v);
  std::vector<double> w(static_cast<size_t>(3 * n));
  for (int64_t i = 0; i < 3 * n; ++i) w[size_t(i)] = v[size_t(i / 3)] + double(i % 3);
  NDArray cols = make(DataType::kFloat32, {n, 3}, w);
  double mean = 0, m2 = 0;
  for (double a : v) mean += a;
  mean /= double(n);
  for (double a : v) m2 += (a - mean) * (a - mean);
  std::vector<double> r[2], c[2];
  for (int t = 0; t < 2; ++t) {
    set_num_threads(t + 1);
    r[t] = stat("variance", x, {});
    c[t] = stat("variance", cols, {0}, {}, DataType::kFloat32);
  }
  set_num_threads(0);
  EXPECT_EQ(std::memcmp(r[0].data(), r[1].data(), sizeof(double)), 0) << r[0][0] << " vs " << r[1][0];
  EXPECT_EQ(std::memcmp(c[0].data(), c[1].data(), 3 * sizeof(double)), 0);
  EXPECT_NEAR(r[0][0], m2 / double(n - 1), 1e-9 * m2 / double(n));
  // float32 inputs near 1e4 carry ~1e-3 rounding; the variance is ~0.085.
  EXPECT_TRUE(all_close(c[0], {m2 / double(n - 1), m2 / double(n - 1), m2 / double(n - 1)}, 2e-2, 0));
}
