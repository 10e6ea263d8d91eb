// REDUCE3 (pairs x, y of one shape; float z): dot, manhattan, euclidean,
// cosine_similarity, cosine_distance, equals_with_eps, jaccard_distance,
// hamming_distance.
#include <cmath>
#include <limits>

#include "legacy/reduce_test_util.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

std::vector<double> pair_rows(const char* op, const NDArray& x, const NDArray& y, std::vector<double> extra = {}) {
  NDArray z = make_z(DataType::kFloat64, {x.dim(0)});
  Status s = run_reduce(OPS_REDUCE3, op_num(OPS_REDUCE3, op), x, &y, z, {1},
                        ExtraParams::from(extra.data(), static_cast<int>(extra.size())));
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

}  // namespace

TEST(Reduce3, EveryOpMatchesNumpyGoldens) { expect_group_goldens(OPS_REDUCE3); }

TEST(Reduce3, HandComputedRows) {
  NDArray x = make(DataType::kFloat64, {2, 3}, {1, 2, 2, 0, 0, 0});
  NDArray y = make(DataType::kFloat64, {2, 3}, {2, 2, 1, 1, 0, 2});
  EXPECT_TRUE(all_close(pair_rows("dot", x, y), {8, 0}));
  EXPECT_TRUE(all_close(pair_rows("manhattan", x, y), {2, 3}));
  EXPECT_TRUE(all_close(pair_rows("euclidean", x, y), {std::sqrt(2.0), std::sqrt(5.0)}));
  std::vector<double> cos = pair_rows("cosine_similarity", x, y);
  EXPECT_NEAR(cos[0], 8.0 / 9.0, 1e-12);
  EXPECT_TRUE(std::isnan(cos[1]));  // x row is all zeros: 0/0
  EXPECT_NEAR(pair_rows("cosine_distance", x, y)[0], 1.0 / 9.0, 1e-12);
  EXPECT_TRUE(all_close(pair_rows("jaccard_distance", x, y), {1.0 - 4.0 / 6.0, 1.0}));
  EXPECT_TRUE(all_close(pair_rows("hamming_distance", x, y), {2.0 / 3.0, 2.0 / 3.0}));  // a fraction
  EXPECT_TRUE(all_close(pair_rows("equals_with_eps", x, y), {2, 2}));                  // mismatch count
  EXPECT_TRUE(all_close(pair_rows("equals_with_eps", x, y, {1.0}), {0, 1}));
}

TEST(Reduce3, NanNeverMatches) {
  NDArray x = make(DataType::kFloat32, {1, 3}, {kNan, 1, 2});
  NDArray y = make(DataType::kFloat32, {1, 3}, {kNan, 1, 2.000001});
  EXPECT_TRUE(all_close(pair_rows("equals_with_eps", x, y), {1}));  // default eps 1e-5
  EXPECT_TRUE(all_close(pair_rows("hamming_distance", x, y), {2.0 / 3.0}));
  EXPECT_TRUE(std::isnan(pair_rows("dot", x, y)[0]));
}

TEST(Reduce3, MixedInputDtypesPromote) {
  NDArray x = make(DataType::kInt32, {2, 2}, {1, 2, 3, 4});
  NDArray y = make(DataType::kFloat64, {2, 2}, {0.5, 0.25, 2, 1});
  EXPECT_TRUE(all_close(pair_rows("dot", x, y), {1.0, 10.0}));
  // Transposed memory: the kept-inner path reads both inputs by rows.
  NDArray xt = transposed_view(cast(x, DataType::kFloat64)), yt = transposed_view(y);
  EXPECT_TRUE(all_close(pair_rows("dot", xt, yt), {1.0, 10.0}));
  EXPECT_TRUE(all_close(pair_rows("manhattan", xt, y), {2.25, 4.0}));
}

// libnd4j's reduce3 along dims: a vector x against every row of y.
TEST(Reduce3, VectorAgainstEveryRowOfY) {
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray y = make(DataType::kFloat32, {2, 3}, {1, 0, 1, 2, 2, 2});
  NDArray z = make_z(DataType::kFloat32, {2});
  ASSERT_OK(run_reduce(OPS_REDUCE3, op_num(OPS_REDUCE3, "dot"), x, &y, z, {1}));
  EXPECT_TRUE(all_close(z, {4, 12}));
  ASSERT_OK(run_reduce(OPS_REDUCE3, op_num(OPS_REDUCE3, "manhattan"), y, &x, z, {1}));
  EXPECT_TRUE(all_close(z, {4, 2}));  // |0|+|2|+|2|, |1|+|0|+|1|
  NDArray e = make_z(DataType::kFloat32, {2});
  ASSERT_OK(run_reduce(OPS_REDUCE3, op_num(OPS_REDUCE3, "euclidean"), x, &y, e, {-1}));
  EXPECT_TRUE(all_close(e, {std::sqrt(8.0), std::sqrt(2.0)}, 1e-6));
}

TEST(Reduce3, RejectsShapeMismatchAndBadEps) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray y = make(DataType::kFloat32, {3, 2}, iota(6));
  NDArray z = make_z(DataType::kFloat32, {2});
  Status s = run_reduce(OPS_REDUCE3, op_num(OPS_REDUCE3, "dot"), x, &y, z, {1});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "dot: cannot broadcast shapes [2,3] and [3,2]: dim 0 must be equal or 1");
  double eps = -1;
  s = run_reduce(OPS_REDUCE3, op_num(OPS_REDUCE3, "equals_with_eps"), x, &x, z, {1}, ExtraParams::from(&eps, 1));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "equals_with_eps: eps (extra[0]) is -1; expected a number >= 0");
  s = run_reduce(OPS_REDUCE3, op_num(OPS_REDUCE3, "dot"), x, nullptr, z, {1});
  EXPECT_EQ(s.code(), StatusCode::kNullPointer);
}

TEST(Reduce3, EmptyReductions) {
  NDArray x = make(DataType::kFloat32, {2, 0}, {});
  EXPECT_TRUE(all_close(pair_rows("dot", x, x), {0, 0}));
  EXPECT_TRUE(all_close(pair_rows("euclidean", x, x), {0, 0}));
  EXPECT_TRUE(all_close(pair_rows("equals_with_eps", x, x), {0, 0}));
  EXPECT_TRUE(std::isnan(pair_rows("hamming_distance", x, x)[0]));
  EXPECT_TRUE(std::isnan(pair_rows("cosine_similarity", x, x)[1]));
}
