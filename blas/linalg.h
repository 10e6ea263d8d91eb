// Batched dense linear algebra on raw memory: Cholesky factorization and
// triangular solves.
//
// Like gemm.h this is a leaf: pointers, extents and strides, no NDArray.
// Matrices are row-major with a leading dimension (elements between the
// starts of two rows); matrix i of a batch starts at base + i * stride
// elements. float32 and float64 only; other dtypes are kNotImplemented.
//
// Note [Row-major LAPACK]
// LAPACK, cuSOLVER and cuBLAS are column-major. A row-major matrix is the
// column-major storage of its transpose, so each row-major call is the
// column-major call on transposes: a row-major lower triangle is a
// column-major upper one (potrf with uplo 'U' computes the row-major L of
// A = L * L^T), and op(A) * X = B on row-major data is X^T * op(A)^T = B^T,
// a right-side solve on the column-major transposes.
#pragma once

#include <cstdint>

#include "libops/core/device.h"
#include "libops/core/dtype.h"
#include "libops/core/status.h"

namespace libops::blas {

// Cholesky factorization in place of `batch` symmetric positive-definite
// n x n matrices. lower: A = L * L^T, L written over the lower triangle;
// else A = U^T * U, U over the upper. Only that triangle (diagonal
// included) is read. On the CPU the other one keeps its contents; a device
// backend may use it as scratch (cuSOLVER's potrfBatched does), so callers
// must treat it as garbage afterwards.
// *bad_matrix is -1 when every matrix was positive definite, else the first
// one that was not, with *bad_order the order of its first leading minor
// that is not positive definite (LAPACK's info); a NaN in the triangle read
// counts as such, at the first NaN pivot, on every backend (Note [NaN
// pivots] in linalg_cpu.cpp). That matrix's triangle is then partly
// overwritten.
Status potrf_batched_on(Device device, DataType dtype, bool lower, int64_t n, void* a, int64_t lda, int64_t stride,
                        int64_t batch, int64_t* bad_matrix, int64_t* bad_order);

// Triangular solve in place: B := op(A)^-1 * B for `batch` systems. A is
// n x n, lower or upper triangular (the other triangle is not read);
// unit_diag takes its diagonal as ones without reading it; op(A) is A, or
// A^T when transpose. B is n x k. stride_a may be 0 (one A for every
// system). A zero on A's diagonal gives inf or NaN, not an error (as
// LAPACK's trsm, and PyTorch's solve_triangular).
Status trsm_batched_on(Device device, DataType dtype, bool lower, bool transpose, bool unit_diag, int64_t n,
                       int64_t k, const void* a, int64_t lda, int64_t stride_a, void* b, int64_t ldb, int64_t stride_b,
                       int64_t batch);

// What a device backend provides (blas/linalg_cuda.cu: cuSOLVER and
// cuBLAS), with the same contracts, memory on device `device_index`.
struct DeviceLinalg {
  Status (*potrf_batched)(int device_index, DataType dtype, bool lower, int64_t n, void* a, int64_t lda,
                          int64_t stride, int64_t batch, int64_t* bad_matrix, int64_t* bad_order);
  Status (*trsm_batched)(int device_index, DataType dtype, bool lower, bool transpose, bool unit_diag, int64_t n,
                         int64_t k, const void* a, int64_t lda, int64_t stride_a, void* b, int64_t ldb,
                         int64_t stride_b, int64_t batch);
};
// Called by a backend when the library loads; `fns` must outlive the
// library (tests may swap in their own and put back what they found).
void register_device_linalg(DeviceType type, const DeviceLinalg* fns);
const DeviceLinalg* device_linalg(DeviceType type);

}  // namespace libops::blas
