// Batched matrix decompositions on raw memory: QR, SVD, symmetric and
// general eigen-decompositions, LU and solves from LU factors, through
// LAPACK on the CPU and cuSOLVER on CUDA, and the small kernels that turn
// their results into what the ops return (permutations, determinants, the
// pseudo-inverse's filter).
//
// Note [Column-major decompositions]
// Every matrix here is dense column-major (Fortran order), as LAPACK and
// cuSOLVER want: an m x n matrix is n columns of m elements, and matrix i
// of a batch starts at base + i * (its element count). A caller with a
// row-major matrix passes the dense C-order copy of its transpose (numpy's
// x.swapaxes(-1, -2) in C order is x in Fortran order), and reads a result
// back the same way. float32 and float64 only.
//
// A leaf like gemm.h and linalg.h: pointers and extents, no NDArray. Where a
// matrix fails (an SVD or eigen-solver that does not converge, an exact
// zero pivot in LU), the failure is reported as the batch index of the
// first such matrix (else -1); that matrix's outputs are then unspecified
// and the ones after it may not have been computed.
#pragma once

#include <cstdint>

#include "libops/core/device.h"
#include "libops/core/dtype.h"
#include "libops/core/status.h"

namespace libops::blas {

// A = Q R. k = min(m, n). complete: Q is m x m and R m x n; else Q is
// m x k and R k x n. R is upper triangular with zeros below the diagonal.
// Q's columns are orthonormal; R's diagonal may be negative (Householder
// reflections, as LAPACK and numpy).
struct QrArgs {
  int64_t m = 0, n = 0, batch = 0;
  bool complete = false;
  const void* a = nullptr;
  void* q = nullptr;
  void* r = nullptr;
};

// A = U diag(s) V^T. k = min(m, n) singular values per matrix, descending
// and >= 0. full: U is m x m and V n x n; else U is m x k and V n x k.
// V itself is returned (not V^T), as TensorFlow's and libnd4j's svd do.
// u and v are not written when !compute_uv.
struct SvdArgs {
  int64_t m = 0, n = 0, batch = 0;
  bool full = false;
  bool compute_uv = true;
  void* a = nullptr;  // destroyed
  void* s = nullptr;
  void* u = nullptr;
  void* v = nullptr;
};

// A = V diag(w) V^T for symmetric A, of which only one triangle is read
// (`lower`: the lower one, in A's own row/column sense). w ascending; V's
// columns orthonormal, written over a when compute_v (else a is destroyed).
struct EighArgs {
  int64_t n = 0, batch = 0;
  bool lower = true;
  bool compute_v = true;
  void* a = nullptr;
  void* w = nullptr;
};

// A V = V diag(w) for a general real A: w holds n complex eigenvalues as
// interleaved (re, im) pairs, conjugate pairs adjacent with the positive
// imaginary part first (LAPACK's order); when compute_v, v holds the n x n
// complex right eigenvectors (column j belongs to w[j]), interleaved, each
// of Euclidean norm 1 with its largest component real.
struct EigArgs {
  int64_t n = 0, batch = 0;
  bool compute_v = true;
  void* a = nullptr;  // destroyed
  void* w = nullptr;
  void* v = nullptr;
};

// P A = L U with partial pivoting, square n x n, written over a: L below the
// diagonal (unit diagonal, not stored), U on and above it. pivots: n int32
// per matrix, LAPACK's 1-based row interchanges (row i was swapped with row
// pivots[i] - 1, in order). The factorization finishes on singular
// matrices; the first matrix with an exact zero on U's diagonal is reported.
struct LuArgs {
  int64_t n = 0, batch = 0;
  void* a = nullptr;
  int32_t* pivots = nullptr;
};

// Solves A X = B, or A^T X = B when transpose, from LuArgs' factors of A:
// B (n x k) is overwritten by X. shared_a: one A (lu and pivots at stride 0)
// serves every B.
struct LuSolveArgs {
  int64_t n = 0, k = 0, batch = 0;
  bool transpose = false;
  bool shared_a = false;
  const void* lu = nullptr;
  const int32_t* pivots = nullptr;
  void* b = nullptr;
};

Status qr_batched_on(Device device, DataType dtype, const QrArgs& args);
Status svd_batched_on(Device device, DataType dtype, const SvdArgs& args, int64_t* not_converged);
Status eigh_batched_on(Device device, DataType dtype, const EighArgs& args, int64_t* not_converged);
Status eig_batched_on(Device device, DataType dtype, const EigArgs& args, int64_t* not_converged);
Status lu_batched_on(Device device, DataType dtype, const LuArgs& args, int64_t* singular);
Status lu_solve_batched_on(Device device, DataType dtype, const LuSolveArgs& args);

// The row permutation of LU's pivots: perm (n per matrix, int32 or int64
// `index_dtype`) such that row i of P A is row perm[i] of A, that is
// A[perm] = L U (TensorFlow's lu).
Status lu_permutation_on(Device device, int64_t n, int64_t batch, const int32_t* pivots, DataType index_dtype,
                         void* perm);

// Determinants from LU factors (dtype values, one per matrix): the product
// of U's diagonal, negated once per row interchange. With `log_abs`
// non-null it gets log|det| (-inf for a singular matrix) and `det` the
// sign (-1, 0 or +1; NaN where the factors hold NaN), numpy's slogdet;
// otherwise `det` gets the determinant. Products run in double for both
// dtypes, so float32 factors do not overflow midway.
Status lu_determinant_on(Device device, DataType dtype, int64_t n, int64_t batch, const void* lu,
                         const int32_t* pivots, void* det, void* log_abs);

// The pseudo-inverse's scaling of t = U^T B (k x cols per matrix, row-major)
// by f(s) row by row, from the k descending singular values s per matrix:
//   l2 > 0: f(s) = s / (s^2 + l2)                (ridge, TensorFlow's lstsq)
//   else    f(s) = 1 / s where s > rcond * s[0], else 0  (numpy's lstsq)
Status pinv_scale_rows_on(Device device, DataType dtype, int64_t batch, int64_t k, int64_t cols, const void* s,
                          double rcond, double l2, void* t);

// What a device backend provides, with the same contracts, memory on
// device `device_index` (blas/decompositions_cuda.cu). A null entry is an
// operation the backend cannot do: the call fails saying so.
struct DeviceDecompositions {
  Status (*qr)(int device_index, DataType dtype, const QrArgs& args);
  Status (*svd)(int device_index, DataType dtype, const SvdArgs& args, int64_t* not_converged);
  Status (*eigh)(int device_index, DataType dtype, const EighArgs& args, int64_t* not_converged);
  Status (*eig)(int device_index, DataType dtype, const EigArgs& args, int64_t* not_converged);
  Status (*lu)(int device_index, DataType dtype, const LuArgs& args, int64_t* singular);
  Status (*lu_solve)(int device_index, DataType dtype, const LuSolveArgs& args);
  Status (*lu_permutation)(int device_index, int64_t n, int64_t batch, const int32_t* pivots, DataType index_dtype,
                           void* perm);
  Status (*lu_determinant)(int device_index, DataType dtype, int64_t n, int64_t batch, const void* lu,
                           const int32_t* pivots, void* det, void* log_abs);
  Status (*pinv_scale_rows)(int device_index, DataType dtype, int64_t batch, int64_t k, int64_t cols, const void* s,
                            double rcond, double l2, void* t);
};
// Called by a backend when the library loads; tests may swap in their own
// and put back what device_decompositions found.
void register_device_decompositions(DeviceType type, const DeviceDecompositions* fns);
const DeviceDecompositions* device_decompositions(DeviceType type);

}  // namespace libops::blas
