// reduce_sum against numpy goldens (tools/gen_goldens_custom_ops.py) over
// several axis sets, with and without keep_dims; integer sums; errors.
#include <string>

#include "golden_util.h"
#include "op_test_util.h"
#include "reduce_goldens.h"

using namespace libops;
using namespace libops::test;

TEST(ReduceSumOp, MatchesNumpyOverAxisSets) { expect_reduce_matches_goldens("reduce_sum", 1e-5); }

TEST(ReduceSumOp, IntegerSumKeepsDtype) {
  NDArray x = make(DataType::kInt32, {2, 3}, {1, -2, 3, 40, 50, -60});
  Context ctx;
  ASSERT_OK(run_op("reduce_sum", {.in = {&x}, .i = {0}, .b = {false}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kInt32);
  EXPECT_TRUE(all_close(*ctx.output(0), {41, 48, -57}));
}

TEST(ReduceSumOp, StridedInputAndEmptyAxis) {
  NDArray x = make(DataType::kFloat64, {3, 2}, {1, 2, 3, 4, 5, 6}), xt;
  ASSERT_OK(x.permute({1, 0}, xt));  // [[1,3,5],[2,4,6]]
  Context ctx;
  ASSERT_OK(run_op("reduce_sum", {.in = {&xt}, .i = {1}, .b = {false}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {9, 12}));
  NDArray e = zeros(DataType::kFloat32, {2, 0});
  Context ctx2;
  ASSERT_OK(run_op("reduce_sum", {.in = {&e}, .i = {1}, .b = {false}}, ctx2));  // Note [Empty reductions]: 0
  EXPECT_TRUE(all_close(*ctx2.output(0), {0, 0}));
}

TEST(ReduceSumOp, RejectsBadAxesAndDtypes) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  Context ctx;
  Status s = run_op("reduce_sum", {.in = {&x}, .i = {2}, .b = {false}}, ctx);
  EXPECT_EQ(s.message(), "reduce_sum: axes (i arg 0) is 2: it must be an axis of input 0 (x) [2,3], in [-2, 1]");
  Context ctx2;
  s = run_op("reduce_sum", {.in = {&x}, .i = {1, -1}, .b = {false}}, ctx2);
  EXPECT_EQ(s.message(), "reduce_sum: axes names axis 1 twice (i args 0 and 1)");
  NDArray b = make(DataType::kBool, {2}, {1, 0});
  Context ctx3;
  s = run_op("reduce_sum", {.in = {&b}, .b = {false}}, ctx3);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_NE(s.message().find("reduce_sum: unsupported dtype bool"), std::string::npos) << s.message();
}
