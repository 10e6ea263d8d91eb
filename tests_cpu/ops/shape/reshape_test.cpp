// reshape: C-order copies, one -1 extent, strided inputs, scalars, errors.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(ReshapeOp, InfersMinusOne) {
  NDArray x = make(DataType::kFloat32, {2, 3, 2}, iota(12, 1.5, -3));
  Context ctx;
  ASSERT_OK(run_op("reshape", {.in = {&x}, .i = {3, -1}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{3, 4}));
  EXPECT_TRUE(all_close(*ctx.output(0), iota(12, 1.5, -3)));
  EXPECT_FALSE(ctx.output(0)->may_overlap(x));  // a copy
}

TEST(ReshapeOp, StridedInputIsReadInCOrder) {
  NDArray x = make(DataType::kInt64, {2, 3}, {1, 2, 3, 4, 5, 6}), xt;
  ASSERT_OK(x.permute({1, 0}, xt));  // [[1,4],[2,5],[3,6]]
  Context ctx;
  ASSERT_OK(run_op("reshape", {.in = {&xt}, .i = {6}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 4, 2, 5, 3, 6}));
  // Into a supplied column-major output.
  NDArray buf = zeros(DataType::kInt64, {3, 2}), zt;
  ASSERT_OK(buf.permute({1, 0}, zt));  // [2,3] view
  Context ctx2;
  ASSERT_OK(run_op("reshape", {.in = {&xt}, .out = {&zt}, .i = {2, 3}}, ctx2));
  EXPECT_TRUE(all_close(zt, {1, 4, 2, 5, 3, 6}));
}

TEST(ReshapeOp, ScalarAndEmpty) {
  NDArray one = make(DataType::kFloat64, {1, 1}, {7});
  Context ctx;
  ASSERT_OK(run_op("reshape", {.in = {&one}}, ctx));
  EXPECT_EQ(ctx.output(0)->rank(), 0);
  EXPECT_TRUE(all_close(*ctx.output(0), {7}));
  NDArray e = zeros(DataType::kFloat32, {0, 4});
  Context ctx2;
  ASSERT_OK(run_op("reshape", {.in = {&e}, .i = {2, 0, 3}}, ctx2));
  EXPECT_EQ(ctx2.output(0)->shape(), (Dims{2, 0, 3}));
}

TEST(ReshapeOp, RejectsBadShapes) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  Context c1;
  Status s = run_op("reshape", {.in = {&x}, .i = {4, 2}}, c1);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "reshape: cannot reshape x[2,3] (6 elements) to [4,2] (8 elements)");
  Context c2;
  s = run_op("reshape", {.in = {&x}, .i = {-1, -1}}, c2);
  EXPECT_EQ(s.message(), "reshape: cannot reshape x[2,3] to [-1,-1]: at most one extent may be -1");
  Context c3;
  s = run_op("reshape", {.in = {&x}, .i = {4, -1}}, c3);
  EXPECT_EQ(s.message(), "reshape: cannot reshape x[2,3] (6 elements) to [4,-1]: the -1 extent cannot be inferred");
  Context c4;
  s = run_op("reshape", {.in = {&x}, .i = {-2, -3}}, c4);
  EXPECT_EQ(s.message(), "reshape: shape value 0 (i arg 0) is -2: it must be >= -1");
}

// copy_zeros (ONNX Reshape's allowzero = 0): a 0 takes x's extent there,
// also when the shape comes as input 1.
TEST(ReshapeOp, CopyZerosTakesXsExtent) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  NDArray shape = make(DataType::kInt64, {2}, {0, -1});
  Context ctx;
  ASSERT_OK(run_op("reshape", {.in = {&x, &shape}, .b = {true}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 12}));
  EXPECT_TRUE(all_close(*ctx.output(0), iota(24)));
  // Without it a 0 is an extent of 0.
  Context plain;
  Status s = run_op("reshape", {.in = {&x, &shape}}, plain);
  EXPECT_EQ(s.message(), "reshape: cannot reshape x[2,3,4] (24 elements) to [0,-1]: the -1 extent cannot be inferred");
  NDArray far = make(DataType::kInt64, {4}, {2, 3, 4, 0});
  Context ctx2;
  s = run_op("reshape", {.in = {&x, &far}, .b = {true}}, ctx2);
  EXPECT_EQ(s.message(), "reshape: cannot reshape x[2,3,4] to [2,3,4,0]: the 0 at dim 3 copies a dim x lacks");
}

// shape_of: the extents as int64, the whole shape or [start, end).
TEST(ShapeOfOp, GivesTheExtents) {
  NDArray x = make(DataType::kFloat16, {2, 3, 4, 5}, std::vector<double>(120, 0.0));
  Context all;
  ASSERT_OK(run_op("shape_of", {.in = {&x}}, all));
  EXPECT_EQ(all.output(0)->dtype(), DataType::kInt64);
  EXPECT_TRUE(all_close(*all.output(0), {2, 3, 4, 5}, 0, 0));
  Context middle;
  ASSERT_OK(run_op("shape_of", {.in = {&x}, .i = {1, -1}}, middle));
  EXPECT_TRUE(all_close(*middle.output(0), {3, 4}, 0, 0));
  Context none;
  ASSERT_OK(run_op("shape_of", {.in = {&x}, .i = {3, 1}}, none));
  EXPECT_EQ(none.output(0)->shape(), (Dims{0}));
  NDArray scalar = make(DataType::kInt32, {}, {7});
  Context s0;
  ASSERT_OK(run_op("shape_of", {.in = {&scalar}}, s0));
  EXPECT_EQ(s0.output(0)->shape(), (Dims{0}));
}
