// unfold and fold on cuda:0 against the CPU (which tests_cpu checks
// against numpy): the same bits, floats included, since fold gathers each
// output element's sum in the CPU's order (Note [Sliding windows] in
// ops/window/window.h); the outputs' newest copy on the device.
#include <cmath>

#include "cuda_test_util.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::make;
using test::values;

std::vector<double> wave(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = 10.0 * std::sin(0.37 * static_cast<double>(i));
  return v;
}

void expect_same_on_gpu(const char* op, NDArray& x, const std::vector<int64_t>& i) {
  Context cpu, gpu;
  ASSERT_OK(test::run_op(op, {.in = {&x}, .i = i}, cpu));
  gpu.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op(op, {.in = {&x}, .i = i}, gpu));
  NDArray& z = *gpu.output(0);
  EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << op;
  ASSERT_OK(z.buffer()->sync_to_host());
  EXPECT_EQ(z.shape(), cpu.output(0)->shape()) << op;
  EXPECT_EQ(z.dtype(), cpu.output(0)->dtype()) << op;
  EXPECT_EQ(values(z), values(*cpu.output(0))) << op;
}

// Overlapping 3x3 windows (each element in up to 9), and a 3-D case with
// dilation, stride and asymmetric padding; every element size for unfold
// and every compute type for fold.
TEST(CudaWindowOps, MatchTheCpuBitForBit) {
  REQUIRE_CUDA_DEVICE();
  NDArray img = make(DataType::kFloat32, {2, 3, 33, 31}, wave(2 * 3 * 33 * 31));
  const std::vector<int64_t> w2 = {3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  expect_same_on_gpu("unfold", img, w2);
  NDArray cols = make(DataType::kFloat32, {2, 3, 9, 33 * 31}, wave(2 * 3 * 9 * 33 * 31));
  expect_same_on_gpu("fold", cols, {33, 31, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  NDArray vol = make(DataType::kFloat64, {2, 7, 6, 9}, wave(2 * 7 * 6 * 9));
  const std::vector<int64_t> w3 = {2, 3, 2, 1, 2, 2, 2, 1, 1, 1, 0, 0, 1, 2, 1};
  expect_same_on_gpu("unfold", vol, w3);
  // (2, taps 2 x 3 x 2, windows 6 x 3 x 6)
  NDArray vol_cols = make(DataType::kFloat64, {2, 12, 108}, wave(2 * 12 * 108));
  std::vector<int64_t> f3 = {7, 6, 9};
  f3.insert(f3.end(), w3.begin(), w3.end());
  expect_same_on_gpu("fold", vol_cols, f3);
  for (DataType dt : {DataType::kInt8, DataType::kFloat16, DataType::kInt32, DataType::kUInt64}) {
    SCOPED_TRACE(dtype_name(dt));
    NDArray x = make(dt, {4, 10, 12}, std::vector<double>(480, 3));
    expect_same_on_gpu("unfold", x, w2);
    NDArray c = make(dt, {4, 9, 120}, std::vector<double>(4 * 9 * 120, 3));
    expect_same_on_gpu("fold", c, {10, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  }
}

}  // namespace
}  // namespace libops
