// assert_true: x through when the condition holds everywhere (an empty one
// included); the first false element named otherwise; dtypes checked.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(AssertTrueOp, PassesXThroughWhenEveryElementHolds) {
  NDArray cond = make(DataType::kBool, {3}, {1, 1, 1});
  NDArray x = make(DataType::kInt64, {2}, {-3, 7});
  Context ctx;
  ASSERT_OK(run_op("assert_true", {.in = {&cond, &x}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kInt64);
  EXPECT_TRUE(all_close(*ctx.output(0), {-3, 7}, 0, 0));
  NDArray none = make(DataType::kBool, {0}, {});
  Context c2;
  ASSERT_OK(run_op("assert_true", {.in = {&none, &x}}, c2));
  EXPECT_TRUE(all_close(*c2.output(0), {-3, 7}, 0, 0));
}

TEST(AssertTrueOp, NamesTheFirstFalseElement) {
  NDArray cond = make(DataType::kBool, {2, 2}, {1, 1, 0, 0});
  NDArray x = make(DataType::kFloat32, {}, {1});
  Context ctx;
  Status s = run_op("assert_true", {.in = {&cond, &x}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("assert_true: the condition bool[2,2] is false at element 2"), std::string::npos)
      << s.message();
  NDArray ints = make(DataType::kInt32, {1}, {1});
  Context c2;
  EXPECT_EQ(run_op("assert_true", {.in = {&ints, &x}}, c2).code(), StatusCode::kDtype);
}
