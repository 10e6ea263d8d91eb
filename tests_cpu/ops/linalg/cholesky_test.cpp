// cholesky against numpy goldens (tools/gen_goldens_linalg.py): lower and
// upper, batched (rank 3 and 4) and single matrices, float64 and float32; a
// hand-checked 2 x 2; the unread triangle holding NaN and inf; strided
// input views and a strided supplied output; the not-positive-definite error
// and the shape, dtype and argument errors word for word; empty inputs.
#include <cmath>
#include <limits>
#include <string>

#include "golden_util.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

NDArray golden(const std::string& name, const char* role) {
  return load_golden("linalg/cholesky_" + name + "_" + role + ".npy");
}

void expect_golden(const std::string& name, bool upper) {
  NDArray a = golden(name, "a"), z = golden(name, "z");
  const double tol = a.dtype() == DataType::kFloat64 ? 1e-12 : 1e-5;
  Context ctx;
  ASSERT_OK(run_op("cholesky", {.in = {&a}, .b = {upper}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), a.shape()) << name;
  EXPECT_EQ(ctx.output(0)->dtype(), a.dtype()) << name;
  EXPECT_TRUE(all_close(*ctx.output(0), values(z), tol, tol)) << name;
}

// Writes `v` over the strict triangle of every matrix of a dense `a` that a
// factor of the given side does not read.
void fill_unread_triangle(NDArray& a, bool upper, double v) {
  const int64_t n = a.dim(a.rank() - 1);
  for (int64_t i = 0; i < a.length(); ++i) {
    const int64_t r = (i / n) % n, c = i % n;
    if (upper ? c < r : c > r) a.set_double(i, v);
  }
}

}  // namespace

TEST(CholeskyOp, LowerBatchedFloat64) { expect_golden("lower_f64", false); }
TEST(CholeskyOp, UpperBatchedFloat64) { expect_golden("upper_f64", true); }
TEST(CholeskyOp, SingleMatrixFloat64) { expect_golden("single_f64", false); }
TEST(CholeskyOp, LowerBatchedFloat32) { expect_golden("lower_f32", false); }
TEST(CholeskyOp, UpperRank4Float32) { expect_golden("upper_4d_f32", true); }

TEST(CholeskyOp, HandCheckedTwoByTwo) {
  // [[4, 2], [2, 5]] = L L^T with L = [[2, 0], [1, 2]]; U = L^T.
  NDArray a = make(DataType::kFloat64, {2, 2}, {4, 2, 2, 5});
  Context lower, upper;
  ASSERT_OK(run_op("cholesky", {.in = {&a}}, lower));
  EXPECT_EQ(values(*lower.output(0)), (std::vector<double>{2, 0, 1, 2}));
  ASSERT_OK(run_op("cholesky", {.in = {&a}, .b = {true}}, upper));
  EXPECT_EQ(values(*upper.output(0)), (std::vector<double>{2, 1, 0, 2}));
}

TEST(CholeskyOp, TheOtherTriangleIsNotReadAndComesOutAsPositiveZeros) {
  for (bool upper : {false, true}) {
    const std::string name = upper ? "upper_f64" : "lower_f64";
    NDArray a = golden(name, "a"), z = golden(name, "z");
    fill_unread_triangle(a, upper, std::numeric_limits<double>::quiet_NaN());
    a.set_double(upper ? 4 : 1, std::numeric_limits<double>::infinity());     // matrix 0, (1, 0) or (0, 1)
    a.set_double(upper ? 20 : 17, -std::numeric_limits<double>::infinity());  // matrix 1
    Context ctx;
    ASSERT_OK(run_op("cholesky", {.in = {&a}, .b = {upper}}, ctx));
    const std::vector<double> got = values(*ctx.output(0)), want = values(z);
    EXPECT_TRUE(all_close(got, want, 1e-12, 1e-12)) << name;
    for (size_t i = 0; i < got.size(); ++i) {
      if (want[i] == 0) {
        EXPECT_FALSE(std::signbit(got[i])) << name << " element " << i;
      }
    }
  }
}

TEST(CholeskyOp, StridedInputViews) {
  // Every other matrix of the batch, and each matrix transposed (a view with
  // swapped strides; A is symmetric, so the factor is the same).
  NDArray a = golden("lower_f64", "a"), z = golden("lower_f64", "z");
  NDArray every_other, swapped;
  ASSERT_OK(a.slice(0, 0, 3, 2, every_other));
  ASSERT_OK(a.permute({0, 2, 1}, swapped));
  ASSERT_FALSE(every_other.is_c_contiguous());
  ASSERT_FALSE(swapped.is_c_contiguous());
  Context c1, c2;
  ASSERT_OK(run_op("cholesky", {.in = {&every_other}}, c1));
  std::vector<double> want = values(z), first_and_last(want.begin(), want.begin() + 16);
  first_and_last.insert(first_and_last.end(), want.begin() + 32, want.end());
  EXPECT_TRUE(all_close(*c1.output(0), first_and_last, 1e-12, 1e-12));
  ASSERT_OK(run_op("cholesky", {.in = {&swapped}}, c2));
  EXPECT_TRUE(all_close(*c2.output(0), want, 1e-12, 1e-12));
}

TEST(CholeskyOp, IntoASuppliedStridedOutput) {
  NDArray a = golden("single_f64", "a"), z = golden("single_f64", "z");
  NDArray storage = make(DataType::kFloat64, {5, 5}, iota(25)), out;
  ASSERT_OK(storage.permute({1, 0}, out));
  Context ctx;
  ASSERT_OK(run_op("cholesky", {.in = {&a}, .out = {&out}}, ctx));
  EXPECT_TRUE(all_close(out, values(z), 1e-12, 1e-12));
}

TEST(CholeskyOp, NotPositiveDefiniteNamesTheMatrixAndTheMinor) {
  NDArray a = golden("lower_f64", "a");
  a.set_double(2 * 16 + 2 * 4 + 2, -100.0);  // matrix 2, diagonal (2, 2)
  for (bool upper : {false, true}) {
    Context ctx;
    Status s = run_op("cholesky", {.in = {&a}, .b = {upper}}, ctx);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(),
              "cholesky: matrix 2 of a[3,4,4] is not positive definite (its leading minor of order 3 is not)");
  }
  // NaN in the read triangle is not positive definite either (as in
  // reference LAPACK; OpenBLAS's potrf alone would let it through).
  NDArray b = make(DataType::kFloat32, {2, 2}, {1, 0, std::numeric_limits<double>::quiet_NaN(), 1});
  Context ctx;
  EXPECT_EQ(run_op("cholesky", {.in = {&b}}, ctx).message(),
            "cholesky: matrix 0 of a[2,2] is not positive definite (its leading minor of order 2 is not)");
}

TEST(CholeskyOp, ShapeDtypeAndArgumentErrors) {
  NDArray vec = make(DataType::kFloat64, {3}, {1, 2, 3});
  NDArray rect = make(DataType::kFloat64, {2, 3, 4}, iota(24));
  NDArray ints = make(DataType::kInt32, {2, 2}, {4, 2, 2, 5});
  NDArray ok = make(DataType::kFloat64, {2, 2}, {4, 2, 2, 5});
  Context c1, c2, c3, c4;
  Status s = run_op("cholesky", {.in = {&vec}}, c1);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "cholesky: a[3] has rank 1; it needs rank >= 2 (a stack of square matrices)");
  s = run_op("cholesky", {.in = {&rect}}, c2);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "cholesky: a[2,3,4] is not a stack of square matrices: its last two dims are 3 x 4");
  s = run_op("cholesky", {.in = {&ints}}, c3);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "cholesky: unsupported dtype int32 for input 0 [2,2]; supported: float32, float64");
  s = run_op("cholesky", {.in = {&ok}, .b = {true, false}}, c4);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "cholesky: takes at most 1 bool (b) args (upper); got 2: b arg 1 = false is not declared");
}

TEST(CholeskyOp, EmptyInputsGiveEmptyOutputs) {
  for (const Dims& shape : {Dims{0, 3, 3}, Dims{2, 0, 0}, Dims{0, 0}}) {
    NDArray a = zeros(DataType::kFloat32, shape);
    Context ctx;
    ASSERT_OK(run_op("cholesky", {.in = {&a}}, ctx));
    EXPECT_EQ(ctx.output(0)->shape(), shape);
    EXPECT_EQ(ctx.output(0)->length(), 0);
  }
}
