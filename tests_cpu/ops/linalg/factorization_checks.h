// Checks of qr, svd, eigh and eig results against numpy's (the
// "factorizations" manifest of tools/gen_goldens_linalg_ops.py). These
// factors are unique only up to the sign of each column (and eig's
// eigenvalues up to order), so each check first puts both sides in one
// sign convention, then compares values, and also checks what holds
// whatever the convention: orthonormal columns and the product giving a
// back. Shared by tests_cpu and tests_cuda.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "golden_manifest.h"

namespace libops::test {

// One matrix of a stack as doubles, row-major.
struct Mat {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  double& at(int64_t i, int64_t j) { return v[static_cast<size_t>(i * cols + j)]; }
  double at(int64_t i, int64_t j) const { return v[static_cast<size_t>(i * cols + j)]; }
};

// Matrix b of the stack a[..., rows, cols] (trailing: extra dims after the
// matrix ones, folded into cols).
inline Mat matrix_of(const NDArray& a, int64_t b, int trailing = 0) {
  Mat m;
  m.rows = a.dim(a.rank() - 2 - trailing);
  m.cols = a.dim(a.rank() - 1 - trailing);
  for (int t = 0; t < trailing; ++t) m.cols *= a.dim(a.rank() - 1 - t);
  const int64_t size = m.rows * m.cols;
  for (int64_t i = 0; i < size; ++i) m.v.push_back(a.get_double(b * size + i));
  return m;
}

inline int64_t stack_count(const NDArray& a, int trailing = 0) {
  int64_t n = 1;
  for (int d = 0; d + 2 + trailing < a.rank(); ++d) n *= a.dim(d);
  return n;
}

// Multiplies column j by -1 where the column's largest-magnitude entry
// (the first, on ties) is negative, for j < cols; `also` gets the same flips.
inline void fix_column_signs(Mat& m, int64_t cols, Mat* also = nullptr) {
  for (int64_t j = 0; j < cols; ++j) {
    int64_t best = 0;
    for (int64_t i = 1; i < m.rows; ++i)
      if (std::fabs(m.at(i, j)) > std::fabs(m.at(best, j)) + 1e-9) best = i;
    if (m.rows == 0 || m.at(best, j) >= 0) continue;
    for (int64_t i = 0; i < m.rows; ++i) m.at(i, j) = -m.at(i, j);
    if (also)
      for (int64_t i = 0; i < also->rows; ++i) also->at(i, j) = -also->at(i, j);
  }
}

inline void expect_near_columns(const Mat& got, const Mat& want, int64_t cols, double tol, const char* what) {
  ASSERT_EQ(got.rows, want.rows) << what;
  for (int64_t i = 0; i < got.rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      ASSERT_NEAR(got.at(i, j), want.at(i, j), tol) << what << " at (" << i << ", " << j << ")";
}

// Columns 0 .. cols-1 of m are orthonormal.
inline void expect_orthonormal_columns(const Mat& m, int64_t cols, double tol, const char* what) {
  for (int64_t p = 0; p < cols; ++p)
    for (int64_t q = 0; q < cols; ++q) {
      double dot = 0;
      for (int64_t i = 0; i < m.rows; ++i) dot += m.at(i, p) * m.at(i, q);
      ASSERT_NEAR(dot, p == q ? 1.0 : 0.0, tol) << what << " columns " << p << ", " << q;
    }
}

// x y = a, with x's first `inner` columns and y's first `inner` rows (and
// y scaled row by row by `scale` when given).
inline void expect_product(const Mat& x, const Mat& y, int64_t inner, const Mat& a, double tol, const char* what,
                           const std::vector<double>* scale = nullptr, bool y_transposed = false) {
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) {
      double s = 0;
      for (int64_t k = 0; k < inner; ++k)
        s += x.at(i, k) * (scale ? (*scale)[static_cast<size_t>(k)] : 1.0) * (y_transposed ? y.at(j, k) : y.at(k, j));
      ASSERT_NEAR(s, a.at(i, j), tol) << what << " at (" << i << ", " << j << ")";
    }
}

// The tolerance of a case: its relative tolerance, for values of order 1.
inline double case_tolerance(const ManifestCase& c) { return 20 * std::max(c.rtol, 1e-12) + c.atol; }

inline void check_qr(const ManifestCase& c, const NDArray& a, const NDArray& q, const NDArray& r) {
  const NDArray qe = c.load_output(0), re = c.load_output(1);
  ASSERT_EQ(q.shape(), qe.shape());
  ASSERT_EQ(r.shape(), re.shape());
  const double tol = case_tolerance(c);
  for (int64_t b = 0; b < stack_count(a); ++b) {
    Mat A = matrix_of(a, b), Q = matrix_of(q, b), R = matrix_of(r, b), Qe = matrix_of(qe, b), Re = matrix_of(re, b);
    const int64_t k = std::min(A.rows, A.cols);
    // Q R = a and Q's columns orthonormal, in any convention.
    expect_orthonormal_columns(Q, Q.cols, tol, "Q^T Q");
    expect_product(Q, R, Q.cols, A, tol, "Q R");
    for (int64_t i = 0; i < R.rows; ++i)
      for (int64_t j = 0; j < std::min(i, R.cols); ++j) ASSERT_EQ(R.at(i, j), 0.0) << "R below the diagonal";
    // numpy's values once R's diagonal is made non-negative (the first k
    // columns of Q; a complete Q's others are any orthonormal completion).
    for (Mat* m : {&R, &Re}) {
      Mat& qm = m == &R ? Q : Qe;
      for (int64_t j = 0; j < k; ++j)
        if (m->at(j, j) < 0) {
          for (int64_t x = 0; x < m->cols; ++x) m->at(j, x) = -m->at(j, x);
          for (int64_t x = 0; x < qm.rows; ++x) qm.at(x, j) = -qm.at(x, j);
        }
    }
    expect_near_columns(Q, Qe, k, tol, "Q");
    Mat Rk = R, Rek = Re;
    Rk.rows = Rek.rows = std::min<int64_t>(k, R.rows);
    expect_near_columns(Rk, Rek, R.cols, tol, "R");
  }
}

inline void check_svd(const ManifestCase& c, const NDArray& a, Context& ctx) {
  const double tol = case_tolerance(c);
  const NDArray se = c.load_output(0);
  ASSERT_TRUE(same_array(*ctx.output(0), se, c.rtol, c.atol)) << "s";
  if (c.n_out == 1) return;
  const NDArray ue = c.load_output(1), ve = c.load_output(2);
  ASSERT_EQ(ctx.output(1)->shape(), ue.shape());
  ASSERT_EQ(ctx.output(2)->shape(), ve.shape());
  for (int64_t b = 0; b < stack_count(a); ++b) {
    Mat A = matrix_of(a, b), U = matrix_of(*ctx.output(1), b), V = matrix_of(*ctx.output(2), b);
    Mat Ue = matrix_of(ue, b), Ve = matrix_of(ve, b);
    const int64_t k = std::min(A.rows, A.cols);
    std::vector<double> s;
    for (int64_t i = 0; i < k; ++i) s.push_back(ctx.output(0)->get_double(b * k + i));
    expect_orthonormal_columns(U, U.cols, tol, "U^T U");
    expect_orthonormal_columns(V, V.cols, tol, "V^T V");
    expect_product(U, V, k, A, tol, "U diag(s) V^T", &s, /*y_transposed=*/true);
    fix_column_signs(U, k, &V);
    fix_column_signs(Ue, k, &Ve);
    expect_near_columns(U, Ue, k, tol, "U");
    expect_near_columns(V, Ve, k, tol, "V");
  }
}

inline void check_eigh(const ManifestCase& c, const NDArray& a, Context& ctx) {
  const double tol = case_tolerance(c);
  ASSERT_TRUE(same_array(*ctx.output(0), c.load_output(0), c.rtol, c.atol)) << "w";
  if (c.n_out == 1) return;
  const NDArray ve = c.load_output(1);
  ASSERT_EQ(ctx.output(1)->shape(), ve.shape());
  for (int64_t b = 0; b < stack_count(a); ++b) {
    Mat V = matrix_of(*ctx.output(1), b), Ve = matrix_of(ve, b);
    expect_orthonormal_columns(V, V.cols, tol, "V^T V");
    fix_column_signs(V, V.cols);
    fix_column_signs(Ve, Ve.cols);
    expect_near_columns(V, Ve, V.cols, tol, "V");
  }
}

inline void check_eig(const ManifestCase& c, const NDArray& a, Context& ctx) {
  using C = std::complex<double>;
  const double tol = case_tolerance(c);
  const NDArray we = c.load_output(0);
  ASSERT_EQ(ctx.output(0)->shape(), we.shape());
  for (int64_t b = 0; b < stack_count(a); ++b) {
    const Mat A = matrix_of(a, b);
    const int64_t n = A.rows;
    std::vector<C> w, w_ref;
    for (int64_t j = 0; j < n; ++j) {
      w.emplace_back(ctx.output(0)->get_double((b * n + j) * 2), ctx.output(0)->get_double((b * n + j) * 2 + 1));
      w_ref.emplace_back(we.get_double((b * n + j) * 2), we.get_double((b * n + j) * 2 + 1));
    }
    // The same eigenvalues, in whatever order.
    auto by_parts = [](C x, C y) { return x.real() != y.real() ? x.real() < y.real() : x.imag() < y.imag(); };
    std::vector<C> sorted = w, sorted_ref = w_ref;
    std::sort(sorted.begin(), sorted.end(), by_parts);
    std::sort(sorted_ref.begin(), sorted_ref.end(), by_parts);
    for (int64_t j = 0; j < n; ++j) ASSERT_LT(std::abs(sorted[j] - sorted_ref[j]), tol) << "eigenvalue " << j;
    if (c.n_out == 1) continue;
    // A v = w v for each column, |v| = 1.
    const NDArray& v = *ctx.output(1);
    for (int64_t j = 0; j < n; ++j) {
      std::vector<C> col;
      double norm = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t at = ((b * n + i) * n + j) * 2;
        col.emplace_back(v.get_double(at), v.get_double(at + 1));
        norm += std::norm(col.back());
      }
      ASSERT_NEAR(norm, 1.0, tol) << "|v_" << j << "|^2";
      for (int64_t i = 0; i < n; ++i) {
        C av = 0;
        for (int64_t x = 0; x < n; ++x) av += A.at(i, x) * col[static_cast<size_t>(x)];
        ASSERT_LT(std::abs(av - w[static_cast<size_t>(j)] * col[static_cast<size_t>(i)]), tol)
            << "(A v - w v) of column " << j << " at row " << i;
      }
    }
  }
}

// Runs the checks that fit case c's op on its outputs (host copies).
inline void check_factorization(const ManifestCase& c, const NDArray& a, Context& ctx) {
  ASSERT_EQ(ctx.num_outputs(), c.n_out);
  if (c.op == "qr") check_qr(c, a, *ctx.output(0), *ctx.output(1));
  else if (c.op == "svd") check_svd(c, a, ctx);
  else if (c.op == "eigh") check_eigh(c, a, ctx);
  else if (c.op == "eig") check_eig(c, a, ctx);
  else FAIL() << "no check for op " << c.op;
}

}  // namespace libops::test
