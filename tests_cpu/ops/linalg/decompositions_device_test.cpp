// The decomposition ops on a device, tested on the CPU: the fake "cuda"
// device of fake_device.h keeps its memory on the host, a fake
// DeviceDecompositions and a fake device GEMM run the CPU's routines on the
// device copies, and fake legacy tables run the CPU kernels there (copies,
// the triangle clearing, the finiteness check). Each op must give exactly
// the CPU's values, leave its outputs newest on the device, and read back
// nothing but the one finiteness flag per matrix the iterative solvers
// check; a device with no decomposition backend is an error naming the op.
#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <string>

#include "blas/decompositions.h"
#include "blas/gemm.h"
#include "fake_device.h"
#include "golden_manifest.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/tables.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::values;

int g_calls = 0;

Status fake_qr(int, DataType dt, const blas::QrArgs& a) {
  ++g_calls;
  return blas::qr_batched_on(Device::cpu(), dt, a);
}
Status fake_svd(int, DataType dt, const blas::SvdArgs& a, int64_t* bad) {
  ++g_calls;
  return blas::svd_batched_on(Device::cpu(), dt, a, bad);
}
Status fake_eigh(int, DataType dt, const blas::EighArgs& a, int64_t* bad) {
  ++g_calls;
  return blas::eigh_batched_on(Device::cpu(), dt, a, bad);
}
Status fake_eig(int, DataType dt, const blas::EigArgs& a, int64_t* bad) {
  ++g_calls;
  return blas::eig_batched_on(Device::cpu(), dt, a, bad);
}
Status fake_lu(int, DataType dt, const blas::LuArgs& a, int64_t* singular) {
  ++g_calls;
  return blas::lu_batched_on(Device::cpu(), dt, a, singular);
}
Status fake_lu_solve(int, DataType dt, const blas::LuSolveArgs& a) {
  ++g_calls;
  return blas::lu_solve_batched_on(Device::cpu(), dt, a);
}
Status fake_permutation(int, int64_t n, int64_t batch, const int32_t* pivots, DataType index_dt, void* perm) {
  ++g_calls;
  return blas::lu_permutation_on(Device::cpu(), n, batch, pivots, index_dt, perm);
}
Status fake_determinant(int, DataType dt, int64_t n, int64_t batch, const void* lu, const int32_t* pivots, void* det,
                        void* log_abs) {
  ++g_calls;
  return blas::lu_determinant_on(Device::cpu(), dt, n, batch, lu, pivots, det, log_abs);
}
Status fake_scale(int, DataType dt, int64_t batch, int64_t k, int64_t cols, const void* s, double rcond, double l2,
                  void* t) {
  ++g_calls;
  return blas::pinv_scale_rows_on(Device::cpu(), dt, batch, k, cols, s, rcond, l2, t);
}
Status fake_gemm(int, DataType dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const void* a,
                 int64_t lda, int64_t sa, const void* b, int64_t ldb, int64_t sb, double beta, void* c, int64_t ldc,
                 int64_t sc, int64_t batch) {
  ++g_calls;
  return blas::gemm_batched(dt, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch);
}

const blas::DeviceDecompositions kFake{fake_qr,         fake_svd,         fake_eigh,  fake_eig, fake_lu,
                                       fake_lu_solve,   fake_permutation, fake_determinant, fake_scale};

constexpr legacy::Table kTables[] = {legacy::Table::kTransformAny, legacy::Table::kBinary, legacy::Table::kReduceBool};

class DecompositionsOnDevice : public ::testing::TestWithParam<test::ManifestCase> {
 protected:
  void SetUp() override {
    saved_fns_ = blas::device_decompositions(DeviceType::kCuda);
    saved_gemm_ = blas::device_gemm(DeviceType::kCuda);
    for (size_t i = 0; i < std::size(kTables); ++i) saved_tables_[i] = legacy::device_table(DeviceType::kCuda, kTables[i]);
    blas::register_device_decompositions(DeviceType::kCuda, &kFake);
    blas::register_device_gemm(DeviceType::kCuda, fake_gemm);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny,
                                  test::cpu_table_on_device_copies<legacy::transform_any_run>);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kBinary,
                                  test::cpu_table_on_device_copies<legacy::binary_run>);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kReduceBool,
                                  test::cpu_table_on_device_copies<legacy::reduce_bool_run>);
    g_calls = 0;
  }
  void TearDown() override {
    blas::register_device_decompositions(DeviceType::kCuda, saved_fns_);
    blas::register_device_gemm(DeviceType::kCuda, saved_gemm_);
    for (size_t i = 0; i < std::size(kTables); ++i)
      legacy::register_device_table(DeviceType::kCuda, kTables[i], saved_tables_[i]);
  }
  test::ScopedFakeCuda fake_;
  const blas::DeviceDecompositions* saved_fns_ = nullptr;
  blas::DeviceGemmBatchedFn saved_gemm_ = nullptr;
  legacy::TableRunFn saved_tables_[std::size(kTables)] = {};
};

// Determinants and inverses of n <= 3 take the CPU's closed forms (Note
// [Small determinants], Note [Small inverses]); matrix_power's negative
// powers invert.
const std::set<std::string> kSmallDeterminants = {"matrix_determinant", "log_matrix_determinant", "slogdet",
                                                  "matrix_inverse", "matrix_power"};

// The ops whose input passes the finiteness check, read back once.
const std::set<std::string> kChecksFinite = {"svd", "eigh", "eig", "lstsq"};

TEST_P(DecompositionsOnDevice, GivesTheCpuValuesAndStaysThere) {
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
  const bool has_matrices = host[0].length() > 0;
  EXPECT_EQ(test::FakeDevice::to_host - to_host, kChecksFinite.count(c.op) && has_matrices ? 1 : 0);
  if (has_matrices && c.op != "matrix_power") {
    EXPECT_GT(g_calls, 0);  // matrix_power's p0 case only copies an identity
  }
  ASSERT_EQ(on_dev.num_outputs(), cpu.num_outputs());
  for (int k = 0; k < on_dev.num_outputs(); ++k) {
    if (on_dev.output(k)->length() > 0) {
      EXPECT_EQ(on_dev.output(k)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << "output " << k;
    }
    ASSERT_OK(on_dev.output(k)->buffer()->sync_to_host());
    if (kSmallDeterminants.count(c.op) && host[0].rank() >= 2 && host[0].dim(host[0].rank() - 1) <= 3) {
      // Note [Small determinants] and [Small inverses]: the CPU takes these
      // by cofactors, the device from LU factors: the same values within
      // rounding.
      EXPECT_TRUE(test::all_close(*on_dev.output(k), values(*cpu.output(k)), 1e-6, 1e-6)) << "output " << k;
    } else {
      EXPECT_EQ(values(*on_dev.output(k)), values(*cpu.output(k))) << "output " << k;
    }
  }
}

std::vector<test::ManifestCase> device_cases() {
  std::vector<test::ManifestCase> v = test::load_manifest("linalg_ops");
  for (test::ManifestCase& c : test::load_manifest("factorizations")) v.push_back(std::move(c));
  return v;
}

INSTANTIATE_TEST_SUITE_P(Cases, DecompositionsOnDevice, ::testing::ValuesIn(device_cases()),
                         [](const ::testing::TestParamInfo<test::ManifestCase>& info) {
                           return info.param.op + "_" + info.param.name;
                         });

TEST_F(DecompositionsOnDevice, NoBackendIsAnErrorNamingTheOp) {
  blas::register_device_decompositions(DeviceType::kCuda, nullptr);
  NDArray a = test::make(DataType::kFloat64, {2, 2}, {4, 2, 2, 5});
  Context ctx;
  ctx.set_device(Device::cuda(0));
  const Status s = test::run_op("qr", {.in = {&a}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_EQ(s.message(), "qr: qr: no cuda implementation (device cuda:0)");
}

}  // namespace
}  // namespace libops
