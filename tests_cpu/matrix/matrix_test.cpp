// Matrix<T, R, C> (libops/matrix/matrix.h): values checked by hand and
// against a double-precision reference. The same file runs on both
// implementations (Note [Two implementations]): tests_cpu has whichever the
// build's compiler gives, and the matrix_clang_extension test compiles this
// file again with clang++ -fenable-matrix (tests_cpu/matrix/run_compile_checks.py).
#include "libops/matrix/matrix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace libops {
namespace {

// By reference: GCC 12.2 at -O1 (this test's build) loses the read of a
// float16 passed by value straight out of a reference parameter (its
// mod-ref analysis marks the parameter unread), and drops the stores that
// built the matrix.
template <typename T>
double as_double(const T& v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
    return static_cast<double>(static_cast<float>(v));
  else
    return static_cast<double>(v);
}

template <typename T, int R, int C>
void expect_rows(const Matrix<T, R, C>& m, const std::vector<std::vector<double>>& rows) {
  ASSERT_EQ(rows.size(), static_cast<size_t>(R));
  for (int i = 0; i < R; ++i) {
    ASSERT_EQ(rows[i].size(), static_cast<size_t>(C));
    for (int j = 0; j < C; ++j) EXPECT_EQ(as_double(m(i, j)), rows[i][j]) << "at (" << i << ", " << j << ")";
  }
}

TEST(Matrix, ReportsItsImplementation) {
#if defined(LIBOPS_EXPECT_MATRIX_EXTENSION)
  // run_compile_checks.py builds this file with clang++ -fenable-matrix: the
  // extension must then be in use.
  EXPECT_EQ(LIBOPS_MATRIX_EXTENSION, 1);
#endif
  RecordProperty("matrix_extension", LIBOPS_MATRIX_EXTENSION);
  SUCCEED() << (LIBOPS_MATRIX_EXTENSION ? "Clang matrix_type extension" : "plain loops");
}

TEST(Matrix, IsZeroedColumnMajorAndUnpadded) {
  Matrix<float, 2, 3> m;
  expect_rows(m, {{0, 0, 0}, {0, 0, 0}});
  static_assert(sizeof(Matrix<float, 3, 3>) == 9 * sizeof(float));
  static_assert(sizeof(Matrix<int8_t, 3, 5>) == 15);
  static_assert(sizeof(Matrix<float16, 4, 4>) == 32);
  static_assert(std::is_trivially_copyable_v<Matrix<double, 4, 4>>);
  static_assert(Matrix<int, 2, 7>::rows == 2 && Matrix<int, 2, 7>::columns == 7);
  static_assert(std::is_same_v<Matrix<int16_t, 2, 2>::element_type, int16_t>);
  m = Matrix<float, 2, 3>::from_rows({{1, 2, 3}, {4, 5, 6}});
  const float* d = m.data();
  const float column_major[] = {1, 4, 2, 5, 3, 6};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(d[k], column_major[k]) << k;
  m(1, 2) = 60;
  float& ref = m(0, 1);
  ref += 0.5f;
  expect_rows(m, {{1, 2.5, 3}, {4, 5, 60}});
}

TEST(Matrix, ScalarConvertsOnlyExplicitlyAndFillsEveryElement) {
  static_assert(!std::is_convertible_v<float, Matrix<float, 2, 2>>);
  static_assert(std::is_constructible_v<Matrix<float, 2, 2>, float>);
  expect_rows(Matrix<float, 2, 2>(1.5), {{1.5, 1.5}, {1.5, 1.5}});
  expect_rows(Matrix<int, 1, 3>(2.9), {{2, 2, 2}});  // converted to the element type
  expect_rows(Matrix<float16, 1, 2>(float16(0.25f)), {{0.25, 0.25}});
}

TEST(Matrix, AddsAndSubtractsElementWise) {
  const auto a = Matrix<double, 2, 2>::from_rows({{1, 2}, {3, 4}});
  const auto b = Matrix<double, 2, 2>::from_rows({{10, 20}, {30, 40}});
  expect_rows(a + b, {{11, 22}, {33, 44}});
  expect_rows(b - a, {{9, 18}, {27, 36}});
  expect_rows(a + 1, {{2, 3}, {4, 5}});
  expect_rows(1.f + a, {{2, 3}, {4, 5}});
  expect_rows(a - 1, {{0, 1}, {2, 3}});
  expect_rows(10 - a, {{9, 8}, {7, 6}});
  expect_rows(a * 3, {{3, 6}, {9, 12}});
  expect_rows(0.5 * a, {{0.5, 1}, {1.5, 2}});
  expect_rows(a / 2, {{0.5, 1}, {1.5, 2}});
}

TEST(Matrix, ConvertsScalarsToTheElementTypeFirst) {
  const auto i = Matrix<int, 1, 2>::from_rows({{3, -3}});
  expect_rows(i * 2.7f, {{6, -6}});  // 2.7 -> 2, as Clang's
  expect_rows(i + 2.5, {{5, -1}});
  expect_rows(i / 2, {{1, -1}});  // integer division
  const auto f = Matrix<float16, 1, 2>::from_rows({{float16(1.f), float16(2.f)}});
  // 1/3 becomes float16 first (0.333251953125), then multiplies in float.
  const double third16 = as_double(float16(1.0 / 3.0));
  expect_rows(f * (1.0 / 3.0), {{third16, as_double(float16(2.0 * third16))}});
}

TEST(Matrix, IntegersWrapInTheirType) {
  auto a = Matrix<int8_t, 1, 2>::from_rows({{100, -100}});
  expect_rows(a + a, {{-56, 56}});
  auto u = Matrix<uint8_t, 1, 2>::from_rows({{200, 3}});
  expect_rows(u * 2, {{144, 6}});
  expect_rows(u - 4, {{196, 255}});
  // A product's sum wraps too: 100 * 2 + 100 * 1 = 300 -> 44 in int8.
  const auto r = Matrix<int8_t, 1, 2>::from_rows({{100, 100}});
  const auto c = Matrix<int8_t, 2, 1>::from_rows({{2}, {1}});
  expect_rows(r * c, {{44}});
}

TEST(Matrix, MultipliesWithTheSpecsSums) {
  const auto a = Matrix<float, 2, 3>::from_rows({{1, 2, 3}, {4, 5, 6}});
  const auto b = Matrix<float, 3, 2>::from_rows({{7, 8}, {9, 10}, {11, 12}});
  const Matrix<float, 2, 2> p = a * b;
  expect_rows(p, {{58, 64}, {139, 154}});
  const Matrix<float, 3, 3> q = b * a;
  expect_rows(q, {{39, 54, 69}, {49, 68, 87}, {59, 82, 105}});
  const auto row = Matrix<int64_t, 1, 3>::from_rows({{1, -2, 3}});
  const auto col = Matrix<int64_t, 3, 1>::from_rows({{4}, {5}, {6}});
  expect_rows(row * col, {{12}});
  expect_rows(col * row, {{4, -8, 12}, {5, -10, 15}, {6, -12, 18}});
}

TEST(Matrix, SixteenBitProductsAccumulateInFloat) {
  // In float16 2048 + 1 rounds back to 2048 (spacing 2 there); summed in
  // float and rounded once the result is 2050, which float16 holds.
  const auto a = Matrix<float16, 1, 3>::from_rows({{float16(2048.f), float16(1.f), float16(1.f)}});
  const auto b = Matrix<float16, 3, 1>::from_rows({{float16(1.f)}, {float16(1.f)}, {float16(1.f)}});
  expect_rows(a * b, {{2050}});
  const auto c = Matrix<bfloat16, 1, 3>::from_rows({{bfloat16(256.f), bfloat16(1.f), bfloat16(1.f)}});
  const auto d = Matrix<bfloat16, 3, 1>::from_rows({{bfloat16(1.f)}, {bfloat16(1.f)}, {bfloat16(1.f)}});
  expect_rows(c * d, {{258}});
}

TEST(Matrix, CompoundAssignmentIsTheExpandedForm) {
  auto m = Matrix<float, 2, 2>::from_rows({{1, 2}, {3, 4}});
  const auto s = Matrix<float, 2, 2>::from_rows({{0, 1}, {1, 0}});
  m *= s;  // m = m * s: swaps the columns
  expect_rows(m, {{2, 1}, {4, 3}});
  m += s;
  expect_rows(m, {{2, 2}, {5, 3}});
  m -= 1;
  expect_rows(m, {{1, 1}, {4, 2}});
  m *= 2;
  m /= 4;
  expect_rows(m, {{0.5, 0.5}, {2, 1}});
  auto w = Matrix<float, 2, 3>::from_rows({{1, 2, 3}, {4, 5, 6}});
  w *= Matrix<float, 3, 3>(1.f);  // 2x3 * 3x3 keeps 2x3
  expect_rows(w, {{6, 6, 6}, {15, 15, 15}});
}

TEST(Matrix, Transposes) {
  const auto a = Matrix<int16_t, 2, 3>::from_rows({{1, 2, 3}, {4, 5, 6}});
  const Matrix<int16_t, 3, 2> t = transpose(a);
  expect_rows(t, {{1, 4}, {2, 5}, {3, 6}});
  expect_rows(transpose(Matrix<bfloat16, 1, 2>::from_rows({{bfloat16(1.f), bfloat16(-2.f)}})), {{1}, {-2}});
}

TEST(Matrix, CastsElementTypesExplicitly) {
  static_assert(!std::is_convertible_v<Matrix<int, 2, 2>, Matrix<float, 2, 2>>);
  static_assert(std::is_constructible_v<Matrix<float, 2, 2>, Matrix<int, 2, 2>>);
  const auto f = Matrix<float, 1, 4>::from_rows({{1.9f, -1.9f, 300.f, 0.1f}});
  expect_rows(static_cast<Matrix<int, 1, 4>>(f), {{1, -1, 300, 0}});  // truncation, as C++'s
  expect_rows(matrix_cast<double>(static_cast<Matrix<int16_t, 1, 4>>(f)), {{1, -1, 300, 0}});
  const auto h = matrix_cast<float16>(f);
  expect_rows(h, {{as_double(float16(1.9f)), as_double(float16(-1.9f)), 300, as_double(float16(0.1f))}});
  expect_rows(matrix_cast<int>(h), {{1, -1, 300, 0}});
}

TEST(Matrix, LoadsAndStoresWithAStride) {
  // A 3x4 row-major block inside a buffer of rows 6 apart.
  std::vector<float> buf(3 * 6);
  for (size_t k = 0; k < buf.size(); ++k) buf[k] = float(k);
  const auto r = row_major_load<float, 3, 4>(buf.data(), 6);
  expect_rows(r, {{0, 1, 2, 3}, {6, 7, 8, 9}, {12, 13, 14, 15}});
  // The same memory read column-major, columns 6 apart: a 4x3 matrix.
  const auto c = column_major_load<float, 4, 3>(buf.data(), 6);
  expect_rows(c, {{0, 6, 12}, {1, 7, 13}, {2, 8, 14}, {3, 9, 15}});
  expect_rows(column_major_load<float, 2, 2>(buf.data()), {{0, 2}, {1, 3}});  // stride = rows

  std::vector<float> out(3 * 6, -1.f);
  row_major_store(r * 2.f, out.data(), 6);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(out[i * 6 + j], j < 4 ? 2.f * (i * 6 + j) : -1.f) << i << "," << j;
  std::vector<double> col(2 * 5, -1.0);
  column_major_store(Matrix<double, 3, 2>::from_rows({{1, 2}, {3, 4}, {5, 6}}), col.data(), 5);
  const double want[] = {1, 3, 5, -1, -1, 2, 4, 6, -1, -1};
  for (int k = 0; k < 10; ++k) EXPECT_EQ(col[k], want[k]) << k;
}

TEST(Matrix, DeterminantsAndInversesOfSmallSquares) {
  EXPECT_EQ(determinant(Matrix<double, 1, 1>(-4.0)), -4.0);
  const auto a2 = Matrix<double, 2, 2>::from_rows({{4, 7}, {2, 6}});
  EXPECT_EQ(determinant(a2), 10.0);
  const auto i2 = inverse(a2) * 10.0;
  const double want2[2][2] = {{6, -7}, {-2, 4}};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(i2(i, j), want2[i][j], 1e-14) << i << "," << j;
  const auto a3 = Matrix<double, 3, 3>::from_rows({{2, 0, 1}, {1, 3, 2}, {1, 1, 2}});
  EXPECT_EQ(determinant(a3), 6.0);  // 2*(6-2) - 0 + 1*(1-3)
  // numpy.linalg.inv(a3) * 6 = [[4, 1, -3], [0, 3, -3], [-2, -2, 6]]
  const auto inv = inverse(a3) * 6.0;
  const double want[3][3] = {{4, 1, -3}, {0, 3, -3}, {-2, -2, 6}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(inv(i, j), want[i][j], 1e-14) << i << "," << j;
  const auto eye = inverse(a3) * a3;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(eye(i, j), i == j ? 1.0 : 0.0, 1e-15) << i << "," << j;
  EXPECT_EQ(determinant(Matrix<int, 2, 2>::from_rows({{3, 1}, {5, 2}})), 1);
  // Singular: 1 / 0, as the caller's arithmetic would give.
  EXPECT_TRUE(std::isinf(inverse(Matrix<float, 2, 2>::from_rows({{1, 2}, {2, 4}}))(0, 0)));
}

// Every element type against a double reference: small integers, so each
// product and sum is exact in every type, int8 and uint8 included
// (|sum| <= 4 * 5 * 5 signed, 4 * 7 * 7 unsigned).
template <typename T>
class MatrixTyped : public ::testing::Test {};
using MatrixElementTypes = ::testing::Types<int8_t, uint8_t, int16_t, int32_t, uint32_t, int64_t, float, double,
                                            float16, bfloat16>;
TYPED_TEST_SUITE(MatrixTyped, MatrixElementTypes);

template <typename T, int R, int C>
Matrix<T, R, C> random_matrix(std::mt19937& rng, double (&ref)[R][C]) {
  std::uniform_int_distribution<int> dist(std::is_unsigned_v<T> ? 0 : -5, std::is_unsigned_v<T> ? 7 : 5);
  Matrix<T, R, C> m;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      const int v = dist(rng);
      ref[i][j] = v;
      if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
        m(i, j) = T(static_cast<float>(v));
      else
        m(i, j) = static_cast<T>(v);
    }
  return m;
}

TYPED_TEST(MatrixTyped, ProductTransposeAndSumsMatchAReference) {
  using T = TypeParam;
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    double ra[3][4], rb[4][2], rc[3][4];
    const auto a = random_matrix<T, 3, 4>(rng, ra);
    const auto b = random_matrix<T, 4, 2>(rng, rb);
    const auto c = random_matrix<T, 3, 4>(rng, rc);
    const auto p = a * b;
    const auto s = a + c;
    const auto t = transpose(a);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 2; ++j) {
        double want = 0;
        for (int k = 0; k < 4; ++k) want += ra[i][k] * rb[k][j];
        EXPECT_EQ(as_double(p(i, j)), want) << i << "," << j;
      }
      for (int j = 0; j < 4; ++j) {
        EXPECT_EQ(as_double(s(i, j)), ra[i][j] + rc[i][j]);
        EXPECT_EQ(as_double(t(j, i)), ra[i][j]);
      }
    }
  }
}

}  // namespace
}  // namespace libops
