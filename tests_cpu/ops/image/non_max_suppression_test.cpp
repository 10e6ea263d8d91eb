// non_max_suppression beyond its goldens (image manifest, ONNX goldens):
// shapes that fit neither form, thresholds out of range, and a hand-made
// case where the order of keeping matters.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(NonMaxSuppressionOp, KeepsByFallingScoreAndDropsOverlaps) {
  // Box 1 (score .9) is kept first; box 0 overlaps it by 1/3 (> .3): dropped;
  // box 2 touches nothing.
  NDArray boxes = make(DataType::kFloat32, {3, 4}, {0, 0, 2, 2, 0, 1, 2, 3, 5, 5, 6, 6});
  NDArray scores = make(DataType::kFloat32, {3}, {0.8, 0.9, 0.1});
  Context c1;
  ASSERT_OK(run_op("non_max_suppression", {.in = {&boxes, &scores}, .t = {0.3}}, c1));
  EXPECT_EQ(c1.output(0)->dtype(), DataType::kInt32);
  EXPECT_EQ(values(*c1.output(0)), (std::vector<double>{1, 2}));
  Context c2;  // IoU 1/3 is not above .34: both kept, in score order
  ASSERT_OK(run_op("non_max_suppression", {.in = {&boxes, &scores}, .t = {0.34}}, c2));
  EXPECT_EQ(values(*c2.output(0)), (std::vector<double>{1, 0, 2}));
  Context c3;  // the score threshold ends the walk at box 2
  ASSERT_OK(run_op("non_max_suppression", {.in = {&boxes, &scores}, .t = {0.34, 0.5}}, c3));
  EXPECT_EQ(values(*c3.output(0)), (std::vector<double>{1, 0}));
}

TEST(NonMaxSuppressionOp, RejectsShapesOfNeitherFormAndBadThresholds) {
  NDArray boxes = make(DataType::kFloat32, {2, 4}, {0, 0, 1, 1, 0, 0, 2, 2});
  NDArray scores3 = make(DataType::kFloat32, {3}, {1, 2, 3});
  Context c1;
  EXPECT_EQ(run_op("non_max_suppression", {.in = {&boxes, &scores3}}, c1).message(),
            "non_max_suppression: boxes[2,4] and scores[3] must be [n, 4] and [n], or [batch, n, 4] and "
            "[batch, classes, n]");
  NDArray scores = make(DataType::kFloat32, {2}, {1, 2});
  NDArray iou = make(DataType::kFloat32, {}, {1.5});
  NDArray max_out = make(DataType::kInt64, {}, {5});
  Context c2;
  EXPECT_EQ(run_op("non_max_suppression", {.in = {&boxes, &scores, &max_out, &iou}}, c2).message(),
            "non_max_suppression: iou_threshold 1.5 must be in [0, 1]");
  NDArray two = make(DataType::kInt64, {2}, {1, 2});
  Context c3;
  EXPECT_EQ(run_op("non_max_suppression", {.in = {&boxes, &scores, &two}}, c3).message(),
            "non_max_suppression: max_output_size[2] must hold one value");
}
