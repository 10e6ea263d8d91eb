// matmul on cuda:0 (cuBLAS) against the CPU (OpenBLAS and the portable
// kernel, which tests_cpu checks against numpy goldens), and the device
// path's limits, which must be errors rather than silent host copies.
#include <cmath>

#include "cuda_test_util.h"
#include "libops/ops/declarable_op.h"

namespace libops {
namespace {

using test::make;
using test::values;

std::vector<double> ramp(int64_t n, double scale) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * std::cos(0.37 * static_cast<double>(i));
  return v;
}

Status run_matmul(Device d, NDArray& x, NDArray& y, NDArray& z, std::vector<int64_t> iargs) {
  DeclarableOp* op = OpRegistry::instance().find("matmul");
  Context ctx;
  ctx.add_input(&x);
  ctx.add_input(&y);
  ctx.add_output(&z);
  ctx.set_i_args(iargs.data(), static_cast<int>(iargs.size()));
  ctx.set_device(d);
  Status s = op->execute(ctx);
  if (s.is_ok()) s = z.buffer()->sync_to_host();
  return s;
}

TEST(CudaMatmul, MatchesTheCpuForEachDtypeAndTransposeFlag) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16}) {
    for (int tx = 0; tx < 2; ++tx) {
      for (int ty = 0; ty < 2; ++ty) {
        // batch 3, m 17, k 40, n 9 (x is [3, k, m] when transposed, y [k, n] or [n, k]).
        NDArray x = make(t, tx ? Dims{3, 40, 17} : Dims{3, 17, 40}, ramp(3 * 17 * 40, 0.5));
        NDArray y = make(t, ty ? Dims{9, 40} : Dims{40, 9}, ramp(40 * 9, 0.25));
        NDArray zc = test::zeros(t, {3, 17, 9}), zg = test::zeros(t, {3, 17, 9});
        ASSERT_OK(run_matmul(Device::cpu(), x, y, zc, {tx, ty}));
        ASSERT_OK(run_matmul(Device::cuda(0), x, y, zg, {tx, ty}));
        const double tol = t == DataType::kFloat64 ? 1e-12 : t == DataType::kFloat32 ? 1e-5 : 1e-2;
        EXPECT_TRUE(test::all_close(zg, values(zc), tol, tol)) << dtype_name(t) << " tx " << tx << " ty " << ty;
      }
    }
  }
}

TEST(CudaMatmul, DevicePathLimitsAreErrorsNamingTheOp) {
  REQUIRE_CUDA_DEVICE();
  NDArray x = make(DataType::kFloat32, {2, 3}, ramp(6, 1));
  NDArray yi = make(DataType::kInt32, {3, 2}, {1, 2, 3, 4, 5, 6});
  NDArray z = test::zeros(DataType::kFloat32, {2, 2});
  Status s = run_matmul(Device::cuda(0), x, yi, z, {});
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented) << s.message();
  EXPECT_NE(s.message().find("matmul: on cuda:0"), std::string::npos) << s.message();
  NDArray xi = make(DataType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray zi = test::zeros(DataType::kInt32, {2, 2});
  s = run_matmul(Device::cuda(0), xi, yi, zi, {});
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented) << s.message();
  EXPECT_NE(s.message().find("int32 is not supported"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace libops
