// reduce_max against numpy goldens over several axis sets, integers,
// strided input, and errors.
#include <string>

#include "golden_util.h"
#include "op_test_util.h"
#include "reduce_goldens.h"

using namespace libops;
using namespace libops::test;

TEST(ReduceMaxOp, MatchesNumpyOverAxisSets) { expect_reduce_matches_goldens("reduce_max", 0); }

TEST(ReduceMaxOp, IntegersAndStridedInput) {
  NDArray base = make(DataType::kInt64, {3, 2}, {-7, 2, 5, -9, 1, 4}), x;
  ASSERT_OK(base.permute({1, 0}, x));  // [[-7,5,1],[2,-9,4]]
  Context ctx;
  ASSERT_OK(run_op("reduce_max", {.in = {&x}, .i = {1}, .b = {true}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kInt64);
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 1}));
  EXPECT_TRUE(all_close(*ctx.output(0), {5, 4}, 0, 0));
}

TEST(ReduceMaxOp, RejectsBadAxis) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  Context ctx;
  Status s = run_op("reduce_max", {.in = {&x}, .i = {0, 5}, .b = {false}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "reduce_max: axes (i arg 1) is 5: it must be an axis of input 0 (x) [2,3], in [-2, 1]");
}
