// cholesky and triangular_solve on a device, tested on the CPU: the fake
// "cuda" device of fake_device.h keeps its memory on the host, a fake
// DeviceLinalg runs the CPU's potrf / trsm on the device copies, and fake
// legacy tables (transform-any for the copies, binary for clearing the
// Cholesky factor's other triangle) run the CPU kernels there. Each op must
// stay on the device (nothing read back, the output newest there) and give
// the CPU's values; a device with no linalg backend is an error naming the
// op.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "blas/linalg.h"
#include "ops/fake_device_op.h"
#include "golden_util.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/tables.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::values;

struct Seen {
  int potrf = 0, trsm = 0;
};
Seen g_seen;

// What a device backend does, by the CPU's routines on the fake device's
// memory (host memory, so Device::cpu() can work on it).
Status fake_potrf(int, DataType dtype, bool lower, int64_t n, void* a, int64_t lda, int64_t stride, int64_t batch,
                  int64_t* bad_matrix, int64_t* bad_order) {
  ++g_seen.potrf;
  return blas::potrf_batched_on(Device::cpu(), dtype, lower, n, a, lda, stride, batch, bad_matrix, bad_order);
}

Status fake_trsm(int, DataType dtype, bool lower, bool transpose, bool unit_diag, int64_t n, int64_t k, const void* a,
                 int64_t lda, int64_t stride_a, void* b, int64_t ldb, int64_t stride_b, int64_t batch) {
  ++g_seen.trsm;
  return blas::trsm_batched_on(Device::cpu(), dtype, lower, transpose, unit_diag, n, k, a, lda, stride_a, b, ldb,
                               stride_b, batch);
}

const blas::DeviceLinalg kFakeLinalg{fake_potrf, fake_trsm};

class LinalgOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_linalg_ = blas::device_linalg(DeviceType::kCuda);
    saved_copy_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformAny);
    saved_binary_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kBinary);
    blas::register_device_linalg(DeviceType::kCuda, &kFakeLinalg);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny,
                                  test::cpu_table_on_device_copies<legacy::transform_any_run>);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kBinary,
                                  test::cpu_table_on_device_copies<legacy::binary_run>);
    g_seen = Seen{};
  }
  void TearDown() override {
    blas::register_device_linalg(DeviceType::kCuda, saved_linalg_);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, saved_copy_);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kBinary, saved_binary_);
  }

  // `a` with its newest copy on the device and its host copy overwritten,
  // so reading the host copy by mistake shows.
  static void move_to_device(NDArray& a) {
    ASSERT_OK(test::move_to_device(a));
  }

  test::ScopedFakeCuda fake_;
  const blas::DeviceLinalg* saved_linalg_ = nullptr;
  legacy::TableRunFn saved_copy_ = nullptr, saved_binary_ = nullptr;
};

TEST_F(LinalgOnDevice, CholeskyGivesTheCpuValues) {
  for (const char* name : {"lower_f64", "upper_4d_f32"}) {
    const bool upper = std::string(name).starts_with("upper");
    NDArray host = test::load_golden(std::string("linalg/cholesky_") + name + "_a.npy");
    NDArray dev;
    ASSERT_OK(host.dup('c', dev));
    // NaN in the triangle that is not read: the device path must not read it either.
    const int64_t n = host.dim(host.rank() - 1);
    for (int64_t i = 0; i < host.length(); ++i)
      if (upper ? (i % n) < (i / n) % n : (i % n) > (i / n) % n) {
        host.set_double(i, std::numeric_limits<double>::quiet_NaN());
        dev.set_double(i, std::numeric_limits<double>::quiet_NaN());
      }
    Context cpu, on_dev;
    ASSERT_OK(test::run_op("cholesky", {.in = {&host}, .b = {upper}}, cpu));
    move_to_device(dev);
    g_seen = Seen{};
    test::FakeDevice::table_kernels = 0;
    test::run_on_fake_cuda("cholesky", {.in = {&dev}, .b = {upper}}, on_dev);
    EXPECT_EQ(g_seen.potrf, 1) << name;
    EXPECT_EQ(test::FakeDevice::table_kernels, 3) << name;  // the copy, relu, replace_nans
    EXPECT_EQ(values(*on_dev.output(0)), values(*cpu.output(0))) << name;
  }
}

TEST_F(LinalgOnDevice, CholeskyOfAStridedViewIntoAStridedOutput) {
  NDArray a = test::load_golden("linalg/cholesky_lower_f64_a.npy"), view;
  ASSERT_OK(a.slice(0, 0, 3, 2, view));
  Context cpu;
  ASSERT_OK(test::run_op("cholesky", {.in = {&view}}, cpu));
  NDArray storage = test::make(DataType::kFloat64, {2, 4, 4}, test::iota(32)), out;
  ASSERT_OK(storage.permute({0, 2, 1}, out));
  move_to_device(a);
  Context dev;
  test::run_on_fake_cuda("cholesky", {.in = {&view}, .out = {&out}}, dev);
  EXPECT_EQ(values(out), values(*cpu.output(0)));
}

TEST_F(LinalgOnDevice, NotPositiveDefiniteGivesTheCpuError) {
  NDArray a = test::make(DataType::kFloat32, {2, 2, 2}, {4, 2, 2, 5, 1, 2, 2, 1});
  move_to_device(a);
  Context ctx;
  ctx.set_device(Device::cuda(0));
  EXPECT_EQ(test::run_op("cholesky", {.in = {&a}}, ctx).message(),
            "cholesky: matrix 1 of a[2,2,2] is not positive definite (its leading minor of order 2 is not)");
}

TEST_F(LinalgOnDevice, TriangularSolveGivesTheCpuValues) {
  // A shared a seen transposed (upper becomes lower), with a batch of b.
  NDArray a = test::load_golden("linalg/triangular_solve_shared_a_f64_a.npy");
  NDArray b = test::load_golden("linalg/triangular_solve_shared_a_f64_b.npy");
  NDArray a_view;
  ASSERT_OK(a.permute({1, 0}, a_view));
  Context cpu;
  ASSERT_OK(test::run_op("triangular_solve", {.in = {&a_view, &b}, .b = {false, true}}, cpu));
  move_to_device(a);
  move_to_device(b);
  Context dev;
  test::run_on_fake_cuda("triangular_solve", {.in = {&a_view, &b}, .b = {false, true}}, dev);
  EXPECT_EQ(g_seen.trsm, 1);
  EXPECT_EQ(test::FakeDevice::table_kernels, 2);  // a made dense, b copied into x
  EXPECT_EQ(values(*dev.output(0)), values(*cpu.output(0)));
  NDArray z = test::load_golden("linalg/triangular_solve_shared_a_f64_z.npy");
  EXPECT_TRUE(test::all_close(*dev.output(0), values(z), 1e-12, 1e-12));
}

// A backend whose potrf lets a NaN through (reports success, NaN in the
// factor): clearing the other triangle must not turn it into 0.
Status nan_potrf(int, DataType, bool, int64_t, void* a, int64_t, int64_t, int64_t, int64_t* bad_matrix,
                 int64_t* bad_order) {
  ++g_seen.potrf;
  static_cast<double*>(a)[0] = std::numeric_limits<double>::quiet_NaN();
  *bad_matrix = -1;
  *bad_order = 0;
  return Status::ok();
}

TEST_F(LinalgOnDevice, ANanLeftInTheFactorStaysVisible) {
  const blas::DeviceLinalg nan_linalg{nan_potrf, fake_trsm};
  blas::register_device_linalg(DeviceType::kCuda, &nan_linalg);
  NDArray a = test::make(DataType::kFloat64, {2, 2}, {4, 7, 2, 5});
  move_to_device(a);
  Context ctx;
  test::run_on_fake_cuda("cholesky", {.in = {&a}}, ctx);
  const std::vector<double> z = values(*ctx.output(0));
  EXPECT_TRUE(std::isnan(z[0]));
  EXPECT_EQ(z[1], 0);  // the other triangle: a's 7 cleared
  EXPECT_EQ(z[2], 2);  // potrf did not touch the rest of the lower triangle
  EXPECT_EQ(z[3], 5);
}

TEST_F(LinalgOnDevice, NoLinalgBackendIsAnErrorNamingTheOp) {
  blas::register_device_linalg(DeviceType::kCuda, nullptr);
  NDArray a = test::make(DataType::kFloat64, {2, 2}, {4, 2, 2, 5});
  NDArray b = test::make(DataType::kFloat64, {2, 1}, {1, 2});
  Context c1, c2;
  c1.set_device(Device::cuda(0));
  c2.set_device(Device::cuda(0));
  Status s = test::run_op("cholesky", {.in = {&a}}, c1);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_EQ(s.message(), "cholesky: potrf: no cuda implementation (device cuda:0)");
  s = test::run_op("triangular_solve", {.in = {&a, &b}}, c2);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_EQ(s.message(), "triangular_solve: trsm: no cuda implementation (device cuda:0)");
}

}  // namespace
}  // namespace libops
