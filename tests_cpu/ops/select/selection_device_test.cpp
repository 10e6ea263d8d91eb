// unique*, argwhere, nonzero and where(cond) on a device, tested on the CPU:
// the fake "cuda" device of fake_device.h keeps its memory on the host, fake
// device kernels run the ops' CPU kernels on the device copies, and fake
// legacy tables run the copies and the count_nonzero reduction there. Every
// case of the selection manifest must give the CPU's values, leave its
// outputs newest on the device and read back exactly one value, the count
// that sizes the outputs (none for an empty x).
#include <gtest/gtest.h>

#include <iterator>

#include "fake_device.h"
#include "golden_manifest.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/tables.h"
#include "libops/ops/select/nonzero.h"
#include "libops/ops/sort/unique.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::values;

int g_calls = 0;

Status fake_unique_count(Device device, const ops::UniqueDesc& d, const NDArray& x, NDArray& count) {
  ++g_calls;
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, count));
  NDArray xv, cv;
  RETURN_IF_ERROR(test::device_view(x, xv));
  RETURN_IF_ERROR(test::device_view(count, cv));
  RETURN_IF_ERROR(ops::unique_count_cpu(d, xv, cv));
  count.buffer()->mark_device_written();
  return Status::ok();
}

Status fake_unique(Device device, const ops::UniqueDesc& d, const NDArray& x, NDArray& values, NDArray& first,
                   NDArray& inverse, NDArray& counts) {
  ++g_calls;
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, values));
  for (NDArray* a : {&first, &inverse, &counts}) RETURN_IF_ERROR(sync_for_kernel(device, {}, *a));
  NDArray xv, vv, fv, iv, cv;
  RETURN_IF_ERROR(test::device_view(x, xv));
  RETURN_IF_ERROR(test::device_view(values, vv));
  RETURN_IF_ERROR(test::device_view(first, fv));
  RETURN_IF_ERROR(test::device_view(inverse, iv));
  RETURN_IF_ERROR(test::device_view(counts, cv));
  RETURN_IF_ERROR(ops::unique_cpu(d, xv, vv, fv, iv, cv));
  for (NDArray* a : {&values, &first, &inverse, &counts}) a->buffer()->mark_device_written();
  return Status::ok();
}

Status fake_nonzero(Device device, const ops::NonzeroDesc& d, const NDArray& flags, NDArray& z) {
  ++g_calls;
  RETURN_IF_ERROR(sync_for_kernel(device, {&flags}, z));
  NDArray fv, zv;
  RETURN_IF_ERROR(test::device_view(flags, fv));
  RETURN_IF_ERROR(test::device_view(z, zv));
  RETURN_IF_ERROR(ops::nonzero_cpu(d, fv, zv));
  z.buffer()->mark_device_written();
  return Status::ok();
}

class SelectionOnDevice : public ::testing::TestWithParam<test::ManifestCase> {
 protected:
  void SetUp() override {
    saved_count_ = ops::unique_count_device_kernel.get(DeviceType::kCuda);
    saved_unique_ = ops::unique_device_kernel.get(DeviceType::kCuda);
    saved_nonzero_ = ops::nonzero_device_kernel.get(DeviceType::kCuda);
    saved_copy_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformAny);
    saved_reduce_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kReduceLong);
    ops::unique_count_device_kernel.set(DeviceType::kCuda, fake_unique_count);
    ops::unique_device_kernel.set(DeviceType::kCuda, fake_unique);
    ops::nonzero_device_kernel.set(DeviceType::kCuda, fake_nonzero);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny,
                                  test::cpu_table_on_device_copies<legacy::transform_any_run>);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kReduceLong,
                                  test::cpu_table_on_device_copies<legacy::reduce_long_run>);
    g_calls = 0;
  }
  void TearDown() override {
    ops::unique_count_device_kernel.set(DeviceType::kCuda, saved_count_);
    ops::unique_device_kernel.set(DeviceType::kCuda, saved_unique_);
    ops::nonzero_device_kernel.set(DeviceType::kCuda, saved_nonzero_);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, saved_copy_);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kReduceLong, saved_reduce_);
  }
  test::ScopedFakeCuda fake_;
  ops::UniqueCountDeviceFn saved_count_ = nullptr;
  ops::UniqueDeviceFn saved_unique_ = nullptr;
  ops::NonzeroDeviceFn saved_nonzero_ = nullptr;
  legacy::TableRunFn saved_copy_ = nullptr, saved_reduce_ = nullptr;
};

TEST_P(SelectionOnDevice, GivesTheCpuValuesAndReadsBackOnlyTheCount) {
  const test::ManifestCase& c = GetParam();
  std::vector<NDArray> host = c.load_inputs(), dev = c.load_inputs();
  std::vector<NDArray*> host_ptrs, dev_ptrs;
  for (NDArray& a : host) host_ptrs.push_back(&a);
  for (NDArray& a : dev) {
    ASSERT_OK(test::move_to_device(a));
    dev_ptrs.push_back(&a);
  }
  Context cpu, on_dev;
  ASSERT_OK(test::run_op(c.op.c_str(), c.call(host_ptrs), cpu));
  on_dev.set_device(Device::cuda(0));
  const int to_host = test::FakeDevice::to_host;
  ASSERT_OK(test::run_op(c.op.c_str(), c.call(dev_ptrs), on_dev));
  const bool has_data = host[0].length() > 0;
  EXPECT_EQ(test::FakeDevice::to_host - to_host, has_data ? 1 : 0);
  ASSERT_EQ(on_dev.num_outputs(), cpu.num_outputs());
  bool any_output = false;
  for (int k = 0; k < on_dev.num_outputs(); ++k) {
    if (on_dev.output(k)->length() > 0) {
      any_output = true;
      EXPECT_EQ(on_dev.output(k)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << "output " << k;
    }
    ASSERT_OK(on_dev.output(k)->buffer()->sync_to_host());
    EXPECT_EQ(on_dev.output(k)->shape(), cpu.output(k)->shape()) << "output " << k;
    EXPECT_TRUE(test::same_array(*on_dev.output(k), *cpu.output(k))) << "output " << k;
  }
  EXPECT_EQ(g_calls > 0, any_output);
}

INSTANTIATE_TEST_SUITE_P(Cases, SelectionOnDevice, ::testing::ValuesIn(test::load_manifest("selection")),
                         [](const ::testing::TestParamInfo<test::ManifestCase>& info) {
                           return info.param.op + "_" + info.param.name;
                         });

// A device without the kernels: an error naming the op, nothing computed on
// the host instead.
TEST_F(SelectionOnDevice, NoDeviceKernelIsAnErrorNamingTheOp) {
  ops::unique_count_device_kernel.set(DeviceType::kCuda, nullptr);
  ops::nonzero_device_kernel.set(DeviceType::kCuda, nullptr);
  NDArray x = test::make(DataType::kFloat32, {3}, {1, 0, 1});
  ASSERT_OK(test::move_to_device(x));
  Context u;
  u.set_device(Device::cuda(0));
  Status s = test::run_op("unique", {.in = {&x}}, u);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_EQ(s.message(), "unique: has no cuda implementation (asked to run on cuda:0)");
  Context a;
  a.set_device(Device::cuda(0));
  s = test::run_op("argwhere", {.in = {&x}}, a);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_EQ(s.message(), "argwhere: has no cuda implementation (asked to run on cuda:0)");
}

}  // namespace
}  // namespace libops
