// General matrix multiply on raw memory: C = alpha * op(A) * op(B) + beta * C.
//
// This is a leaf: it knows pointers, extents and strides, nothing about
// NDArray or ops. All matrices are row-major with a leading dimension
// (elements between the starts of two rows); op(X) is X or its transpose.
//
//   op(A) is m x k: A is stored m x k (lda >= k), or k x m when trans_a (lda >= m)
//   op(B) is k x n: B is stored k x n (ldb >= n), or n x k when trans_b (ldb >= k)
//   C is m x n (ldc >= n); all three share one dtype.
//
// Note [GEMM dtypes]
//   float32, float64: BLAS (cblas_sgemm / cblas_dgemm, gemv when m or n is 1).
//   float16, bfloat16: portable kernel, products accumulated in float, one
//     rounding on store (what numpy does for float16).
//   integers: portable kernel, exact two's-complement wrap-around (in 64
//     bits, or 32 for dtypes of at most 32 bits: the same low bits), then
//     wrapped to the dtype on store; the result equals numpy's, which wraps
//     in the dtype itself. alpha and beta must be
//     whole numbers here and are applied in the same wrapping arithmetic.
//   bool: not supported.
// As in BLAS, beta == 0 means C is written without being read (NaN or
// garbage in C does not leak into the result), and alpha == 0 or k == 0
// means A and B are not read.
#pragma once

#include <cstdint>

#include "libops/core/device.h"
#include "libops/core/dtype.h"
#include "libops/core/status.h"

namespace libops::blas {

Status gemm(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
            const void* a, int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc);

// `batch` independent GEMMs; matrix i of A starts at a + i * stride_a
// elements (likewise B and C). stride_a / stride_b may be 0 (one matrix
// shared by every batch); C matrices must not overlap. BLAS dtypes run one
// GEMM after the other, each large one split over libops' threads (Note
// [GEMM threads] in gemm_cpu.cpp); the portable kernel spreads small GEMMs
// over the batch and parallelizes large ones inside.
Status gemm_batched(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
                    double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch);

// gemm_batched on `device`, with a, b and c in that device's memory: the
// CPU's gemm_batched, or the kernel its backend registered (cuBLAS for
// CUDA: float32 and float64, and float16 / bfloat16 with float
// accumulation; other dtypes there are kNotImplemented).
Status gemm_batched_on(Device device, DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                       double alpha, const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb,
                       int64_t stride_b, double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch);

using DeviceGemmBatchedFn = Status (*)(int device_index, DataType dtype, bool trans_a, bool trans_b, int64_t m,
                                       int64_t n, int64_t k, double alpha, const void* a, int64_t lda,
                                       int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b, double beta,
                                       void* c, int64_t ldc, int64_t stride_c, int64_t batch);
// Called by a backend when the library loads (blas/gemm_cuda.cpp); tests
// may swap in their own and put back what device_gemm found.
void register_device_gemm(DeviceType type, DeviceGemmBatchedFn fn);
DeviceGemmBatchedFn device_gemm(DeviceType type);

// The portable kernel behind the non-BLAS dtypes, callable for float32 and
// float64 too so tests can compare it with BLAS on the same data.
Status gemm_generic(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const void* a, int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc);

}  // namespace libops::blas
