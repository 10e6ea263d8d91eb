// unfold and fold on a device, tested on the CPU: the fake "cuda" device of
// fake_device.h keeps its memory on the host, fake unfold and fold kernels
// run the CPU kernels on the device copies, and a fake transform-any table
// does the staging copies there. Every golden case must give exactly the
// CPU's values, leave its output newest on the device and read nothing
// back; a device without the kernels is an error naming the op.
#include <gtest/gtest.h>

#include "fake_device.h"
#include "golden_manifest.h"
#include "libops/legacy/device_tables.h"
#include "libops/ops/window/window.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::values;

int g_window_calls = 0;

Status fake_transform_any(int num, ComputeType, const NDArray& x, const NDArray*, NDArray& z, const Dims&,
                          const ExtraParams& e) {
  return test::transform_any_on_device_copies(num, x, z, e);
}

// The device copies of x and z as host arrays (x may be empty: no copy).
Status device_views(Device d, const NDArray& x, NDArray& z, NDArray& xv, NDArray& zv) {
  RETURN_IF_ERROR(sync_for_kernel(d, {&x}, z));
  if (x.length() > 0) RETURN_IF_ERROR(test::device_view(x, xv));
  return test::device_view(z, zv);
}

Status fake_unfold(Device d, const ops::WindowGeometry& g, const NDArray& x, NDArray& z) {
  ++g_window_calls;
  NDArray xv, zv;
  RETURN_IF_ERROR(device_views(d, x, z, xv, zv));
  ops::unfold_cpu(g, x.element_size(), x.length() > 0 ? xv.data() : nullptr, zv.data());
  z.buffer()->mark_device_written();
  return Status::ok();
}

Status fake_fold(Device d, const ops::WindowGeometry& g, const NDArray& x, NDArray& z) {
  ++g_window_calls;
  NDArray xv, zv;
  RETURN_IF_ERROR(device_views(d, x, z, xv, zv));
  ops::fold_cpu(g, x.dtype(), xv.data(), zv.data());
  z.buffer()->mark_device_written();
  return Status::ok();
}

class WindowOpsOnDevice : public ::testing::TestWithParam<test::ManifestCase> {
 protected:
  void SetUp() override {
    saved_table_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformAny);
    saved_unfold_ = ops::unfold_device_kernel.get(DeviceType::kCuda);
    saved_fold_ = ops::fold_device_kernel.get(DeviceType::kCuda);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, fake_transform_any);
    ops::unfold_device_kernel.set(DeviceType::kCuda, fake_unfold);
    ops::fold_device_kernel.set(DeviceType::kCuda, fake_fold);
    g_window_calls = 0;
  }
  void TearDown() override {
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, saved_table_);
    ops::unfold_device_kernel.set(DeviceType::kCuda, saved_unfold_);
    ops::fold_device_kernel.set(DeviceType::kCuda, saved_fold_);
  }

  test::ScopedFakeCuda fake_;
  legacy::TableRunFn saved_table_ = nullptr;
  ops::UnfoldDeviceFn saved_unfold_ = nullptr;
  ops::FoldDeviceFn saved_fold_ = nullptr;
};

TEST_P(WindowOpsOnDevice, GivesTheCpuValuesAndStaysThere) {
  const test::ManifestCase& c = GetParam();
  std::vector<NDArray> host = c.load_inputs(), dev = c.load_inputs();
  ASSERT_OK(test::move_to_device(dev[0]));
  Context cpu, on_dev;
  std::vector<NDArray*> host_in, dev_in;  // x on the device; a list input (fold's) stays on the host
  for (size_t k = 0; k < host.size(); ++k) {
    host_in.push_back(&host[k]);
    dev_in.push_back(&dev[k]);
  }
  ASSERT_OK(test::run_op(c.op.c_str(), c.call(host_in), cpu));
  on_dev.set_device(Device::cuda(0));
  const int to_host = test::FakeDevice::to_host;
  ASSERT_OK(test::run_op(c.op.c_str(), c.call(dev_in), on_dev));
  EXPECT_EQ(test::FakeDevice::to_host, to_host);
  NDArray& z = *on_dev.output(0);
  EXPECT_EQ(g_window_calls, z.length() > 0 ? 1 : 0);
  if (z.length() > 0) {
    EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kDeviceNewer);
  }
  ASSERT_OK(z.buffer()->sync_to_host());
  EXPECT_EQ(z.dtype(), cpu.output(0)->dtype());
  EXPECT_EQ(z.shape(), cpu.output(0)->shape());
  EXPECT_EQ(values(z), values(*cpu.output(0)));
}

INSTANTIATE_TEST_SUITE_P(Cases, WindowOpsOnDevice, ::testing::ValuesIn(test::load_manifest("windows")),
                         [](const ::testing::TestParamInfo<test::ManifestCase>& info) {
                           return info.param.op + "_" + info.param.name;
                         });

TEST(WindowOpsWithoutDeviceKernels, AreAnErrorNamingTheOp) {
  test::ScopedFakeCuda fake;
  const ops::UnfoldDeviceFn saved_unfold = ops::unfold_device_kernel.get(DeviceType::kCuda);
  const ops::FoldDeviceFn saved_fold = ops::fold_device_kernel.get(DeviceType::kCuda);
  ops::unfold_device_kernel.set(DeviceType::kCuda, nullptr);
  ops::fold_device_kernel.set(DeviceType::kCuda, nullptr);
  NDArray x = test::make(DataType::kFloat32, {2, 4}, test::iota(8));
  Context u;
  u.set_device(Device::cuda(0));
  EXPECT_EQ(test::run_op("unfold", {.in = {&x}, .i = {2, 2, 1, 0, 0}}, u).message(),
            "unfold: has no cuda implementation (asked to run on cuda:0)");
  Context f;
  f.set_device(Device::cuda(0));
  EXPECT_EQ(test::run_op("fold", {.in = {&x}, .i = {5, 2, 1, 1, 0, 0}}, f).message(),
            "fold: has no cuda implementation (asked to run on cuda:0)");
  ops::unfold_device_kernel.set(DeviceType::kCuda, saved_unfold);
  ops::fold_device_kernel.set(DeviceType::kCuda, saved_fold);
}

}  // namespace
}  // namespace libops
