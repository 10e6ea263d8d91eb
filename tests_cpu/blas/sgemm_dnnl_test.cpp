// sgemm_dnnl (the float32 GEMM gemm_cpu.cpp uses when OpenBLAS runs
// kernels below the machine's: Note [OpenBLAS core type]) against the naive
// sum over k: every transpose pair, leading dimensions wider than the
// matrices, alpha and beta. Without oneDNN (the sanitizer builds) or with it
// turned off it must decline and leave C alone.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "blas/conv_dnnl.h"
#include "blas/sgemm_dnnl.h"
#include "blas_test_util.h"

using namespace libops;
using libops::test::wave;

namespace {

TEST(SgemmDnnl, MatchesTheSumOverK) {
  const int64_t m = 7, n = 33, k = 21;
  const float alpha = 1.5f, beta = -0.5f;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(testing::Message() << "trans_a " << ta << ", trans_b " << tb);
      const int64_t lda = (ta ? m : k) + 2, ldb = (tb ? k : n) + 3, ldc = n + 4;
      const std::vector<float> a = wave(static_cast<size_t>((ta ? k : m) * lda), 0.29f, 0.3f);
      const std::vector<float> b = wave(static_cast<size_t>((tb ? n : k) * ldb), 0.41f, 1.1f);
      std::vector<float> c = wave(static_cast<size_t>(m * ldc), 0.17f, 2.0f);
      const std::vector<float> c0 = c;
      const bool ran = blas::sgemm_dnnl(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
      if (!blas::dnnl_enabled()) {
        EXPECT_FALSE(ran);
        EXPECT_EQ(c, c0) << "declined, yet C was written";
        GTEST_SKIP() << "oneDNN is not in this build";
      }
      ASSERT_TRUE(ran);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int64_t p = 0; p < k; ++p)
            dot += static_cast<double>(ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
          const double want = alpha * dot + beta * c0[i * ldc + j];
          EXPECT_NEAR(c[i * ldc + j], want, 1e-4) << i << "," << j;
        }
        for (int64_t j = n; j < ldc; ++j) EXPECT_EQ(c[i * ldc + j], c0[i * ldc + j]) << "row padding written";
      }
    }
  }
}

// Note [GEMM by matmul primitives]: each thread keeps the primitives it
// made. 20 shapes, more than it keeps, then again in reverse order (the
// last 16 are found again) with new buffers and another alpha, beta 0 over
// a C of NaN (which must not leak through): a primitive found again must
// run on this call's data and scale.
TEST(SgemmDnnl, ReusedPrimitivesTakeEachCallsDataAndScale) {
  if (!blas::dnnl_enabled()) GTEST_SKIP() << "oneDNN is not in this build";
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t i = 0; i < 20; ++i) {
      const int64_t shape = pass == 0 ? i : 19 - i;
      const int64_t m = 3 + shape, n = 17 + 2 * shape, k = 5 + shape % 7;
      const float alpha = pass == 0 ? 1.0f : 0.25f;
      SCOPED_TRACE(testing::Message() << "pass " << pass << ", m " << m << ", n " << n << ", k " << k);
      const std::vector<float> a = wave(static_cast<size_t>(m * k), 0.31f, 0.2f + static_cast<float>(pass));
      const std::vector<float> b = wave(static_cast<size_t>(k * n), 0.23f, 0.9f - static_cast<float>(pass));
      std::vector<float> c(static_cast<size_t>(m * n), std::nanf(""));
      ASSERT_TRUE(blas::sgemm_dnnl(false, true, m, n, k, alpha, a.data(), k, b.data(), k, 0.0f, c.data(), n));
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int64_t p = 0; p < k; ++p) dot += static_cast<double>(a[i * k + p]) * b[j * k + p];
          ASSERT_NEAR(c[i * n + j], alpha * dot, 1e-4) << i << "," << j;
        }
    }
}

TEST(SgemmDnnl, TurnedOffDeclines) {
  blas::set_dnnl_enabled(false);
  const float a = 2, b = 3;
  float c = 5;
  EXPECT_FALSE(blas::sgemm_dnnl(false, false, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1));
  EXPECT_EQ(c, 5.0f);
  blas::set_dnnl_enabled(true);
}

}  // namespace
