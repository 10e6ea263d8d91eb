// The per-matrix work after a factorization, written once for the CPU loops
// (decompositions_cpu.cpp) and the CUDA kernels (decompositions_cuda.cu):
// pivots to a permutation, determinants from LU factors, the
// pseudo-inverse's row scaling, and unpacking LAPACK's real eigenvectors.
#pragma once

#include <cmath>
#include <cstdint>

#include "libops/core/host_device.h"

namespace libops::blas::kernels {

// Note [LU pivots]: LAPACK's ipiv says row i was swapped with row ipiv[i]
// - 1, the swaps applied in order i = 0, 1, ...; applying them to the
// identity permutation gives perm with (P A)[i] = A[perm[i]].
template <typename I>
LIBOPS_HOST_DEVICE void pivots_to_permutation(int64_t n, const int32_t* pivots, I* perm) {
  for (int64_t i = 0; i < n; ++i) perm[i] = static_cast<I>(i);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = pivots[i] - 1;
    if (j != i && j >= 0 && j < n) {
      const I t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
  }
}

// det = (-1)^swaps * prod(U's diagonal) of one column-major n x n LU
// factorization; or, with log_abs, det = its sign and *log_abs = log|det|.
template <typename T>
LIBOPS_HOST_DEVICE void lu_determinant(int64_t n, const T* lu, const int32_t* pivots, T* det, T* log_abs) {
  bool negative = false;
  for (int64_t i = 0; i < n; ++i) negative ^= (pivots[i] - 1 != i);
  if (log_abs == nullptr) {
    double product = negative ? -1.0 : 1.0;
    for (int64_t i = 0; i < n; ++i) product *= static_cast<double>(lu[i * n + i]);
    *det = static_cast<T>(product);
    return;
  }
  double sum = 0, sign = negative ? -1.0 : 1.0;
  for (int64_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(lu[i * n + i]);
    if (u < 0) sign = -sign;
    sum += std::log(std::fabs(u));  // log(0) = -inf, log(NaN) = NaN
  }
  if (sum == -INFINITY) sign = 0;  // numpy: a singular matrix has sign 0, log|det| -inf
  if (sum != sum) sign = sum;      // NaN factors: NaN sign too
  *det = static_cast<T>(sign);
  *log_abs = static_cast<T>(sum);
}

// Scales row i of t (k x cols, row-major) by f(s[i]) (decompositions.h:
// pinv_scale_rows_on). s is descending, so s[0] is the largest.
template <typename T>
LIBOPS_HOST_DEVICE T pinv_factor(T s, T s_max, double rcond, double l2) {
  if (l2 > 0) return static_cast<T>(static_cast<double>(s) / (static_cast<double>(s) * s + l2));
  return static_cast<double>(s) > rcond * static_cast<double>(s_max) ? T(1) / s : T(0);
}

// LAPACK's geev returns real eigenvectors packed: for a real eigenvalue
// (wi[j] == 0) column j is the vector; for a conjugate pair (wi[j] > 0,
// then wi[j + 1] < 0) columns j and j + 1 hold the real and imaginary parts
// of the first vector, and the second is its conjugate. Element (i, j) of
// the column-major interleaved complex v, from wi and the packed vr; each
// element on its own, so a GPU thread can take one.
template <typename T>
LIBOPS_HOST_DEVICE void unpack_eigenvector_element(int64_t n, const T* wi, const T* vr, int64_t i, int64_t j, T* v) {
  T re = vr[j * n + i], im = T(0);
  if (wi[j] > T(0) && j + 1 < n) {
    im = vr[(j + 1) * n + i];
  } else if (wi[j] < T(0) && j > 0) {
    re = vr[(j - 1) * n + i];
    im = -vr[j * n + i];
  }
  v[2 * (j * n + i)] = re;
  v[2 * (j * n + i) + 1] = im;
}

}  // namespace libops::blas::kernels
