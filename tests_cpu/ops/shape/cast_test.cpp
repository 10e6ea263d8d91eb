// cast: float -> int (truncating, saturating, NaN -> 0), int -> float16,
// target given as d arg or as i arg; errors.
#include <cmath>
#include <limits>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(CastOp, FloatToIntSaturatesAndMapsNaNToZero) {
  const double inf = std::numeric_limits<double>::infinity();
  NDArray x = make(DataType::kFloat32, {7}, {1.9, -1.9, 3e9, -3e9, std::nan(""), inf, -0.5});
  Context ctx;
  ASSERT_OK(run_op("cast", {.in = {&x}, .d = {DataType::kInt32}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kInt32);
  EXPECT_TRUE(all_close(*ctx.output(0), {1, -1, 2147483647, -2147483648.0, 0, 2147483647, 0}, 0, 0));
  NDArray y = make(DataType::kFloat64, {3}, {300.7, -5, 255.2});
  Context c2;
  ASSERT_OK(run_op("cast", {.in = {&y}, .i = {OPS_DTYPE_UINT8}}, c2));  // target as an i arg
  EXPECT_EQ(c2.output(0)->dtype(), DataType::kUInt8);
  EXPECT_TRUE(all_close(*c2.output(0), {255, 0, 255}, 0, 0));
}

TEST(CastOp, IntToFloat16Rounds) {
  NDArray x = make(DataType::kInt32, {4}, {1, 2049, -70000, 65504});
  Context ctx;
  ASSERT_OK(run_op("cast", {.in = {&x}, .i = {OPS_DTYPE_FLOAT16}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kFloat16);
  // 2049 rounds to even (2048); beyond 65504 + half an ulp is inf.
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 2048, -std::numeric_limits<double>::infinity(), 65504}, 0, 0));
}

TEST(CastOp, StridedInputAndBool) {
  NDArray base = make(DataType::kFloat64, {2, 2}, {0, 2.5, -1, 0}), xt;
  ASSERT_OK(base.permute({1, 0}, xt));  // [[0,-1],[2.5,0]]
  Context ctx;
  ASSERT_OK(run_op("cast", {.in = {&xt}, .d = {DataType::kBool}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {0, 1, 1, 0}, 0, 0));
}

TEST(CastOp, RejectsMissingOrBadTarget) {
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  Context c1;
  Status s = run_op("cast", {.in = {&x}}, c1);
  EXPECT_EQ(s.message(), "cast: no target dtype: give it as d arg 0 (dtype) or as i arg 0 (dtype_number, an ops_dtype_t number)");
  Context c2;
  s = run_op("cast", {.in = {&x}, .i = {99}}, c2);
  EXPECT_EQ(s.message(), "cast: i arg 0 (dtype_number) is 99: it must be in [0, 13]");
  Context c3;
  s = run_op("cast", {.in = {&x}, .d = {DataType::kInvalid}}, c3);
  EXPECT_EQ(s.message(), "cast: no target dtype: give it as d arg 0 (dtype) or as i arg 0 (dtype_number, an ops_dtype_t number)");
}
