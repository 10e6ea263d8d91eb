// Shape ops on a device (Note [Copies on a device] in ops/device_copy.h),
// tested on the CPU: the fake "cuda" device of fake_device.h keeps its
// memory on the host, and a fake transform-any kernel runs the CPU assign
// on views of the device copies. Each op must copy device to device (the
// kernel runs, the output's newest copy is on the device, nothing is read
// back), and give numpy's values once synced to the host.
#include <gtest/gtest.h>

#include "fake_device.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/legacy.h"
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
    ASSERT_OK(a.buffer()->sync_to_device(Device::cuda(0)));
    a.buffer()->mark_device_written();
    for (int64_t i = 0; i < a.length(); ++i) static_cast<char*>(a.buffer()->host())[i * a.element_size()] = 0x55;
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

TEST_F(ShapeOpsOnDevice, OpsWithoutADevicePathSaySo) {
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray idx = make(DataType::kInt64, {1}, {2});
  Context ctx;
  ctx.set_device(Device::cuda(0));
  Status s = test::run_op("gather", {.in = {&x, &idx}, .i = {0}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_NE(s.message().find("gather"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("has no cuda implementation"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace libops
