// blas/gemm: the BLAS path and the portable kernel against each other and
// against a double-precision reference, plus the wrap-around and argument
// rules of Note [GEMM dtypes].
#include "blas/gemm.h"
#include "libops/core/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "test_util.h"

using namespace libops;

namespace {

// Random values of both signs, not all equal.
template <typename T>
std::vector<T> random_values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(dist(gen));
  return v;
}

// C = alpha * op(A) op(B) + beta * C in double, row-major with leading dims.
std::vector<double> reference(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha,
                              const std::vector<double>& a, int64_t lda, const std::vector<double>& b, int64_t ldb,
                              double beta, std::vector<double> c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      double& out = c[static_cast<size_t>(i * ldc + j)];
      out = alpha * s + (beta == 0 ? 0.0 : beta * out);
    }
  return c;
}

template <typename T>
std::vector<double> to_double(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

template <typename T>
void check_blas_against_generic(DataType dt, double rtol) {
  // Extents that cross the portable kernel's 64 x 256 x 256 blocks; padded
  // leading dimensions so ld != cols is exercised.
  const int64_t m = 70, n = 260, k = 300;
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
    auto a = random_values<T>(static_cast<size_t>((ta ? k : m) * lda), 1 + t);
    auto b = random_values<T>(static_cast<size_t>((tb ? n : k) * ldb), 11 + t);
    auto c0 = random_values<T>(static_cast<size_t>(m * ldc), 21 + t);
    auto c_blas = c0, c_gen = c0;
    ASSERT_OK(blas::gemm(dt, ta, tb, m, n, k, 1.5, a.data(), lda, b.data(), ldb, -0.5, c_blas.data(), ldc));
    ASSERT_OK(blas::gemm_generic(dt, ta, tb, m, n, k, 1.5, a.data(), lda, b.data(), ldb, -0.5, c_gen.data(), ldc));
    auto want = reference(ta, tb, m, n, k, 1.5, to_double(a), lda, to_double(b), ldb, -0.5, to_double(c0), ldc);
    EXPECT_TRUE(test::all_close(to_double(c_blas), want, rtol, rtol)) << "blas, trans " << ta << tb;
    EXPECT_TRUE(test::all_close(to_double(c_gen), want, rtol, rtol)) << "generic, trans " << ta << tb;
  }
}

}  // namespace

TEST(Gemm, Float32BlasAndGenericMatchReference) { check_blas_against_generic<float>(DataType::kFloat32, 2e-4); }

TEST(Gemm, Float64BlasAndGenericMatchReference) { check_blas_against_generic<double>(DataType::kFloat64, 1e-12); }

TEST(Gemm, MatrixVectorShapesUseGemvCorrectly) {
  // n == 1 goes through gemv: op(A) is 2 x 5 (stored 2 x 5, or 5 x 2 when
  // transposed); op(B) is a 5 x 1 column read with stride ldb = 2, or a
  // stored 1 x 5 row when transposed.
  std::vector<double> a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  std::vector<double> b = {1, -1, 2, -2, 3, -3, 4, -4, 5, -5};
  std::vector<double> bt = {1, 2, 3, 4, 5};
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    const std::vector<double>& bb = tb ? bt : b;
    std::vector<double> c(2, std::nan(""));
    ASSERT_OK(blas::gemm(DataType::kFloat64, ta, tb, 2, 1, 5, 1.0, a.data(), ta ? 2 : 5, bb.data(), tb ? 5 : 2, 0.0,
                         c.data(), 1));
    auto want = reference(ta, tb, 2, 1, 5, 1.0, a, ta ? 2 : 5, bb, tb ? 5 : 2, 0.0, std::vector<double>(2), 1);
    EXPECT_TRUE(test::all_close(c, want)) << "n == 1, trans " << ta << tb;
  }
  // m == 1: a row times op(B); the row is a strided column of A when trans_a.
  std::vector<float> row = {1, 0, 2, 0, 3, 0};  // read as 3 x 2, column 0 = (1, 2, 3)
  std::vector<float> bm = {1, 2, 3, 4, 5, 6};   // 3 x 2
  std::vector<float> c(2, std::nanf(""));
  ASSERT_OK(blas::gemm(DataType::kFloat32, true, false, 1, 2, 3, 1.0, row.data(), 2, bm.data(), 2, 0.0, c.data(), 2));
  EXPECT_TRUE(test::all_close(to_double(c), {1 * 1 + 2 * 3 + 3 * 5, 1 * 2 + 2 * 4 + 3 * 6}));
  // m == 1 with op(B) = B^T stored 2 x 3.
  std::vector<float> bt32 = {1, 3, 5, 2, 4, 6};
  std::vector<float> r2 = {1, 2, 3};
  ASSERT_OK(blas::gemm(DataType::kFloat32, false, true, 1, 2, 3, 1.0, r2.data(), 3, bt32.data(), 3, 0.0, c.data(), 2));
  EXPECT_TRUE(test::all_close(to_double(c), {22, 28}));
}

TEST(Gemm, BetaZeroIgnoresNaNInOutput) {
  std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {1, 2}) {
    std::vector<float> c(4, nan), g(4, nan);
    ASSERT_OK(blas::gemm(DataType::kFloat32, false, false, 2, n, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2));
    ASSERT_OK(blas::gemm_generic(DataType::kFloat32, false, false, 2, n, 2, 1.0, a.data(), 2, b.data(), 2, 0.0,
                                 g.data(), 2));
    EXPECT_EQ(c[0], 19.0f);
    EXPECT_EQ(c[2], 43.0f);
    EXPECT_EQ(g[0], 19.0f);
    EXPECT_EQ(g[2], 43.0f);
    if (n == 2) {
      EXPECT_EQ(c[3], 50.0f);
    }
  }
  // k == 0: C = beta * C, A and B never read (null is fine).
  std::vector<double> c = {1, 2, 3, 4};
  ASSERT_OK(blas::gemm(DataType::kFloat64, false, false, 2, 2, 0, 1.0, nullptr, 1, nullptr, 2, 3.0, c.data(), 2));
  EXPECT_TRUE(test::all_close(c, {3, 6, 9, 12}));
}

// Note [16-bit GEMMs]: above kWidenWork a float16 or bfloat16 GEMM runs as
// the float32 one on widened copies (transposes, padded leading dims and a
// beta that reads C included); the portable kernel beside it, both against
// double within one rounding of the result.
TEST(Gemm, SixteenBitWidenedAndGenericMatchReference) {
  check_blas_against_generic<float16>(DataType::kFloat16, 2e-3);
  check_blas_against_generic<bfloat16>(DataType::kBFloat16, 1.6e-2);
}

TEST(Gemm, Float16AccumulatesInFloat) {
  const int64_t m = 9, n = 17, k = 300;  // long sums: float16 accumulation would drift
  auto af = random_values<float>(static_cast<size_t>(m * k), 3);
  auto bf = random_values<float>(static_cast<size_t>(k * n), 4);
  std::vector<float16> a, b;
  for (float v : af) a.push_back(float16(v));
  for (float v : bf) b.push_back(float16(v));
  std::vector<double> ad, bd;
  for (auto v : a) ad.push_back(static_cast<float>(v));
  for (auto v : b) bd.push_back(static_cast<float>(v));
  std::vector<float16> c(static_cast<size_t>(m * n));
  ASSERT_OK(blas::gemm(DataType::kFloat16, false, false, m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, c.data(), n));
  auto want = reference(false, false, m, n, k, 1.0, ad, k, bd, n, 0.0, std::vector<double>(c.size()), n);
  std::vector<double> got;
  for (auto v : c) got.push_back(static_cast<float>(v));
  // One float16 rounding of the result: relative error <= 2^-11.
  EXPECT_TRUE(test::all_close(got, want, 1e-3, 1e-3));

  // bfloat16 as well, through the same kernel.
  std::vector<bfloat16> ab, bb, cb(static_cast<size_t>(m * n));
  for (double v : ad) ab.push_back(bfloat16(static_cast<float>(v)));
  for (double v : bd) bb.push_back(bfloat16(static_cast<float>(v)));
  std::vector<double> abd, bbd;
  for (auto v : ab) abd.push_back(static_cast<float>(v));
  for (auto v : bb) bbd.push_back(static_cast<float>(v));
  ASSERT_OK(blas::gemm(DataType::kBFloat16, false, false, m, n, k, 1.0, ab.data(), k, bb.data(), n, 0.0, cb.data(), n));
  auto wantb = reference(false, false, m, n, k, 1.0, abd, k, bbd, n, 0.0, std::vector<double>(cb.size()), n);
  std::vector<double> gotb;
  for (auto v : cb) gotb.push_back(static_cast<float>(v));
  EXPECT_TRUE(test::all_close(gotb, wantb, 8e-3, 8e-3));
}

TEST(Gemm, IntegersWrapLikeTheDtype) {
  // int8: 100 * 2 + 100 * 1 = 300 -> 44; -128 * 2 + -1 * 1 = -257 -> -1.
  std::vector<int8_t> a = {100, 100, -128, -1};
  std::vector<int8_t> b = {2, 1};
  std::vector<int8_t> c(2);
  ASSERT_OK(blas::gemm(DataType::kInt8, false, false, 2, 1, 2, 1.0, a.data(), 2, b.data(), 1, 0.0, c.data(), 1));
  EXPECT_EQ(c[0], 44);
  EXPECT_EQ(c[1], -1);

  // int32 and uint64: compare with exact modular arithmetic over many sizes.
  const int64_t m = 67, n = 31, k = 260;
  std::mt19937 gen(5);
  std::uniform_int_distribution<int32_t> d(-2000000000, 2000000000);
  std::vector<int32_t> ai(static_cast<size_t>(m * k)), bi(static_cast<size_t>(k * n)), ci(static_cast<size_t>(m * n), 7);
  for (auto& v : ai) v = d(gen);
  for (auto& v : bi) v = d(gen);
  ASSERT_OK(blas::gemm(DataType::kInt32, false, true, m, n, k, 3.0, ai.data(), k, bi.data(), k, -2.0, ci.data(), n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      uint32_t s = 0;
      for (int64_t p = 0; p < k; ++p) s += uint32_t(ai[i * k + p]) * uint32_t(bi[j * k + p]);
      uint32_t want = 3u * s + uint32_t(-2) * 7u;
      ASSERT_EQ(ci[i * n + j], static_cast<int32_t>(want)) << i << "," << j;
    }
  std::vector<uint64_t> au = {~0ull, 2, 3, 1ull << 63}, bu = {5, 7, 11, 13}, cu(4);
  ASSERT_OK(blas::gemm(DataType::kUInt64, false, false, 2, 2, 2, 1.0, au.data(), 2, bu.data(), 2, 0.0, cu.data(), 2));
  EXPECT_EQ(cu[0], ~0ull * 5 + 2 * 11);
  EXPECT_EQ(cu[3], 3 * 7 + (1ull << 63) * 13);
}

TEST(Gemm, BatchedMatchesSingleCallsWithSharedB) {
  const int64_t batch = 37, m = 3, n = 4, k = 5;
  auto a = random_values<float>(static_cast<size_t>(batch * m * k), 8);
  auto b = random_values<float>(static_cast<size_t>(k * n), 9);
  std::vector<float> c(static_cast<size_t>(batch * m * n)), one(static_cast<size_t>(m * n));
  ASSERT_OK(blas::gemm_batched(DataType::kFloat32, false, false, m, n, k, 1.0, a.data(), k, m * k, b.data(), n, 0,
                               0.0, c.data(), n, m * n, batch));
  for (int64_t i = 0; i < batch; ++i) {
    ASSERT_OK(blas::gemm(DataType::kFloat32, false, false, m, n, k, 1.0, a.data() + i * m * k, k, b.data(), n, 0.0,
                         one.data(), n));
    for (int64_t e = 0; e < m * n; ++e) ASSERT_EQ(c[static_cast<size_t>(i * m * n + e)], one[static_cast<size_t>(e)]);
  }
  // The portable path (int16) through the batched entry point too.
  std::vector<int16_t> ai = {1, 2, 3, 4, 5, 6, 7, 8}, bi = {1, 0, 0, 1}, ci(8);
  ASSERT_OK(blas::gemm_batched(DataType::kInt16, false, true, 2, 2, 2, 2.0, ai.data(), 2, 4, bi.data(), 2, 0, 0.0,
                               ci.data(), 2, 4, 2));
  EXPECT_EQ(ci, (std::vector<int16_t>{2, 4, 6, 8, 10, 12, 14, 16}));
}

// Entries too small to split but not tiny (64x80x72 here, as an attention
// head's products) run whole entries per thread at 2 threads: each must
// equal its own single-threaded call, beta's C and leading dims included,
// in float32 and float64.
TEST(Gemm, BatchedEntriesSplitBetweenThreadsMatchSingleCalls) {
  const int64_t batch = 5, m = 64, n = 80, k = 72, lda = k + 3, ldb = n + 1, ldc = n + 2;
  // B's stride covers it plain (k rows of ldb) and transposed (n rows of
  // k + 1): a stride of k * ldb alone had the last transposed entry read
  // past the buffer, which made the comparison fail now and then.
  const int64_t sa = m * lda + 7, sb = std::max(k * ldb, n * (k + 1)) + 5, sc = m * ldc + 3;
  auto check = [&](auto zero) {
    using T = decltype(zero);
    const DataType dt = std::is_same_v<T, float> ? DataType::kFloat32 : DataType::kFloat64;
    auto a = random_values<T>(static_cast<size_t>(batch * sa), 21);
    auto b = random_values<T>(static_cast<size_t>(batch * sb), 22);
    const auto c0 = random_values<T>(static_cast<size_t>(batch * sc), 23);
    for (bool trans_b : {false, true}) {
      SCOPED_TRACE(testing::Message() << dtype_name(dt) << (trans_b ? " trans_b" : ""));
      const int64_t ld_b = trans_b ? k + 1 : ldb;
      std::vector<T> c = c0, want = c0;
      set_num_threads(1);
      for (int64_t i = 0; i < batch; ++i)
        ASSERT_OK(blas::gemm(dt, false, trans_b, m, n, k, 1.5, a.data() + i * sa, lda, b.data() + i * sb, ld_b, 0.5,
                             want.data() + i * sc, ldc));
      set_num_threads(2);
      ASSERT_OK(blas::gemm_batched(dt, false, trans_b, m, n, k, 1.5, a.data(), lda, sa, b.data(), ld_b, sb, 0.5,
                                   c.data(), ldc, sc, batch));
      set_num_threads(0);
      EXPECT_EQ(c, want);
    }
  };
  check(0.0f);
  check(0.0);
}

TEST(Gemm, RejectsBadArguments) {
  std::vector<float> a(16), b(16), c(16);
  Status s = blas::gemm(DataType::kFloat32, false, false, 2, 2, 3, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("lda=2 (needs >= 3)"), std::string::npos) << s.message();
  s = blas::gemm(DataType::kBool, false, false, 1, 1, 1, 1.0, a.data(), 1, b.data(), 1, 0.0, c.data(), 1);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_NE(s.message().find("unsupported dtype bool"), std::string::npos) << s.message();
  s = blas::gemm(DataType::kFloat32, false, false, -1, 1, 1, 1.0, a.data(), 1, b.data(), 1, 0.0, c.data(), 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  s = blas::gemm(DataType::kInt32, false, false, 1, 1, 1, 0.5, a.data(), 1, b.data(), 1, 0.0, c.data(), 1);
  EXPECT_NE(s.message().find("whole numbers"), std::string::npos) << s.message();
  s = blas::gemm(DataType::kFloat32, false, false, 1, 1, 1, 1.0, nullptr, 1, b.data(), 1, 0.0, c.data(), 1);
  EXPECT_EQ(s.code(), StatusCode::kNullPointer);
  s = blas::gemm_batched(DataType::kFloat32, false, false, 2, 2, 2, 1.0, a.data(), 2, 4, b.data(), 2, 4, 0.0,
                         c.data(), 2, 3, 2);
  EXPECT_NE(s.message().find("C matrices overlap"), std::string::npos) << s.message();
}
