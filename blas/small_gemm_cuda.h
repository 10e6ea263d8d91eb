// Batched GEMMs of small square matrices on CUDA devices (CUDA builds
// only): Note [Small matrices] in small_gemm.h, one thread per matrix.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "libops/core/dtype.h"
#include "libops/core/status.h"

namespace libops::blas {

// float32 and float64 with m == n == k in 2..4 (cuBLAS takes the rest).
bool is_small_gemm_cuda(DataType dtype, int64_t m, int64_t n, int64_t k);

// gemm_batched's contract, queued on `stream` (a, b and c in device memory).
Status small_gemm_batched_cuda(cudaStream_t stream, DataType dtype, bool trans_a, bool trans_b, int64_t s,
                               double alpha, const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb,
                               int64_t stride_b, double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch);

}  // namespace libops::blas
