// Note [Small matrices] on CUDA devices: one thread per matrix of the
// batch, the product computed as Matrix<T, S, S> values in registers, as
// C^T = op(B)^T op(A)^T (Note [Transposed products] in small_gemm_cpu.cpp).
// cuBLAS's strided batched GEMM serves these sizes with tiles meant for
// larger matrices; a thread per matrix reads each operand once.
#include "blas/small_gemm_cuda.h"

#include <algorithm>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/matrix/matrix.h"

namespace libops::blas {
namespace {

constexpr int kThreads = 128;

// op(X)^T from a stored matrix: element (i, j) at p[i * rs + j * cs].
template <typename T, int S>
__device__ __forceinline__ Matrix<T, S, S> load_strided(const T* p, int64_t rs, int64_t cs) {
  Matrix<T, S, S> m;
#pragma unroll
  for (int j = 0; j < S; ++j)
#pragma unroll
    for (int i = 0; i < S; ++i) m(i, j) = p[i * rs + j * cs];
  return m;
}

template <typename T, int S>
__global__ void small_gemm_kernel(const T* a, int64_t ars, int64_t acs, int64_t stride_a, const T* b, int64_t brs,
                                  int64_t bcs, int64_t stride_b, T* c, int64_t ldc, int64_t stride_c, T alpha, T beta,
                                  bool plain, bool read_c, int64_t batch) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < batch;
       e += gridDim.x * static_cast<int64_t>(blockDim.x)) {
    T* pc = c + e * stride_c;
    Matrix<T, S, S> ct = load_strided<T, S>(b + e * stride_b, brs, bcs) * load_strided<T, S>(a + e * stride_a, ars, acs);
    if (!plain) {
      ct = ct * alpha;
      if (read_c) ct += load_strided<T, S>(pc, 1, ldc) * beta;
    }
#pragma unroll
    for (int j = 0; j < S; ++j)
#pragma unroll
      for (int i = 0; i < S; ++i) pc[j * ldc + i] = ct(i, j);
  }
}

template <typename T, int S>
Status launch(cudaStream_t stream, bool trans_a, bool trans_b, double alpha, const void* a, int64_t lda,
              int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b, double beta, void* c, int64_t ldc,
              int64_t stride_c, int64_t batch) {
  const unsigned blocks =
      static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((batch + kThreads - 1) / kThreads, 1 << 20)));
  small_gemm_kernel<T, S><<<blocks, kThreads, 0, stream>>>(
      static_cast<const T*>(a), trans_a ? lda : 1, trans_a ? 1 : lda, stride_a, static_cast<const T*>(b),
      trans_b ? ldb : 1, trans_b ? 1 : ldb, stride_b, static_cast<T*>(c), ldc, stride_c, static_cast<T>(alpha),
      static_cast<T>(beta), alpha == 1.0 && beta == 0.0, beta != 0.0, batch);
  LIBOPS_CUDA_CHECK(cudaGetLastError());
  return Status::ok();
}

template <typename T>
Status launch_for(cudaStream_t stream, bool trans_a, bool trans_b, int64_t s, double alpha, const void* a,
                  int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b, double beta, void* c,
                  int64_t ldc, int64_t stride_c, int64_t batch) {
  switch (s) {
    case 2: return launch<T, 2>(stream, trans_a, trans_b, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
    case 3: return launch<T, 3>(stream, trans_a, trans_b, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
    default: return launch<T, 4>(stream, trans_a, trans_b, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
  }
}

}  // namespace

bool is_small_gemm_cuda(DataType dtype, int64_t m, int64_t n, int64_t k) {
  return (dtype == DataType::kFloat32 || dtype == DataType::kFloat64) && m == n && n == k && m >= 2 && m <= 4;
}

Status small_gemm_batched_cuda(cudaStream_t stream, DataType dtype, bool trans_a, bool trans_b, int64_t s,
                               double alpha, const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb,
                               int64_t stride_b, double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch) {
  if (batch == 0) return Status::ok();
  if (dtype == DataType::kFloat32)
    return launch_for<float>(stream, trans_a, trans_b, s, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc,
                             stride_c, batch);
  return launch_for<double>(stream, trans_a, trans_b, s, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc,
                            stride_c, batch);
}

}  // namespace libops::blas
