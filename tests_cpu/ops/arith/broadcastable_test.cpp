// The broadcastable ops (add, subtract, ...) trust what DeclarableOp::execute
// proved and compute through legacy::exec_pairwise_prechecked; supplied
// outputs that the op's checks do not cover must still be refused.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(BroadcastableOps, InPlaceWritesIntoInputZero) {
  NDArray x = make(DataType::kFloat32, {2, 2}, {1, 2, 3, 4});
  NDArray y = make(DataType::kFloat32, {2}, {10, -10});
  Context ctx;
  ASSERT_OK(run_op("add", {.in = {&x, &y}, .inplace = true}, ctx));
  EXPECT_TRUE(ctx.output(0)->same_view(x));
  EXPECT_EQ(values(x), (std::vector<double>{11, -8, 13, -6}));
}

TEST(BroadcastableOps, WritesIntoASuppliedStridedOutput) {
  NDArray base = zeros(DataType::kFloat32, {6});
  NDArray z;
  ASSERT_OK(base.slice(0, 0, 6, 2, z));
  NDArray x = make(DataType::kFloat32, {3}, {5, 7, 9});
  NDArray y = make(DataType::kFloat32, {3}, {1, 2, 4});
  Context ctx;
  ASSERT_OK(run_op("subtract", {.in = {&x, &y}, .out = {&z}}, ctx));
  EXPECT_EQ(values(base), (std::vector<double>{4, 0, 5, 0, 5, 0}));
}

TEST(BroadcastableOps, RefusesASuppliedOutputOverlappingAnInput) {
  NDArray base = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  NDArray x, z;
  ASSERT_OK(base.slice(0, 0, 3, 1, x));
  ASSERT_OK(base.slice(0, 1, 4, 1, z));
  NDArray y = make(DataType::kFloat32, {3}, {1, 1, 1});
  Context ctx;
  Status s = run_op("add", {.in = {&x, &y}, .out = {&z}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("add: ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("output z partially overlaps input x"), std::string::npos) << s.message();
  EXPECT_EQ(values(base), (std::vector<double>{1, 2, 3, 4}));
}

TEST(BroadcastableOps, RefusesABroadcastViewAsOutput) {
  NDArray one = make(DataType::kFloat32, {1}, {0});
  NDArray z;
  ASSERT_OK(one.broadcast_to({3}, z));
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  Context ctx;
  Status s = run_op("multiply", {.in = {&x, &x}, .out = {&z}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("is a broadcast view"), std::string::npos) << s.message();
  EXPECT_EQ(values(one), (std::vector<double>{0}));
}

TEST(BroadcastableOps, RefusesASuppliedOutputOfAnotherShapeOrDtype) {
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray z2 = zeros(DataType::kFloat32, {2});
  Context c1;
  Status s = run_op("divide", {.in = {&x, &x}, .out = {&z2}}, c1);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "divide: output 0 is float32[2] but the op produces float32[3]");
  NDArray zi = zeros(DataType::kInt32, {3});
  Context c2;
  s = run_op("divide", {.in = {&x, &x}, .out = {&zi}}, c2);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "divide: output 0 is int32[3] but the op produces float32[3]");
}
