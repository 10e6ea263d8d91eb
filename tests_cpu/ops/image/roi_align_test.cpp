// roi_align beyond its goldens (image manifest): errors naming the roi or
// the index at fault, hand-computed bins, empty roi lists.
#include <gtest/gtest.h>

#include <limits>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(RoiAlignOp, RejectsBadIndicesRoisAndShapes) {
  NDArray x = make(DataType::kFloat32, {2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  NDArray rois = make(DataType::kFloat32, {2, 4}, {0, 0, 1, 1, 0, 0, 2, 2});
  NDArray bad_index = make(DataType::kInt64, {2}, {1, 2});
  Context c1;
  EXPECT_EQ(run_op("roi_align", {.in = {&x, &rois, &bad_index}}, c1).message(),
            "roi_align: batch_indices[1] = 2 is not an image in [0, 2)");
  NDArray index = make(DataType::kInt64, {2}, {1, 0});
  NDArray inf_rois = make(DataType::kFloat32, {2, 4}, {0, 0, 1, 1, 0, 0, std::numeric_limits<double>::infinity(), 2});
  Context c2;
  EXPECT_EQ(run_op("roi_align", {.in = {&x, &inf_rois, &index}}, c2).message(),
            "roi_align: rois[1] = (0, 0, inf, 2) is not finite");
  NDArray huge = make(DataType::kFloat32, {2, 4}, {0, 0, 1, 1, 0, 0, 1e7, 2});
  Context c3;
  EXPECT_EQ(run_op("roi_align", {.in = {&x, &huge, &index}}, c3).message(),
            "roi_align: rois[1] = (0, 0, 1e+07, 2) needs 2 x 10000000 samples per bin; at most 4096 per side "
            "(give sampling_ratio)");
  Context c4;
  EXPECT_OK(run_op("roi_align", {.in = {&x, &huge, &index}, .i = {1, 1, 2}}, c4));  // a fixed sampling ratio
  NDArray rois3 = make(DataType::kFloat32, {2, 3}, {0, 0, 1, 0, 0, 1});
  Context c5;
  EXPECT_EQ(run_op("roi_align", {.in = {&x, &rois3, &index}}, c5).message(),
            "roi_align: rois[2,3] and batch_indices[2] must be [num_rois, 4] and [num_rois]");
  Context c6;
  EXPECT_FALSE(run_op("roi_align", {.in = {&x, &rois, &index}, .i = {0}}, c6).is_ok()) << "output_height 0";
}

// x = [[1, 2], [3, 4]]. With output_half_pixel (no shift), the roi
// (0, 0, 1, 1) has one bin of one sample at (0.5, 0.5): the mean 2.5.
// half_pixel shifts it to (0, 0): pixel (0, 0). A 2 x 2 grid of the whole
// image with one sample per bin at the pixel centers gives x back.
TEST(RoiAlignOp, BinsByHand) {
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray unit = make(DataType::kFloat32, {1, 4}, {0, 0, 1, 1});
  NDArray index = make(DataType::kInt64, {1}, {0});
  Context out_half;
  ASSERT_OK(run_op("roi_align", {.in = {&x, &unit, &index}, .i = {1, 1, 0, 0, 1}}, out_half));
  EXPECT_TRUE(all_close(*out_half.output(0), {2.5}, 1e-6, 1e-6));
  Context half;
  ASSERT_OK(run_op("roi_align", {.in = {&x, &unit, &index}, .i = {1, 1, 0, 0, 0}}, half));
  EXPECT_TRUE(all_close(*half.output(0), {1.0}, 1e-6, 1e-6));
  NDArray whole = make(DataType::kFloat32, {1, 4}, {0, 0, 2, 2});
  Context grid;
  ASSERT_OK(run_op("roi_align", {.in = {&x, &whole, &index}, .i = {2, 2, 1, 0, 0}}, grid));
  EXPECT_TRUE(all_close(*grid.output(0), {1, 2, 3, 4}, 1e-6, 1e-6));
  NDArray none;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{0, 4}, 'c', none));
  NDArray no_index;
  ASSERT_OK(NDArray::create(DataType::kInt64, Dims{0}, 'c', no_index));
  Context empty;
  ASSERT_OK(run_op("roi_align", {.in = {&x, &none, &no_index}, .i = {3, 3}}, empty));
  EXPECT_EQ(empty.output(0)->shape().str(), "[0,1,3,3]");
}
