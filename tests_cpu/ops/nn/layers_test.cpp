// xw_plus_b, embedding_lookup and multi_head_dot_product_attention beyond
// their goldens (layers manifest): shape errors, bad ids, and an id the
// table lacks named by its position.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(XwPlusBOp, RejectsMismatchedShapesAndDtypes) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray w = make(DataType::kFloat32, {3, 2}, {1, 0, 0, 1, 1, 1});
  NDArray b3 = make(DataType::kFloat32, {3}, {1, 2, 3});
  Context c1;
  EXPECT_EQ(run_op("xw_plus_b", {.in = {&x, &w, &b3}}, c1).message(),
            "xw_plus_b: x[2,3], w[3,2] and b[3] do not fit [M, K], [K, N] and [N]");
  NDArray b = make(DataType::kFloat64, {2}, {1, 2});
  Context c2;
  EXPECT_EQ(run_op("xw_plus_b", {.in = {&x, &w, &b}}, c2).message(),
            "xw_plus_b: x (float32), w (float32) and b (float64) must share one dtype");
  NDArray bf = make(DataType::kFloat32, {2}, {1, 2});
  Context c3;
  EXPECT_EQ(run_op("xw_plus_b", {.in = {&x, &w, &bf}, .b = {true}}, c3).message(),
            "xw_plus_b: x[2,3], w[3,2] and b[2] do not fit [M, K], [N, K] and [N]");
  Context c4;
  ASSERT_OK(run_op("xw_plus_b", {.in = {&x, &w, &bf}}, c4));
  EXPECT_EQ(values(*c4.output(0)), (std::vector<double>{5, 7, 11, 13}));  // [1+3, 2+3] + b, [4+6, 5+6] + b
}

TEST(EmbeddingLookupOp, RejectsIdsOutsideTheTable) {
  NDArray table = make(DataType::kFloat32, {3, 2}, {1, 2, 3, 4, 5, 6});
  NDArray neg = make(DataType::kInt64, {2}, {0, -1});
  Context c1;
  EXPECT_EQ(run_op("embedding_lookup", {.in = {&table, &neg}}, c1).message(),
            "embedding_lookup: ids[2] hold -1: ids are rows of params, in [0, 3)");
  NDArray big = make(DataType::kInt32, {2}, {2, 3});
  Context c2;
  const Status s = run_op("embedding_lookup", {.in = {&table, &big}}, c2);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("embedding_lookup: "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("index 3 (at position 1 of indices[2])"), std::string::npos) << s.message();
  NDArray fl = make(DataType::kFloat32, {1}, {0});
  Context c3;
  EXPECT_FALSE(run_op("embedding_lookup", {.in = {&table, &fl}}, c3).is_ok());  // ids are integers
}

TEST(MultiHeadAttentionOp, RejectsMismatchedProjections) {
  NDArray q = make(DataType::kFloat32, {1, 2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray wq = make(DataType::kFloat32, {1, 2, 2}, {1, 0, 0, 1});
  NDArray wv = make(DataType::kFloat32, {1, 1, 2}, {1, 1});
  NDArray wo_bad = make(DataType::kFloat32, {2, 2}, {1, 0, 0, 1});
  Context c1;
  EXPECT_EQ(run_op("multi_head_dot_product_attention", {.in = {&q, &q, &q, &wq, &wq, &wv, &wo_bad}}, c1).message(),
            "multi_head_dot_product_attention: q[1,2,3], k[1,2,3], v[1,2,3], Wq[1,2,2], Wk[1,2,2], "
            "Wv[1,1,2], Wo[2,2] do not fit [N, Iq, Tq], [N, Ik, Tk], [N, Iv, Tk], [H, P, Iq], [H, P, Ik], "
            "[H, Pv, Iv], [H * Pv, O]");
  NDArray wo = make(DataType::kFloat32, {1, 2}, {1, -1});
  NDArray mask = make(DataType::kFloat32, {1, 2}, {1, 1});
  Context c2;
  EXPECT_EQ(run_op("multi_head_dot_product_attention", {.in = {&q, &q, &q, &wq, &wq, &wv, &wo, &mask}}, c2).message(),
            "multi_head_dot_product_attention: mask[1,2] must be [N, Tk] = [1, 3]");
}

TEST(LpPool2dOp, RejectsAnOrderBelowOneAndAWindowLargerThanTheInput) {
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {1, -2, 3, -4});
  Context c1;
  EXPECT_FALSE(run_op("lp_pool2d", {.in = {&x}, .i = {2, 2, 1, 1, 0, 0, 1, 1, 0, 0}}, c1).is_ok());  // p = 0
  Context c2;
  EXPECT_FALSE(run_op("lp_pool2d", {.in = {&x}, .i = {3, 3, 1, 1, 0, 0, 1, 1, 0, 2}}, c2).is_ok());
  Context c3;  // the one window: sqrt(1 + 4 + 9 + 16)
  ASSERT_OK(run_op("lp_pool2d", {.in = {&x}, .i = {2, 2, 1, 1, 0, 0, 1, 1, 0, 2}}, c3));
  EXPECT_TRUE(all_close(*c3.output(0), {std::sqrt(30.0)}, 1e-6, 0));
}

TEST(AdaptivePoolOp, RejectsAnImageWithoutRowsAndAZeroOutputSize) {
  NDArray x;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{1, 2, 0, 3}, 'c', x));
  Context c1;
  EXPECT_EQ(run_op("adaptive_avg_pool2d", {.in = {&x}, .i = {1, 1}}, c1).message(),
            "adaptive_avg_pool2d: x[1,2,0,3] (NCHW) has no rows or columns to pool");
  NDArray y = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4});
  Context c2;
  EXPECT_FALSE(run_op("adaptive_max_pool2d", {.in = {&y}, .i = {0, 1}}, c2).is_ok());
  Context c3;
  EXPECT_FALSE(run_op("adaptive_max_pool2d", {.in = {&y}, .i = {1, 1, 2}}, c3).is_ok());  // data_format 0 or 1
}

TEST(DepthSpaceOps, RejectBlocksThatDoNotDivide) {
  NDArray x;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{1, 6, 4, 4}, 'c', x));
  Context c1;
  EXPECT_EQ(run_op("depth_to_space", {.in = {&x}, .i = {2}}, c1).message(),
            "depth_to_space: the 6 channels of x[1,6,4,4] are not a multiple of block_size^2 = 4");
  Context c2;
  EXPECT_EQ(run_op("space_to_depth", {.in = {&x}, .i = {3}}, c2).message(),
            "space_to_depth: the height and width of x[1,6,4,4] are not multiples of block_size 3");
  Context c3;
  EXPECT_FALSE(run_op("space_to_depth", {.in = {&x}, .i = {0}}, c3).is_ok());  // block_size >= 1
}

TEST(PointwiseConv2dOp, RejectsAKernelThatIsNotOneByOne) {
  NDArray x, w;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{1, 3, 4, 4}, 'c', x));
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{2, 2, 3, 5}, 'c', w));
  Context c1;
  EXPECT_EQ(run_op("pointwise_conv2d", {.in = {&x, &w}}, c1).message(),
            "pointwise_conv2d: weights[2,2,3,5] (weights_format 0) are not a 1x1 kernel");
  NDArray w1;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{1, 1, 4, 5}, 'c', w1));
  Context c2;
  EXPECT_EQ(run_op("pointwise_conv2d", {.in = {&x, &w1}}, c2).message(),
            "pointwise_conv2d: weights[1,1,4,5] (weights_format 0) have 4 input channels, x[1,3,4,4] has 3");
}
