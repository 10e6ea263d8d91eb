// add, divide and squared_difference by hand: broadcasting, promotion, errors.
// Each call is an OpCall run by run_op (op_test_util.h), as in every op test.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(AddOp, BroadcastsRowAgainstMatrix) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray y = make(DataType::kFloat32, {3}, {10, 20, 30});
  Context ctx;
  ASSERT_OK(run_op("add", {.in = {&x, &y}}, ctx));
  ASSERT_EQ(ctx.num_outputs(), 1);
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 3}));
  EXPECT_TRUE(all_close(*ctx.output(0), {11, 22, 33, 14, 25, 36}));
}

TEST(AddOp, PromotesInt32AndFloat16ToFloat16) {
  NDArray x = make(DataType::kInt32, {3}, {1, -2, 3});
  NDArray y = make(DataType::kFloat16, {3}, {0.5, 0.25, -0.125});
  Context ctx;
  ASSERT_OK(run_op("add", {.in = {&x, &y}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kFloat16);
  EXPECT_TRUE(all_close(*ctx.output(0), {1.5, -1.75, 2.875}));
}

TEST(AddOp, RejectsIncompatibleShapesWithMessage) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray y = make(DataType::kFloat32, {4, 3}, iota(12));
  Context ctx;
  Status s = run_op("add", {.in = {&x, &y}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "add: cannot broadcast shapes [2,3] and [4,3]: dim 0 must be equal or 1");
}

TEST(DivideOp, IntegerDivisionByZeroIsZero) {
  NDArray x = make(DataType::kInt32, {4}, {7, -7, 5, 9});
  NDArray y = make(DataType::kInt32, {4}, {2, 2, 0, -3});
  Context ctx;
  ASSERT_OK(run_op("divide", {.in = {&x, &y}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {3, -3, 0, -3}));
}

TEST(SquaredDifferenceOp, ReadmeExampleComputesBroadcastSquares) {
  NDArray x = make(DataType::kFloat64, {2, 2}, {1, -2, 3.5, 0});
  NDArray y = make(DataType::kInt32, {2}, {3, -1});
  Context ctx;
  ASSERT_OK(run_op("squared_difference", {.in = {&x, &y}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kFloat64);
  EXPECT_TRUE(all_close(*ctx.output(0), {4, 1, 0.25, 1}));
  NDArray b = make(DataType::kBool, {2}, {1, 0});
  Context bad;
  Status s = run_op("squared_difference", {.in = {&b, &b}}, bad);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_NE(s.message().find("squared_difference: unsupported dtype bool for input 0"), std::string::npos) << s.message();
}
