// PanelGemmF32 (Note [Panel GEMM]): every element of C is the chain of
// FMAs over k in order from zero (for at most 8 columns, Note [Narrow
// products], the lanes' chains summed in a fixed order), so each test
// compares bits with that chain computed by std::fma (and the chain with a double-precision sum),
// over the shapes that exercise each kernel, the row chunks, the k slices
// and the last partial panel; then the rows of one product against the
// same rows computed alone and on other thread counts (which kernel a row
// meets must not change its bits); the epilogue; and reads and writes that
// must stop where A, the bias and C end.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "blas/panel_gemm.h"
#include "libops/core/parallel.h"
#include "blas_test_util.h"

using namespace libops;
using libops::test::wave;

namespace {

struct Operands {
  int64_t m, n, k, lda, ldb, ldc;
  bool trans_b;
  std::vector<float> a, b;
  float b_at(int64_t p, int64_t j) const { return trans_b ? b[j * ldb + p] : b[p * ldb + j]; }
};

Operands make(int64_t m, int64_t n, int64_t k, bool trans_b) {
  Operands o{m, n, k, k + 3, trans_b ? k + 2 : n + 5, n + 7, trans_b, {}, {}};
  o.a = wave(static_cast<size_t>(m * o.lda), 0.11f, 0.4f);
  o.b = wave(static_cast<size_t>((trans_b ? n : k) * o.ldb), 0.37f, 0.1f);
  return o;
}

// A narrow product's arithmetic (Note [Narrow products]): per lane l of
// U sets of 8, fma over the values of k that fall on it (k = 8 (U q + u)
// + l while whole steps of 8 U remain, then set 0 takes whole steps of 8
// and the last values), the sets added in order, then the 8 lanes as
// (l0 + l4) + (l2 + l6) + ((l1 + l5) + (l3 + l7)).
float narrow_chain(const Operands& o, int64_t i, int64_t j) {
  const int u_sets = o.n <= 2 ? 4 : o.n <= 4 ? 2 : 1;
  const int64_t k_main = o.k / (8 * u_sets) * (8 * u_sets);
  float acc[4][8] = {};
  for (int64_t p = 0; p < o.k; ++p) {
    const int u = p < k_main ? static_cast<int>(p / 8 % u_sets) : 0;
    float& a = acc[u][p % 8];
    a = std::fma(o.a[i * o.lda + p], o.b_at(p, j), a);
  }
  float v[8];
  for (int l = 0; l < 8; ++l) {
    v[l] = acc[0][l];
    for (int u = 1; u < u_sets; ++u) v[l] += acc[u][l];
  }
  float h[4];
  for (int l = 0; l < 4; ++l) h[l] = v[l] + v[l + 4];
  return (h[0] + h[2]) + (h[1] + h[3]);
}

// The kernel's arithmetic, one element at a time: fma over k in order (or
// a narrow product's lanes), then + bias and the activation.
float chain(const Operands& o, int64_t i, int64_t j, const blas::GemmEpilogue& ep) {
  float acc = 0.0f;
  if (o.n <= blas::PanelGemmF32::kNarrowColumns) {
    acc = narrow_chain(o, i, j);
  } else {
    for (int64_t p = 0; p < o.k; ++p) acc = std::fma(o.a[i * o.lda + p], o.b_at(p, j), acc);
  }
  if (ep.bias != nullptr) acc += ep.bias[j];
  if (ep.activation >= 1 && acc < 0.0f) acc = 0.0f;
  if (ep.activation == 2 && acc > 6.0f) acc = 6.0f;
  return acc;
}

uint32_t bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

class PanelGemm : public testing::Test {
 protected:
  void SetUp() override {
    if (!blas::PanelGemmF32::supported()) GTEST_SKIP() << "the panel kernels need AVX2 and FMA";
  }
  void TearDown() override { set_num_threads(0); }
};

// Rows: each kernel (6-row blocks, then 1, 2, 3 = 2 + 1, 4 and 5 left
// over), a product past the 192-row chunk. Columns: below, at and past a
// panel, and 97 (a last panel of one column). k: one value, under, at and
// past the 256 slice.
TEST_F(PanelGemm, EachElementIsTheFmaChainOverK) {
  for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 11, 200}) {
    for (int64_t n : {1, 3, 4, 8, 9, 15, 16, 17, 97}) {
      for (int64_t k : {1, 7, 256, 300}) {
        if (m == 200 && k != 300) continue;  // the long product once is enough
        for (bool trans_b : {false, true}) {
          for (int threads : {1, 2}) {
            SCOPED_TRACE(testing::Message() << "m " << m << ", n " << n << ", k " << k << ", trans_b " << trans_b
                                            << ", threads " << threads);
            const Operands o = make(m, n, k, trans_b);
            blas::PanelGemmF32 g;
            ASSERT_TRUE(g.pack(n, k, o.b.data(), o.ldb, trans_b));
            set_num_threads(threads);
            std::vector<float> c(static_cast<size_t>(m * o.ldc), -7.0f);
            g.run(m, o.a.data(), o.lda, c.data(), o.ldc, {}, threads);
            int64_t wrong = 0;
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < n; ++j) wrong += bits(c[i * o.ldc + j]) != bits(chain(o, i, j, {}));
              for (int64_t j = n; j < o.ldc; ++j) EXPECT_EQ(c[i * o.ldc + j], -7.0f) << "C's padding written";
            }
            EXPECT_EQ(wrong, 0) << "elements that differ from the FMA chain";
          }
        }
      }
    }
  }
}

// The chain itself against a double-precision sum, so that the reference
// above is the product.
TEST_F(PanelGemm, MatchesTheDoubleSum) {
  const Operands o = make(9, 40, 300, false);
  blas::PanelGemmF32 g;
  ASSERT_TRUE(g.pack(o.n, o.k, o.b.data(), o.ldb, false));
  std::vector<float> c(static_cast<size_t>(o.m * o.ldc));
  g.run(o.m, o.a.data(), o.lda, c.data(), o.ldc, {}, 1);
  for (int64_t i = 0; i < o.m; ++i)
    for (int64_t j = 0; j < o.n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < o.k; ++p) want += static_cast<double>(o.a[i * o.lda + p]) * o.b_at(p, j);
      EXPECT_NEAR(c[i * o.ldc + j], want, 2e-5) << i << "," << j;
    }
}

// A batch split over workers must give the rows it gives whole: the rows of
// a product on two threads, bit for bit, computed one at a time, in blocks
// of 3 (a 2-row and a 1-row kernel) or 5 starting anywhere, and on one
// thread. 37 x 70 splits its rows between the threads, 6 x 256 (k = 1000)
// its panels.
TEST_F(PanelGemm, RowsDoNotDependOnTheirCompanyOrThreads) {
  for (const auto& shape : {std::vector<int64_t>{37, 70, 300}, std::vector<int64_t>{6, 256, 1000}}) {
    const Operands o = make(shape[0], shape[1], shape[2], false);
    blas::PanelGemmF32 g;
    ASSERT_TRUE(g.pack(o.n, o.k, o.b.data(), o.ldb, false));
    set_num_threads(2);
    std::vector<float> whole(static_cast<size_t>(o.m * o.ldc));
    g.run(o.m, o.a.data(), o.lda, whole.data(), o.ldc, {}, 2);
    for (int64_t rows : {int64_t{1}, int64_t{3}, int64_t{5}, o.m}) {
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        for (int64_t first = 0; first < o.m; first += rows) {
          const int64_t count = std::min(rows, o.m - first);
          std::vector<float> part(static_cast<size_t>(count * o.ldc));
          g.run(count, o.a.data() + first * o.lda, o.lda, part.data(), o.ldc, {}, threads);
          for (int64_t i = 0; i < count; ++i)
            for (int64_t j = 0; j < o.n; ++j)
              ASSERT_EQ(bits(part[i * o.ldc + j]), bits(whole[(first + i) * o.ldc + j]))
                  << "m " << o.m << ": row " << first + i << ", column " << j << ", computed " << rows
                  << " at a time on " << threads << " threads";
        }
      }
    }
  }
}

// `floats` floats that end where an unreadable page starts.
class GuardedFloats {
 public:
  explicit GuardedFloats(size_t floats) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    span_ = ((floats * sizeof(float) + page - 1) / page + 1) * page;
    pages_ = mmap(nullptr, span_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages_ == MAP_FAILED) return;
    char* guard = static_cast<char*>(pages_) + span_ - page;
    if (mprotect(guard, page, PROT_NONE) == 0) data = reinterpret_cast<float*>(guard) - floats;
  }
  ~GuardedFloats() {
    if (pages_ != MAP_FAILED) munmap(pages_, span_);
  }
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  float* data = nullptr;

 private:
  void* pages_ = MAP_FAILED;
  size_t span_ = 0;
};

// Bias, relu and relu6 on the sums (both clamps taken, a NaN column kept),
// with A, the bias and C each ending where an unreadable page starts: the
// last panel's masked loads and stores and the packing of A must stop at
// the last element.
TEST_F(PanelGemm, EpilogueAndReadsStopAtTheEnd) {
  for (int64_t m : {1, 2, 7}) {
    for (int64_t n : {10, 37}) {
      const int64_t k = 9;
      Operands o = make(m, n, k, false);
      o.lda = k, o.ldc = n;
      o.b[static_cast<size_t>(2 * o.ldb + 5)] = std::nanf("");  // column 5 is NaN
      GuardedFloats a(static_cast<size_t>(m * k)), bias(static_cast<size_t>(n)), c(static_cast<size_t>(m * n));
      ASSERT_TRUE(a.data != nullptr && bias.data != nullptr && c.data != nullptr);
      o.a = wave(static_cast<size_t>(m * k), 0.11f, 0.4f);
      std::memcpy(a.data, o.a.data(), o.a.size() * sizeof(float));
      const std::vector<float> bias_values = wave(static_cast<size_t>(n), 0.7f, 0.2f);
      for (int64_t j = 0; j < n; ++j) bias.data[j] = 9.0f * bias_values[j];  // sums from -11 to 11
      blas::PanelGemmF32 g;
      ASSERT_TRUE(g.pack(n, k, o.b.data(), o.ldb, false));
      for (int activation : {0, 1, 2}) {
        SCOPED_TRACE(testing::Message() << "m " << m << ", n " << n << ", activation " << activation);
        blas::GemmEpilogue ep;
        ep.bias = bias.data;
        ep.activation = activation;
        g.run(m, a.data, k, c.data, n, ep, 1);
        int below = 0, above = 0;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const float got = c.data[i * n + j];
            if (j == 5) {
              EXPECT_TRUE(std::isnan(got)) << "NaN stays NaN";
              continue;
            }
            const float sum = chain(o, i, j, {}) + bias.data[j];
            below += sum < 0, above += sum > 6;
            EXPECT_EQ(bits(got), bits(chain(o, i, j, ep))) << i << "," << j;
          }
        EXPECT_GT(below, 0);
        if (n > 10) {
          EXPECT_GT(above, 0);
        }
      }
    }
  }
}

// k = 0: an empty sum, C is the epilogue of zeros.
TEST_F(PanelGemm, EmptySum) {
  blas::PanelGemmF32 g;
  ASSERT_TRUE(g.pack(3, 0, nullptr, 3, false));
  const float bias[3] = {-1.0f, 2.0f, 9.0f};
  std::vector<float> c(6, -7.0f);
  blas::GemmEpilogue ep;
  ep.bias = bias;
  ep.activation = 2;
  g.run(2, nullptr, 0, c.data(), 3, ep, 1);
  EXPECT_EQ(c, (std::vector<float>{0.0f, 2.0f, 6.0f, 0.0f, 2.0f, 6.0f}));
}

// No columns: packing succeeds and a run writes nothing (no narrow kernel
// for a width of zero).
TEST_F(PanelGemm, NoColumns) {
  const std::vector<float> a(8, 1.0f), b(4, 1.0f);
  blas::PanelGemmF32 g;
  ASSERT_TRUE(g.pack(0, 4, b.data(), 1, false));
  std::vector<float> c(2, -7.0f);
  g.run(2, a.data(), 4, c.data(), 1, {}, 1);
  EXPECT_EQ(c, (std::vector<float>{-7.0f, -7.0f}));
}

}  // namespace
