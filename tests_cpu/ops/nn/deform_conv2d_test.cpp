// deform_conv2d (Note [Deformable convolution] in libops/ops/nn/deform_conv2d.h)
// beyond its ONNX goldens: zero offsets are the convolution (conv2d's
// values, grouped, strided, dilated, padded), a mask scales each sample,
// fractional offsets read bilinearly with zeros outside (by hand), and the
// errors name the shapes.
#include <cmath>
#include <vector>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

std::vector<double> ramp(int64_t n, double scale) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * std::sin(0.41 * static_cast<double>(i) + 0.3);
  return v;
}

TEST(DeformConv2d, ZeroOffsetsAreTheConvolution) {
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64}) {
    SCOPED_TRACE(dtype_name(dt));
    NDArray x = make(dt, {2, 4, 7, 8}, ramp(2 * 4 * 7 * 8, 1.0));
    NDArray w = make(dt, {6, 2, 3, 3}, ramp(6 * 2 * 3 * 3, 0.5));
    NDArray b = make(dt, {6}, {0.1, -0.2, 0.3, -0.4, 0.5, -0.6});
    // stride 2 x 1, pads 1, dilation 1 x 2, 2 groups: z [2, 6, 4, 6]; 2 offset groups.
    NDArray offset = zeros(dt, {2, 2 * 2 * 9, 4, 6});
    Context conv, deform;
    ASSERT_OK(run_op("conv2d", {.in = {&x, &w, &b}, .i = {3, 3, 2, 1, 1, 1, 1, 2, 0, 0, -1, 2}}, conv));
    ASSERT_OK(run_op("deform_conv2d", {.in = {&x, &w, &offset, &b}, .i = {2, 1, 1, 1, 1, 1, 1, 2, 2, 2}}, deform));
    ASSERT_EQ(deform.output(0)->shape(), (Dims{2, 6, 4, 6}));
    EXPECT_TRUE(all_close(*deform.output(0), values(*conv.output(0)), 1e-5, 1e-5));
    // A mask of one half halves each sample: z - bias halves.
    NDArray mask = make(dt, {2, 2 * 9, 4, 6}, std::vector<double>(2 * 18 * 24, 0.5));
    NDArray none = make(dt, {0}, {});
    Context masked, plain;
    ASSERT_OK(run_op("deform_conv2d", {.in = {&x, &w, &offset, &none, &mask}, .i = {2, 1, 1, 1, 1, 1, 1, 2, 2, 2}},
                     masked));
    ASSERT_OK(run_op("deform_conv2d", {.in = {&x, &w, &offset}, .i = {2, 1, 1, 1, 1, 1, 1, 2, 2, 2}}, plain));
    std::vector<double> half = values(*plain.output(0));
    for (double& v : half) v *= 0.5;
    EXPECT_TRUE(all_close(*masked.output(0), half, 1e-6, 1e-6));
  }
}

// x = [[0, 10], [20, 30]], a 1 x 1 kernel of weight 2, every tap displaced
// by (0.5, 0.25): output (0, 0) reads (0.5, 0.25): rows 0 and 1 blended,
// 0.5 (0.75 * 0 + 0.25 * 10) + 0.5 (0.75 * 20 + 0.25 * 30) = 12.5, so 25;
// (0, 1) reads (0.5, 1.25), whose right neighbours are outside (0): 15, so
// 30; (1, 0) reads (1.5, 0.25), the row below outside: 11.25, so 22.5; and
// (1, 1) reads (1.5, 1.25): 0.5 * 0.75 * 30 = 11.25, so 22.5.
TEST(DeformConv2d, FractionalOffsetsByHand) {
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {0, 10, 20, 30});
  NDArray w = make(DataType::kFloat32, {1, 1, 1, 1}, {2});
  NDArray offset = make(DataType::kFloat32, {1, 2, 2, 2}, {0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25});
  Context ctx;
  ASSERT_OK(run_op("deform_conv2d", {.in = {&x, &w, &offset}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {25, 30, 22.5, 22.5}, 1e-6, 1e-6));
  // A non-finite offset gives NaN at that position only.
  NDArray bad = make(DataType::kFloat32, {1, 2, 2, 2}, {NAN, 0, 0, 0, 0, 0, 0, 0});
  Context nan;
  ASSERT_OK(run_op("deform_conv2d", {.in = {&x, &w, &bad}}, nan));
  EXPECT_TRUE(std::isnan(nan.output(0)->get_double(0)));
  EXPECT_EQ(nan.output(0)->get_double(3), 60.0);
}

TEST(DeformConv2d, ErrorsNameTheShapes) {
  NDArray x = zeros(DataType::kFloat32, {1, 4, 5, 5});
  NDArray w = zeros(DataType::kFloat32, {2, 4, 3, 3});
  NDArray offset = zeros(DataType::kFloat32, {1, 18, 4, 3});
  Context c1;
  EXPECT_EQ(run_op("deform_conv2d", {.in = {&x, &w, &offset}}, c1).message(),
            "deform_conv2d: offset[1,18,4,3] must be [1, 18, 3, 3] (N, offset_groups 2 kH kW, and the window's "
            "output extents)");
  NDArray good = zeros(DataType::kFloat32, {1, 18, 3, 3});
  Context c2;
  EXPECT_EQ(run_op("deform_conv2d", {.in = {&x, &w, &good}, .i = {1, 1, 0, 0, 0, 0, 1, 1, 3}}, c2).message(),
            "deform_conv2d: x[1,4,5,5] and weights[2,4,3,3] do not split into 3 groups (weights [oC, C / groups, kH, "
            "kW], oC a multiple of groups)");
  NDArray mask = zeros(DataType::kFloat32, {1, 8, 3, 3}), none = zeros(DataType::kFloat32, {0});
  Context c3;
  EXPECT_EQ(run_op("deform_conv2d", {.in = {&x, &w, &good, &none, &mask}}, c3).message(),
            "deform_conv2d: mask[1,8,3,3] must be [1, 9, 3, 3]");
}

}  // namespace
