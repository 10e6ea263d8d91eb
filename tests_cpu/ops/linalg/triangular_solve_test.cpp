// triangular_solve against numpy goldens (tools/gen_goldens_linalg.py):
// lower and upper, with and without transpose, unit_diag, a shared rank-2 a
// for a batch of b, rank 4, float64 and float32. The goldens keep random
// values in the triangle A does not use, so each also shows it is not read.
// Hand-checked small systems (unit_diag, a zero on the diagonal), strided
// input views and a strided supplied output, the errors word for word, and
// empty inputs.
#include <cmath>
#include <limits>
#include <string>

#include "golden_util.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

NDArray golden(const std::string& name, const char* role) {
  return load_golden("linalg/triangular_solve_" + name + "_" + role + ".npy");
}

void expect_golden(const std::string& name, std::vector<bool> flags) {
  NDArray a = golden(name, "a"), b = golden(name, "b"), z = golden(name, "z");
  const double tol = a.dtype() == DataType::kFloat64 ? 1e-12 : 1e-5;
  Context ctx;
  ASSERT_OK(run_op("triangular_solve", {.in = {&a, &b}, .b = flags}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), b.shape()) << name;
  EXPECT_EQ(ctx.output(0)->dtype(), b.dtype()) << name;
  EXPECT_TRUE(all_close(*ctx.output(0), values(z), tol, tol)) << name;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST(TriangularSolveOp, LowerBatchedFloat64) { expect_golden("lower_f64", {}); }
TEST(TriangularSolveOp, UpperBatchedFloat64) { expect_golden("upper_f64", {true}); }
TEST(TriangularSolveOp, LowerTransposedFloat64) { expect_golden("lower_t_f64", {false, true}); }
TEST(TriangularSolveOp, UpperTransposedFloat64) { expect_golden("upper_t_f64", {true, true}); }
TEST(TriangularSolveOp, UnitDiagonalFloat64) { expect_golden("unit_f64", {false, false, true}); }
TEST(TriangularSolveOp, OneSharedMatrixForABatch) { expect_golden("shared_a_f64", {true}); }
TEST(TriangularSolveOp, SingleSystemFloat32) { expect_golden("single_f32", {}); }
TEST(TriangularSolveOp, UpperTransposedRank4Float32) { expect_golden("upper_t_f32", {true, true}); }

TEST(TriangularSolveOp, HandCheckedSystems) {
  // [[2, 0], [1, 4]] x = [2, 9]: x = [1, 2]. The NaN above the diagonal is
  // never read.
  NDArray a = make(DataType::kFloat64, {2, 2}, {2, kNaN, 1, 4});
  NDArray b = make(DataType::kFloat64, {2, 1}, {2, 9});
  Context plain;
  ASSERT_OK(run_op("triangular_solve", {.in = {&a, &b}}, plain));
  EXPECT_EQ(values(*plain.output(0)), (std::vector<double>{1, 2}));
  // unit_diag: the diagonal (NaN here) is taken as ones, so A is
  // [[1, 0], [2, 1]] and x = [[1, 2], [3 - 2, 4 - 4]].
  NDArray u = make(DataType::kFloat32, {2, 2}, {kNaN, kNaN, 2, kNaN});
  NDArray c = make(DataType::kFloat32, {2, 2}, {1, 2, 3, 4});
  Context unit;
  ASSERT_OK(run_op("triangular_solve", {.in = {&u, &c}, .b = {false, false, true}}, unit));
  EXPECT_EQ(values(*unit.output(0)), (std::vector<double>{1, 2, 1, 0}));
  // Transposed upper: op(A) = [[2, 0], [1, 4]] again, from A = [[2, 1], [NaN, 4]].
  NDArray t = make(DataType::kFloat64, {2, 2}, {2, 1, kNaN, 4});
  Context trans;
  ASSERT_OK(run_op("triangular_solve", {.in = {&t, &b}, .b = {true, true}}, trans));
  EXPECT_EQ(values(*trans.output(0)), (std::vector<double>{1, 2}));
}

TEST(TriangularSolveOp, AZeroOnTheDiagonalGivesInfinitiesNotAnError) {
  NDArray a = make(DataType::kFloat64, {2, 2}, {0, 0, 1, 1});
  NDArray b = make(DataType::kFloat64, {2, 1}, {1, 1});
  Context ctx;
  ASSERT_OK(run_op("triangular_solve", {.in = {&a, &b}}, ctx));
  const std::vector<double> x = values(*ctx.output(0));
  EXPECT_EQ(x[0], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isinf(x[1]) || std::isnan(x[1]));
}

TEST(TriangularSolveOp, StridedInputViews) {
  // a seen transposed (strides swapped): its upper triangle is the golden's
  // lower one, and transpose turns it back, so x is the golden's. b is a
  // transposed view of a dense [2, 3, 4] copy.
  NDArray a = golden("lower_f64", "a"), b = golden("lower_f64", "b"), z = golden("lower_f64", "z");
  NDArray a_view, b_t, b_dense, b_view;
  ASSERT_OK(a.permute({0, 2, 1}, a_view));
  ASSERT_OK(b.permute({0, 2, 1}, b_t));
  ASSERT_OK(b_t.dup('c', b_dense));
  ASSERT_OK(b_dense.permute({0, 2, 1}, b_view));
  ASSERT_FALSE(a_view.is_c_contiguous());
  ASSERT_FALSE(b_view.is_c_contiguous());
  Context ctx;
  ASSERT_OK(run_op("triangular_solve", {.in = {&a_view, &b_view}, .b = {true, true}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), values(z), 1e-12, 1e-12));
}

TEST(TriangularSolveOp, IntoASuppliedStridedOutput) {
  NDArray a = golden("shared_a_f64", "a"), b = golden("shared_a_f64", "b"), z = golden("shared_a_f64", "z");
  NDArray storage = make(DataType::kFloat64, {3, 2, 4}, iota(24)), out;
  ASSERT_OK(storage.permute({0, 2, 1}, out));
  Context ctx;
  ASSERT_OK(run_op("triangular_solve", {.in = {&a, &b}, .out = {&out}, .b = {true}}, ctx));
  EXPECT_TRUE(all_close(out, values(z), 1e-12, 1e-12));
}

TEST(TriangularSolveOp, ShapeDtypeAndArgumentErrors) {
  auto error = [](const NDArray& a, const NDArray& b, std::vector<bool> flags = {}) {
    NDArray ac = a, bc = b;
    Context ctx;
    return run_op("triangular_solve", {.in = {&ac, &bc}, .b = flags}, ctx);
  };
  const NDArray f32 = make(DataType::kFloat32, {2, 2}, {1, 0, 2, 3});
  const NDArray f64 = make(DataType::kFloat64, {2, 1}, {1, 2});
  Status s = error(f32, f64);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "triangular_solve: a (float32[2,2]) and b (float64[2,1]) must share one dtype");
  s = error(make(DataType::kInt32, {2, 2}, {1, 0, 2, 3}), make(DataType::kInt32, {2, 1}, {1, 2}));
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "triangular_solve: unsupported dtype int32 for input 0 [2,2]; supported: float32, float64");
  s = error(make(DataType::kFloat64, {2}, {1, 2}), f64);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "triangular_solve: cannot solve with a[2] and b[2,1]: both need rank >= 2 (stacks of matrices)");
  s = error(make(DataType::kFloat64, {2, 3}, iota(6)), f64);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "triangular_solve: cannot solve with a[2,3] and b[2,1]: a's matrices must be square, not 2 x 3");
  s = error(make(DataType::kFloat64, {3, 3}, iota(9)), f64);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "triangular_solve: cannot solve with a[3,3] and b[2,1]: b's matrices must have n = 3 rows, not 2");
  const NDArray a_batched = make(DataType::kFloat64, {2, 2, 2}, iota(8, 1, 1));
  s = error(a_batched, make(DataType::kFloat64, {4, 2, 1}, iota(8)));
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "triangular_solve: cannot solve with a[2,2,2] and b[4,2,1]: a's leading dims must equal b's, or a must "
            "be one matrix (rank 2)");
  s = error(a_batched, f64);
  EXPECT_EQ(s.message(),
            "triangular_solve: cannot solve with a[2,2,2] and b[2,1]: a's leading dims must equal b's, or a must "
            "be one matrix (rank 2)");
  s = error(make(DataType::kFloat64, {2, 2}, {1, 0, 2, 3}), f64, {true, false, false, true});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "triangular_solve: takes at most 3 bool (b) args (upper, transpose, unit_diag); got 4: b arg 3 = true is not declared");
}

TEST(TriangularSolveOp, EmptyInputsGiveEmptyOutputs) {
  struct Case {
    Dims a, b;
  };
  for (const Case& c : {Case{{0, 3, 3}, {0, 3, 2}}, Case{{3, 3}, {3, 0}}, Case{{0, 0}, {0, 4}},
                        Case{{3, 3}, {0, 3, 2}}}) {
    NDArray a = zeros(DataType::kFloat64, c.a), b = zeros(DataType::kFloat64, c.b);
    Context ctx;
    ASSERT_OK(run_op("triangular_solve", {.in = {&a, &b}}, ctx));
    EXPECT_EQ(ctx.output(0)->shape(), c.b);
    EXPECT_EQ(ctx.output(0)->length(), 0);
  }
}
