// relu and its threshold: hand values over dtypes, NaN, views, in place.
#include <limits>

#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

TEST(ReluOp, FloatDtypesByHand) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DataType dt : {DataType::kFloat64, DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}) {
    NDArray x = make(dt, {2, 3}, {-2.5, -0.0, 0.5, nan, 3, -1e-3});
    Context ctx;
    ASSERT_OK(run_op("relu", {.in = {&x}}, ctx));
    EXPECT_EQ(ctx.output(0)->dtype(), dt);
    EXPECT_TRUE(all_close(*ctx.output(0), {0, 0, 0.5, nan, 3, 0})) << dtype_name(dt);
  }
}

TEST(ReluOp, ThresholdZeroesValuesAtOrBelowIt) {
  NDArray x = make(DataType::kFloat32, {5}, {-1, 0.5, 1, 1.5, 2});
  Context ctx;
  ASSERT_OK(run_op("relu", {.in = {&x}, .t = {1.0}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {0, 0, 0, 1.5, 2}));
}

TEST(ReluOp, IntegersCompareAgainstTheRealThreshold) {
  NDArray x = make(DataType::kInt32, {5}, {-3, -2, -1, 0, 4});
  Context ctx;
  ASSERT_OK(run_op("relu", {.in = {&x}, .t = {-1.5}}, ctx));  // -1 > -1.5 survives
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kInt32);
  EXPECT_TRUE(all_close(*ctx.output(0), {0, 0, -1, 0, 4}));
}

TEST(ReluOp, InPlaceAndStridedView) {
  NDArray base = make(DataType::kFloat64, {2, 3}, {-1, 2, -3, 4, -5, 6});
  NDArray xt = base.transpose();  // [3, 2], not C-contiguous
  Context ctx;
  ASSERT_OK(run_op("relu", {.in = {&xt}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {0, 4, 2, 0, 0, 6}));
  Context inplace;
  ASSERT_OK(run_op("relu", {.in = {&base}, .inplace = true}, inplace));
  EXPECT_TRUE(all_close(base, {0, 2, 0, 4, 0, 6}));
}

TEST(ReluOp, EmptyAndErrors) {
  NDArray e = zeros(DataType::kFloat32, {0, 4});
  Context ctx;
  ASSERT_OK(run_op("relu", {.in = {&e}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{0, 4}));
  NDArray b = make(DataType::kBool, {2}, {1, 0});
  Context c2;
  Status s = run_op("relu", {.in = {&b}}, c2);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_TRUE(has_substr(s.message(), "relu: unsupported dtype bool"));
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  Context c3;
  s = run_op("relu", {.in = {&x}, .t = {0.0, 1.0}}, c3);
  EXPECT_EQ(s.message(), "relu: takes at most 1 float (t) args (threshold); got 2: t arg 1 = 1 is not declared");
}

}  // namespace
