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

}  // namespace
