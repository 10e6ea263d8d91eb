// layer_norm, rms_norm, group_norm, instance_norm and lrn on a device,
// tested on the CPU: the fake "cuda" device of fake_device.h keeps its
// memory on the host, fake row-norm and lrn kernels run the CPU rows on the
// device copies, and a fake transform-any table does the staging copies
// there. Every golden case of tests_cpu/golden/nn_act must give exactly the
// CPU's values with all inputs on the device, leave its output newest on
// the device and read nothing back; a device without the kernels is an
// error naming the op.
#include <gtest/gtest.h>

#include <set>

#include "fake_device.h"
#include "golden_manifest.h"
#include "libops/legacy/device_tables.h"
#include "libops/ops/nn/lrn.h"
#include "libops/ops/nn/row_norm.h"
#include "op_test_util.h"

namespace libops {
namespace {

int g_kernel_calls = 0;

Status fake_transform_any(int num, ComputeType, const NDArray& x, const NDArray*, NDArray& z, const Dims&,
                          const ExtraParams& e) {
  return test::transform_any_on_device_copies(num, x, z, e);
}

// A host view of the device copy of `a`, or null for a null `a`.
Status view_of(const NDArray* a, NDArray& out, const void** data) {
  *data = nullptr;
  if (a == nullptr) return Status::ok();
  RETURN_IF_ERROR(test::device_view(*a, out));
  *data = out.data();
  return Status::ok();
}

Status fake_row_norm(Device d, const ops::nn::RowNormDesc& desc, const NDArray& x, const NDArray* scale,
                     const NDArray* bias, NDArray& z) {
  ++g_kernel_calls;
  RETURN_IF_ERROR(sync_for_kernel(d, {&x, scale, bias}, z));
  NDArray xv, sv, bv, zv;
  const void *xp, *sp, *bp;
  RETURN_IF_ERROR(view_of(&x, xv, &xp));
  RETURN_IF_ERROR(view_of(scale, sv, &sp));
  RETURN_IF_ERROR(view_of(bias, bv, &bp));
  RETURN_IF_ERROR(test::device_view(z, zv));
  ops::nn::row_norm_cpu(desc, x.dtype(), xp, sp, bp, zv.data());
  z.buffer()->mark_device_written();
  return Status::ok();
}

Status fake_lrn(Device d, const ops::nn::LrnDesc& desc, const NDArray& x, NDArray& z) {
  ++g_kernel_calls;
  RETURN_IF_ERROR(sync_for_kernel(d, {&x}, z));
  NDArray xv, zv;
  RETURN_IF_ERROR(test::device_view(x, xv));
  RETURN_IF_ERROR(test::device_view(z, zv));
  ops::nn::lrn_cpu(desc, x.dtype(), xv.data(), zv.data());
  z.buffer()->mark_device_written();
  return Status::ok();
}

const std::set<std::string> kOps = {"layer_norm", "rms_norm", "group_norm", "instance_norm", "lrn"};

std::vector<test::ManifestCase> cases() {
  std::vector<test::ManifestCase> v;
  for (test::ManifestCase& c : test::load_manifest("nn_act"))
    if (kOps.count(c.op)) v.push_back(c);
  return v;
}

class NormOpsOnDevice : public ::testing::TestWithParam<test::ManifestCase> {
 protected:
  void SetUp() override {
    saved_table_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformAny);
    saved_row_norm_ = ops::nn::row_norm_device_kernel.get(DeviceType::kCuda);
    saved_lrn_ = ops::nn::lrn_device_kernel.get(DeviceType::kCuda);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, fake_transform_any);
    ops::nn::row_norm_device_kernel.set(DeviceType::kCuda, fake_row_norm);
    ops::nn::lrn_device_kernel.set(DeviceType::kCuda, fake_lrn);
    g_kernel_calls = 0;
  }
  void TearDown() override {
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, saved_table_);
    ops::nn::row_norm_device_kernel.set(DeviceType::kCuda, saved_row_norm_);
    ops::nn::lrn_device_kernel.set(DeviceType::kCuda, saved_lrn_);
  }

  test::ScopedFakeCuda fake_;
  legacy::TableRunFn saved_table_ = nullptr;
  ops::nn::RowNormDeviceFn saved_row_norm_ = nullptr;
  ops::nn::LrnDeviceFn saved_lrn_ = nullptr;
};

TEST_P(NormOpsOnDevice, GivesTheCpuValuesAndStaysThere) {
  const test::ManifestCase& c = GetParam();
  std::vector<NDArray> host = c.load_inputs(), dev = c.load_inputs();
  std::vector<NDArray*> hp, dp;
  for (NDArray& a : host) hp.push_back(&a);
  for (NDArray& a : dev) {
    if (a.length() > 0) ASSERT_OK(test::move_to_device(a));
    dp.push_back(&a);
  }
  Context cpu, on_dev;
  ASSERT_OK(test::run_op(c.op.c_str(), c.call(hp), cpu));
  on_dev.set_device(Device::cuda(0));
  const int to_host = test::FakeDevice::to_host;
  ASSERT_OK(test::run_op(c.op.c_str(), c.call(dp), on_dev));
  EXPECT_EQ(test::FakeDevice::to_host, to_host);
  NDArray& z = *on_dev.output(0);
  if (z.length() > 0) {
    EXPECT_EQ(g_kernel_calls, 1);
    EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kDeviceNewer);
  }
  ASSERT_OK(z.buffer()->sync_to_host());
  EXPECT_EQ(z.dtype(), cpu.output(0)->dtype());
  EXPECT_EQ(z.shape(), cpu.output(0)->shape());
  EXPECT_TRUE(test::same_array(z, *cpu.output(0)));
}

INSTANTIATE_TEST_SUITE_P(Cases, NormOpsOnDevice, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<test::ManifestCase>& info) {
                           return info.param.op + "_" + info.param.name;
                         });

TEST(NormOpsOnDevice, ADeviceWithoutTheKernelIsAnError) {
  test::ScopedFakeCuda fake;
  const ops::nn::RowNormDeviceFn saved = ops::nn::row_norm_device_kernel.get(DeviceType::kCuda);
  const legacy::TableRunFn saved_table = legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformAny);
  legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, fake_transform_any);
  ops::nn::row_norm_device_kernel.set(DeviceType::kCuda, nullptr);
  NDArray x = test::make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Context ctx;
  ctx.set_device(Device::cuda(0));
  Status s = test::run_op("layer_norm", {.in = {&x}}, ctx);
  ops::nn::row_norm_device_kernel.set(DeviceType::kCuda, saved);
  legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, saved_table);
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(s.message().rfind("layer_norm: has no cuda implementation", 0), 0u) << s.message();
}

}  // namespace
}  // namespace libops
