// The recurrent engine on a device, tested on the CPU (Note [Recurrent
// layers] in recurrent.h): the fake "cuda" device of fake_device.h, with
// fake GEMM, cell and transform-any kernels that run the CPU's on the
// device copies. Every input starts on the device with its host copy
// overwritten, so an input the engine forgot to stage (as the first GPU run
// found: the engine once readied its inputs as outputs) reads garbage here.
// The golden cases of lstm_layer, gru_layer, rnn_layer and lstm_cell must
// give numpy's values.
#include <gtest/gtest.h>

#include "blas/gemm.h"
#include "fake_device.h"
#include "golden_manifest.h"
#include "libops/legacy/device_tables.h"
#include "libops/ops/rnn/recurrent.h"
#include "op_test_util.h"

namespace libops {
namespace {

int g_cells = 0, g_gemms = 0;

Status fake_cell(Device, DataType ct, const ops::rnn::RnnDesc& d, const ops::rnn::CellStep& st) {
  ++g_cells;
  ops::rnn::cell_cpu(ct, d, st);  // the step's pointers are the device copies: host memory here
  return Status::ok();
}

Status fake_gemm(int, DataType dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const void* a,
                 int64_t lda, int64_t sa, const void* b, int64_t ldb, int64_t sb, double beta, void* c, int64_t ldc,
                 int64_t sc, int64_t batch) {
  ++g_gemms;
  return blas::gemm_batched(dt, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch);
}

std::vector<test::ManifestCase> recurrent_cases() {
  std::vector<test::ManifestCase> v = test::load_manifest("rnn");
  for (test::ManifestCase& c : test::load_manifest("layers"))
    if (c.op == "lstm_cell") v.push_back(std::move(c));
  return v;
}

class RecurrentOnDevice : public ::testing::TestWithParam<test::ManifestCase> {
 protected:
  void SetUp() override {
    saved_table_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformAny);
    saved_gemm_ = blas::device_gemm(DeviceType::kCuda);
    saved_cell_ = ops::rnn::cell_device_kernel.get(DeviceType::kCuda);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny,
                                  test::cpu_table_on_device_copies<legacy::transform_any_run>);
    blas::register_device_gemm(DeviceType::kCuda, fake_gemm);
    ops::rnn::cell_device_kernel.set(DeviceType::kCuda, fake_cell);
    g_cells = g_gemms = 0;
  }
  void TearDown() override {
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, saved_table_);
    blas::register_device_gemm(DeviceType::kCuda, saved_gemm_);
    ops::rnn::cell_device_kernel.set(DeviceType::kCuda, saved_cell_);
  }

  test::ScopedFakeCuda fake_;
  legacy::TableRunFn saved_table_ = nullptr;
  blas::DeviceGemmBatchedFn saved_gemm_ = nullptr;
  ops::rnn::CellDeviceFn saved_cell_ = nullptr;
};

TEST_P(RecurrentOnDevice, MatchesNumpyFromDeviceInputs) {
  const test::ManifestCase& c = GetParam();
  std::vector<NDArray> in = c.load_inputs();
  std::vector<NDArray*> ptrs;
  for (NDArray& a : in) {
    if (a.length() > 0) ASSERT_OK(test::move_to_device(a));
    ptrs.push_back(&a);
  }
  Context ctx;
  ctx.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op(c.op.c_str(), c.call(ptrs), ctx));
  ASSERT_EQ(ctx.num_outputs(), c.n_out);
  bool any = false;
  for (int k = 0; k < c.n_out; ++k) {
    NDArray& z = *ctx.output(k);
    any |= z.length() > 0;
    ASSERT_OK(z.buffer()->sync_to_host());
    EXPECT_TRUE(test::same_array(z, c.load_output(k), c.rtol, c.atol)) << "output " << k;
  }
  if (any) {
    EXPECT_GT(g_cells, 0) << "the device's cell kernel ran";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, RecurrentOnDevice, ::testing::ValuesIn(recurrent_cases()),
                         [](const ::testing::TestParamInfo<test::ManifestCase>& info) {
                           return info.param.op + "_" + info.param.name;
                         });

}  // namespace
}  // namespace libops
