// Matrix<T, R, C>: a small fixed-size matrix as a value, after Clang's
// matrix types (docs/cpp-authoring.md, "Small matrices").
//
//   Matrix<float, 3, 3> m;                   // zeros
//   m(0, 2) = 1.f;                           // element access: row, column
//   auto p = a * b;                          // product: Matrix<T, R, K> * Matrix<T, K, C>
//   auto s = (a + b) * 2.f - 1;              // element-wise + -, scalars broadcast
//   auto t = transpose(m);
//   auto d = static_cast<Matrix<double, 3, 3>>(m);   // element types change only by explicit cast
//   auto q = column_major_load<float, 3, 3>(ptr, stride);
//   row_major_store(q, out, row_stride);
//
// Note [Matrix semantics]
// The rules are the draft specification's, checked when the program is
// compiled (a static_assert names the rule):
// - + and - take two matrices of one type, or a matrix and a scalar; * takes
//   a matrix and a scalar, or two matrices whose inner extents agree and
//   whose element types are the same; / takes a matrix and a scalar. No
//   other combination compiles: no matrix / matrix, no scalar / matrix, no
//   element-wise matrix product, no mixing of element types.
// - A scalar is first converted to the element type (an int matrix times
//   2.7 multiplies by 2), then broadcast.
// - A matrix converts to another element type only by an explicit cast
//   (static_cast, or matrix_cast<U>(m)), and never to other extents; a
//   scalar converts to a matrix (every element) only explicitly too.
// - m(i, j) takes a row and a column; a single subscript does not compile.
// - Integer elements wrap as the element type does on store (int8 100 + 100
//   is -56); signed overflow inside an int or wider element is undefined,
//   as for the scalar type.
// - Floating-point products may be contracted (fused multiply-adds, one
//   rounding per sum) as the spec allows. float16 and bfloat16 elements are
//   computed in float and rounded once per result element: a product's
//   sum is accumulated in float, as libops' GEMM does for these dtypes.
// Elements are stored column-major without padding (Clang's layout), so
// sizeof(Matrix<T, R, C>) == R * C * sizeof(T) and data() may be handed to
// column-major code. Unlike Clang's type, a default-constructed Matrix is
// zero, and m(i, j) is a real reference (its address may be taken).
//
// Note [Two implementations]
// Compiled by Clang with -fenable-matrix, the arithmetic runs on the
// matrix_type extension: each operation loads the operands into the
// extension's type, and LLVM's matrix lowering emits the vector code.
// Elsewhere (GCC, nvcc, Clang without the flag) it is plain loops over
// fixed extents, which the compiler unrolls and vectorizes. float16 and
// bfloat16 are libops' storage types, which the extension does not take:
// they always use the plain loops. LIBOPS_MATRIX_EXTENSION says which is in
// use. The tests (tests_cpu/matrix/matrix_test.cpp) are the same for both:
// tests_cpu runs the plain one, and ctest's matrix_compile_checks builds
// the file again with clang++ -fenable-matrix and runs it. libops itself is
// built without the flag in every configuration: one program must not mix
// the two (an inline function compiled both ways would break the one
// definition rule), and the flag would be one more way for the Clang builds
// to differ from the GCC one.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "libops/core/half.h"
#include "libops/core/host_device.h"

#if defined(__clang__) && !defined(__CUDACC__)
#if __has_extension(matrix_types)
#define LIBOPS_MATRIX_EXTENSION 1
#endif
#endif
#ifndef LIBOPS_MATRIX_EXTENSION
#define LIBOPS_MATRIX_EXTENSION 0
#endif

// Every loop over a matrix's fixed extents is unrolled completely: GCC's
// own limit stops short of an 8 x 8 product, whose rolled loops then run 5x
// slower (elements stored one by one and read back as vectors).
// (nvcc's device pass takes "unroll"; its host pass runs the host compiler.)
#if defined(__CUDA_ARCH__) || defined(__clang__)
#define LIBOPS_MATRIX_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define LIBOPS_MATRIX_UNROLL _Pragma("GCC unroll 64")
#else
#define LIBOPS_MATRIX_UNROLL
#endif

namespace libops {

// Element types: the spec's integers (not bool), float and double, and
// libops' float16 and bfloat16 in place of the spec's half type.
template <typename T>
concept MatrixElement = (std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_same_v<T, float> ||
                        std::is_same_v<T, double> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// What may stand beside a matrix in + - * /: a real number, converted to the
// element type first.
template <typename S>
concept MatrixScalar = (std::is_arithmetic_v<S> && !std::is_same_v<S, bool>) || std::is_same_v<S, float16> ||
                       std::is_same_v<S, bfloat16>;

// Clang's implementation limit is 2^20 - 1 elements; these are values held in
// registers and on the stack, so libops stops far below.
inline constexpr int kMatrixMaxElements = 1024;

template <MatrixElement T, int R, int C>
class Matrix;

namespace matrix_detail {

// The type arithmetic runs in: float for the 16-bit storage types.
template <typename T>
struct ComputeType {
  using type = T;
};
template <>
struct ComputeType<float16> {
  using type = float;
};
template <>
struct ComputeType<bfloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeType<T>::type;

template <typename T>
inline constexpr bool kIsMatrix = false;
template <typename T, int R, int C>
inline constexpr bool kIsMatrix<Matrix<T, R, C>> = true;

template <typename T>
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE compute_t<T> widen(T v) {
  return static_cast<compute_t<T>>(v);
}

// A scalar in the element type (the spec's conversion), then widened.
template <typename T, MatrixScalar S>
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE compute_t<T> scalar_as(S s) {
  if constexpr (std::is_same_v<S, float16> || std::is_same_v<S, bfloat16>)
    return widen(static_cast<T>(static_cast<float>(s)));
  else
    return widen(static_cast<T>(s));
}

#if LIBOPS_MATRIX_EXTENSION
template <typename T>
inline constexpr bool kUsesExtension = !std::is_same_v<T, float16> && !std::is_same_v<T, bfloat16>;
// The extension's type for element types it takes; a placeholder for the
// others, whose members using it are never called (the class's member
// declarations must still name a valid type).
struct NoBuiltin {};
template <typename T, int R, int C, bool = kUsesExtension<T>>
struct Builtin {
  using type = NoBuiltin;
};
template <typename T, int R, int C>
struct Builtin<T, R, C, true> {
  using type = T __attribute__((matrix_type(R, C)));
};
template <typename T, int R, int C>
using builtin_t = typename Builtin<T, R, C>::type;
#else
template <typename T>
inline constexpr bool kUsesExtension = false;
#endif

}  // namespace matrix_detail

template <MatrixElement T, int R, int C>
class Matrix {
  static_assert(R >= 1 && C >= 1, "Matrix<T, R, C>: a matrix has at least one row and one column");
  static_assert(R * C <= kMatrixMaxElements,
                "Matrix<T, R, C>: at most kMatrixMaxElements (1024) elements; a matrix is a value kept in registers");

 public:
  using element_type = T;
  static constexpr int rows = R;
  static constexpr int columns = C;

  Matrix() = default;

  // Every element set to `value` (converted to T): explicit, as the spec's
  // scalar-to-matrix conversion.
  template <MatrixScalar S>
  LIBOPS_HOST_DEVICE explicit Matrix(S value) {
    const T v = element_from(value);
    LIBOPS_MATRIX_UNROLL
    for (int k = 0; k < R * C; ++k) data_[k] = v;
  }

  // Another element type, by explicit cast only; the extents must be equal.
  template <typename U, int R2, int C2>
  LIBOPS_HOST_DEVICE explicit Matrix(const Matrix<U, R2, C2>& other) {
    static_assert(R2 == R && C2 == C,
                  "Matrix conversion: a matrix converts only to a matrix of the same rows and columns");
#if LIBOPS_MATRIX_EXTENSION
    if constexpr (matrix_detail::kUsesExtension<T> && matrix_detail::kUsesExtension<U>) {
      using To = matrix_detail::builtin_t<T, R, C>;
      store((To)other.builtin());
      return;
    }
#endif
    LIBOPS_MATRIX_UNROLL
    for (int k = 0; k < R * C; ++k) data_[k] = element_from(other.data()[k]);
  }

  // From values listed row by row: Matrix<float, 2, 2>::from_rows({{1, 2}, {3, 4}}).
  LIBOPS_HOST_DEVICE static Matrix from_rows(const T (&values)[R][C]) {
    Matrix m;
    LIBOPS_MATRIX_UNROLL
    for (int i = 0; i < R; ++i)
      LIBOPS_MATRIX_UNROLL
      for (int j = 0; j < C; ++j) m(i, j) = values[i][j];
    return m;
  }

  // Element access: row i, column j (0 <= i < R, 0 <= j < C).
  LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE T& operator()(int i, int j) { return data_[j * R + i]; }
  LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE const T& operator()(int i, int j) const { return data_[j * R + i]; }

  // The elements, column by column (column j starts at data() + j * R).
  LIBOPS_HOST_DEVICE T* data() { return data_; }
  LIBOPS_HOST_DEVICE const T* data() const { return data_; }

  // ---- element-wise + and -, and scaling ----
  template <typename U, int R2, int C2>
  LIBOPS_HOST_DEVICE friend Matrix operator+(const Matrix& a, const Matrix<U, R2, C2>& b) {
    check_same_type<U, R2, C2>();
    return a.zip(b, [](auto x, auto y) { return x + y; });
  }
  template <typename U, int R2, int C2>
  LIBOPS_HOST_DEVICE friend Matrix operator-(const Matrix& a, const Matrix<U, R2, C2>& b) {
    check_same_type<U, R2, C2>();
    return a.zip(b, [](auto x, auto y) { return x - y; });
  }
  template <MatrixScalar S>
  LIBOPS_HOST_DEVICE friend Matrix operator+(const Matrix& a, S s) {
    return a.with_scalar(s, [](auto x, auto y) { return x + y; });
  }
  template <MatrixScalar S>
  LIBOPS_HOST_DEVICE friend Matrix operator+(S s, const Matrix& a) {
    return a.with_scalar(s, [](auto x, auto y) { return y + x; });
  }
  template <MatrixScalar S>
  LIBOPS_HOST_DEVICE friend Matrix operator-(const Matrix& a, S s) {
    return a.with_scalar(s, [](auto x, auto y) { return x - y; });
  }
  template <MatrixScalar S>
  LIBOPS_HOST_DEVICE friend Matrix operator-(S s, const Matrix& a) {
    return a.with_scalar(s, [](auto x, auto y) { return y - x; });
  }
  template <MatrixScalar S>
  LIBOPS_HOST_DEVICE friend Matrix operator*(const Matrix& a, S s) {
    return a.with_scalar(s, [](auto x, auto y) { return x * y; });
  }
  template <MatrixScalar S>
  LIBOPS_HOST_DEVICE friend Matrix operator*(S s, const Matrix& a) {
    return a.with_scalar(s, [](auto x, auto y) { return y * x; });
  }
  template <MatrixScalar S>
  LIBOPS_HOST_DEVICE friend Matrix operator/(const Matrix& a, S s) {
    return a.with_scalar(s, [](auto x, auto y) { return x / y; });
  }

  // ---- compound assignment: the expanded forms ----
  template <typename Rhs>
  LIBOPS_HOST_DEVICE Matrix& operator+=(const Rhs& rhs) {
    return *this = *this + rhs;
  }
  template <typename Rhs>
  LIBOPS_HOST_DEVICE Matrix& operator-=(const Rhs& rhs) {
    return *this = *this - rhs;
  }
  // m *= s scales; m *= b is m = m * b, which keeps m's type only for a
  // square b of m's columns.
  template <typename Rhs>
  LIBOPS_HOST_DEVICE Matrix& operator*=(const Rhs& rhs) {
    if constexpr (matrix_detail::kIsMatrix<Rhs>)
      static_assert(Rhs::rows == C && Rhs::columns == C,
                    "Matrix *= Matrix: the product keeps the left operand's type only when the right operand is "
                    "square with as many rows as the left has columns");
    return *this = *this * rhs;
  }
  template <MatrixScalar S>
  LIBOPS_HOST_DEVICE Matrix& operator/=(S s) {
    return *this = *this / s;
  }

#if LIBOPS_MATRIX_EXTENSION
  // The value in the extension's type, and back (Note [Two implementations]).
  LIBOPS_FORCE_INLINE matrix_detail::builtin_t<T, R, C> builtin() const
    requires matrix_detail::kUsesExtension<T>
  {
    return __builtin_matrix_column_major_load(data_, R, C, R);
  }
  LIBOPS_FORCE_INLINE void store(matrix_detail::builtin_t<T, R, C> v)
    requires matrix_detail::kUsesExtension<T>
  {
    __builtin_matrix_column_major_store(v, data_, R);
  }
  LIBOPS_FORCE_INLINE static Matrix from_builtin(matrix_detail::builtin_t<T, R, C> v)
    requires matrix_detail::kUsesExtension<T>
  {
    Matrix m;
    m.store(v);
    return m;
  }
#endif

 private:
  template <typename U, int R2, int C2>
  LIBOPS_HOST_DEVICE static constexpr void check_same_type() {
    static_assert(R2 == R && C2 == C,
                  "Matrix + and -: both operands must have the same rows and columns (a scalar broadcasts)");
    static_assert(std::is_same_v<U, T>,
                  "Matrix + and -: both operands must have the same element type; convert one with "
                  "static_cast<Matrix<...>> first");
  }

  template <typename V>
  LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE static T element_from(V v) {
    if constexpr (std::is_same_v<V, float16> || std::is_same_v<V, bfloat16>)
      return static_cast<T>(static_cast<float>(v));
    else
      return static_cast<T>(v);
  }

  // Element-wise f(a, b) in the compute type, each result converted to T.
  template <typename F>
  LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE Matrix zip(const Matrix& b, F f) const {
#if LIBOPS_MATRIX_EXTENSION
    if constexpr (matrix_detail::kUsesExtension<T>) return from_builtin(f(builtin(), b.builtin()));
#endif
    Matrix r;
    LIBOPS_MATRIX_UNROLL
    for (int k = 0; k < R * C; ++k)
      r.data_[k] = static_cast<T>(f(matrix_detail::widen(data_[k]), matrix_detail::widen(b.data_[k])));
    return r;
  }

  template <typename S, typename F>
  LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE Matrix with_scalar(S s, F f) const {
#if LIBOPS_MATRIX_EXTENSION
    if constexpr (matrix_detail::kUsesExtension<T>) return from_builtin(f(builtin(), static_cast<T>(s)));
#endif
    const matrix_detail::compute_t<T> v = matrix_detail::scalar_as<T>(s);
    Matrix r;
    LIBOPS_MATRIX_UNROLL
    for (int k = 0; k < R * C; ++k) r.data_[k] = static_cast<T>(f(matrix_detail::widen(data_[k]), v));
    return r;
  }

  T data_[R * C]{};
};

// ---- the matrix product ----
// Clang's rule: the inner extents agree and the element types are the same.
template <typename T, typename U, int R, int K1, int K2, int C>
LIBOPS_HOST_DEVICE Matrix<T, R, C> operator*(const Matrix<T, R, K1>& a, const Matrix<U, K2, C>& b) {
  static_assert(K1 == K2,
                "Matrix product a * b: a's column count must equal b's row count (Matrix<T, R, K> * Matrix<T, K, C>)");
  static_assert(std::is_same_v<T, U>,
                "Matrix product a * b: both operands must have the same element type; convert one with "
                "static_cast<Matrix<...>> first");
#if LIBOPS_MATRIX_EXTENSION
  if constexpr (matrix_detail::kUsesExtension<T>) return Matrix<T, R, C>::from_builtin(a.builtin() * b.builtin());
#endif
  // Column j of the result is the sum over k of a's column k times b(k, j):
  // each element still sums its products in k order (the spec's loop), and
  // the inner loop runs down a contiguous column, which vectorizes.
  using Acc = matrix_detail::compute_t<T>;
  Matrix<T, R, C> r;
  LIBOPS_MATRIX_UNROLL
  for (int j = 0; j < C; ++j) {
    Acc acc[R];
    LIBOPS_MATRIX_UNROLL
    for (int i = 0; i < R; ++i) acc[i] = Acc(0);
    LIBOPS_MATRIX_UNROLL
    for (int k = 0; k < K1; ++k) {
      const Acc bkj = matrix_detail::widen(b(k, j));
      LIBOPS_MATRIX_UNROLL
      for (int i = 0; i < R; ++i) {
        if constexpr (std::is_integral_v<T>)
          acc[i] = static_cast<T>(acc[i] + a(i, k) * bkj);  // wraps in T, as Clang's
        else
          acc[i] += matrix_detail::widen(a(i, k)) * bkj;
      }
    }
    LIBOPS_MATRIX_UNROLL
    for (int i = 0; i < R; ++i) r(i, j) = static_cast<T>(acc[i]);
  }
  return r;
}

// Spelled out so that a mistaken call names the rule instead of listing
// every candidate operator.
template <typename T, int R, int C, typename U, int R2, int C2>
void operator/(const Matrix<T, R, C>&, const Matrix<U, R2, C2>&) {
  static_assert(R < 0, "Matrix / Matrix is not defined: only a matrix divided by a scalar is");
}
template <MatrixScalar S, typename T, int R, int C>
void operator/(S, const Matrix<T, R, C>&) {
  static_assert(R < 0, "scalar / Matrix is not defined: only a matrix divided by a scalar is");
}

template <typename T, int R, int C>
LIBOPS_HOST_DEVICE Matrix<T, C, R> transpose(const Matrix<T, R, C>& m) {
#if LIBOPS_MATRIX_EXTENSION
  if constexpr (matrix_detail::kUsesExtension<T>)
    return Matrix<T, C, R>::from_builtin(__builtin_matrix_transpose(m.builtin()));
#endif
  Matrix<T, C, R> t;
  LIBOPS_MATRIX_UNROLL
  for (int i = 0; i < R; ++i)
    LIBOPS_MATRIX_UNROLL
    for (int j = 0; j < C; ++j) t(j, i) = m(i, j);
  return t;
}

// m with its elements converted to U: static_cast<Matrix<U, R, C>>(m).
template <MatrixElement U, typename T, int R, int C>
LIBOPS_HOST_DEVICE Matrix<U, R, C> matrix_cast(const Matrix<T, R, C>& m) {
  return static_cast<Matrix<U, R, C>>(m);
}

// ---- loads and stores with a stride (__builtin_matrix_column_major_load /
// _store): column j of the matrix at p + j * column_stride, column_stride >=
// R. The row-major forms are their transposes: row i at p + i * row_stride,
// row_stride >= C, which is how libops' arrays hold matrices. ----
template <MatrixElement T, int R, int C>
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE Matrix<T, R, C> column_major_load(const T* p, ptrdiff_t column_stride = R) {
  assert(column_stride >= R && "column_major_load: the column stride must be at least the row count");
#if LIBOPS_MATRIX_EXTENSION
  if constexpr (matrix_detail::kUsesExtension<T>)
    return Matrix<T, R, C>::from_builtin(
        __builtin_matrix_column_major_load(p, R, C, static_cast<size_t>(column_stride)));
#endif
  Matrix<T, R, C> m;
  LIBOPS_MATRIX_UNROLL
  for (int j = 0; j < C; ++j)
    LIBOPS_MATRIX_UNROLL
    for (int i = 0; i < R; ++i) m(i, j) = p[j * column_stride + i];
  return m;
}

template <typename T, int R, int C>
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE void column_major_store(const Matrix<T, R, C>& m, T* p,
                                                                ptrdiff_t column_stride = R) {
  assert(column_stride >= R && "column_major_store: the column stride must be at least the row count");
#if LIBOPS_MATRIX_EXTENSION
  if constexpr (matrix_detail::kUsesExtension<T>) {
    __builtin_matrix_column_major_store(m.builtin(), p, static_cast<size_t>(column_stride));
    return;
  }
#endif
  LIBOPS_MATRIX_UNROLL
  for (int j = 0; j < C; ++j)
    LIBOPS_MATRIX_UNROLL
    for (int i = 0; i < R; ++i) p[j * column_stride + i] = m(i, j);
}

template <MatrixElement T, int R, int C>
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE Matrix<T, R, C> row_major_load(const T* p, ptrdiff_t row_stride = C) {
  return transpose(column_major_load<T, C, R>(p, row_stride));
}

template <typename T, int R, int C>
LIBOPS_HOST_DEVICE LIBOPS_FORCE_INLINE void row_major_store(const Matrix<T, R, C>& m, T* p,
                                                             ptrdiff_t row_stride = C) {
  column_major_store(transpose(m), p, row_stride);
}

// ---- small square matrices: closed forms (n <= 3) ----
// The determinant by cofactor expansion, computed in the compute type
// (double stays double); for n > 3 use an LU factorization.
template <typename T, int N>
LIBOPS_HOST_DEVICE matrix_detail::compute_t<T> determinant(const Matrix<T, N, N>& m) {
  static_assert(N <= 3, "determinant(Matrix<T, N, N>): closed forms exist here for N <= 3; use an LU factorization");
  auto e = [&](int i, int j) { return matrix_detail::widen(m(i, j)); };
  if constexpr (N == 1) {
    return e(0, 0);
  } else if constexpr (N == 2) {
    return e(0, 0) * e(1, 1) - e(0, 1) * e(1, 0);
  } else {
    return e(0, 0) * (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1)) - e(0, 1) * (e(1, 0) * e(2, 2) - e(1, 2) * e(2, 0)) +
           e(0, 2) * (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0));
  }
}

// The inverse as the adjugate over the determinant (floating-point elements,
// n <= 3). A singular matrix gives Inf or NaN elements, as 1 / 0 does; the
// caller decides what that means.
template <typename T, int N>
LIBOPS_HOST_DEVICE Matrix<T, N, N> inverse(const Matrix<T, N, N>& m) {
  static_assert(!std::is_integral_v<T>, "inverse(Matrix): integer matrices have no inverse in their own type");
  static_assert(N <= 3, "inverse(Matrix<T, N, N>): closed forms exist here for N <= 3; use an LU factorization");
  using A = matrix_detail::compute_t<T>;
  auto e = [&](int i, int j) { return matrix_detail::widen(m(i, j)); };
  const A inv_det = A(1) / determinant(m);
  Matrix<T, N, N> r;
  if constexpr (N == 1) {
    r(0, 0) = static_cast<T>(inv_det);
  } else if constexpr (N == 2) {
    r(0, 0) = static_cast<T>(e(1, 1) * inv_det);
    r(0, 1) = static_cast<T>(-e(0, 1) * inv_det);
    r(1, 0) = static_cast<T>(-e(1, 0) * inv_det);
    r(1, 1) = static_cast<T>(e(0, 0) * inv_det);
  } else {
    // r(i, j) = cofactor(j, i) / det: the cyclic form needs no signs.
    LIBOPS_MATRIX_UNROLL
    for (int i = 0; i < 3; ++i)
      LIBOPS_MATRIX_UNROLL
      for (int j = 0; j < 3; ++j) {
        const int j1 = (j + 1) % 3, j2 = (j + 2) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        r(i, j) = static_cast<T>((e(j1, i1) * e(j2, i2) - e(j1, i2) * e(j2, i1)) * inv_det);
      }
  }
  return r;
}

}  // namespace libops
