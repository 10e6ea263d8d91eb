// Note [Parallel scatter]: large scatters split z's rows between threads,
// and each row must still see its updates in order. 40000 updates of 8
// values land on 1000 rows, many times each, at 1 to 4 threads: set keeps
// the last update of each row and add sums them (exactly, as small
// integers), and the two results are the same at every thread count.
#include <cstdint>
#include <vector>

#include "libops/core/parallel.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

TEST(ParallelScatter, RowsSeeTheirUpdatesInOrderAtAnyThreadCount) {
  constexpr int64_t kRows = 1000, kCols = 8, kUpdates = 40000;
  NDArray x = zeros(DataType::kFloat32, {kRows, kCols});
  NDArray idx = zeros(DataType::kInt64, {kUpdates, 1});
  NDArray upd = zeros(DataType::kFloat32, {kUpdates, kCols});
  std::vector<double> last(kRows * kCols, 0), sum(kRows * kCols, 0);
  uint32_t state = 99;
  for (int64_t u = 0; u < kUpdates; ++u) {
    state = state * 1664525u + 1013904223u;
    const int64_t row = (state >> 8) % kRows;
    idx.set_double(u, static_cast<double>(row));
    for (int64_t c = 0; c < kCols; ++c) {
      const double v = static_cast<double>((u + c) % 97);
      upd.set_double(u * kCols + c, v);
      last[static_cast<size_t>(row * kCols + c)] = v;  // the rule: the last update wins
      sum[static_cast<size_t>(row * kCols + c)] += v;  // exact in float32 (< 2^24)
    }
  }
  for (int threads : {1, 2, 3, 4}) {
    SCOPED_TRACE(threads);
    set_num_threads(threads);
    Context set, add;
    const Status s1 = run_op("scatter_nd_update", {.in = {&x, &idx, &upd}}, set);
    const Status s2 = run_op("scatter_nd_add", {.in = {&x, &idx, &upd}}, add);
    set_num_threads(0);
    ASSERT_OK(s1);
    ASSERT_OK(s2);
    EXPECT_EQ(values(*set.output(0)), last);
    EXPECT_EQ(values(*add.output(0)), sum);
  }
}

// Updates that hit distinct rows (1000 rows left untouched) take the other
// split, runs of updates per thread: every touched row gets its one update,
// the rest of z stays x, at any thread count.
TEST(ParallelScatter, DistinctRowsSplitByUpdatesGiveTheSameResult) {
  constexpr int64_t kRows = 5000, kCols = 16, kUpdates = 4000;
  NDArray x = zeros(DataType::kFloat32, {kRows, kCols});
  for (int64_t i = 0; i < kRows * kCols; ++i) x.set_double(i, -1.0);
  NDArray idx = zeros(DataType::kInt64, {kUpdates, 1});
  NDArray upd = zeros(DataType::kFloat32, {kUpdates, kCols});
  std::vector<double> want(kRows * kCols, -1.0);
  for (int64_t u = 0; u < kUpdates; ++u) {
    const int64_t row = (u * 2003) % kRows;  // 2003 is prime to 5000: distinct rows
    idx.set_double(u, static_cast<double>(row));
    for (int64_t c = 0; c < kCols; ++c) {
      upd.set_double(u * kCols + c, static_cast<double>(u * 100 + c));
      want[static_cast<size_t>(row * kCols + c)] = static_cast<double>(u * 100 + c);
    }
  }
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(threads);
    set_num_threads(threads);
    Context set, add;
    const Status s1 = run_op("scatter_nd_update", {.in = {&x, &idx, &upd}}, set);
    const Status s2 = run_op("scatter_nd_add", {.in = {&x, &idx, &upd}}, add);
    set_num_threads(0);
    ASSERT_OK(s1);
    ASSERT_OK(s2);
    EXPECT_EQ(values(*set.output(0)), want);
    std::vector<double> added = want;
    for (size_t i = 0; i < added.size(); ++i) added[i] = want[i] == -1.0 ? -1.0 : want[i] - 1.0;
    EXPECT_EQ(values(*add.output(0)), added);
  }
}

}  // namespace
