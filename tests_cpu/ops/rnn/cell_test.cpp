// lstm_cell and gru_cell beyond their goldens (layers manifest): the input
// count the b args ask for, and shapes that do not fit.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(LstmCellOp, RejectsMissingStatesAndBadWeights) {
  NDArray x = make(DataType::kFloat32, {1, 2}, {1, 2});
  NDArray w = NDArray();
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{2, 4}, 'c', w));  // H = 1
  NDArray r;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{1, 4}, 'c', r));
  NDArray h = make(DataType::kFloat32, {1, 1}, {0});
  Context c1;
  EXPECT_EQ(run_op("lstm_cell", {.in = {&x, &w, &r, &h}}, c1).message(),
            "lstm_cell: takes x, W, R and the 2 optional inputs its has_* b args name, so 5 inputs; got 4");
  NDArray w_bad;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{3, 4}, 'c', w_bad));
  Context c2;
  EXPECT_EQ(run_op("lstm_cell", {.in = {&x, &w_bad, &r, &h, &h}}, c2).message(),
            "lstm_cell: weights W[3,4] and R[1,4] do not fit x[1,1,2]: want W [I, G*H] and R [H, G*H] with D = 1, "
            "G = 4, I = 2, H = 1");
  NDArray x3 = make(DataType::kFloat32, {1, 1, 2}, {1, 2});
  Context c3;
  EXPECT_EQ(run_op("lstm_cell", {.in = {&x3, &w, &r, &h, &h}}, c3).message(), "lstm_cell: x[1,1,2] must be [N, I]");
}

TEST(GruCellOp, RejectsWeightsThatDoNotStackXAndH) {
  NDArray x = make(DataType::kFloat32, {1, 2}, {1, 2});
  NDArray h = make(DataType::kFloat32, {1, 1}, {0});
  NDArray wru, wc, bru, bc;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{2, 2}, 'c', wru));  // wants [I + H, 2H] = [3, 2]
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{3, 1}, 'c', wc));
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{2}, 'c', bru));
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{1}, 'c', bc));
  Context c1;
  EXPECT_EQ(run_op("gru_cell", {.in = {&x, &h, &wru, &wc, &bru, &bc}}, c1).message(),
            "gru_cell: x[1,2], h0[1,1], Wru[2,2], Wc[3,1], bru[2] and bc[1] do not fit [N, I], [N, H], "
            "[I + H, 2H], [I + H, H], [2H] and [H]");
  NDArray bc64 = make(DataType::kFloat64, {1}, {0});
  Context c2;
  EXPECT_EQ(run_op("gru_cell", {.in = {&x, &h, &wru, &wc, &bru, &bc64}}, c2).message(),
            "gru_cell: input 5 is float64, not x's float32: the inputs share one dtype");
}
