// crop_and_resize beyond its goldens (image manifest): a box's image index
// named when it is out of range, bad crop sizes and box shapes.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(CropAndResizeOp, RejectsBadIndicesSizesAndBoxes) {
  NDArray image;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{2, 3, 3, 1}, 'c', image));
  NDArray boxes = make(DataType::kFloat32, {2, 4}, {0, 0, 1, 1, 0, 0, 0.5, 0.5});
  NDArray index = make(DataType::kInt32, {2}, {1, 2});
  NDArray size = make(DataType::kInt32, {2}, {2, 2});
  Context c1;
  EXPECT_EQ(run_op("crop_and_resize", {.in = {&image, &boxes, &index, &size}}, c1).message(),
            "crop_and_resize: box_index[1] = 2 is not an image in [0, 2)");
  NDArray ok_index = make(DataType::kInt32, {2}, {1, 0});
  NDArray zero = make(DataType::kInt32, {2}, {0, 2});
  Context c2;
  EXPECT_EQ(run_op("crop_and_resize", {.in = {&image, &boxes, &ok_index, &zero}}, c2).message(),
            "crop_and_resize: crop_size (0, 2) must be >= 1");
  NDArray three = make(DataType::kFloat32, {2, 3}, {0, 0, 1, 0, 0, 1});
  Context c3;
  EXPECT_EQ(run_op("crop_and_resize", {.in = {&image, &three, &ok_index, &size}}, c3).message(),
            "crop_and_resize: boxes[2,3] and box_index[2] must be [num_boxes, 4] and [num_boxes]");
  Context c4;
  EXPECT_FALSE(run_op("crop_and_resize", {.in = {&image, &boxes, &ok_index, &size}, .i = {2}}, c4).is_ok());
}
