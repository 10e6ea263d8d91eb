// concat along each axis, with negative axes, empty inputs, strided inputs,
// many dtypes (no per-dtype code), and shape/dtype errors.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(ConcatOp, AlongEachAxis) {
  NDArray a = make(DataType::kFloat32, {2, 2}, {1, 2, 3, 4});
  NDArray b = make(DataType::kFloat32, {2, 2}, {5, 6, 7, 8});
  Context c0;
  ASSERT_OK(run_op("concat", {.in = {&a, &b}, .i = {0}}, c0));
  EXPECT_EQ(c0.output(0)->shape(), (Dims{4, 2}));
  EXPECT_TRUE(all_close(*c0.output(0), {1, 2, 3, 4, 5, 6, 7, 8}));
  Context c1;
  ASSERT_OK(run_op("concat", {.in = {&a, &b}, .i = {-1}}, c1));
  EXPECT_EQ(c1.output(0)->shape(), (Dims{2, 4}));
  EXPECT_TRUE(all_close(*c1.output(0), {1, 2, 5, 6, 3, 4, 7, 8}));
  Context cd;  // no i arg: axis 0
  ASSERT_OK(run_op("concat", {.in = {&a, &b}}, cd));
  EXPECT_EQ(cd.output(0)->shape(), (Dims{4, 2}));
}

TEST(ConcatOp, ThreeInputsMiddleAxisWithEmptyAndStrided) {
  NDArray a = make(DataType::kInt16, {2, 1, 2}, {1, 2, 3, 4});
  NDArray e = zeros(DataType::kInt16, {2, 0, 2});
  NDArray full = make(DataType::kInt16, {2, 2, 2}, {5, 6, 7, 8, 9, 10, 11, 12}), b;
  ASSERT_OK(full.permute({0, 2, 1}, b));  // [2,2,2] view: [[5,7],[6,8]], [[9,11],[10,12]]
  Context ctx;
  ASSERT_OK(run_op("concat", {.in = {&a, &e, &b}, .i = {1}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 3, 2}));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kInt16);
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 2, 5, 7, 6, 8, 3, 4, 9, 11, 10, 12}));
}

TEST(ConcatOp, SingleInputAndAllEmpty) {
  NDArray a = make(DataType::kFloat64, {3}, {1, 2, 3});
  Context ctx;
  ASSERT_OK(run_op("concat", {.in = {&a}, .i = {0}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 2, 3}));
  NDArray e1 = zeros(DataType::kFloat64, {0, 3}), e2 = zeros(DataType::kFloat64, {0, 3});
  Context ctx2;
  ASSERT_OK(run_op("concat", {.in = {&e1, &e2}, .i = {0}}, ctx2));
  EXPECT_EQ(ctx2.output(0)->shape(), (Dims{0, 3}));
}

TEST(ConcatOp, RejectsMismatchedShapesDtypesAndAxes) {
  NDArray a = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray b = make(DataType::kFloat32, {2, 4}, iota(8));
  Context ctx;
  Status s = run_op("concat", {.in = {&a, &b}, .i = {0}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "concat: cannot concatenate input 0 [2,3] with input 1 [2,4] along axis 0: all dims but the axis must "
            "match");
  NDArray c = make(DataType::kFloat32, {2, 3, 1}, iota(6));
  Context ctx2;
  s = run_op("concat", {.in = {&a, &c}, .i = {1}}, ctx2);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  NDArray d = make(DataType::kInt32, {2, 3}, iota(6));
  Context ctx3;
  s = run_op("concat", {.in = {&a, &d}, .i = {0}}, ctx3);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "concat: inputs must share one dtype: input 0 is float32, input 1 is int32");
  Context ctx4;
  s = run_op("concat", {.in = {&a, &a}, .i = {2}}, ctx4);
  EXPECT_EQ(s.message(), "concat: axis (i arg 0) is 2: it must be an axis of input 0 (xs) [2,3], in [-2, 1]");
  Context ctx5;
  s = run_op("concat", {.i = {0}}, ctx5);
  EXPECT_EQ(s.message(), "concat: takes at least 1 inputs (xs...), got 0");
  NDArray sc = make(DataType::kFloat32, {}, {1});
  Context ctx6;
  s = run_op("concat", {.in = {&sc, &sc}, .i = {0}}, ctx6);
  EXPECT_EQ(s.message(), "concat: axis (i arg 0) is 0, but input 0 (xs) is a scalar, which has no axes");
}
