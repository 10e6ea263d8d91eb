// qr, svd, eigh and eig against numpy (the "factorizations" manifest,
// checked up to signs by factorization_checks.h), contiguous and strided;
// the value-by-value linalg ops (lu, inverse, determinants, solve, lstsq,
// matrix_power) run through golden_ops_test.cpp's "linalg_ops" manifest.
// Here too: hand-checked small cases, and the errors word for word
// (singular matrices, NaN input to the iterative solvers, shapes, dtypes).
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "golden_manifest.h"
#include "op_test_util.h"
#include "ops/linalg/factorization_checks.h"

using namespace libops;
using namespace libops::test;

namespace {

class Factorization : public ::testing::TestWithParam<ManifestCase> {};

TEST_P(Factorization, MatchesNumpyUpToSigns) {
  const ManifestCase& c = GetParam();
  std::vector<NDArray> in = c.load_inputs();
  Context ctx;
  ASSERT_OK(run_op(c.op.c_str(), c.call({&in[0]}), ctx));
  check_factorization(c, in[0], ctx);
}

TEST_P(Factorization, StridedInput) {
  const ManifestCase& c = GetParam();
  std::vector<NDArray> in = c.load_inputs();
  NDArray f;
  ASSERT_OK(in[0].dup('f', f));
  if (f.is_c_contiguous()) GTEST_SKIP() << "the input is C-contiguous in F order too";
  Context ctx;
  ASSERT_OK(run_op(c.op.c_str(), c.call({&f}), ctx));
  check_factorization(c, in[0], ctx);
}

INSTANTIATE_TEST_SUITE_P(Cases, Factorization, ::testing::ValuesIn(load_manifest("factorizations")),
                         [](const ::testing::TestParamInfo<ManifestCase>& info) {
                           return info.param.op + "_" + info.param.name;
                         });

TEST(Factorizations, ManifestCoversEveryOp) {
  std::set<std::string> ops;
  for (const ManifestCase& c : load_manifest("factorizations")) ops.insert(c.op);
  EXPECT_EQ(ops, (std::set<std::string>{"eig", "eigh", "qr", "svd"}));
}

// By hand: diag(3, -2) has singular values 3, 2; its QR is Q = I with R
// itself; its eigenvalues are -2 and 3.
TEST(Factorizations, HandCheckedDiagonal) {
  NDArray a = make(DataType::kFloat64, {2, 2}, {3, 0, 0, -2});
  Context svd;
  ASSERT_OK(run_op("svd", {.in = {&a}, .i = {0, 0}}, svd));
  EXPECT_TRUE(all_close(*svd.output(0), {3, 2}, 1e-15, 0));
  Context eigh;
  ASSERT_OK(run_op("eigh", {.in = {&a}, .b = {false, false}}, eigh));
  EXPECT_TRUE(all_close(*eigh.output(0), {-2, 3}, 1e-15, 0));
  Context det;
  ASSERT_OK(run_op("matrix_determinant", {.in = {&a}}, det));
  EXPECT_TRUE(all_close(*det.output(0), {-6}, 1e-15, 0));
  Context lu;
  ASSERT_OK(run_op("lu", {.in = {&a}}, lu));
  EXPECT_TRUE(all_close(*lu.output(0), {3, 0, 0, -2}, 0, 0));
  EXPECT_EQ(values(*lu.output(1)), (std::vector<double>{0, 1}));
}

// [[0, 1], [1, 0]] needs a row swap: p = [1, 0] and L = I, U = I.
TEST(Factorizations, LuPermutationOfASwap) {
  NDArray a = make(DataType::kFloat32, {2, 2}, {0, 1, 1, 0});
  Context ctx;
  ASSERT_OK(run_op("lu", {.in = {&a}}, ctx));
  EXPECT_EQ(ctx.output(1)->dtype(), DataType::kInt32);
  EXPECT_EQ(values(*ctx.output(1)), (std::vector<double>{1, 0}));
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 0, 0, 1}, 0, 0));
}

TEST(Factorizations, SingularMatricesAreErrorsWhereTheyMustBe) {
  NDArray a = make(DataType::kFloat64, {2, 2, 2}, {1, 2, 3, 4, 1, 2, 2, 4});
  Context inv;
  // 2x2 on the CPU: inverted in closed form (Note [Small inverses]), singular when the determinant is 0.
  EXPECT_EQ(run_op("matrix_inverse", {.in = {&a}}, inv).message(),
            "matrix_inverse: matrix 1 of a[2,2,2] is singular (its determinant is 0)");
  NDArray b = make(DataType::kFloat64, {2, 2, 1}, {1, 1, 1, 1});
  Context solve;
  EXPECT_EQ(run_op("solve", {.in = {&a, &b}}, solve).message(),
            "solve: matrix 1 of a[2,2,2] is singular (its LU factorization has an exact zero pivot)");
  Context power;
  EXPECT_EQ(run_op("matrix_power", {.in = {&a}, .i = {-2}}, power).message(),
            "matrix_power: matrix 1 of a[2,2,2] is singular (its determinant is 0)");
  // 4x4 goes through LU: [[1,2],[2,4]] in the top-left corner of an identity.
  NDArray b4 = make(DataType::kFloat64, {4, 4}, {1, 2, 0, 0, 2, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  Context inv4;
  EXPECT_EQ(run_op("matrix_inverse", {.in = {&b4}}, inv4).message(),
            "matrix_inverse: matrix 0 of a[4,4] is singular (its LU factorization has an exact zero pivot)");
  // Not errors: the determinant is 0, log|det| -inf, and LU factors.
  Context det, slogdet, lu;
  ASSERT_OK(run_op("matrix_determinant", {.in = {&a}}, det));
  EXPECT_TRUE(all_close(*det.output(0), {-2, 0}, 1e-15, 0));
  ASSERT_OK(run_op("slogdet", {.in = {&a}}, slogdet));
  EXPECT_EQ(slogdet.output(0)->get_double(1), 0.0);
  EXPECT_EQ(slogdet.output(1)->get_double(1), -std::numeric_limits<double>::infinity());
  ASSERT_OK(run_op("lu", {.in = {&a}}, lu));
}

// Note [Small determinants]: n <= 3 by cofactors on the CPU. Hand values
// (numpy.linalg.det agrees), a strided view, NaN, signs and log|det|, and a
// float32 result rounded once from the double sum.
TEST(Factorizations, SmallDeterminantsByCofactors) {
  NDArray a = make(DataType::kFloat64, {3, 3, 3},
                   {2, 0, 1, 1, 3, 2, 1, 1, 2,     // det 6
                    1, 2, 3, 4, 5, 6, 7, 8, 9,     // singular: det 0 exactly
                    0, 1, 0, 1, 0, 0, 0, 0, -5});  // a swap times -5: det 5
  Context det, slog, logdet;
  ASSERT_OK(run_op("matrix_determinant", {.in = {&a}}, det));
  EXPECT_TRUE(all_close(*det.output(0), {6, 0, 5}, 0, 0));
  ASSERT_OK(run_op("slogdet", {.in = {&a}}, slog));
  EXPECT_TRUE(all_close(*slog.output(0), {1, 0, 1}, 0, 0));
  EXPECT_TRUE(all_close(*slog.output(1), {std::log(6.0), -std::numeric_limits<double>::infinity(), std::log(5.0)},
                        1e-15, 0));
  ASSERT_OK(run_op("log_matrix_determinant", {.in = {&a}}, logdet));
  EXPECT_EQ(values(*logdet.output(0)), values(*slog.output(1)));

  // 1x1 and 2x2 (negative), through a transposed view of float32 matrices.
  NDArray one = make(DataType::kFloat32, {2, 1, 1}, {-3, 0.5});
  Context d1;
  ASSERT_OK(run_op("matrix_determinant", {.in = {&one}}, d1));
  EXPECT_TRUE(all_close(*d1.output(0), {-3, 0.5}, 0, 0));
  NDArray two = make(DataType::kFloat32, {2, 2}, {1, 2, 3, 4}), two_t;
  ASSERT_OK(two.permute({1, 0}, two_t));
  Context d2;
  ASSERT_OK(run_op("matrix_determinant", {.in = {&two_t}}, d2));
  EXPECT_TRUE(all_close(*d2.output(0), {-2}, 0, 0));

  // NaN: det NaN, sign NaN, log|det| NaN (as the LU path gives).
  NDArray n = make(DataType::kFloat32, {2, 2}, {std::nan(""), 1, 1, 1});
  Context dn, sn;
  ASSERT_OK(run_op("matrix_determinant", {.in = {&n}}, dn));
  EXPECT_TRUE(std::isnan(dn.output(0)->get_double(0)));
  ASSERT_OK(run_op("slogdet", {.in = {&n}}, sn));
  EXPECT_TRUE(std::isnan(sn.output(0)->get_double(0)) && std::isnan(sn.output(1)->get_double(0)));

  // float32: summed in double, rounded once. 1e4 * 1e4 - (1e4 - 1) * (1e4 + 1) = 1
  // exactly; float32 products alone (1e8 and 99999999 -> 1e8) would give 0.
  NDArray f = make(DataType::kFloat32, {2, 2}, {1e4, 1e4 - 1, 1e4 + 1, 1e4});
  Context df;
  ASSERT_OK(run_op("matrix_determinant", {.in = {&f}}, df));
  EXPECT_EQ(df.output(0)->get_double(0), 1.0);
}

// Note [Small inverses]: n <= 3 in closed form on the CPU. numpy.linalg.inv
// of [[2, 0, 1], [1, 3, 2], [1, 1, 2]] is [[4, 1, -3], [0, 3, -3], [-2, -2, 6]] / 6;
// through a transposed float32 view, and the 1x1 and 2x2 forms.
TEST(Factorizations, SmallInversesInClosedForm) {
  NDArray a = make(DataType::kFloat64, {3, 3}, {2, 0, 1, 1, 3, 2, 1, 1, 2});
  Context inv;
  ASSERT_OK(run_op("matrix_inverse", {.in = {&a}}, inv));
  std::vector<double> want = {4, 1, -3, 0, 3, -3, -2, -2, 6};
  for (double& v : want) v /= 6;
  EXPECT_TRUE(all_close(*inv.output(0), want, 1e-15, 1e-15));
  NDArray f = make(DataType::kFloat32, {3, 3}, {2, 1, 1, 0, 3, 1, 1, 2, 2}), ft;  // a^T
  ASSERT_OK(f.permute({1, 0}, ft));
  Context invf;
  ASSERT_OK(run_op("matrix_inverse", {.in = {&ft}}, invf));
  EXPECT_TRUE(all_close(*invf.output(0), want, 1e-7, 1e-7));
  NDArray small = make(DataType::kFloat64, {2, 2, 2}, {4, 7, 2, 6, 0, 1, 1, 0});
  Context inv2;
  ASSERT_OK(run_op("matrix_inverse", {.in = {&small}}, inv2));
  EXPECT_TRUE(all_close(*inv2.output(0), {0.6, -0.7, -0.2, 0.4, 0, 1, 1, 0}, 1e-15, 1e-15));
  NDArray one = make(DataType::kFloat32, {1, 1}, {-4});
  Context inv1;
  ASSERT_OK(run_op("matrix_inverse", {.in = {&one}}, inv1));
  EXPECT_TRUE(all_close(*inv1.output(0), {-0.25}, 0, 0));
}

TEST(Factorizations, IterativeSolversRejectNanAndInf) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  NDArray a = make(DataType::kFloat64, {3, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2, 1, nan, 0, 1});
  Context svd;
  EXPECT_EQ(run_op("svd", {.in = {&a}}, svd).message(),
            "svd: matrix 2 of a[3,2,2] holds NaN or Inf; svd needs finite values");
  Context eig;
  EXPECT_EQ(run_op("eig", {.in = {&a}}, eig).message(),
            "eig: matrix 2 of a[3,2,2] holds NaN or Inf; eig needs finite values");
  NDArray b = make(DataType::kFloat64, {3, 2, 1}, {1, 1, 1, 1, 1, 1});
  Context lstsq;
  EXPECT_EQ(run_op("lstsq", {.in = {&a, &b}}, lstsq).message(),
            "lstsq: matrix 2 of a[3,2,2] holds NaN or Inf; lstsq needs finite values");
  // eigh reads the lower triangle: NaN above it is fine, inf below is not.
  Context upper_nan;
  ASSERT_OK(run_op("eigh", {.in = {&a}}, upper_nan));
  EXPECT_TRUE(all_close(*upper_nan.output(0), {1, 1, 2, 2, 1, 1}, 1e-15, 0));
  a.set_double(10, inf);
  Context lower_inf;
  EXPECT_EQ(run_op("eigh", {.in = {&a}}, lower_inf).message(),
            "eigh: matrix 2 of a[3,2,2] holds NaN or Inf; eigh needs finite values");
}

TEST(Factorizations, ShapeAndDtypeErrors) {
  NDArray v = make(DataType::kFloat64, {3}, {1, 2, 3});
  NDArray rect = zeros(DataType::kFloat64, {2, 3});
  NDArray ints = zeros(DataType::kInt32, {2, 2});
  NDArray sq = make(DataType::kFloat64, {2, 2}, {2, 0, 0, 2});
  Context c1, c2, c3, c4, c5, c6, c7, c8;
  EXPECT_EQ(run_op("qr", {.in = {&v}}, c1).message(),
            "qr: a[3] has rank 1; it needs rank >= 2 (a stack of matrices)");
  EXPECT_EQ(run_op("matrix_inverse", {.in = {&rect}}, c2).message(),
            "matrix_inverse: a[2,3] is not a stack of square matrices: its last two dims are 2 x 3");
  EXPECT_EQ(run_op("svd", {.in = {&ints}}, c3).message(),
            "svd: unsupported dtype int32 for input 0 [2,2]; supported: float32, float64");
  EXPECT_EQ(run_op("solve", {.in = {&sq, &v}}, c4).message(), "solve: b[3] has 3 rows; a[2,2] has 2");
  NDArray f32 = zeros(DataType::kFloat32, {2, 1});
  EXPECT_EQ(run_op("solve", {.in = {&sq, &f32}}, c5).message(),
            "solve: a is float64 and b is float32: they need one dtype");
  NDArray a3 = zeros(DataType::kFloat64, {2, 2, 2}), b3 = zeros(DataType::kFloat64, {3, 2, 1});
  EXPECT_EQ(run_op("solve", {.in = {&a3, &b3}}, c6).message(),
            "solve: a[2,2,2] and b[3,2,1]: their leading (batch) dims must be equal, or a must have rank 2");
  EXPECT_EQ(run_op("lu", {.in = {&sq}, .d = {DataType::kFloat32}}, c7).message(),
            "lu: index_dtype float32: p is int32 or int64");
  EXPECT_FALSE(run_op("matrix_power", {.in = {&sq}}, c8).is_ok());
}

TEST(Factorizations, EmptyBatchesGiveEmptyOutputs) {
  NDArray a = zeros(DataType::kFloat64, {0, 3, 3});
  for (const char* op : {"qr", "svd", "eigh", "eig", "lu", "matrix_inverse", "matrix_determinant", "slogdet"}) {
    SCOPED_TRACE(op);
    Context ctx;
    ASSERT_OK(run_op(op, {.in = {&a}}, ctx));
    for (int k = 0; k < ctx.num_outputs(); ++k) EXPECT_EQ(ctx.output(k)->length(), 0) << op << " output " << k;
  }
}

}  // namespace
