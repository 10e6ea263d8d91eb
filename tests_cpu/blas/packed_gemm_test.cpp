// PackedGemmF32 (Note [Packed GEMM]) against the naive sum over k, for both
// storages of B, leading dimensions wider than the matrices, repeated runs
// on new A, and several thread counts. Without oneDNN (the sanitizer
// builds) or with it turned off, pack() must fail cleanly.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "libops/blas/conv_dnnl.h"
#include "libops/blas/packed_gemm.h"
#include "libops/core/parallel.h"

using namespace libops;

namespace {

std::vector<float> ramp(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * scale + shift);
  return v;
}

TEST(PackedGemm, MatchesTheSumOverK) {
  const int64_t m = 5, n = 37, k = 19, lda = 23, ldc = 41;
  for (bool trans_b : {false, true}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << "trans_b " << trans_b << ", threads " << threads);
      const int64_t ldb = trans_b ? k + 3 : n + 2;
      const std::vector<float> b = ramp(static_cast<size_t>((trans_b ? n : k) * ldb), 0.37f, 0.1f);
      blas::PackedGemmF32 g;
      const Status s = g.pack(m, n, k, b.data(), ldb, trans_b, lda, ldc, threads);
      if (!blas::dnnl_enabled()) {
        EXPECT_FALSE(s.is_ok());
        EXPECT_FALSE(g.packed());
        GTEST_SKIP() << "oneDNN is not in this build: " << s.message();
      }
      ASSERT_TRUE(s.is_ok()) << s.message();
      for (float shift : {0.0f, 1.5f}) {  // two runs from one packing
        const std::vector<float> a = ramp(static_cast<size_t>(m * lda), 0.11f, shift);
        std::vector<float> c(static_cast<size_t>(m * ldc), -7.0f);
        ASSERT_TRUE(g.run(a.data(), c.data()).is_ok());
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double want = 0;
            for (int64_t p = 0; p < k; ++p)
              want += static_cast<double>(a[i * lda + p]) * (trans_b ? b[j * ldb + p] : b[p * ldb + j]);
            EXPECT_NEAR(c[i * ldc + j], want, 1e-4) << i << "," << j;
          }
        for (int64_t j = n; j < ldc; ++j) EXPECT_EQ(c[j], -7.0f) << "the padding of C's rows is not written";
      }
    }
  }
}

// A single row: on AVX-512 libops' own panel GEMV (Note [Packed GEMV]),
// 16-wide panels below 64 columns and 64-wide ones above, with partial last
// panels, k not a multiple of the row unroll, and the panels split between
// two threads (n = 1000 gives 16 panels; k = 129 makes each task > 64 KB).
TEST(PackedGemm, SingleRowMatchesTheSumOverK) {
  if (!blas::dnnl_enabled()) GTEST_SKIP() << "oneDNN is not in this build";
  for (int64_t n : {1, 10, 37, 64, 70, 1000}) {
    for (int64_t k : {1, 7, 129}) {
      for (bool trans_b : {false, true}) {
        for (int threads : {1, 2}) {
          SCOPED_TRACE(testing::Message() << "n " << n << ", k " << k << ", trans_b " << trans_b << ", threads "
                                          << threads);
          const int64_t ldb = trans_b ? k + 3 : n + 2;
          const std::vector<float> b = ramp(static_cast<size_t>((trans_b ? n : k) * ldb), 0.37f, 0.1f);
          blas::PackedGemmF32 g;
          set_num_threads(threads);
          const Status s = g.pack(1, n, k, b.data(), ldb, trans_b, k, n, threads);
          ASSERT_TRUE(s.is_ok()) << s.message();
          for (float shift : {0.0f, 1.5f}) {
            const std::vector<float> a = ramp(static_cast<size_t>(k), 0.11f, shift);
            std::vector<float> c(static_cast<size_t>(n + 5), -7.0f);
            ASSERT_TRUE(g.run(a.data(), c.data()).is_ok());
            for (int64_t j = 0; j < n; ++j) {
              double want = 0;
              for (int64_t p = 0; p < k; ++p)
                want += static_cast<double>(a[p]) * (trans_b ? b[j * ldb + p] : b[p * ldb + j]);
              EXPECT_NEAR(c[j], want, 1e-4) << j;
            }
            for (int64_t j = n; j < n + 5; ++j) EXPECT_EQ(c[j], -7.0f) << "written past n";
          }
        }
      }
    }
  }
  set_num_threads(0);
}

TEST(PackedGemm, TurnedOffFailsAndRunNeedsPack) {
  blas::PackedGemmF32 g;
  float a = 1, c = 0;
  EXPECT_FALSE(g.run(&a, &c).is_ok());
  blas::set_dnnl_enabled(false);
  const float b = 2;
  EXPECT_FALSE(g.pack(1, 1, 1, &b, 1, false, 1, 1, 1).is_ok());
  blas::set_dnnl_enabled(true);
}

}  // namespace
