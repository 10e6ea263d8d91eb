// The shape ops on cuda:0 (Note [Copies on a device] in ops/device_copy.h)
// against the same ops on the CPU, which tests_cpu checks against numpy:
// identical values, and the outputs' newest copy on the device.
#include <cmath>

#include "cuda_test_util.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::make;
using test::values;

std::vector<double> wave(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = 10.0 * std::sin(0.7 * static_cast<double>(i));
  return v;
}

// Runs `op` on the CPU and on cuda:0 and compares every output exactly.
void expect_same_on_gpu(const char* op, const test::OpCall& call) {
  Context cpu, gpu;
  ASSERT_OK(test::run_op(op, call, cpu));
  gpu.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op(op, call, gpu));
  ASSERT_EQ(cpu.num_outputs(), gpu.num_outputs()) << op;
  for (int i = 0; i < gpu.num_outputs(); ++i) {
    EXPECT_EQ(gpu.output(i)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << op << " output " << i;
    ASSERT_OK(gpu.output(i)->buffer()->sync_to_host());
    EXPECT_EQ(gpu.output(i)->shape(), cpu.output(i)->shape()) << op << " output " << i;
    EXPECT_EQ(gpu.output(i)->dtype(), cpu.output(i)->dtype()) << op << " output " << i;
    EXPECT_EQ(values(*gpu.output(i)), values(*cpu.output(i))) << op << " output " << i;
  }
}

TEST(CudaShapeOps, MatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  NDArray x = make(DataType::kFloat32, {4, 3, 5}, wave(60));
  NDArray y = make(DataType::kFloat32, {4, 2, 5}, wave(40));
  expect_same_on_gpu("cast", {.in = {&x}, .d = {DataType::kInt16}});
  expect_same_on_gpu("cast", {.in = {&x}, .d = {DataType::kFloat16}});
  expect_same_on_gpu("reshape", {.in = {&x}, .i = {5, -1}});
  expect_same_on_gpu("permute", {.in = {&x}, .i = {2, 0, 1}});
  expect_same_on_gpu("concat", {.in = {&x, &y}, .i = {1}});
  expect_same_on_gpu("tear", {.in = {&x}, .i = {1, 2}});
}

}  // namespace
}  // namespace libops
