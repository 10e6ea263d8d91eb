// max_roi_pool beyond its goldens (image manifest): errors naming the roi
// at fault, hand-computed bins, NaN, empty roi lists.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(MaxRoiPoolOp, RejectsBadBatchIndicesRoisAndShapes) {
  NDArray x = make(DataType::kFloat32, {2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  NDArray bad_batch = make(DataType::kFloat32, {2, 5}, {0, 0, 0, 1, 1, 2, 0, 0, 1, 1});
  Context c1;
  EXPECT_EQ(run_op("max_roi_pool", {.in = {&x, &bad_batch}, .i = {1, 1}}, c1).message(),
            "max_roi_pool: rois[1] has batch index 2: not an image in [0, 2)");
  NDArray half_batch = make(DataType::kFloat32, {1, 5}, {0.5, 0, 0, 1, 1});
  Context c2;
  EXPECT_EQ(run_op("max_roi_pool", {.in = {&x, &half_batch}, .i = {1, 1}}, c2).message(),
            "max_roi_pool: rois[0] has batch index 0.5: not an image in [0, 2)");
  NDArray inf = make(DataType::kFloat32, {1, 5}, {1, 0, 0, std::numeric_limits<double>::infinity(), 1});
  Context c3;
  EXPECT_EQ(run_op("max_roi_pool", {.in = {&x, &inf}, .i = {1, 1}}, c3).message(),
            "max_roi_pool: rois[0] = (0, 0, inf, 1): a coordinate times spatial_scale is not finite or past 2^52");
  NDArray four = make(DataType::kFloat32, {1, 4}, {0, 0, 1, 1});
  Context c4;
  EXPECT_EQ(run_op("max_roi_pool", {.in = {&x, &four}, .i = {1, 1}}, c4).message(),
            "max_roi_pool: rois[1,4] must be [num_rois, 5]: batch index, x1, y1, x2, y2");
  Context c5;
  EXPECT_FALSE(run_op("max_roi_pool", {.in = {&x, &half_batch}}, c5).is_ok()) << "the pooled shape is required";
}

// x[1] = [[5, 6], [7, 8]]. The whole image in 2 x 2 bins gives it back; in
// one bin, its maximum; a roi entirely right of the image, an empty bin (0).
TEST(MaxRoiPoolOp, BinsByHand) {
  NDArray x = make(DataType::kFloat32, {2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  NDArray rois = make(DataType::kFloat32, {3, 5}, {1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 5, 0, 6, 1});
  Context grid;
  ASSERT_OK(run_op("max_roi_pool", {.in = {&x, &rois}, .i = {2, 2}}, grid));
  EXPECT_TRUE(all_close(*grid.output(0), {5, 6, 7, 8, 5, 6, 7, 8, 0, 0, 0, 0}, 0, 0));
  Context one;
  ASSERT_OK(run_op("max_roi_pool", {.in = {&x, &rois}, .i = {1, 1}}, one));
  EXPECT_TRUE(all_close(*one.output(0), {8, 8, 0}, 0, 0));
  NDArray with_nan = make(DataType::kFloat32, {1, 1, 2, 2}, {1, std::nan(""), 3, 4});
  NDArray whole = make(DataType::kFloat32, {1, 5}, {0, 0, 0, 1, 1});
  Context nan;
  ASSERT_OK(run_op("max_roi_pool", {.in = {&with_nan, &whole}, .i = {1, 1}}, nan));
  EXPECT_TRUE(std::isnan(nan.output(0)->get_double(0)));
  NDArray none;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{0, 5}, 'c', none));
  Context empty;
  ASSERT_OK(run_op("max_roi_pool", {.in = {&x, &none}, .i = {3, 3}}, empty));
  EXPECT_EQ(empty.output(0)->shape().str(), "[0,1,3,3]");
}
