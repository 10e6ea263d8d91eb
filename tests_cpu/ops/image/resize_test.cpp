// resize beyond the goldens of tests_cpu/golden/image (tools/
// gen_goldens_image.py, run by golden_ops_test.cpp): values by hand, float16,
// an empty output, and the errors.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// 1 x 2 -> 1 x 4, linear, half_pixel: source x = (o + 0.5) / 2 - 0.5 =
// -0.25, 0.25, 0.75, 1.25 -> clamped taps give 10, 12.5, 17.5, 20.
TEST(Resize, LinearByHand) {
  for (DataType dt : {DataType::kFloat64, DataType::kFloat32, DataType::kFloat16}) {
    NDArray x = make(dt, {1, 1, 1, 2}, {10, 20});
    Context ctx;
    ASSERT_OK(run_op("resize", {.in = {&x}, .i = {1, 4, 1}}, ctx));
    EXPECT_EQ(ctx.output(0)->dtype(), dt);
    EXPECT_TRUE(all_close(*ctx.output(0), {10, 12.5, 17.5, 20})) << dtype_name(dt);
  }
}

// Nearest, asymmetric, floor: every source index is floor(o * in / out).
TEST(Resize, NearestNhwcByHand) {
  NDArray x = make(DataType::kFloat32, {1, 1, 3, 2}, {1, 2, 3, 4, 5, 6});  // 3 pixels of 2 channels
  Context ctx;
  ASSERT_OK(run_op("resize", {.in = {&x}, .i = {1, 2, 0, 1, 2, 1}}, ctx));  // 1 x 3 -> 1 x 2
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{1, 1, 2, 2}));
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 2, 3, 4}));  // pixels 0 and floor(1 * 3 / 2) = 1
}

TEST(Resize, EmptyOutputAndErrors) {
  NDArray x = zeros(DataType::kFloat32, {1, 2, 3, 4});
  Context ok;
  ASSERT_OK(run_op("resize", {.in = {&x}, .i = {0, 5}}, ok));
  EXPECT_EQ(ok.output(0)->shape(), (Dims{1, 2, 0, 5}));

  NDArray rank3 = zeros(DataType::kFloat32, {2, 3, 4});
  Context c1;
  EXPECT_EQ(run_op("resize", {.in = {&rank3}, .i = {2, 2}}, c1).message(),
            "resize: x[2,3,4] must be [N, C, H, W] or [N, H, W, C] (rank 4)");
  NDArray empty = zeros(DataType::kFloat32, {1, 2, 0, 4});
  Context c2;
  EXPECT_EQ(run_op("resize", {.in = {&empty}, .i = {3, 3}}, c2).message(),
            "resize: x[1,2,0,4] has an empty spatial axis: nothing to resample from");
  Context c3;
  EXPECT_FALSE(run_op("resize", {.in = {&x}, .i = {2, 2, 3}}, c3).is_ok());  // mode 3 is not a mode
}

}  // namespace
