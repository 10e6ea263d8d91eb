// OpenBLAS runs potrf and trsm on as many threads as libops is told to use,
// and GEMMs on the calling thread, split over libops' threads by gemm_cpu
// (blas/blas_threads.h, Note [GEMM threads]): never on its own default of
// every core. A split GEMM gives the values of a single call up to
// rounding (OpenBLAS picks its kernels by block shape).
#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "blas/gemm.h"
#include "blas/linalg.h"
#include "libops/core/parallel.h"
#include "test_util.h"

using namespace libops;

namespace {

// Restores libops' thread count when a test ends, pass or fail.
struct ThreadCountGuard {
  int saved = get_num_threads();
  ~ThreadCountGuard() { set_num_threads(saved); }
};

}  // namespace

TEST(BlasThreads, LapackTakesLibopsThreadCountAndGemmOne) {
  ThreadCountGuard guard;
  for (int threads : {1, 2, 1}) {
    set_num_threads(threads);
    // [[1, 2], [3, 4]] * [[5, 6], [7, 8]], padded with zeros to k = 9: a
    // GEMM with every extent <= 8 never reaches BLAS (Note [Small matrices]).
    std::vector<float> a(2 * 9, 0.f), b(9 * 2, 0.f);
    a[0] = 1, a[1] = 2, a[9] = 3, a[10] = 4;
    b[0] = 5, b[1] = 6, b[2] = 7, b[3] = 8;
    std::vector<float> c(4, -1);
    ASSERT_OK(blas::gemm(DataType::kFloat32, false, false, 2, 2, 9, 1.0, a.data(), 9, b.data(), 2, 0.0, c.data(), 2));
    EXPECT_EQ(c, (std::vector<float>{19, 22, 43, 50}));
    EXPECT_EQ(openblas_get_num_threads(), 1) << "after gemm";

    set_num_threads(threads + 1);
    std::vector<double> spd = {4, 0, 2, 5};  // L = [[2, 0], [1, 2]]
    int64_t bad = 7, order = 7;
    ASSERT_OK(blas::potrf_batched_on(Device::cpu(), DataType::kFloat64, true, 2, spd.data(), 2, 4, 1, &bad, &order));
    EXPECT_EQ(bad, -1);
    EXPECT_EQ(spd, (std::vector<double>{2, 0, 1, 2}));
    EXPECT_EQ(openblas_get_num_threads(), threads + 1) << "after potrf";

    set_num_threads(threads);
    std::vector<double> rhs = {4, 6};  // L x = rhs: x = [2, 2]
    ASSERT_OK(blas::trsm_batched_on(Device::cpu(), DataType::kFloat64, true, false, false, 2, 1, spd.data(), 2, 0,
                                    rhs.data(), 1, 2, 1));
    EXPECT_EQ(rhs, (std::vector<double>{2, 2}));
    EXPECT_EQ(openblas_get_num_threads(), threads) << "after trsm";
  }
}

TEST(BlasThreads, SplitGemmEqualsOneCall) {
  // Big enough to split (Note [GEMM threads]), with extents that leave a
  // short last block, for every transpose pair, both precisions, and C's
  // columns (n >= m) or rows (m > n) split, GEMV shapes included: the same
  // values as on one thread up to the rounding of a k-term sum (a block at
  // a wrong offset would be off by whole values).
  ThreadCountGuard guard;
  struct Extents {
    int64_t m, n, k;
  };
  for (const Extents e : {Extents{37, 701, 300}, Extents{701, 37, 300}, Extents{1, 5000, 900}, Extents{5000, 1, 900}})
    for (DataType t : {DataType::kFloat32, DataType::kFloat64})
      for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
          // Padded leading dimensions, so a wrong block offset shows.
          const int64_t lda = (ta ? e.m : e.k) + 3, ldb = (tb ? e.k : e.n) + 5, ldc = e.n + 7;
          const int64_t a_rows = ta ? e.k : e.m, b_rows = tb ? e.n : e.k;
          std::vector<double> a(static_cast<size_t>(a_rows * lda)), b(static_cast<size_t>(b_rows * ldb));
          for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37 * static_cast<double>(i));
          for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.11 * static_cast<double>(i));
          NDArray av = test::make(t, {a_rows * lda}, a), bv = test::make(t, {b_rows * ldb}, b);
          NDArray c1 = test::make(t, {e.m * ldc}, std::vector<double>(static_cast<size_t>(e.m * ldc), 0.5)), c2;
          ASSERT_OK(c1.dup('c', c2));
          set_num_threads(1);
          ASSERT_OK(blas::gemm(t, ta, tb, e.m, e.n, e.k, 1.5, av.data(), lda, bv.data(), ldb, 0.25, c1.data(), ldc));
          set_num_threads(2);
          ASSERT_OK(blas::gemm(t, ta, tb, e.m, e.n, e.k, 1.5, av.data(), lda, bv.data(), ldb, 0.25, c2.data(), ldc));
          const std::vector<double> one = test::values(c1), split = test::values(c2);
          const double tol = t == DataType::kFloat32 ? 1e-4 : 1e-12;
          for (size_t i = 0; i < one.size(); ++i)
            ASSERT_NEAR(split[i], one[i], tol * (1 + std::fabs(one[i])))
                << dtype_name(t) << " m=" << e.m << " n=" << e.n << " k=" << e.k << " ta=" << ta << " tb=" << tb
                << ", element " << i;
        }
}
