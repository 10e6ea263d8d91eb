// qr, svd, eigh and eig on cuda:0 (cuSOLVER, blas/decompositions_cuda.cu)
// against numpy's values from the "factorizations" manifest, up to signs
// as tests_cpu checks the CPU (factorization_checks.h); the value-by-value
// linalg ops run in golden_ops_test.cpp's "linalg_ops" manifest. Also the
// errors that need a device: a singular matrix named, NaN rejected.
#include <limits>

#include "cuda_test_util.h"
#include "golden_manifest.h"
#include "op_test_util.h"
#include "ops/linalg/factorization_checks.h"

namespace libops {
namespace {

TEST(CudaDecompositions, FactorizationsMatchNumpyUpToSigns) {
  REQUIRE_CUDA_DEVICE();
  const std::vector<test::ManifestCase> cases = test::load_manifest("factorizations");
  ASSERT_GT(cases.size(), 20u);
  for (const test::ManifestCase& c : cases) {
    SCOPED_TRACE(c.op + " " + c.name);
    std::vector<NDArray> in = c.load_inputs();
    Context gpu;
    gpu.set_device(Device::cuda(0));
    CASE_OK(test::run_op(c.op.c_str(), c.call({&in[0]}), gpu));
    for (int k = 0; k < gpu.num_outputs(); ++k) {
      if (gpu.output(k)->length() > 0) {
        EXPECT_EQ(gpu.output(k)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << "output " << k;
      }
      CASE_OK(gpu.output(k)->buffer()->sync_to_host());
    }
    test::check_factorization(c, in[0], gpu);
  }
}

TEST(CudaDecompositions, ErrorsNameTheMatrix) {
  REQUIRE_CUDA_DEVICE();
  NDArray a = test::make(DataType::kFloat64, {2, 2, 2}, {1, 2, 3, 4, 1, 2, 2, 4});
  Context inv;
  inv.set_device(Device::cuda(0));
  EXPECT_EQ(test::run_op("matrix_inverse", {.in = {&a}}, inv).message(),
            "matrix_inverse: matrix 1 of a[2,2,2] is singular (its LU factorization has an exact zero pivot)");
  a.set_double(0, std::numeric_limits<double>::quiet_NaN());
  Context svd;
  svd.set_device(Device::cuda(0));
  EXPECT_EQ(test::run_op("svd", {.in = {&a}}, svd).message(),
            "svd: matrix 0 of a[2,2,2] holds NaN or Inf; svd needs finite values");
}

// Runs without a GPU: every decomposition op declares a device path.
TEST(CudaDecompositions, EveryOpRunsOnDevices) {
  for (const char* op : {"qr", "svd", "eigh", "eig", "lu", "matrix_inverse", "matrix_determinant",
                         "log_matrix_determinant", "slogdet", "solve", "lstsq", "matrix_power"})
    EXPECT_TRUE(OpRegistry::instance().find(op)->descriptor().any_device) << op;
}

}  // namespace
}  // namespace libops
