// GEMMs of small matrices (every extent <= 8) without BLAS.
//
// Note [Small matrices]
// A batched matmul of [N, 4, 4] x [N, 4, 4] is 64 multiply-adds per entry;
// one BLAS call per entry costs more than that (measured in
// bench/small_matrix_bench.cpp: cblas_sgemm per 4x4 matrix against these
// kernels). So gemm and gemm_batched hand float32 and float64 calls whose m,
// n and k are all at most kSmallGemmMaxExtent to kernels instantiated from
// Matrix<T, M, K> (libops/matrix/matrix.h): each entry is loaded into
// registers as op(A) and op(B) (a transposed operand is a column-major
// load), multiplied with its extents known at compile time, scaled, and
// stored; the batch is split over the threads. Extents 1 to 4 each have
// their own instantiation (64 shapes); a shape with an extent of 5 to 8
// runs the 8 x 8 x 8 kernel, its operands padded with zeros in registers
// (zeros add nothing to the real elements' sums, and padded results are
// never stored, so NaN and Inf stay where BLAS would put them).
//
// The sums run in k order with the element type (FMA-contracted where the
// ISA has FMA), as the reference BLAS loop does; OpenBLAS may order or
// fuse differently, so results agree with BLAS within rounding, bit for bit
// with gemm_generic on float64 inputs that are small integers.
#pragma once

#include <cstdint>

#include "libops/core/dtype.h"

namespace libops::blas {

inline constexpr int64_t kSmallGemmMaxExtent = 8;

// True when m, n and k are in 1 .. kSmallGemmMaxExtent and dtype is float32
// or float64: small_gemm_batched then runs the call.
bool is_small_gemm(DataType dtype, int64_t m, int64_t n, int64_t k);

// The GEMMs of gemm_batched (checked arguments, is_small_gemm true):
// C_i = alpha * op(A_i) * op(B_i) + beta * C_i for i < batch; beta == 0
// writes C without reading it.
void small_gemm_batched(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                        const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
                        double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch);

}  // namespace libops::blas
