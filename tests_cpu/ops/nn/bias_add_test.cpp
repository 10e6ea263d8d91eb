// bias_add: the channel axis (last, NCHW's 1), dtypes, in place, errors.
#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

TEST(BiasAddOp, LastAxisByDefault) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray b = make(DataType::kFloat32, {3}, {10, 20, 30});
  Context ctx;
  ASSERT_OK(run_op("bias_add", {.in = {&x, &b}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {11, 22, 33, 14, 25, 36}));
}

TEST(BiasAddOp, ChannelAxisOneForNCHW) {
  // x [1, 2, 2, 2] = 0..7; channel 0 gets +100, channel 1 gets -100.
  NDArray x = make(DataType::kFloat64, {1, 2, 2, 2}, iota(8));
  NDArray b = make(DataType::kFloat64, {2}, {100, -100});
  Context ctx;
  ASSERT_OK(run_op("bias_add", {.in = {&x, &b}, .i = {1}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {100, 101, 102, 103, -96, -95, -94, -93}));
}

TEST(BiasAddOp, Float16AndInt32InPlace) {
  NDArray h = make(DataType::kFloat16, {2, 2}, {0.5, -1, 2, 4});
  NDArray hb = make(DataType::kFloat16, {2}, {0.25, 1});
  Context c1;
  ASSERT_OK(run_op("bias_add", {.in = {&h, &hb}, .i = {-1}, .inplace = true}, c1));
  EXPECT_TRUE(all_close(h, {0.75, 0, 2.25, 5}));
  NDArray i = make(DataType::kInt32, {3, 1}, {1, 2, 3});
  NDArray ib = make(DataType::kInt32, {3}, {-1, -2, -3});
  Context c2;
  ASSERT_OK(run_op("bias_add", {.in = {&i, &ib}, .i = {0}}, c2));
  EXPECT_TRUE(all_close(*c2.output(0), {0, 0, 0}));
}

TEST(BiasAddOp, RejectsMismatches) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  NDArray b = make(DataType::kFloat32, {3}, {1, 2, 3});
  Context c1;
  Status s = run_op("bias_add", {.in = {&x, &b}}, c1);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "bias_add: bias b[3] does not match x[2,3,4] at axis 2: b must be [4]");
  Context c2;
  s = run_op("bias_add", {.in = {&x, &b}, .i = {3}}, c2);
  EXPECT_EQ(s.message(), "bias_add: axis (i arg 0) is 3: it must be an axis of input 0 (x) [2,3,4], in [-3, 2]");
  NDArray bd = make(DataType::kFloat64, {4}, {1, 2, 3, 4});
  Context c3;
  s = run_op("bias_add", {.in = {&x, &bd}}, c3);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
}

}  // namespace
