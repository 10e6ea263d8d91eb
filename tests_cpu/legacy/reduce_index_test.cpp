// INDEX_REDUCE (int64 z): index_max, index_min, index_absolute_max,
// index_absolute_min, first_index, last_index.
#include <limits>

#include "legacy/reduce_test_util.h"
#include "libops/core/parallel.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

std::vector<double> index_of(const char* op, const NDArray& x, const std::vector<int64_t>& axes,
                             std::vector<double> extra = {}) {
  NDArray z = make_z(DataType::kInt64, reduced_dims(x.shape(), axes, false));
  Status s = run_reduce(OPS_INDEX_REDUCE, op_num(OPS_INDEX_REDUCE, op), x, nullptr, z, axes,
                        ExtraParams::from(extra.data(), static_cast<int>(extra.size())));
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

}  // namespace

TEST(ReduceIndex, EveryOpMatchesNumpyGoldens) { expect_group_goldens(OPS_INDEX_REDUCE); }

TEST(ReduceIndex, TiesPickTheFirstIndex) {
  NDArray x = make(DataType::kFloat32, {8}, {3, -1, 3, -3, 1, -1, -3, 3});
  EXPECT_TRUE(all_close(index_of("index_max", x, {}), {0}));
  EXPECT_TRUE(all_close(index_of("index_min", x, {}), {3}));
  EXPECT_TRUE(all_close(index_of("index_absolute_max", x, {}), {0}));
  EXPECT_TRUE(all_close(index_of("index_absolute_min", x, {}), {1}));
  // Reducing two axes: the index is the C-order position within them.
  NDArray m = make(DataType::kInt32, {2, 2, 3}, {0, 5, 1, 5, 2, 2, 9, 9, 0, 0, 9, 1});
  EXPECT_TRUE(all_close(index_of("index_max", m, {1, 2}), {1, 0}));
  EXPECT_TRUE(all_close(index_of("index_max", m, {0, 2}), {3, 4}));
  EXPECT_TRUE(all_close(index_of("index_min", m, {0, 1}), {0, 1, 2}));
}

TEST(ReduceIndex, NanWinsAndTheFirstNanIsReturned) {
  NDArray x = make(DataType::kFloat64, {6}, {1, kNan, 7, kNan, -9, 0});
  for (const char* op : {"index_max", "index_min", "index_absolute_max", "index_absolute_min"})
    EXPECT_TRUE(all_close(index_of(op, x, {}), {1})) << op;
}

TEST(ReduceIndex, FirstAndLastIndexOfACondition) {
  NDArray x = make(DataType::kFloat32, {2, 5}, {0, 4, -1, 4, 2, -5, -6, -7, -8, -9});
  EXPECT_TRUE(all_close(index_of("first_index", x, {1}, {4, 1.5}), {1, -1}));  // x > 1.5
  EXPECT_TRUE(all_close(index_of("last_index", x, {1}, {4, 1.5}), {4, -1}));
  EXPECT_TRUE(all_close(index_of("first_index", x, {1}, {2, -6.5}), {-1, 2}));  // x < -6.5
  EXPECT_TRUE(all_close(index_of("last_index", x, {1}, {0, 4}), {3, -1}));      // x == 4
  NDArray z = make_z(DataType::kInt64, {2});
  double bad[] = {99, 0};
  Status s = run_reduce(OPS_INDEX_REDUCE, op_num(OPS_INDEX_REDUCE, "first_index"), x, nullptr, z, {1},
                        ExtraParams::from(bad, 2));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("first_index: condition mode (extra[0]) is 99"), std::string::npos) << s.message();
}

TEST(ReduceIndex, EmptyReductionsGiveMinusOne) {
  NDArray x = make(DataType::kFloat32, {3, 0}, {});
  for (const char* op : {"index_max", "index_min", "index_absolute_max", "index_absolute_min", "first_index",
                         "last_index"})
    EXPECT_TRUE(all_close(index_of(op, x, {1}), {-1, -1, -1})) << op;
}

TEST(ReduceIndex, LargeReductionTiesAcrossChunksWithOneAndTwoThreads) {
  // 200000 elements (four chunks of the generic path); the maximum appears
  // at 70000 and 150000, the minimum at 199999 and 65536.
  const int64_t n = 200000;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = double((i * 7919) % 1000);
  v[70000] = v[150000] = 5000;
  v[65536] = v[199999] = -5000;
  NDArray x = make(DataType::kFloat32, {n}, v);
  // Two columns whose memory puts the kept dim innermost (kept-inner path).
  std::vector<double> w(static_cast<size_t>(2 * n));
  for (int64_t i = 0; i < n; ++i) w[size_t(2 * i)] = w[size_t(2 * i + 1)] = v[size_t(i)];
  NDArray cols = make(DataType::kFloat32, {n, 2}, w);
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    SCOPED_TRACE(threads);
    EXPECT_TRUE(all_close(index_of("index_max", x, {}), {70000}));
    EXPECT_TRUE(all_close(index_of("index_min", x, {}), {65536}));
    EXPECT_TRUE(all_close(index_of("index_absolute_max", x, {}), {65536}));  // |-5000| ties 5000
    EXPECT_TRUE(all_close(index_of("last_index", x, {}, {0, 5000}), {150000}));
    EXPECT_TRUE(all_close(index_of("index_max", cols, {0}), {70000, 70000}));
    EXPECT_TRUE(all_close(index_of("index_min", cols, {0}), {65536, 65536}));
    EXPECT_TRUE(all_close(index_of("first_index", cols, {0}, {3, -5000}), {65536, 65536}));
  }
  set_num_threads(0);
}

// Over many 4096-element blocks the dense pick skips every block whose best
// cannot beat the pick so far: a tie in a later block must keep the earlier
// position, a larger value later must win, and a NaN anywhere wins for good.
TEST(ReduceIndex, LaterBlocksTieBeatOrHoldNaN) {
  const int64_t n = 3 * 4096 + 37;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<double>((i * 37) % 101) / 100.0;  // <= 1
  v[5000] = 7;   // block 1
  v[9000] = 7;   // block 2: a tie, later
  v[12300] = -9; // the minimum, in the short last block's neighbour
  NDArray x = make(DataType::kFloat32, {n}, v);
  EXPECT_EQ(index_of("index_max", x, {0}), (std::vector<double>{5000}));
  EXPECT_EQ(index_of("index_min", x, {0}), (std::vector<double>{12300}));
  EXPECT_EQ(index_of("index_absolute_max", x, {0}), (std::vector<double>{12300}));
  v[9000] = 8;  // now larger, later
  NDArray y = make(DataType::kFloat32, {n}, v);
  EXPECT_EQ(index_of("index_max", y, {0}), (std::vector<double>{9000}));
  v[200] = kNan;  // a NaN in block 0 wins over everything after it
  v[8000] = kNan;
  NDArray z = make(DataType::kFloat32, {n}, v);
  EXPECT_EQ(index_of("index_max", z, {0}), (std::vector<double>{200}));
  EXPECT_EQ(index_of("index_min", z, {0}), (std::vector<double>{200}));
}
