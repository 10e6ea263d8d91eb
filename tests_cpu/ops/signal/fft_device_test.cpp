// fft, ifft, rfft and irfft on a device, tested on the CPU: the fake "cuda"
// device of fake_device.h keeps its memory on the host, a fake DeviceFft
// runs the CPU's transforms on the device copies, and a fake transform-any
// table runs the CPU's copy kernel there. Each op must stay on the device
// (nothing read back, the output newest there) and give the CPU's values; a
// device with no FFT backend is an error naming the op.
#include <gtest/gtest.h>

#include <string>

#include "blas/fft.h"
#include "ops/fake_device_op.h"
#include "ops/signal/fft_golden_cases.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/tables.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::values;

int g_transforms = 0;

Status fake_c2c(int, DataType dtype, bool inverse, int64_t outer, int64_t n, int64_t inner, const void* in, void* out,
                double scale) {
  ++g_transforms;
  return blas::fft_c2c_on(Device::cpu(), dtype, inverse, outer, n, inner, in, out, scale);
}

Status fake_r2c(int, DataType dtype, int64_t outer, int64_t n, int64_t inner, const void* in, void* out) {
  ++g_transforms;
  return blas::fft_r2c_on(Device::cpu(), dtype, outer, n, inner, in, out);
}

Status fake_c2r(int, DataType dtype, int64_t outer, int64_t m, int64_t n, int64_t inner, const void* in, void* out,
                double scale) {
  ++g_transforms;
  return blas::fft_c2r_on(Device::cpu(), dtype, outer, m, n, inner, in, out, scale);
}

const blas::DeviceFft kFakeFft{fake_c2c, fake_r2c, fake_c2r};

class FftOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_fft_ = blas::device_fft(DeviceType::kCuda);
    saved_copy_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformAny);
    blas::register_device_fft(DeviceType::kCuda, &kFakeFft);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny,
                                  test::cpu_table_on_device_copies<legacy::transform_any_run>);
    g_transforms = 0;
    test::FakeDevice::table_kernels = 0;
  }
  void TearDown() override {
    blas::register_device_fft(DeviceType::kCuda, saved_fft_);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, saved_copy_);
  }

  // The golden case with its input's newest copy on the device (host copy
  // scribbled over).
  static test::FftGoldenArrays load_on_device(const char* op, const char* name) {
    test::FftGoldenArrays g = test::load_fft_golden({op, name});
    EXPECT_OK(test::move_to_device(g.x));
    return g;
  }

  const blas::DeviceFft* saved_fft_ = nullptr;
  legacy::TableRunFn saved_copy_ = nullptr;
  test::ScopedFakeCuda fake_;
};

struct DeviceCase {
  const char* op;
  const char* name;
  int transforms;     // backend calls: one per transformed axis
  int table_kernels;  // copies on the device
};

TEST_F(FftOnDevice, EveryOpGivesTheCpuValues) {
  const DeviceCase cases[] = {
      // x is dense: the first transform reads it, no copy.
      {"fft", "two_axes_f32", 2, 0},
      {"ifft", "all_axes_f64", 3, 0},
      {"rfft", "two_axes_f32", 2, 0},
      {"irfft", "padded_f64", 1, 0},
      {"irfft", "two_axes_f64", 2, 0},
  };
  for (const DeviceCase& c : cases) {
    test::FftGoldenArrays g = load_on_device(c.op, c.name), host = test::load_fft_golden({c.op, c.name});
    Context cpu, dev;
    ASSERT_OK(test::run_op(c.op, {.in = {&host.x}, .i = host.i_args}, cpu));
    g_transforms = 0;
    test::FakeDevice::table_kernels = 0;
    test::run_on_fake_cuda(c.op, {.in = {&g.x}, .i = g.i_args}, dev);
    EXPECT_EQ(g_transforms, c.transforms) << c.op << " " << c.name;
    EXPECT_EQ(test::FakeDevice::table_kernels, c.table_kernels) << c.op << " " << c.name;
    EXPECT_EQ(values(*dev.output(0)), values(*cpu.output(0))) << c.op << " " << c.name;
  }
}

TEST_F(FftOnDevice, AStridedViewIntoAStridedOutput) {
  test::FftGoldenArrays g = load_on_device("fft", "last_f64"), host = test::load_fft_golden({"fft", "last_f64"});
  NDArray view, host_view;  // rows 0 and 2 of [3, 8, 2]
  ASSERT_OK(g.x.slice(0, 0, 3, 2, view));
  ASSERT_OK(host.x.slice(0, 0, 3, 2, host_view));
  Context cpu;
  ASSERT_OK(test::run_op("fft", {.in = {&host_view}}, cpu));
  NDArray storage = test::make(DataType::kFloat64, {8, 2, 2}, test::iota(32)), out;
  ASSERT_OK(storage.permute({1, 0, 2}, out));
  Context dev;
  test::run_on_fake_cuda("fft", {.in = {&view}, .out = {&out}}, dev);
  EXPECT_EQ(test::FakeDevice::table_kernels, 2);  // the view made dense, the result copied into out
  EXPECT_EQ(values(out), values(*cpu.output(0)));
}

TEST_F(FftOnDevice, NoFftBackendIsAnErrorNamingTheOp) {
  blas::register_device_fft(DeviceType::kCuda, nullptr);
  NDArray c = test::make(DataType::kFloat32, {4, 2}, test::iota(8));
  NDArray r = test::make(DataType::kFloat32, {4}, test::iota(4));
  const struct {
    const char* op;
    NDArray* x;
    const char* message;
  } cases[] = {
      {"fft", &c, "fft: fft c2c: no cuda implementation (device cuda:0)"},
      {"rfft", &r, "rfft: fft r2c: no cuda implementation (device cuda:0)"},
      {"irfft", &c, "irfft: fft c2r: no cuda implementation (device cuda:0)"},
  };
  for (const auto& k : cases) {
    Context ctx;
    ctx.set_device(Device::cuda(0));
    const Status s = test::run_op(k.op, {.in = {k.x}}, ctx);
    EXPECT_EQ(s.code(), StatusCode::kNotImplemented) << k.op;
    EXPECT_EQ(s.message(), k.message);
  }
}

}  // namespace
}  // namespace libops
