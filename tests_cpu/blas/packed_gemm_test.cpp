// PackedGemmF32 (Note [Packed GEMM]) against the naive sum over k, for both
// storages of B, leading dimensions wider than the matrices, repeated runs
// on new A, and several thread counts. On AVX2 machines it plans libops'
// panel GEMM (Note [Panel GEMM], tested on its own in panel_gemm_test.cpp),
// with or without oneDNN. Elsewhere, without oneDNN (the sanitizer builds)
// or with it turned off, pack() must fail cleanly.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "blas/conv_dnnl.h"
#include "blas/packed_gemm.h"
#include "blas/panel_gemm.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "blas_test_util.h"

using namespace libops;
using libops::test::wave;

namespace {

// Whether pack() plans libops' panel GEMM here (it needs no oneDNN).
bool panels_here() { return blas::PanelGemmF32::supported() && cpu_isa() == CpuIsa::kAvx2; }

TEST(PackedGemm, MatchesTheSumOverK) {
  const int64_t m = 5, n = 37, k = 19, lda = 23, ldc = 41;
  for (bool trans_b : {false, true}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << "trans_b " << trans_b << ", threads " << threads);
      const int64_t ldb = trans_b ? k + 3 : n + 2;
      const std::vector<float> b = wave(static_cast<size_t>((trans_b ? n : k) * ldb), 0.37f, 0.1f);
      blas::PackedGemmF32 g;
      const Status s = g.pack(m, n, k, b.data(), ldb, trans_b, lda, ldc, threads);
      EXPECT_EQ(std::string(g.kind()), panels_here() ? "panels" : s.is_ok() ? "onednn" : "none");
      if (!blas::dnnl_enabled() && !panels_here()) {
        EXPECT_FALSE(s.is_ok());
        EXPECT_FALSE(g.packed());
        GTEST_SKIP() << "oneDNN is not in this build: " << s.message();
      }
      if (s.code() == StatusCode::kNotImplemented) GTEST_SKIP() << s.message();  // plain GEMM: nothing to pack
      ASSERT_TRUE(s.is_ok()) << s.message();
      for (float shift : {0.0f, 1.5f}) {  // two runs from one packing
        const std::vector<float> a = wave(static_cast<size_t>(m * lda), 0.11f, shift);
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
// on AVX2 the panel GEMM,
// 16-wide panels below 64 columns and 64-wide ones above, with partial last
// panels, k not a multiple of the row unroll, and the panels split between
// two threads (n = 1000 gives 16 panels; k = 129 makes each task > 64 KB).
TEST(PackedGemm, SingleRowMatchesTheSumOverK) {
  if (!blas::dnnl_enabled() && !panels_here()) GTEST_SKIP() << "oneDNN is not in this build";
  for (int64_t n : {1, 10, 37, 64, 70, 1000}) {
    for (int64_t k : {1, 7, 129}) {
      for (bool trans_b : {false, true}) {
        for (int threads : {1, 2}) {
          SCOPED_TRACE(testing::Message() << "n " << n << ", k " << k << ", trans_b " << trans_b << ", threads "
                                          << threads);
          const int64_t ldb = trans_b ? k + 3 : n + 2;
          const std::vector<float> b = wave(static_cast<size_t>((trans_b ? n : k) * ldb), 0.37f, 0.1f);
          blas::PackedGemmF32 g;
          set_num_threads(threads);
          const Status s = g.pack(1, n, k, b.data(), ldb, trans_b, k, n, threads);
          if (s.code() == StatusCode::kNotImplemented) GTEST_SKIP() << s.message();  // plain GEMM: nothing to pack
          ASSERT_TRUE(s.is_ok()) << s.message();
          for (float shift : {0.0f, 1.5f}) {
            const std::vector<float> a = wave(static_cast<size_t>(k), 0.11f, shift);
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

// The single-row kernels' epilogue: c = act(a * B + bias) for relu and
// relu6, NaN kept (a NaN column of B), with partial last panels of both
// widths and a bias that ends where C's columns end. A plan that cannot
// apply an epilogue (oneDNN's matmul) refuses one.
TEST(PackedGemm, SingleRowAppliesBiasAndActivation) {
  if (!blas::dnnl_enabled() && !panels_here()) GTEST_SKIP() << "oneDNN is not in this build";
  if (!panels_here()) {
    blas::PackedGemmF32 rows;
    const std::vector<float> b = wave(12, 0.37f, 0.1f);
    const Status s = rows.pack(4, 3, 4, b.data(), 3, false, 4, 3, 1);
    if (s.code() == StatusCode::kNotImplemented) GTEST_SKIP() << s.message();  // plain GEMM: nothing to pack
    ASSERT_TRUE(s.is_ok()) << s.message();
    const std::vector<float> a(16, 1.0f), bias(3, 1.0f);
    std::vector<float> c(12);
    blas::GemmEpilogue ep;
    ep.bias = bias.data();
    EXPECT_FALSE(rows.applies_epilogue());
    EXPECT_FALSE(rows.run(a.data(), c.data(), ep).is_ok()) << "an epilogue the plan cannot apply is an error";
  }
  const int64_t k = 9;
  for (int64_t n : {10, 37, 70, 130}) {
    const std::vector<float> a = wave(static_cast<size_t>(k), 0.9f, 0.3f);
    std::vector<float> b = wave(static_cast<size_t>(k * n), 0.37f, 0.1f);
    b[static_cast<size_t>(2 * n + 5)] = std::nanf("");  // column 5 is NaN
    // The bias ends where a page ends and an unreadable one starts: the
    // last panel's loads must stop at its last column.
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* pages = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(pages, MAP_FAILED);
    ASSERT_EQ(mprotect(static_cast<char*>(pages) + page, page, PROT_NONE), 0);
    float* bias = reinterpret_cast<float*>(static_cast<char*>(pages) + page) - n;
    const std::vector<float> bias_values = wave(static_cast<size_t>(n), 0.7f, 0.2f);
    for (int64_t j = 0; j < n; ++j) bias[j] = 9.0f * bias_values[j];  // sums from -11 to 11: both clamps are taken
    blas::PackedGemmF32 g;
    ASSERT_TRUE(g.pack(1, n, k, b.data(), n, false, k, n, 1).is_ok());
    if (!g.applies_epilogue()) {
      munmap(pages, 2 * page);
      GTEST_SKIP() << "the single-row kernels need AVX2 (panels) or AVX-512 (GEMV)";
    }
    for (int activation : {0, 1, 2}) {
      SCOPED_TRACE(testing::Message() << "n " << n << ", activation " << activation);
      blas::GemmEpilogue ep;
      ep.bias = bias;
      ep.activation = activation;
      std::vector<float> c(static_cast<size_t>(n), -7.0f);
      ASSERT_TRUE(g.run(a.data(), c.data(), ep).is_ok());
      int below = 0, above = 0;
      for (int64_t j = 0; j < n; ++j) {
        double want = bias[j];
        for (int64_t p = 0; p < k; ++p) want += static_cast<double>(a[p]) * b[p * n + j];
        if (j == 5) {
          EXPECT_TRUE(std::isnan(c[j])) << "NaN stays NaN";
          continue;
        }
        below += want < 0, above += want > 6;
        if (activation >= 1 && want < 0) want = 0;
        if (activation == 2 && want > 6) want = 6;
        EXPECT_NEAR(c[j], want, 1e-4) << j;
      }
      EXPECT_GT(below, 0);
      if (n > 10) {
        EXPECT_GT(above, 0);
      }
    }
    munmap(pages, 2 * page);
  }
}

// run_rows: a panel plan multiplies any number of rows from one packing (a
// graph's new batch size repacks nothing); a plan for one row count takes
// that count only and refuses another with an error.
TEST(PackedGemm, RunRowsTakesAnyCountWherePanels) {
  const int64_t n = 21, k = 13;
  const std::vector<float> b = wave(static_cast<size_t>(k * n), 0.37f, 0.1f);
  blas::PackedGemmF32 g;
  const Status s = g.pack(4, n, k, b.data(), n, false, k, n, 1);
  if (!s.is_ok()) GTEST_SKIP() << s.message();
  EXPECT_EQ(g.any_rows(), panels_here());
  for (int64_t m : {4, 1, 9}) {
    SCOPED_TRACE(testing::Message() << m << " rows");
    const std::vector<float> a = wave(static_cast<size_t>(m * k), 0.11f, 0.3f);
    std::vector<float> c(static_cast<size_t>(m * n), -7.0f);
    const Status r = g.run_rows(m, a.data(), c.data());
    if (m != 4 && !g.any_rows()) {
      EXPECT_EQ(r.code(), StatusCode::kInvalidArgument) << r.message();
      continue;
    }
    ASSERT_TRUE(r.is_ok()) << r.message();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p) want += static_cast<double>(a[i * k + p]) * b[p * n + j];
        EXPECT_NEAR(c[i * n + j], want, 1e-4) << i << "," << j;
      }
  }
}

// Turned off, oneDNN plans nothing; the panel GEMM still does on AVX2.
TEST(PackedGemm, TurnedOffFailsAndRunNeedsPack) {
  blas::PackedGemmF32 g;
  float a = 1, c = 0;
  EXPECT_FALSE(g.run(&a, &c).is_ok());
  EXPECT_STREQ(g.kind(), "none");
  const bool was = blas::dnnl_enabled();
  blas::set_dnnl_enabled(false);
  const float b = 2;
  EXPECT_EQ(g.pack(1, 1, 1, &b, 1, false, 1, 1, 1).is_ok(), panels_here());
  blas::set_dnnl_enabled(was);
  if (panels_here()) {
    ASSERT_TRUE(g.run(&a, &c).is_ok());
    EXPECT_EQ(c, 2.0f);
  }
}

}  // namespace
