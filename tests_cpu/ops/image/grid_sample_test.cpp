// grid_sample beyond its goldens (image manifest): bad shapes and args named
// in the error, non-finite grid points, empty grids, float16 in and out,
// and hand-computed values at the corners.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(GridSampleOp, RejectsBadShapesAndArgs) {
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray g3 = make(DataType::kFloat32, {1, 1, 1, 3}, {0, 0, 0});
  Context c1;
  EXPECT_EQ(run_op("grid_sample", {.in = {&x, &g3}}, c1).message(),
            "grid_sample: grid[1,1,1,3] must be [N, oH, oW, 2] with x[1,1,2,2]'s N");
  NDArray g2n = make(DataType::kFloat32, {2, 1, 1, 2}, {0, 0, 0, 0});
  Context c2;
  EXPECT_FALSE(run_op("grid_sample", {.in = {&x, &g2n}}, c2).is_ok());
  NDArray x3 = make(DataType::kFloat32, {1, 2, 2}, {1, 2, 3, 4});
  NDArray g = make(DataType::kFloat32, {1, 1, 1, 2}, {0, 0});
  Context c3;
  EXPECT_EQ(run_op("grid_sample", {.in = {&x3, &g}}, c3).message(),
            "grid_sample: x[1,2,2] must be [N, C, H, W] or [N, C, D, H, W]");
  NDArray empty;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{1, 1, 0, 2}, 'c', empty));
  Context c4;
  EXPECT_EQ(run_op("grid_sample", {.in = {&empty, &g}}, c4).message(),
            "grid_sample: x[1,1,0,2] has no pixels to sample");
  Context c5;
  EXPECT_FALSE(run_op("grid_sample", {.in = {&x, &g}, .i = {3}}, c5).is_ok()) << "mode 3";
  Context c6;
  EXPECT_FALSE(run_op("grid_sample", {.in = {&x, &g}, .i = {0, 3}}, c6).is_ok()) << "padding_mode 3";
  NDArray gi = make(DataType::kInt32, {1, 1, 1, 2}, {0, 0});
  Context c7;
  EXPECT_FALSE(run_op("grid_sample", {.in = {&x, &gi}}, c7).is_ok()) << "an integer grid";
}

// Volumes: x [1, 1, 2, 2, 2] holds 1..8 (z, y, x in C order). With
// align_corners, (-1, -1, -1) is voxel (0, 0, 0) = 1 and (1, 1, 1) voxel
// (1, 1, 1) = 8; (0, 0, 0) is the mean of all eight, 4.5; (1, -1, 0) is
// halfway between (z 0, y 0, x 1) = 2 and (z 1, y 0, x 1) = 6: 4. Nearest
// rounds (0.5 -> 0, half to even) to voxel (0, 0, 0) for (0, 0, 0). Without
// align_corners (-1, -1, -1) is the outer corner: an eighth of voxel 0.
// Bicubic and grids of the wrong last extent are refused.
TEST(GridSampleOp, VolumesByHand) {
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  NDArray g = make(DataType::kFloat32, {1, 1, 2, 2, 3}, {-1, -1, -1, 1, 1, 1, 0, 0, 0, 1, -1, 0});
  Context trilinear;
  ASSERT_OK(run_op("grid_sample", {.in = {&x, &g}, .i = {0, 0}, .b = {true}}, trilinear));
  EXPECT_EQ(trilinear.output(0)->shape(), (Dims{1, 1, 1, 2, 2}));
  EXPECT_TRUE(all_close(*trilinear.output(0), {1, 8, 4.5, 4}, 1e-6, 1e-6));
  Context nearest;
  ASSERT_OK(run_op("grid_sample", {.in = {&x, &g}, .i = {1, 0}, .b = {true}}, nearest));
  EXPECT_TRUE(all_close(*nearest.output(0), {1, 8, 1, 2}, 1e-6, 1e-6));
  Context edges;
  ASSERT_OK(run_op("grid_sample", {.in = {&x, &g}, .i = {0, 0}, .b = {false}}, edges));
  EXPECT_NEAR(edges.output(0)->get_double(0), 0.125, 1e-6);
  Context bicubic;
  EXPECT_EQ(run_op("grid_sample", {.in = {&x, &g}, .i = {2, 0}}, bicubic).message(),
            "grid_sample: bicubic sampling is for images [N, C, H, W]; x[1,1,2,2,2] is a volume");
  NDArray g2 = make(DataType::kFloat32, {1, 1, 1, 1, 2}, {0, 0});
  Context wrong;
  EXPECT_EQ(run_op("grid_sample", {.in = {&x, &g2}}, wrong).message(),
            "grid_sample: grid[1,1,1,1,2] must be [N, oD, oH, oW, 3] with x[1,1,2,2,2]'s N");
}

// x = [[1, 2], [3, 4]]. align_corners: (-1, -1) is pixel (0, 0) and (1, 1)
// pixel (1, 1); (0, 0) the mean of all four. Without it, (-1, -1) is the
// image's outer corner: a quarter of pixel (0, 0) under zeros padding.
TEST(GridSampleOp, CornersByHand) {
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray g = make(DataType::kFloat32, {1, 1, 3, 2}, {-1, -1, 1, 1, 0, 0});
  Context aligned;
  ASSERT_OK(run_op("grid_sample", {.in = {&x, &g}, .i = {0, 0}, .b = {true}}, aligned));
  EXPECT_TRUE(all_close(*aligned.output(0), {1, 4, 2.5}, 1e-6, 1e-6));
  Context edges;
  ASSERT_OK(run_op("grid_sample", {.in = {&x, &g}, .i = {0, 0}, .b = {false}}, edges));
  EXPECT_TRUE(all_close(*edges.output(0), {0.25, 1.0, 2.5}, 1e-6, 1e-6));
  Context border;
  ASSERT_OK(run_op("grid_sample", {.in = {&x, &g}, .i = {0, 1}, .b = {false}}, border));
  EXPECT_TRUE(all_close(*border.output(0), {1, 4, 2.5}, 1e-6, 1e-6));
}

TEST(GridSampleOp, NonFiniteGridPointsGiveNanAndEmptyGridsNothing) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray g = make(DataType::kFloat32, {1, 1, 3, 2}, {nan, 0, 0, inf, 1e30f, 0});
  for (int64_t padding : {0, 1, 2}) {
    Context c;
    ASSERT_OK(run_op("grid_sample", {.in = {&x, &g}, .i = {2, padding}}, c));
    const NDArray& z = *c.output(0);
    EXPECT_TRUE(std::isnan(z.get_double(0)) && std::isnan(z.get_double(1))) << padding;
    EXPECT_TRUE(std::isfinite(z.get_double(2))) << "far outside, padding " << padding;
  }
  NDArray none;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{1, 0, 4, 2}, 'c', none));
  Context c;
  ASSERT_OK(run_op("grid_sample", {.in = {&x, &none}}, c));
  EXPECT_EQ(c.output(0)->shape().str(), "[1,1,0,4]");
}

TEST(GridSampleOp, Float16KeepsItsDtype) {
  NDArray x = make(DataType::kFloat16, {1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray g = make(DataType::kFloat32, {1, 1, 1, 2}, {0, 0});
  Context c;
  ASSERT_OK(run_op("grid_sample", {.in = {&x, &g}, .b = {true}}, c));
  EXPECT_EQ(c.output(0)->dtype(), DataType::kFloat16);
  EXPECT_EQ(c.output(0)->get_double(0), 2.5);
}
