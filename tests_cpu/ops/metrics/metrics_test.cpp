// in_top_k and confusion_matrix beyond their goldens (metrics manifest):
// the errors a caller meets, each naming the op and the values.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(InTopKOp, RejectsTargetsOutsideTheClasses) {
  NDArray p = make(DataType::kFloat32, {2, 3}, {0.1, 0.5, 0.4, 0.3, 0.3, 0.4});
  NDArray t = make(DataType::kInt64, {2}, {1, 3});
  Context c1;
  EXPECT_EQ(run_op("in_top_k", {.in = {&p, &t}, .i = {1}}, c1).message(),
            "in_top_k: targets[1] = 3 is not a class in [0, 3)");
  NDArray neg = make(DataType::kInt32, {2}, {-1, 0});
  Context c2;
  EXPECT_EQ(run_op("in_top_k", {.in = {&p, &neg}, .i = {1}}, c2).message(),
            "in_top_k: targets[0] = -1 is not a class in [0, 3)");
}

TEST(InTopKOp, RejectsBadShapesAndK) {
  NDArray p = make(DataType::kFloat32, {2, 3}, {0.1, 0.5, 0.4, 0.3, 0.3, 0.4});
  NDArray t3 = make(DataType::kInt64, {3}, {0, 1, 2});
  Context c1;
  EXPECT_EQ(run_op("in_top_k", {.in = {&p, &t3}, .i = {1}}, c1).message(),
            "in_top_k: predictions[2,3] and targets[3] must be [rows, classes] and [rows]");
  NDArray t = make(DataType::kInt64, {2}, {0, 1});
  Context c2;
  EXPECT_FALSE(run_op("in_top_k", {.in = {&p, &t}, .i = {-1}}, c2).is_ok());
  Context c3;
  EXPECT_FALSE(run_op("in_top_k", {.in = {&p, &t}}, c3).is_ok());  // k is required
  NDArray pi = make(DataType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Context c4;
  EXPECT_FALSE(run_op("in_top_k", {.in = {&pi, &t}, .i = {1}}, c4).is_ok());  // scores are float
}

TEST(ConfusionMatrixOp, RejectsNegativeAndTooLargeClasses) {
  NDArray l = make(DataType::kInt64, {3}, {0, 2, 1});
  NDArray p = make(DataType::kInt64, {3}, {1, -1, 0});
  Context c1;
  EXPECT_EQ(run_op("confusion_matrix", {.in = {&l, &p}}, c1).message(),
            "confusion_matrix: predictions hold -1: classes are >= 0");
  NDArray q = make(DataType::kInt64, {3}, {1, 0, 0});
  Context c2;
  EXPECT_EQ(run_op("confusion_matrix", {.in = {&l, &q}, .i = {2}}, c2).message(),
            "confusion_matrix: labels hold 2: classes must be below num_classes 2");
  NDArray short_p = make(DataType::kInt64, {2}, {1, 0});
  Context c3;
  EXPECT_EQ(run_op("confusion_matrix", {.in = {&l, &short_p}}, c3).message(),
            "confusion_matrix: labels[3] and predictions[2] must be vectors of one length");
  NDArray w = make(DataType::kFloat32, {2}, {1, 1});
  Context c4;
  EXPECT_EQ(run_op("confusion_matrix", {.in = {&l, &q, &w}}, c4).message(),
            "confusion_matrix: weights[2] must have labels[3]'s shape");
  NDArray big = make(DataType::kInt64, {1}, {1 << 20});
  Context c5;
  EXPECT_EQ(run_op("confusion_matrix", {.in = {&big, &big}}, c5).message(),
            "confusion_matrix: 1048577 classes: at most 262144 (the matrix has classes^2 entries)");
}
