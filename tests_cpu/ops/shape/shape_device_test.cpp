// Shape ops on a device (Note [Copies on a device] in ops/device_copy.h),
// tested on the CPU: the fake "cuda" device of fake_device.h keeps its
// memory on the host, and a fake transform-any kernel runs the CPU assign
// on views of the device copies. Each op must copy device to device (the
// kernel runs, the output's newest copy is on the device, nothing is read
// back), and give numpy's values once synced to the host. gather gets a
// fake device kernel too.
#include <gtest/gtest.h>

#include <cstring>

#include "fake_device.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/legacy.h"
#include "libops/ops/shape/gather.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::make;
using test::values;

int g_kernel_calls = 0;

Status fake_transform_any(int num, ComputeType, const NDArray& x, const NDArray*, NDArray& z, const Dims&,
                          const ExtraParams& e) {
  ++g_kernel_calls;
  return test::transform_any_on_device_copies(num, x, z, e);  // the CPU kernel on the device copies
}

// The fake device with the fake kernel, restored after each test.
class ShapeOpsOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformAny);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, fake_transform_any);
    g_kernel_calls = 0;
  }
  void TearDown() override { legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, saved_); }

  // `a` with its newest copy on the device, and its host copy overwritten,
  // so reading the host copy by mistake shows.
  static void move_to_device(NDArray& a) {
    ASSERT_OK(test::move_to_device(a));
  }

  // Runs `op` on cuda:0 and checks the outputs stayed on the device.
  static void run_on_device(const char* op, const test::OpCall& call, Context& ctx) {
    ctx.set_device(Device::cuda(0));
    ASSERT_OK(test::run_op(op, call, ctx));
    EXPECT_GT(g_kernel_calls, 0) << op;
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      EXPECT_EQ(ctx.output(i)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << op << " output " << i;
      ASSERT_OK(ctx.output(i)->buffer()->sync_to_host());
    }
  }

  test::ScopedFakeCuda fake_;
  legacy::TableRunFn saved_ = nullptr;
};

TEST_F(ShapeOpsOnDevice, Cast) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1.5, -2.5, 3.9, -0.2, 100.7, 7});
  move_to_device(x);
  Context ctx;
  run_on_device("cast", {.in = {&x}, .d = {DataType::kInt32}}, ctx);
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kInt32);
  EXPECT_EQ(values(*ctx.output(0)), (std::vector<double>{1, -2, 3, 0, 100, 7}));  // truncated toward zero
}

TEST_F(ShapeOpsOnDevice, ReshapeAndPermute) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {0, 1, 2, 10, 11, 12});
  move_to_device(x);
  Context r;
  run_on_device("reshape", {.in = {&x}, .i = {3, -1}}, r);
  EXPECT_EQ(r.output(0)->shape(), (Dims{3, 2}));
  EXPECT_EQ(values(*r.output(0)), (std::vector<double>{0, 1, 2, 10, 11, 12}));
  Context p;
  run_on_device("permute", {.in = {&x}, .i = {1, 0}}, p);
  EXPECT_EQ(p.output(0)->shape(), (Dims{3, 2}));
  EXPECT_EQ(values(*p.output(0)), (std::vector<double>{0, 10, 1, 11, 2, 12}));
}

TEST_F(ShapeOpsOnDevice, ConcatAlongTheLastAxis) {
  NDArray a = make(DataType::kFloat64, {2, 1}, {1, 2});
  NDArray b = make(DataType::kFloat64, {2, 2}, {3, 4, 5, 6});
  move_to_device(a);
  move_to_device(b);
  Context ctx;
  run_on_device("concat", {.in = {&a, &b}, .i = {1}}, ctx);
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 3}));
  EXPECT_EQ(values(*ctx.output(0)), (std::vector<double>{1, 3, 4, 2, 5, 6}));
  EXPECT_EQ(g_kernel_calls, 2);  // one copy per input
}

TEST_F(ShapeOpsOnDevice, TearIntoRows) {
  NDArray x = make(DataType::kInt64, {3, 2}, {1, 2, 3, 4, 5, 6});
  move_to_device(x);
  Context ctx;
  run_on_device("tear", {.in = {&x}, .i = {1}}, ctx);
  ASSERT_EQ(ctx.num_outputs(), 3);
  EXPECT_EQ(values(*ctx.output(0)), (std::vector<double>{1, 2}));
  EXPECT_EQ(values(*ctx.output(1)), (std::vector<double>{3, 4}));
  EXPECT_EQ(values(*ctx.output(2)), (std::vector<double>{5, 6}));
}

// ---- gather (Note [gather on devices] in ops/shape/gather.h) ----

int g_gather_calls = 0;
bool g_gather_dense = true;

// What a device gather kernel does, on the fake device's copies: rows with
// an index out of range are skipped and the first such position reported.
Status fake_gather(Device d, const ops::GatherDesc& g, const NDArray& x, const NDArray& indices, NDArray& z,
                   int64_t* bad_position) {
  ++g_gather_calls;
  g_gather_dense = g_gather_dense && x.is_c_contiguous() && indices.is_c_contiguous() && z.is_c_contiguous() &&
                   z.dtype() == x.dtype() && !z.may_overlap(x) && !z.may_overlap(indices);
  RETURN_IF_ERROR(sync_for_kernel(d, {&x, &indices}, z));
  NDArray xv, iv, zv;
  RETURN_IF_ERROR(test::device_view(x, xv));
  RETURN_IF_ERROR(test::device_view(indices, iv));
  RETURN_IF_ERROR(test::device_view(z, zv));
  *bad_position = -1;
  const size_t row = static_cast<size_t>(g.inner) * x.element_size();
  for (int64_t o = 0; o < g.outer; ++o) {
    for (int64_t j = 0; j < g.count; ++j) {
      int64_t v = indices.dtype() == DataType::kInt32 ? iv.data_as<int32_t>()[j] : iv.data_as<int64_t>()[j];
      if (v < -g.n || v >= g.n) {
        if (*bad_position < 0) *bad_position = j;
        continue;
      }
      if (v < 0) v += g.n;
      std::memcpy(zv.data_as<char>() + static_cast<size_t>(o * g.count + j) * row,
                  xv.data_as<char>() + static_cast<size_t>(o * g.n + v) * row, row);
    }
  }
  z.buffer()->mark_device_written();
  return Status::ok();
}

// The shape ops' fixture plus the fake gather kernel.
class GatherOnDevice : public ShapeOpsOnDevice {
 protected:
  void SetUp() override {
    ShapeOpsOnDevice::SetUp();
    saved_gather_ = ops::gather_device(DeviceType::kCuda);
    ops::register_gather_device(DeviceType::kCuda, fake_gather);
    g_gather_calls = 0;
    g_gather_dense = true;
  }
  void TearDown() override {
    ops::register_gather_device(DeviceType::kCuda, saved_gather_);
    ShapeOpsOnDevice::TearDown();
  }
  ops::GatherDeviceFn saved_gather_ = nullptr;
};

TEST_F(GatherOnDevice, StridedInputsAreStagedDenseAndMatchTheCpu) {
  // x [3, 4] int16 seen through a transpose: [[0,10,20],[1,11,21],...]; the
  // indices [2, 2] int32 with a negative one, taken along axis 1.
  NDArray base = make(DataType::kInt16, {3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}), x;
  ASSERT_OK(base.permute({1, 0}, x));
  NDArray idx = make(DataType::kInt32, {2, 2}, {2, -3, 0, 2});
  Context cpu;
  ASSERT_OK(test::run_op("gather", {.in = {&x, &idx}, .i = {1}}, cpu));
  move_to_device(base);
  move_to_device(idx);
  const int to_host = test::FakeDevice::to_host;
  Context dev;
  run_on_device("gather", {.in = {&x, &idx}, .i = {1}}, dev);
  EXPECT_EQ(g_gather_calls, 1);
  EXPECT_TRUE(g_gather_dense);
  EXPECT_EQ(test::FakeDevice::to_host, to_host + 1);  // only run_on_device's read of the result
  EXPECT_EQ(dev.output(0)->shape(), (Dims{4, 2, 2}));
  EXPECT_EQ(values(*dev.output(0)), values(*cpu.output(0)));
  EXPECT_EQ(values(*dev.output(0)).front(), 20);  // x[0, 2]
}

TEST_F(GatherOnDevice, ABadIndexGivesTheCpuErrorWordForWord) {
  NDArray x = make(DataType::kFloat32, {3, 2}, {0, 1, 2, 3, 4, 5});
  NDArray idx = make(DataType::kInt64, {4}, {0, 5, -9, 1});
  Context cpu;
  const Status want = test::run_op("gather", {.in = {&x, &idx}, .i = {0}}, cpu);
  EXPECT_EQ(want.message(),
            "gather: index 5 (at position 1 of indices[4]) is out of range for axis 0 with size 3 (allowed -3..2)");
  move_to_device(x);
  move_to_device(idx);  // the op must read the bad index back from the device
  Context dev;
  dev.set_device(Device::cuda(0));
  const Status s = test::run_op("gather", {.in = {&x, &idx}, .i = {0}}, dev);
  EXPECT_EQ(g_gather_calls, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), want.message());
}

TEST_F(GatherOnDevice, EmptyOutputsStillCheckTheIndices) {
  // x [0, 3] along axis 1: no rows to copy, so no kernel, but index 4 is
  // still out of range, as on the CPU; with n == 0 every index is.
  NDArray x = make(DataType::kFloat32, {0, 3}, {});
  NDArray idx = make(DataType::kInt32, {1}, {4});
  move_to_device(idx);
  Context dev;
  dev.set_device(Device::cuda(0));
  Status s = test::run_op("gather", {.in = {&x, &idx}, .i = {1}}, dev);
  EXPECT_EQ(s.message(),
            "gather: index 4 (at position 0 of indices[1]) is out of range for axis 1 with size 3 (allowed -3..2)");
  NDArray none = make(DataType::kFloat32, {2, 0}, {});
  NDArray zero = make(DataType::kInt32, {1}, {0});
  Context dev2;
  dev2.set_device(Device::cuda(0));
  s = test::run_op("gather", {.in = {&none, &zero}, .i = {1}}, dev2);
  EXPECT_NE(s.message().find("index 0 (at position 0 of indices[1]) is out of range for axis 1 with size 0"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(g_gather_calls, 0);
}

TEST_F(GatherOnDevice, ADeviceWithoutAKernelSaysSo) {
  ops::register_gather_device(DeviceType::kCuda, nullptr);
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray idx = make(DataType::kInt64, {1}, {2});
  Context ctx;
  ctx.set_device(Device::cuda(0));
  Status s = test::run_op("gather", {.in = {&x, &idx}, .i = {0}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_EQ(s.message(), "gather: has no cuda implementation (asked to run on cuda:0)");
}

}  // namespace
}  // namespace libops
