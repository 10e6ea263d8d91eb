// blas/linalg on the CPU, below the ops: leading dimensions and batch
// strides other than dense, a shared A, which matrix and minor a failure
// names (a NaN pivot included), the untouched other triangle, and the
// argument errors.
#include "blas/linalg.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

using namespace libops;

namespace {

const Device kCpu = Device::cpu();

}  // namespace

TEST(LinalgCpu, PotrfWithPaddedRowsAndBatchStride) {
  // Two 2 x 2 matrices, rows 3 apart, matrices 7 apart; -1 marks padding
  // and the unread upper triangle, which must come back as it was.
  std::vector<double> a = {4, -1, -1, 2, 5, -1, -1,  // [[4, .], [2, 5]]
                           9, -1, -1, 3, 2, -1, -1};  // [[9, .], [3, 2]]
  int64_t bad = 7, order = 7;
  ASSERT_OK(blas::potrf_batched_on(kCpu, DataType::kFloat64, true, 2, a.data(), 3, 7, 2, &bad, &order));
  EXPECT_EQ(bad, -1);
  EXPECT_EQ(order, 0);
  // L = [[2, 0], [1, 2]] and [[3, 0], [1, 1]].
  EXPECT_EQ(a, (std::vector<double>{2, -1, -1, 1, 2, -1, -1, 3, -1, -1, 1, 1, -1, -1}));
}

TEST(LinalgCpu, PotrfNamesTheFirstFailingMatrixAndMinor) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Matrix 1 fails at order 2 (1 - 4 < 0); matrix 2 would fail too.
  std::vector<float> a = {4, 2, 2, 5, 1, 2, 2, 1, -1, 0, 0, 1};
  int64_t bad = 0, order = 0;
  ASSERT_OK(blas::potrf_batched_on(kCpu, DataType::kFloat32, false, 2, a.data(), 2, 4, 3, &bad, &order));
  EXPECT_EQ(bad, 1);
  EXPECT_EQ(order, 2);
  // A NaN in the triangle read fails at the row it reaches, as in reference
  // LAPACK: here (2, 0), so order 3.
  std::vector<double> b = {4, 0, 0, 2, 5, 0, nan, 1, 6};
  ASSERT_OK(blas::potrf_batched_on(kCpu, DataType::kFloat64, true, 3, b.data(), 3, 9, 1, &bad, &order));
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(order, 3);
}

TEST(LinalgCpu, TrsmWithASharedMatrixAndPaddedRows) {
  // A = [[2, 0], [1, 4]] (lower; the 9 is not read) for two systems, each B
  // 2 x 1 with rows 2 apart (padding -7), systems 4 apart.
  const std::vector<double> a = {2, 9, 1, 4};
  std::vector<double> b = {2, -7, 9, -7, 4, -7, 6, -7};
  ASSERT_OK(blas::trsm_batched_on(kCpu, DataType::kFloat64, true, false, false, 2, 1, a.data(), 2, 0, b.data(), 2, 4,
                                  2));
  // x = [1, 2] and [2, 1].
  EXPECT_EQ(b, (std::vector<double>{1, -7, 2, -7, 2, -7, 1, -7}));
}

TEST(LinalgCpu, EmptyCallsDoNothing) {
  int64_t bad = 5, order = 5;
  ASSERT_OK(blas::potrf_batched_on(kCpu, DataType::kFloat32, true, 0, nullptr, 0, 0, 3, &bad, &order));
  EXPECT_EQ(bad, -1);
  ASSERT_OK(blas::potrf_batched_on(kCpu, DataType::kFloat32, true, 3, nullptr, 3, 9, 0, &bad, &order));
  ASSERT_OK(blas::trsm_batched_on(kCpu, DataType::kFloat64, true, false, false, 3, 0, nullptr, 3, 9, nullptr, 1, 0,
                                  4));
}

TEST(LinalgCpu, ArgumentErrors) {
  float m[4] = {1, 0, 0, 1};
  int64_t bad = 0, order = 0;
  Status s = blas::potrf_batched_on(kCpu, DataType::kFloat16, true, 2, m, 2, 4, 1, &bad, &order);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_EQ(s.message(), "potrf: dtype float16 is not supported (float32, float64 are)");
  s = blas::potrf_batched_on(kCpu, DataType::kFloat32, true, int64_t{INT_MAX} + 1, m, int64_t{INT_MAX} + 1, 0, 1,
                             &bad, &order);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "potrf: extent 2147483648 is above BLAS's int limit 2147483647");
  s = blas::potrf_batched_on(kCpu, DataType::kFloat32, true, 2, m, 1, 4, 1, &bad, &order);
  EXPECT_EQ(s.message(), "potrf: lda=1 is below n=2");
  s = blas::potrf_batched_on(kCpu, DataType::kFloat32, true, 2, m, 2, 4, 1, nullptr, &order);
  EXPECT_EQ(s.code(), StatusCode::kNullPointer);
  s = blas::trsm_batched_on(kCpu, DataType::kFloat32, true, false, false, 2, 2, m, 2, 0, m, 1, 4, 1);
  EXPECT_EQ(s.message(), "trsm: leading dimension too small: lda=2 (needs >= 2), ldb=1 (needs >= 2)");
  s = blas::trsm_batched_on(kCpu, DataType::kInt32, true, false, false, 2, 2, m, 2, 0, m, 2, 4, 1);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  s = blas::trsm_batched_on(kCpu, DataType::kFloat32, true, false, false, 2, int64_t{INT_MAX} + 1, m, 2, 0, m,
                            int64_t{INT_MAX} + 1, 0, 1);
  EXPECT_EQ(s.message(), "trsm: extent 2147483648 is above BLAS's int limit 2147483647");
}
