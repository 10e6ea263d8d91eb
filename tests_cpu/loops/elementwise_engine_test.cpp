// The element-wise engine's layouts (loops/elementwise.h): the flat path
// (z dense, inputs laid out like z or single elements) and its fall-backs
// to the NdLoop must give the same, hand-computed values.
#include <gtest/gtest.h>

#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "test_util.h"

namespace libops {
namespace {

using test::iota;
using test::make;
using test::values;

// z = x - y through the pairwise group (order matters, so swapped operands
// would show).
void subtract(const NDArray& x, const NDArray& y, NDArray& z) {
  legacy::LegacyCall call;
  call.group = OPS_PAIRWISE;
  call.num = static_cast<int>(legacy::BinaryOp::subtract);
  call.x = &x;
  call.y = &y;
  call.z = &z;
  ASSERT_OK(legacy::exec(call));
}

// Element (i, j) of a [rows, cols] array read in logical C order.
double at(const NDArray& a, int64_t i, int64_t j) { return a.get_double(i * a.shape()[1] + j); }

TEST(ElementwiseEngine, FOrderOperandsRunFlatInMemoryOrder) {
  // x(i, j) = 10 i + j in F order, y a [1, 1] single element.
  NDArray x = make(DataType::kFloat32, {3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  NDArray xf, z;
  ASSERT_OK(x.dup('f', xf));
  NDArray y = make(DataType::kFloat32, {1, 1}, {0.5});
  ASSERT_OK(NDArray::create(DataType::kFloat32, {3, 4}, 'f', z));
  subtract(xf, y, z);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(at(z, i, j), 10.0 * double(i) + double(j) - 0.5) << i << "," << j;
}

TEST(ElementwiseEngine, MixedOrdersFallBackToTheNdLoop) {
  NDArray x = make(DataType::kFloat32, {3, 4}, iota(12, 1.0, 0.0));  // C order
  NDArray y = make(DataType::kFloat32, {3, 4}, iota(12, 0.5, 100.0));
  NDArray yf, zc, zf;
  ASSERT_OK(y.dup('f', yf));
  ASSERT_OK(NDArray::create(DataType::kFloat32, {3, 4}, 'c', zc));
  ASSERT_OK(NDArray::create(DataType::kFloat32, {3, 4}, 'f', zf));
  subtract(x, yf, zc);  // z and x C, y F
  subtract(x, yf, zf);  // z and y F, x C
  for (int64_t k = 0; k < 12; ++k) {
    const double expect = double(k) - (100.0 + 0.5 * double(k));
    EXPECT_EQ(zc.get_double(k), expect) << k;
    EXPECT_EQ(zf.get_double(k), expect) << k;
  }
}

TEST(ElementwiseEngine, ScalarOperandOnEitherSide) {
  NDArray s;
  ASSERT_OK(NDArray::scalar(DataType::kFloat32, 7.0, s));  // rank 0
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, -2, 3, -4, 5, -6});
  NDArray z1 = test::zeros(DataType::kFloat32, {2, 3}), z2 = test::zeros(DataType::kFloat32, {2, 3});
  subtract(s, x, z1);
  subtract(x, s, z2);
  EXPECT_EQ(values(z1), (std::vector<double>{6, 9, 4, 11, 2, 13}));
  EXPECT_EQ(values(z2), (std::vector<double>{-6, -9, -4, -11, -2, -13}));
}

TEST(ElementwiseEngine, StridedViewsAndBroadcastRows) {
  // z a strided view (every other column): not dense, so the NdLoop runs.
  NDArray big = test::zeros(DataType::kFloat32, {2, 6}), zv;
  ASSERT_OK(big.slice(1, 0, 6, 2, zv));
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray row = make(DataType::kFloat32, {3}, {0.5, 0.25, 0.125});  // broadcast over rows
  subtract(x, row, zv);
  EXPECT_EQ(values(big), (std::vector<double>{0.5, 0, 1.75, 0, 2.875, 0, 3.5, 0, 4.75, 0, 5.875, 0}));
  // Reversed input (negative stride) into a dense z.
  NDArray xr, z = test::zeros(DataType::kFloat32, {2, 3});
  ASSERT_OK(x.flip(1, xr));
  subtract(xr, row, z);
  EXPECT_EQ(values(z), (std::vector<double>{2.5, 1.75, 0.875, 5.5, 4.75, 3.875}));
}

TEST(ElementwiseEngine, ConvertingDtypesOnTheFlatPath) {
  // int32 x, float64 single-element y, float32 z: loads and stores convert.
  NDArray x = make(DataType::kInt32, {5}, {-2, -1, 0, 1, 2});
  NDArray y = make(DataType::kFloat64, {1}, {0.25});
  NDArray z = test::zeros(DataType::kFloat32, {5});
  subtract(x, y, z);
  EXPECT_EQ(values(z), (std::vector<double>{-2.25, -1.25, -0.25, 0.75, 1.75}));
}

TEST(ElementwiseEngine, EmptyOutputsAreFine) {
  NDArray x = test::zeros(DataType::kFloat32, {0, 3});
  NDArray y = make(DataType::kFloat32, {1}, {1});
  NDArray z = test::zeros(DataType::kFloat32, {0, 3});
  subtract(x, y, z);
  EXPECT_EQ(z.length(), 0);
}

}  // namespace
}  // namespace libops
