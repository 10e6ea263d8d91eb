// cholesky and triangular_solve on cuda:0 (cuSOLVER's potrfBatched and
// cuBLAS's trsmBatched, blas/linalg_cuda.cu) against the same ops on the
// CPU (LAPACK and OpenBLAS, which tests_cpu checks against numpy): both
// triangles, every solve flag, batched and shared matrices, and the
// not-positive-definite error word for word.
#include <cmath>
#include <string>

#include "cuda_test_util.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::make;
using test::values;

// `batch` symmetric positive-definite n x n matrices: M * M^T + n * I with
// M's entries from a fixed wave.
std::vector<double> spd(int64_t batch, int64_t n) {
  std::vector<double> out(static_cast<size_t>(batch * n * n));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t t = 0; t < n; ++t)
          s += std::sin(0.3 * static_cast<double>(b * 131 + i * 17 + t) + 0.1) *
               std::sin(0.3 * static_cast<double>(b * 131 + j * 17 + t) + 0.1);
        out[static_cast<size_t>((b * n + i) * n + j)] = s;
      }
  return out;
}

// Well-conditioned triangles, with the unit diagonal too: a dominant
// diagonal and off-diagonal waves of size 2 / n, so substitution cannot
// grow the solution by more than about e^2.
std::vector<double> well_conditioned(int64_t batch, int64_t n) {
  std::vector<double> out(static_cast<size_t>(batch * n * n));
  const double scale = 2.0 / static_cast<double>(n);
  for (int64_t i = 0; i < batch * n * n; ++i) out[static_cast<size_t>(i)] = scale * std::cos(0.7 * static_cast<double>(i));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>((b * n + i) * n + i)] = 2.0 + 0.1 * static_cast<double>(i);
  return out;
}

std::vector<double> wave(int64_t count) {
  std::vector<double> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[static_cast<size_t>(i)] = 3.0 * std::sin(0.45 * static_cast<double>(i) + 0.3);
  return v;
}

double tolerance(DataType t) { return t == DataType::kFloat64 ? 1e-10 : 2e-4; }

// Runs `op` on the CPU and on cuda:0 over copies of `inputs` and compares.
void expect_cuda_matches_cpu(const char* op, const std::vector<NDArray>& inputs, std::vector<bool> bargs,
                             const std::string& what) {
  std::vector<NDArray> c, g;
  for (const NDArray& a : inputs) {
    NDArray x, y;
    ASSERT_OK(a.dup('c', x));
    ASSERT_OK(a.dup('c', y));
    c.push_back(x);
    g.push_back(y);
  }
  std::vector<NDArray*> cin, gin;
  for (NDArray& a : c) cin.push_back(&a);
  for (NDArray& a : g) gin.push_back(&a);
  Context cc, gc;
  ASSERT_OK(test::run_op(op, {.in = cin, .b = bargs}, cc));
  gc.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op(op, {.in = gin, .b = bargs}, gc));
  NDArray& z = *gc.output(0);
  EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << what;
  ASSERT_OK(z.buffer()->sync_to_host());
  EXPECT_EQ(z.shape(), cc.output(0)->shape()) << what;
  const double tol = tolerance(z.dtype());
  EXPECT_TRUE(test::all_close(z, values(*cc.output(0)), tol, tol)) << what << " " << dtype_name(z.dtype());
}

TEST(CudaLinalg, CholeskyMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64})
    for (bool upper : {false, true})
      for (const Dims& shape : {Dims{5, 5}, Dims{3, 4, 4}, Dims{2, 2, 33, 33}, Dims{1, 1}, Dims{4, 1, 1}}) {
        const int64_t n = shape[shape.size() - 1], batch = shape.product() / (n * n);
        const std::string what = std::string("cholesky ") + shape.str() + (upper ? " upper" : " lower");
        expect_cuda_matches_cpu("cholesky", {make(t, shape, spd(batch, n))}, {upper}, what);
      }
}

// cuSOLVER's potrfBatched uses the triangle it does not factor as
// workspace, and that triangle may come in holding anything: the output
// must still be the CPU's, with exact zeros there.
TEST(CudaLinalg, CholeskyIgnoresAndClearsTheOtherTriangle) {
  REQUIRE_CUDA_DEVICE();
  const double junk[] = {std::nan(""), HUGE_VAL, -1e30, 7.0};
  for (DataType t : {DataType::kFloat32, DataType::kFloat64})
    for (bool upper : {false, true}) {
      const int64_t batch = 3, n = 6;
      std::vector<double> v = spd(batch, n);
      int next = 0;
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j)
            if (upper ? j < i : j > i) v[static_cast<size_t>((b * n + i) * n + j)] = junk[next++ % 4];
      std::string what = "cholesky, junk in the ";  // appended in place: GCC -O1 warns (falsely) on operator+
      what += upper ? "lower" : "upper";
      what += " triangle";
      expect_cuda_matches_cpu("cholesky", {make(t, {batch, n, n}, v)}, {upper}, what);
    }
}

// A NaN in the triangle that is read: both backends report the matrix as
// not positive definite at its first NaN pivot (Note [NaN pivots]), whether
// cuSOLVER finds it itself or the kernel after it does. A NaN in the
// unread triangle of another matrix changes nothing.
TEST(CudaLinalg, NanInTheReadTriangleIsTheCpuError) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64}) {
    std::vector<double> v = spd(3, 4);
    v[0 * 16 + 1 * 4 + 3] = std::nan("");  // matrix 0, upper triangle: not read
    v[2 * 16 + 2 * 4 + 1] = std::nan("");  // matrix 2, row 2, column 1 (lower triangle)
    NDArray cpu_a = make(t, {3, 4, 4}, v), gpu_a = make(t, {3, 4, 4}, v);
    Context cc, gc;
    const Status want = test::run_op("cholesky", {.in = {&cpu_a}}, cc);
    ASSERT_FALSE(want.is_ok());
    EXPECT_NE(want.message().find("matrix 2 of a"), std::string::npos) << want.message();
    gc.set_device(Device::cuda(0));
    const Status s = test::run_op("cholesky", {.in = {&gpu_a}}, gc);
    EXPECT_EQ(s.code(), want.code()) << dtype_name(t);
    EXPECT_EQ(s.message(), want.message()) << dtype_name(t);
  }
}

TEST(CudaLinalg, NotPositiveDefiniteIsTheCpuError) {
  REQUIRE_CUDA_DEVICE();
  std::vector<double> v = spd(3, 4);
  v[16 + 2 * 4 + 2] = -50.0;  // matrix 1's third diagonal element
  NDArray cpu_a = make(DataType::kFloat64, {3, 4, 4}, v), gpu_a = make(DataType::kFloat64, {3, 4, 4}, v);
  Context cc, gc;
  const Status want = test::run_op("cholesky", {.in = {&cpu_a}}, cc);
  ASSERT_FALSE(want.is_ok());
  gc.set_device(Device::cuda(0));
  const Status s = test::run_op("cholesky", {.in = {&gpu_a}}, gc);
  EXPECT_EQ(s.code(), want.code());
  EXPECT_EQ(s.message(), want.message());
}

TEST(CudaLinalg, TriangularSolveMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64})
    for (int flags = 0; flags < 8; ++flags) {
      const bool upper = flags & 1, transpose = flags & 2, unit = flags & 4;
      const std::string what = "triangular_solve flags " + std::to_string(flags);
      // Batched a and b; one a for a batch of b; a tall right-hand side.
      expect_cuda_matches_cpu("triangular_solve",
                              {make(t, {3, 6, 6}, well_conditioned(3, 6)), make(t, {3, 6, 4}, wave(72))},
                              {upper, transpose, unit}, what + " batched");
      expect_cuda_matches_cpu("triangular_solve",
                              {make(t, {7, 7}, well_conditioned(1, 7)), make(t, {2, 3, 7, 5}, wave(210))},
                              {upper, transpose, unit}, what + " shared a");
      expect_cuda_matches_cpu("triangular_solve",
                              {make(t, {40, 40}, well_conditioned(1, 40)), make(t, {40, 1}, wave(40))},
                              {upper, transpose, unit}, what + " one column");
      expect_cuda_matches_cpu("triangular_solve", {make(t, {5, 1, 1}, {2, -4, 0.5, 3, 8}), make(t, {5, 1, 3}, wave(15))},
                              {upper, transpose, unit}, what + " 1 x 1");
    }
}

}  // namespace
}  // namespace libops
