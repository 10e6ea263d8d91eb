// matmul's device path, tested on the CPU (the fake "cuda" device of
// fake_device.h, with a fake GEMM and fake legacy tables that run the
// CPU's kernels on the device copies): the bias, the activation and
// transpose_z of Note [Matmul epilogue] must run on the device, on a
// product that may live in a scratch array there, and give the CPU's
// values. Every input starts on the device with its host copy overwritten,
// so a step that read the host by mistake reads garbage.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>

#include "fake_device.h"
#include "blas/gemm.h"
#include "libops/legacy/device_tables.h"
#include "op_test_util.h"

namespace libops {
namespace {

int g_gemms = 0;

Status fake_gemm(int, DataType dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const void* a,
                 int64_t lda, int64_t sa, const void* b, int64_t ldb, int64_t sb, double beta, void* c, int64_t ldc,
                 int64_t sc, int64_t batch) {
  ++g_gemms;
  return blas::gemm_batched(dt, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch);
}

class MatmulOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_gemm_ = blas::device_gemm(DeviceType::kCuda);
    blas::register_device_gemm(DeviceType::kCuda, fake_gemm);
    for (size_t k = 0; k < kTables.size(); ++k) {
      saved_[k] = legacy::device_table(DeviceType::kCuda, kTables[k]);
      legacy::register_device_table(DeviceType::kCuda, kTables[k], kFakes[k]);
    }
    g_gemms = 0;
  }
  void TearDown() override {
    blas::register_device_gemm(DeviceType::kCuda, saved_gemm_);
    for (size_t k = 0; k < kTables.size(); ++k) legacy::register_device_table(DeviceType::kCuda, kTables[k], saved_[k]);
  }

  // copies (transpose_z), the bias add and relu / relu6
  static constexpr std::array<legacy::Table, 3> kTables = {legacy::Table::kTransformAny, legacy::Table::kBinary,
                                                           legacy::Table::kTransformSame};
  static constexpr std::array<legacy::TableRunFn, 3> kFakes = {
      test::cpu_table_on_device_copies<legacy::transform_any_run>,
      test::cpu_table_on_device_copies<legacy::binary_run>,
      test::cpu_table_on_device_copies<legacy::transform_same_run>};

  test::ScopedFakeCuda fake_;
  blas::DeviceGemmBatchedFn saved_gemm_ = nullptr;
  std::array<legacy::TableRunFn, 3> saved_ = {};
};

std::vector<double> wave(int64_t n, double phase) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = 2.0 * std::sin(0.61 * static_cast<double>(i) + phase);
  return v;
}

TEST_F(MatmulOnDevice, BiasActivationAndTransposeZGiveTheCpuValues) {
  for (int64_t tz = 0; tz < 2; ++tz) {
    for (int64_t act = 0; act < 3; ++act) {
      SCOPED_TRACE("transpose_z " + std::to_string(tz) + ", activation " + std::to_string(act));
      NDArray x = test::make(DataType::kFloat32, {2, 5, 7}, wave(70, 0.1));
      NDArray y = test::make(DataType::kFloat32, {7, 3}, wave(21, 0.9));
      NDArray b = test::make(DataType::kFloat32, {3}, {0.5, -1.5, 2.0});
      x.set_double(3, std::nan(""));  // row 0 of matrix 0 turns NaN, through the activation
      Context cpu;
      ASSERT_OK(test::run_op("matmul", {.in = {&x, &y, &b}, .i = {0, 0, tz, act}}, cpu));
      for (NDArray* a : {&x, &y, &b}) ASSERT_OK(test::move_to_device(*a));
      g_gemms = 0;
      Context dev;
      dev.set_device(Device::cuda(0));
      ASSERT_OK(test::run_op("matmul", {.in = {&x, &y, &b}, .i = {0, 0, tz, act}}, dev));
      EXPECT_GT(g_gemms, 0) << "the device GEMM ran";
      NDArray& z = *dev.output(0);
      EXPECT_EQ(z.shape(), cpu.output(0)->shape());
      ASSERT_OK(z.buffer()->sync_to_host());
      EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(0)), 1e-6, 1e-6));
    }
  }
}

}  // namespace
}  // namespace libops
