// conv3d, deconv3d, maxpool3d and avgpool3d beyond their goldens (conv3d
// manifest): channels that do not fit, a kernel larger than the padded
// volume, output padding at or past its stride and dilation.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {
NDArray zeros(std::initializer_list<int64_t> dims) {
  NDArray a;
  EXPECT_TRUE(NDArray::create(DataType::kFloat32, Dims(dims), 'c', a).is_ok());
  EXPECT_TRUE(a.assign_scalar(0).is_ok());
  return a;
}
}  // namespace

TEST(Conv3dOp, RejectsChannelsThatDoNotFitAndAKernelTooLarge) {
  NDArray x = zeros({1, 3, 2, 2, 2});
  NDArray w = zeros({4, 2, 1, 1, 1});  // Cin / groups = 2, but x has 3 channels
  Context c1;
  EXPECT_EQ(run_op("conv3d", {.in = {&x, &w}, .i = {0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0}}, c1).message(),
            "conv3d: weights[4,2,1,1,1] (weights_format 1) do not fit x[1,3,2,2,2] with 3 channels in 1 groups");
  NDArray w3 = zeros({4, 3, 3, 1, 1});
  Context c2;
  EXPECT_EQ(run_op("conv3d", {.in = {&x, &w3}, .i = {0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0}}, c2).message(),
            "conv3d: the dilated kernel (3 along D) is larger than the padded input (2 + 2 * 0)");
  NDArray x4 = zeros({1, 3, 2, 2});
  Context c3;
  EXPECT_FALSE(run_op("conv3d", {.in = {&x4, &w3}, .i = {0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0}}, c3).is_ok());
}

TEST(Deconv3dOp, RejectsOutputPaddingAtItsStrideAndDilation) {
  NDArray x = zeros({1, 2, 2, 2, 2});
  NDArray w = zeros({2, 3, 2, 2, 2});
  Context c1;
  EXPECT_EQ(run_op("deconv3d", {.in = {&x, &w}, .i = {0, 0, 0, 2, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0}}, c1)
                .message(),
            "deconv3d: output padding 1 must be below its stride 1 or dilation 1");
  Context c2;  // opD 1 below sD 2: the output grows by one plane
  ASSERT_OK(run_op("deconv3d", {.in = {&x, &w}, .i = {0, 0, 0, 2, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0}}, c2));
  EXPECT_EQ(c2.output(0)->shape(), (Dims{1, 3, 5, 3, 3}));
}

TEST(Pool3dOp, RejectsPaddingAsLargeAsTheKernel) {
  NDArray x = zeros({1, 1, 3, 3, 3});
  Context c1;
  EXPECT_EQ(run_op("maxpool3d", {.in = {&x}, .i = {2, 2, 2, 1, 1, 1, 2, 0, 0, 1, 1, 1, 0}}, c1).message(),
            "maxpool3d: padding 2 must be smaller than the dilated kernel 2");
  Context c2;
  EXPECT_FALSE(run_op("avgpool3d", {.in = {&x}, .i = {4, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0}}, c2).is_ok());
}
