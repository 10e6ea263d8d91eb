// float32 GEMM through oneDNN's sgemm (sgemm_dnnl.h).
#include "libops/blas/sgemm_dnnl.h"

#include "libops/blas/conv_dnnl.h"

#ifdef LIBOPS_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>

#include "libops/blas/dnnl_util.h"
#endif

namespace libops::blas {

bool sgemm_dnnl(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                const float* b, int64_t ldb, float beta, float* c, int64_t ldc, int threads) {
#ifdef LIBOPS_HAVE_DNNL
  if (!dnnl_enabled()) return false;
  dnnl_util::OmpThreads scope(threads);
  return dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) ==
         dnnl_success;
#else
  (void)trans_a, (void)trans_b, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb;
  (void)beta, (void)c, (void)ldc, (void)threads;
  return false;
#endif
}

}  // namespace libops::blas
