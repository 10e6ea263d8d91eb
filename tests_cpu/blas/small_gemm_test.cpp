// Note [Small matrices]: gemm and gemm_batched with every extent <= 8 run
// the Matrix<T, M, K> kernels. Checked against a double reference (exact
// for the small-integer data used, so float32 and float64 must match it
// bit for bit), against BLAS on random data (within rounding), and for
// what BLAS promises: transposes, leading dims, alpha and beta (beta == 0
// never reads C), batch strides of 0, NaN and Inf where they belong, and
// nothing written outside C's matrices.
#include "blas/small_gemm.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "blas/gemm.h"
#include "libops/core/parallel.h"
#include "libops/loops/streaming_store.h"

using namespace libops;

namespace {

struct Case {
  bool ta, tb;
  int64_t m, n, k;
  int64_t pad;    // extra elements per row (leading dims larger than needed)
  int64_t batch;  // entries; A's stride is 0 when share_a
  bool share_a;
  double alpha, beta;
};

// Stored extents of op(X) (rows x cols) given its transpose flag.
void stored(bool trans, int64_t rows, int64_t cols, int64_t& srows, int64_t& scols) {
  srows = trans ? cols : rows;
  scols = trans ? rows : cols;
}

template <typename T>
void check_case(const Case& t, std::mt19937& rng) {
  SCOPED_TRACE(testing::Message() << "ta=" << t.ta << " tb=" << t.tb << " m=" << t.m << " n=" << t.n << " k=" << t.k
                                  << " pad=" << t.pad << " batch=" << t.batch << " share_a=" << t.share_a
                                  << " alpha=" << t.alpha << " beta=" << t.beta);
  int64_t ar, ac, br, bc;
  stored(t.ta, t.m, t.k, ar, ac);
  stored(t.tb, t.k, t.n, br, bc);
  const int64_t lda = ac + t.pad, ldb = bc + t.pad, ldc = t.n + t.pad;
  const int64_t sa = t.share_a ? 0 : ar * lda, sb = br * ldb + 3, sc = t.m * ldc + 1;
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<T> a(static_cast<size_t>(std::max<int64_t>(sa * t.batch, ar * lda)));
  std::vector<T> b(static_cast<size_t>(sb * t.batch)), c(static_cast<size_t>(sc * t.batch));
  for (auto& v : a) v = static_cast<T>(dist(rng));
  for (auto& v : b) v = static_cast<T>(dist(rng));
  for (auto& v : c) v = static_cast<T>(dist(rng));
  const std::vector<T> c0 = c;
  const DataType dt = std::is_same_v<T, float> ? DataType::kFloat32 : DataType::kFloat64;
  ASSERT_TRUE(blas::is_small_gemm(dt, t.m, t.n, t.k));
  const Status st = blas::gemm_batched(dt, t.ta, t.tb, t.m, t.n, t.k, t.alpha, a.data(), lda, sa, b.data(), ldb, sb,
                                       t.beta, c.data(), ldc, sc, t.batch);
  ASSERT_TRUE(st.is_ok()) << st.message();
  for (int64_t e = 0; e < t.batch; ++e) {
    const T* pa = a.data() + e * sa;
    const T* pb = b.data() + e * sb;
    for (int64_t i = 0; i < t.m; ++i)
      for (int64_t j = 0; j < t.n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < t.k; ++p)
          s += double(t.ta ? pa[p * lda + i] : pa[i * lda + p]) * double(t.tb ? pb[j * ldb + p] : pb[p * ldb + j]);
        const size_t at = static_cast<size_t>(e * sc + i * ldc + j);
        const double want = t.alpha * s + t.beta * double(c0[at]);
        ASSERT_EQ(double(c[at]), want) << "entry " << e << " at (" << i << ", " << j << ")";
      }
    // Padding between rows and after each matrix is left alone.
    for (int64_t i = 0; i < t.m; ++i)
      for (int64_t j = t.n; j < (i + 1 < t.m ? ldc : sc - i * ldc); ++j) {
        const size_t at = static_cast<size_t>(e * sc + i * ldc + j);
        ASSERT_EQ(c[at], c0[at]) << "written outside entry " << e << " at row " << i << " column " << j;
      }
  }
}

// Every shape 1..8 in each extent, each transpose pair, plain and scaled.
TEST(SmallGemm, EveryShapeUpToEightMatchesTheExactSums) {
  std::mt19937 rng(2026);
  for (int64_t m = 1; m <= 8; ++m)
    for (int64_t k = 1; k <= 8; ++k)
      for (int64_t n = 1; n <= 8; ++n) {
        const int variant = int((m * 64 + k * 8 + n) % 4);
        const Case t{(variant & 1) != 0, (variant & 2) != 0, m, n, k, int64_t(variant % 3), 5, variant == 3,
                     variant == 2 ? -2.0 : 1.0, variant == 1 ? 0.5 : 0.0};
        check_case<float>(t, rng);
        check_case<double>(t, rng);
      }
}

TEST(SmallGemm, TransposesLeadingDimsAlphaBetaAndSharedOperands) {
  std::mt19937 rng(7);
  for (int64_t shape : {2, 3, 4, 6})
    for (int v = 0; v < 16; ++v) {
      const Case t{(v & 1) != 0, (v & 2) != 0, shape, shape, shape, int64_t(v & 4 ? 2 : 0), 37, (v & 8) != 0,
                   v % 3 == 0 ? 1.0 : 3.0, v % 5 == 0 ? -1.0 : 0.0};
      check_case<float>(t, rng);
      check_case<double>(t, rng);
    }
}

TEST(SmallGemm, LargeBatchesSplitOverThreadsGiveTheSameValues) {
  std::mt19937 rng(11);
  set_num_threads(2);
  check_case<float>({false, false, 4, 4, 4, 0, 20000, false, 1.0, 0.0}, rng);
  check_case<double>({true, false, 3, 3, 3, 1, 20000, true, 1.0, 0.0}, rng);
  check_case<float>({false, true, 7, 5, 8, 0, 3000, false, 2.0, 1.0}, rng);
  set_num_threads(0);
}

// Outputs larger than the cache go out with streaming stores in whole
// 128-byte tiles (Note [Streaming stores]): forced here with a tiny
// threshold, for matrix sizes that divide 128 bytes and that are multiples of
// it, C starting off a 64-byte boundary, and batches that end mid-tile.
TEST(SmallGemm, StreamedOutputsGiveTheSameValues) {
  std::mt19937 rng(5);
  set_streaming_store_threshold(1);
  for (int64_t s : {2, 4, 8})
    for (int64_t offset : {0, 1, 3})
      for (int64_t batch : {1, 7, 64, 301}) {
        SCOPED_TRACE(testing::Message() << "s=" << s << " offset=" << offset << " batch=" << batch);
        std::uniform_int_distribution<int> dist(-4, 4);
        std::vector<float> a(batch * s * s), b(batch * s * s), c((batch + offset) * s * s + 5, -7.f);
        for (auto& v : a) v = float(dist(rng));
        for (auto& v : b) v = float(dist(rng));
        float* cz = c.data() + offset * s * s;
        ASSERT_TRUE(blas::gemm_batched(DataType::kFloat32, false, false, s, s, s, 1.0, a.data(), s, s * s, b.data(), s,
                                       s * s, 0.0, cz, s, s * s, batch)
                        .is_ok());
        for (int64_t e = 0; e < batch; ++e)
          for (int64_t i = 0; i < s; ++i)
            for (int64_t j = 0; j < s; ++j) {
              float want = 0;
              for (int64_t p = 0; p < s; ++p) want += a[(e * s + i) * s + p] * b[(e * s + p) * s + j];
              ASSERT_EQ(cz[(e * s + i) * s + j], want) << e << " " << i << " " << j;
            }
        for (int64_t k = 0; k < offset * s * s; ++k) ASSERT_EQ(c[k], -7.f);
        for (size_t k = (batch + offset) * s * s; k < c.size(); ++k) ASSERT_EQ(c[k], -7.f);
      }
  set_streaming_store_threshold(0);
}

TEST(SmallGemm, BetaZeroNeverReadsCAndNaNStaysInItsRow) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (int64_t n : {4, 6}) {  // an exact kernel and the padded one
    std::vector<float> a(n * n, 1.f), b(n * n, 1.f), c(n * n, nan);
    a[0] = nan;              // row 0 of C is NaN
    a[1 * n + 0] = inf;      // row 1: Inf + finite = Inf ...
    b[0 * n + (n - 1)] = 0;  // ... but Inf * 0 = NaN in its last column
    ASSERT_TRUE(blas::gemm(DataType::kFloat32, false, false, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n)
                    .is_ok());
    for (int64_t j = 0; j < n; ++j) EXPECT_TRUE(std::isnan(c[j])) << j;
    for (int64_t j = 0; j + 1 < n; ++j) EXPECT_EQ(c[1 * n + j], inf) << j;
    EXPECT_TRUE(std::isnan(c[1 * n + n - 1]));
    for (int64_t i = 2; i < n; ++i) {
      for (int64_t j = 0; j + 1 < n; ++j) EXPECT_EQ(c[i * n + j], float(n)) << i << "," << j;
      EXPECT_EQ(c[i * n + n - 1], float(n - 1)) << i;
    }
  }
}

TEST(SmallGemm, AgreesWithBlasOnRandomDataWithinRounding) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (int64_t s = 1; s <= 8; ++s) {
    const int64_t batch = 100;
    std::vector<float> a(batch * s * s), b(batch * s * s), c(batch * s * s), ref(batch * s * s);
    for (auto& v : a) v = dist(rng);
    for (auto& v : b) v = dist(rng);
    ASSERT_TRUE(blas::gemm_batched(DataType::kFloat32, false, true, s, s, s, 1.0, a.data(), s, s * s, b.data(), s,
                                   s * s, 0.0, c.data(), s, s * s, batch)
                    .is_ok());
    for (int64_t e = 0; e < batch; ++e)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(s), int(s), int(s), 1.f, a.data() + e * s * s, int(s),
                  b.data() + e * s * s, int(s), 0.f, ref.data() + e * s * s, int(s));
    for (size_t i = 0; i < c.size(); ++i) EXPECT_NEAR(c[i], ref[i], 1e-6f * float(s)) << "s=" << s << " at " << i;
  }
}

TEST(SmallGemm, TakesOnlyFloatAndDoubleUpToEight) {
  EXPECT_TRUE(blas::is_small_gemm(DataType::kFloat32, 8, 8, 8));
  EXPECT_TRUE(blas::is_small_gemm(DataType::kFloat64, 1, 1, 1));
  EXPECT_FALSE(blas::is_small_gemm(DataType::kFloat32, 9, 2, 2));
  EXPECT_FALSE(blas::is_small_gemm(DataType::kFloat32, 2, 2, 0));
  EXPECT_FALSE(blas::is_small_gemm(DataType::kFloat16, 4, 4, 4));
  EXPECT_FALSE(blas::is_small_gemm(DataType::kInt32, 4, 4, 4));
}

}  // namespace
