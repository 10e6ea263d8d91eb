// matmul on cuda:0 (cuBLAS) against the CPU (OpenBLAS and the portable
// kernel, which tests_cpu checks against numpy goldens), and the device
// path's limits, which must be errors rather than silent host copies.
#include <cmath>
#include <string>

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

// matmul of x and y on the CPU and on cuda:0 (fresh outputs; the device's
// prefilled with NaN, so an element cuBLAS does not write shows).
void expect_cuda_matches_cpu(NDArray& x, NDArray& y, std::vector<int64_t> iargs, const Dims& out_shape,
                             const std::string& what) {
  const DataType t = x.dtype();
  NDArray zc = test::zeros(t, out_shape), zg = test::zeros(t, out_shape);
  for (int64_t i = 0; i < zg.length(); ++i) zg.set_double(i, std::nan(""));
  ASSERT_OK(run_matmul(Device::cpu(), x, y, zc, iargs));
  ASSERT_OK(run_matmul(Device::cuda(0), x, y, zg, iargs));
  const double tol = t == DataType::kFloat64 ? 1e-12 : t == DataType::kFloat32 ? 1e-5 : 1e-2;
  EXPECT_TRUE(test::all_close(zg, values(zc), tol, tol)) << what << " " << dtype_name(t);
}

// The operand layouts the device path passes to cuBLAS as they are: row
// strides above the row length, column-major views, batch strides of 0
// (broadcast views and broadcast batch dims on either side), vectors (m or
// n of 1), 1 x 1 x 1, and k == 0 (every output element written as 0).
TEST(CudaMatmul, LayoutsAndEdgeExtentsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16}) {
    NDArray big = test::zeros(t, {2, 6, 8}), rows, xs;
    ASSERT_OK(big.slice(1, 0, 6, 2, rows));
    ASSERT_OK(rows.slice(2, 0, 4, 1, xs));  // [2,3,4], row stride 16
    ASSERT_OK(xs.assign(make(t, {2, 3, 4}, ramp(24, 0.5))));
    NDArray ydense = make(t, {5, 4}, ramp(20, 0.25)), ycol;
    ASSERT_OK(ydense.permute({1, 0}, ycol));  // [4,5], column-major
    NDArray y = make(t, {4, 5}, ramp(20, 0.3));
    expect_cuda_matches_cpu(xs, y, {}, {2, 3, 5}, "row-strided x");
    expect_cuda_matches_cpu(xs, ycol, {}, {2, 3, 5}, "row-strided x, column-major y");
    NDArray xst;
    ASSERT_OK(xs.permute({0, 2, 1}, xst));  // [2,4,3] column-major view, transposed back by the flag
    expect_cuda_matches_cpu(xst, ycol, {1, 0}, {2, 3, 5}, "transpose_x of a column-major view");
    NDArray x2 = make(t, {3, 4}, ramp(12, 0.7)), xb;
    ASSERT_OK(x2.broadcast_to({3, 3, 4}, xb));
    expect_cuda_matches_cpu(xb, y, {}, {3, 3, 5}, "broadcast view x");
    NDArray x4 = make(t, {2, 1, 3, 4}, ramp(24, 0.5)), y4 = make(t, {1, 3, 4, 2}, ramp(24, 0.4));
    expect_cuda_matches_cpu(x4, y4, {}, {2, 3, 3, 2}, "batch dims broadcast both ways");
    NDArray v = make(t, {4}, ramp(4, 0.9)), yb = make(t, {2, 4, 3}, ramp(24, 0.6));
    expect_cuda_matches_cpu(v, y, {}, {5}, "vector x matrix");
    expect_cuda_matches_cpu(x2, v, {}, {3}, "matrix x vector");
    expect_cuda_matches_cpu(v, yb, {}, {2, 3}, "vector x batched matrix");
    expect_cuda_matches_cpu(v, v, {}, {}, "dot");
    NDArray one_a = make(t, {1, 1}, {1.5}), one_b = make(t, {1, 1}, {-2.0});
    expect_cuda_matches_cpu(one_a, one_b, {}, {1, 1}, "1 x 1 x 1");
    NDArray ek = test::zeros(t, {2, 0}), ek2 = test::zeros(t, {0, 3});
    expect_cuda_matches_cpu(ek, ek2, {}, {2, 3}, "k == 0");
  }
}

// Note [Matmul epilogue] on the device: bias, relu / relu6 and
// transpose_z, against the CPU (whose values tests_cpu checks by hand).
// Note [Small matrices]: square 2x2 to 4x4 batches run a thread per
// matrix (small_gemm_cuda.cu) instead of cuBLAS; the CPU runs its own
// small-matrix kernels. Both transposes, a shared (broadcast) operand, a
// batch larger than one grid's worth of threads, and an empty batch.
TEST(CudaMatmul, SmallSquareBatchesMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64}) {
    for (int64_t s : {2, 3, 4}) {
      for (int tx = 0; tx < 2; ++tx)
        for (int ty = 0; ty < 2; ++ty) {
          NDArray x = make(t, {1000, s, s}, ramp(1000 * s * s, 0.5));
          NDArray y = make(t, {1000, s, s}, ramp(1000 * s * s, 0.25));
          expect_cuda_matches_cpu(x, y, {tx, ty}, {1000, s, s},
                                  "[1000," + std::to_string(s) + "," + std::to_string(s) + "] tx " +
                                      std::to_string(tx) + " ty " + std::to_string(ty));
        }
      NDArray shared = make(t, {s, s}, ramp(s * s, 0.7));
      NDArray many = make(t, {70000, s, s}, ramp(70000 * s * s, 0.1));
      expect_cuda_matches_cpu(many, shared, {}, {70000, s, s}, "a shared y, 70000 entries");
      NDArray none = test::zeros(t, {0, s, s});
      expect_cuda_matches_cpu(none, none, {}, {0, s, s}, "an empty batch");
    }
  }
}

TEST(CudaMatmul, BiasActivationAndTransposeZMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  DeclarableOp* op = OpRegistry::instance().find("matmul");
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16}) {
    NDArray x = make(t, {3, 17, 40}, ramp(3 * 17 * 40, 0.5)), y = make(t, {40, 9}, ramp(40 * 9, 0.25));
    NDArray b = make(t, {9}, ramp(9, 1.5));
    for (int64_t tz = 0; tz < 2; ++tz) {
      for (int64_t act = 0; act < 3; ++act) {
        const Dims shape = tz ? Dims{3, 9, 17} : Dims{3, 17, 9};
        NDArray zc = test::zeros(t, shape), zg = test::zeros(t, shape);
        for (int64_t i = 0; i < zg.length(); ++i) zg.set_double(i, std::nan(""));
        for (Device d : {Device::cpu(), Device::cuda(0)}) {
          Context ctx;
          ctx.add_input(&x);
          ctx.add_input(&y);
          ctx.add_input(&b);
          ctx.add_output(d.is_cpu() ? &zc : &zg);
          const int64_t iargs[] = {0, 0, tz, act};
          ctx.set_i_args(iargs, 4);
          ctx.set_device(d);
          ASSERT_OK(op->execute(ctx));
        }
        ASSERT_OK(zg.buffer()->sync_to_host());
        const double tol = t == DataType::kFloat64 ? 1e-12 : t == DataType::kFloat32 ? 1e-5 : 1e-2;
        EXPECT_TRUE(test::all_close(zg, values(zc), tol, tol)) << dtype_name(t) << " tz " << tz << " act " << act;
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
  // Columns a stride apart (no BLAS layout) and a flipped view (negative
  // stride): the host would have to copy them, so the device path refuses.
  NDArray wide = make(DataType::kFloat32, {2, 6}, ramp(12, 1)), strided, flipped;
  ASSERT_OK(wide.slice(1, 0, 6, 2, strided));  // [2,3], column stride 2
  NDArray y3 = make(DataType::kFloat32, {3, 2}, ramp(6, 1));
  s = run_matmul(Device::cuda(0), strided, y3, z, {});
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented) << s.message();
  EXPECT_NE(s.message().find("matmul: on cuda:0"), std::string::npos) << s.message();
  ASSERT_OK(y3.flip(0, flipped));
  s = run_matmul(Device::cuda(0), x, flipped, z, {});
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
