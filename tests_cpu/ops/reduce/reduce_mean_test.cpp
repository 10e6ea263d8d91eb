// reduce_mean against numpy goldens over several axis sets; integer input
// gives float32; errors.
#include <string>

#include "golden_util.h"
#include "op_test_util.h"
#include "reduce_goldens.h"

using namespace libops;
using namespace libops::test;

TEST(ReduceMeanOp, MatchesNumpyOverAxisSets) { expect_reduce_matches_goldens("reduce_mean", 1e-5); }

TEST(ReduceMeanOp, IntegerInputGivesFloat32) {
  NDArray x = load_golden("custom_ops/reduce_int_x.npy");  // int32 [3,4]
  NDArray want = load_golden("custom_ops/reduce_mean_int_1_z.npy");
  Context ctx;
  ASSERT_OK(run_op("reduce_mean", {.in = {&x}, .i = {1}, .b = {false}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kFloat32);
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{3}));
  EXPECT_TRUE(all_close(*ctx.output(0), values(want), 1e-6, 1e-6));
}

TEST(ReduceMeanOp, Float64StaysFloat64) {
  NDArray x = make(DataType::kFloat64, {2, 2}, {1, 2, 4, 8});
  Context ctx;
  ASSERT_OK(run_op("reduce_mean", {.in = {&x}, .b = {true}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kFloat64);
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{1, 1}));
  EXPECT_TRUE(all_close(*ctx.output(0), {3.75}));
}

TEST(ReduceMeanOp, RejectsBadAxis) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  Context ctx;
  Status s = run_op("reduce_mean", {.in = {&x}, .i = {-3}, .b = {false}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "reduce_mean: axes (i arg 0) is -3: it must be an axis of input 0 (x) [2,3], in [-2, 1]");
  Context ctx2;
  s = run_op("reduce_mean", {}, ctx2);
  EXPECT_EQ(s.message(), "reduce_mean: takes 1 to 2 inputs (x, axes?), got 0");
}
