// Note [Parallel scatter]: large scatters split z's rows between threads,
// and each row must still see its updates in order. 40000 updates of 8
// values land on 1000 rows, many times each, at 1 to 4 threads: set keeps
// the last update of each row and add sums them (exactly, as small
// integers), and the two results are the same at every thread count.
#include <cmath>
#include <cstdint>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/loops/streaming_store.h"
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

// Note [Scatter into zeros]: scatter_nd writes its rows straight into a z
// it never reads when no row is hit twice (streamed when z is large:
// here the threshold is lowered so a small z takes that path too), fills
// only the rows nothing hits, and adds as 0 + update, so -0.0 comes out
// +0.0 as numpy's np.add.at into zeros gives. Rows hit twice take the
// general path. Every case at 1 and 2 threads, streamed or not.
TEST(ParallelScatter, ScatterNdIntoZerosWritesEachRowOnce) {
  constexpr int64_t kRows = 64, kCols = 32;  // rows of 128 bytes: whole streaming tiles
  struct Case {
    const char* name;
    std::vector<int64_t> rows;  // destination of update u
  };
  std::vector<Case> cases = {{"permutation", {}}, {"partial", {}}, {"duplicates", {}}};
  for (int64_t u = 0; u < kRows; ++u) cases[0].rows.push_back((u * 37) % kRows);
  for (int64_t u = 0; u < kRows / 2; ++u) cases[1].rows.push_back((u * 5) % kRows);
  for (int64_t u = 0; u < kRows; ++u) cases[2].rows.push_back(u % 7);
  for (const Case& c : cases) {
    const int64_t n = static_cast<int64_t>(c.rows.size());
    NDArray idx = zeros(DataType::kInt64, {n, 1});
    NDArray upd = zeros(DataType::kFloat32, {n, kCols});
    std::vector<double> want(kRows * kCols, 0.0);
    for (int64_t u = 0; u < n; ++u) {
      idx.set_double(u, static_cast<double>(c.rows[static_cast<size_t>(u)]));
      for (int64_t k = 0; k < kCols; ++k) {
        const double v = k == 0 ? -0.0 : static_cast<double>((u * 3 + k) % 11) - 5;
        upd.set_double(u * kCols + k, v);
        want[static_cast<size_t>(c.rows[static_cast<size_t>(u)] * kCols + k)] += v;
      }
    }
    NDArray shape = make(DataType::kInt64, {2}, {static_cast<double>(kRows), static_cast<double>(kCols)});
    for (int64_t threshold : {int64_t{1}, int64_t{0}})
      for (int threads : {1, 2}) {
        SCOPED_TRACE(testing::Message() << c.name << ", threshold " << threshold << ", threads " << threads);
        set_streaming_store_threshold(threshold);  // 1: stream everything; 0: the default (z stays in cache)
        set_num_threads(threads);
        Context ctx;
        const Status s = run_op("scatter_nd", {.in = {&idx, &upd, &shape}}, ctx);
        set_num_threads(0);
        set_streaming_store_threshold(0);
        ASSERT_OK(s);
        const NDArray& z = *ctx.output(0);
        ASSERT_EQ(values(z), want);
        for (int64_t i = 0; i < z.length(); ++i)
          ASSERT_FALSE(std::signbit(z.get_double(i)) && z.get_double(i) == 0.0) << "-0 at " << i;
      }
  }
}
