// The shape ops on cuda:0 (Note [Copies on a device] in ops/device_copy.h)
// against the same ops on the CPU, which tests_cpu checks against numpy:
// identical values, and the outputs' newest copy on the device. gather and
// relu6 too, which compute rather than copy but follow the same rule.
#include <cmath>

#include "cuda_test_util.h"
#include "libops/ops/shape/gather.h"
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
  // ONNX's Slice, Expand, Unsqueeze and Trilu with their values as inputs
  // (read on the host, copied on the device).
  NDArray starts = make(DataType::kInt64, {2}, {-1, 1}), ends = make(DataType::kInt64, {2}, {-1000, 4});
  NDArray axes = make(DataType::kInt64, {2}, {0, -1}), steps = make(DataType::kInt64, {2}, {-2, 2});
  expect_same_on_gpu("slice_axes", {.in = {&x, &starts, &ends, &axes, &steps}});
  NDArray col = make(DataType::kFloat32, {3, 1}, wave(3)), target = make(DataType::kInt64, {3}, {2, 1, 4});
  expect_same_on_gpu("broadcast_to", {.in = {&col, &target}, .b = {true}});
  NDArray new_axes = make(DataType::kInt64, {2}, {-1, 1});
  expect_same_on_gpu("expand_dims", {.in = {&x, &new_axes}});
  NDArray k = make(DataType::kInt64, {}, {-1});
  expect_same_on_gpu("triu", {.in = {&y, &k}});
  expect_same_on_gpu("tril", {.in = {&y, &k}});
  // assert_true reads its condition back (computed on the device here) and
  // copies x on the device; a false condition is the CPU's error.
  NDArray yes = make(DataType::kBool, {2}, {1, 1}), no = make(DataType::kBool, {2}, {1, 0});
  expect_same_on_gpu("assert_true", {.in = {&yes, &x}});
  Context cpu, gpu;
  gpu.set_device(Device::cuda(0));
  const Status want = test::run_op("assert_true", {.in = {&no, &x}}, cpu);
  const Status got = test::run_op("assert_true", {.in = {&no, &x}}, gpu);
  EXPECT_EQ(got.code(), want.code());
  EXPECT_EQ(got.message(), want.message());
}

// gather (Note [gather on devices]): rows of 1, 2, 4, 8, 12, 32 and 64 bytes, so
// every copy width of the kernel runs; int32 and int64 indices, negative
// ones, strided x, axes first, middle and last.
// shape_of writes its host copy whatever the device (the extents are
// host metadata); a reshape on the device then reads that shape.
TEST(CudaShapeOps, ShapeOfFeedsAReshapeOnTheDevice) {
  REQUIRE_CUDA_DEVICE();
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, wave(24));
  Context shape;
  shape.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op("shape_of", {.in = {&x}, .i = {0, 1}}, shape));
  EXPECT_TRUE(test::all_close(*shape.output(0), {2}, 0, 0));
  NDArray minus_one = make(DataType::kInt64, {1}, {-1});
  Context cat;
  cat.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op("concat", {.in = {shape.output(0), &minus_one}, .i = {0}}, cat));
  Context cpu, gpu;
  ASSERT_OK(test::run_op("reshape", {.in = {&x, cat.output(0)}, .b = {true}}, cpu));
  gpu.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op("reshape", {.in = {&x, cat.output(0)}, .b = {true}}, gpu));
  ASSERT_OK(gpu.output(0)->buffer()->sync_to_host());
  EXPECT_EQ(gpu.output(0)->shape(), (Dims{2, 12}));
  EXPECT_EQ(values(*gpu.output(0)), values(*cpu.output(0)));
}

TEST(CudaShapeOps, GatherMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  NDArray x8 = make(DataType::kInt8, {5, 3, 4}, wave(60));
  NDArray x16 = make(DataType::kFloat16, {6, 16}, wave(96));
  NDArray x64 = make(DataType::kFloat64, {7, 8}, wave(56));
  NDArray base = make(DataType::kFloat32, {8, 6}, wave(48)), xt;
  ASSERT_OK(base.permute({1, 0}, xt));
  NDArray i32 = make(DataType::kInt32, {2, 3}, {0, -1, 2, 4, -5, 1});
  NDArray i64 = make(DataType::kInt64, {4}, {1, 0, -2, 2});
  expect_same_on_gpu("gather", {.in = {&x8, &i32}, .i = {0}});   // rows of 12 bytes, 4-byte units
  expect_same_on_gpu("gather", {.in = {&x8, &i64}, .i = {1}});   // rows of 4 bytes
  expect_same_on_gpu("gather", {.in = {&x8, &i64}, .i = {2}});   // rows of 1 byte
  expect_same_on_gpu("gather", {.in = {&x16, &i32}, .i = {0}});  // rows of 32 bytes, 16-byte units
  expect_same_on_gpu("gather", {.in = {&x16, &i64}, .i = {-1}}); // rows of 2 bytes
  expect_same_on_gpu("gather", {.in = {&x64, &i32}, .i = {0}});  // rows of 64 bytes
  expect_same_on_gpu("gather", {.in = {&x64, &i64}, .i = {1}});  // rows of 8 bytes
  expect_same_on_gpu("gather", {.in = {&xt, &i32}, .i = {1}});   // strided x
}

TEST(CudaShapeOps, GatherBadIndexIsTheCpuError) {
  REQUIRE_CUDA_DEVICE();
  NDArray x = make(DataType::kFloat32, {4, 3}, wave(12));
  NDArray idx = make(DataType::kInt64, {5}, {0, 3, 7, -9, 1});
  Context cpu, gpu;
  const Status want = test::run_op("gather", {.in = {&x, &idx}, .i = {0}}, cpu);
  ASSERT_FALSE(want.is_ok());
  ASSERT_OK(idx.buffer()->sync_to_device(Device::cuda(0)));
  idx.buffer()->mark_device_written();  // the op must read the index back from the GPU
  gpu.set_device(Device::cuda(0));
  const Status s = test::run_op("gather", {.in = {&x, &idx}, .i = {0}}, gpu);
  EXPECT_EQ(s.code(), want.code());
  EXPECT_EQ(s.message(), want.message());  // index 7 at position 2, the first bad one
}

// Runs without a GPU: a CUDA build registers gather's kernel (without it,
// gather on cuda:0 is a "no device implementation" error).
TEST(CudaShapeOps, GatherHasACudaKernel) { EXPECT_NE(ops::gather_device(DeviceType::kCuda), nullptr); }

TEST(CudaShapeOps, Relu6MatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  NDArray x = make(DataType::kFloat32, {4, 15}, wave(60));
  NDArray xi = make(DataType::kInt32, {60}, wave(60));
  expect_same_on_gpu("relu6", {.in = {&x}});
  expect_same_on_gpu("relu6", {.in = {&xi}});
}

}  // namespace
}  // namespace libops
