// LU factorizations shared by the ops built on them (lu, matrix_inverse,
// the determinants, solve, matrix_power's negative powers).
//
// Note [Factoring the transpose]
// A dense C-order copy of a row-major A is A^T in column-major order
// (Note [Column-major decompositions]). Ops that need A only through a
// solve or a determinant factor that copy as it is, with no transposing
// copy: det(A^T) = det(A), A X = B is (A^T)^T X = B (getrs with its
// transpose flag), and (A^T)^-1 in column-major order is A^-1 in row-major
// order. Only lu, which returns the factors of A itself, stages A in
// column-major order first.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/ops/context.h"

namespace libops::ops {

struct LuFactors {
  NDArray lu;       // dense [..., n, n], column-major factors of the matrix given
  NDArray pivots;   // int32 [..., n], LAPACK's 1-based interchanges
  int64_t singular = -1;  // the first matrix with a zero pivot, or -1
};

// Factors each matrix of `m` (a dense array in kernel memory, [..., n, n],
// read as column-major) in place: f.lu is m itself afterwards.
Status lu_factor_in_place(const Context& block, NDArray& m, LuFactors& f);

// "<op>: matrix i of a[shape] is singular (...)" when f.singular >= 0.
Status require_nonsingular(const Context& block, const LuFactors& f, const NDArray& a);

// x = a^-1 for every matrix of a ([..., n, n], float32/float64), written
// into x (dense C-order, kernel memory, a's shape); singular matrices are an
// error naming the first one.
Status inverse_into(const Context& block, const NDArray& a, NDArray& x);

}  // namespace libops::ops
