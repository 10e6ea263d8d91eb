// OpenBLAS runs GEMM, potrf and trsm on as many threads as libops is told
// to use (blas/blas_threads.h), not on its own default of every core.
#include <cblas.h>
#include <gtest/gtest.h>

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

TEST(BlasThreads, EachCallTakesLibopsThreadCount) {
  ThreadCountGuard guard;
  for (int threads : {1, 2, 1}) {
    set_num_threads(threads);
    // [[1, 2], [3, 4]] * [[5, 6], [7, 8]]
    const std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
    std::vector<float> c(4, -1);
    ASSERT_OK(blas::gemm(DataType::kFloat32, false, false, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2));
    EXPECT_EQ(c, (std::vector<float>{19, 22, 43, 50}));
    EXPECT_EQ(openblas_get_num_threads(), threads) << "after gemm";

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
