// permute: materialized copies of permuted views; default reversal; errors.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(PermuteOp, ThreeDims) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  Context ctx;
  ASSERT_OK(run_op("permute", {.in = {&x}, .i = {2, 0, 1}}, ctx));
  const NDArray& z = *ctx.output(0);
  EXPECT_EQ(z.shape(), (Dims{4, 2, 3}));
  EXPECT_TRUE(z.is_c_contiguous());
  // z[i][j][k] = x[j][k][i] = 12 j + 4 k + i.
  std::vector<double> want;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) want.push_back(12 * j + 4 * k + i);
  EXPECT_TRUE(all_close(z, want));
}

TEST(PermuteOp, NegativeAxesAndDefaultReverse) {
  NDArray x = make(DataType::kUInt8, {2, 3}, {1, 2, 3, 4, 5, 6});
  Context c1;
  ASSERT_OK(run_op("permute", {.in = {&x}, .i = {-1, 0}}, c1));
  EXPECT_TRUE(all_close(*c1.output(0), {1, 4, 2, 5, 3, 6}));
  Context c2;
  ASSERT_OK(run_op("permute", {.in = {&x}}, c2));
  EXPECT_EQ(c2.output(0)->shape(), (Dims{3, 2}));
  EXPECT_TRUE(all_close(*c2.output(0), {1, 4, 2, 5, 3, 6}));
}

TEST(PermuteOp, RejectsNonPermutations) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  Context c1;
  Status s = run_op("permute", {.in = {&x}, .i = {0, 1}}, c1);
  EXPECT_EQ(s.message(), "permute: permutation [0,1] has 2 entries for x[2,3,4] of rank 3");
  Context c2;
  s = run_op("permute", {.in = {&x}, .i = {0, 1, 1}}, c2);
  EXPECT_EQ(s.message(), "permute: [0,1,1] is not a permutation of the 3 dims of x[2,3,4]");
  Context c3;
  s = run_op("permute", {.in = {&x}, .i = {0, 1, 3}}, c3);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}
