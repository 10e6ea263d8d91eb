// tear: output count, shapes and values for several dim sets; errors.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(TearOp, AlongLastDim) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  Context ctx;
  ASSERT_OK(run_op("tear", {.in = {&x}, .i = {2}}, ctx));
  ASSERT_EQ(ctx.num_outputs(), 6);
  for (int t = 0; t < 6; ++t) {
    EXPECT_EQ(ctx.output(t)->shape(), (Dims{4}));
    EXPECT_TRUE(all_close(*ctx.output(t), iota(4, 1, 4 * t))) << t;
  }
}

TEST(TearOp, AlongTwoDimsAndNegative) {
  NDArray x = make(DataType::kInt32, {2, 3, 4}, iota(24));
  Context ctx;
  ASSERT_OK(run_op("tear", {.in = {&x}, .i = {-1, 0}}, ctx));
  ASSERT_EQ(ctx.num_outputs(), 3);
  for (int j = 0; j < 3; ++j) {
    // output j = x[:, j, :]
    EXPECT_EQ(ctx.output(j)->shape(), (Dims{2, 4}));
    std::vector<double> want;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) want.push_back(12 * i + 4 * j + k);
    EXPECT_TRUE(all_close(*ctx.output(j), want)) << j;
  }
  Context all;
  ASSERT_OK(run_op("tear", {.in = {&x}, .i = {0, 1, 2}}, all));
  ASSERT_EQ(all.num_outputs(), 1);
  EXPECT_TRUE(all_close(*all.output(0), iota(24)));
}

TEST(TearOp, RejectsBadDims) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  Context c1;
  Status s = run_op("tear", {.in = {&x}}, c1);
  EXPECT_EQ(s.message(), "tear: missing i arg 0 (dims: the dims each part spans); tear needs 1 integer (i) args (dims...), got 0");
  Context c2;
  s = run_op("tear", {.in = {&x}, .i = {2}}, c2);
  EXPECT_EQ(s.message(), "tear: dims (i arg 0) is 2: it must be an axis of input 0 (x) [2,3], in [-2, 1]");
  NDArray e = zeros(DataType::kFloat32, {0, 3});
  Context c3;
  s = run_op("tear", {.in = {&e}, .i = {1}}, c3);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "tear: x[0,3] has no sub-tensors along dims [1]: another dim has extent 0");
}
