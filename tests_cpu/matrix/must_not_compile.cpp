// What Note [Matrix semantics] (libops/matrix/matrix.h) forbids must not
// compile. run_compile_checks.py compiles this file once per case with
// -DCASE=n, with every compiler at hand, and expects a failure whose
// message contains the case's quoted text (a static_assert's words, where
// the header has one). CASE 0 is a valid program, so that a broken harness
// or include path cannot pass as "failed to compile".
#include "libops/matrix/matrix.h"

using libops::Matrix;

int main() {
  Matrix<float, 2, 3> a23;
  Matrix<float, 3, 2> a32;
  Matrix<float, 2, 2> f22;
  Matrix<double, 2, 2> d22;
  Matrix<int, 2, 2> i22;
  (void)a23, (void)a32, (void)f22, (void)d22, (void)i22;
#if CASE == 0  // expect: compiles
  Matrix<float, 2, 2> ok = a23 * a32 + 1.f;
  ok *= f22;
  ok = static_cast<Matrix<float, 2, 2>>(i22) / 2;
  (void)ok;
#elif CASE == 1  // expect: "a's column count must equal b's row count"
  auto bad = a23 * a23;
#elif CASE == 2  // expect: "same element type"
  auto bad = f22 * d22;
#elif CASE == 3  // expect: "same rows and columns"
  auto bad = a23 + a32;
#elif CASE == 4  // expect: "same element type"
  auto bad = f22 - d22;
#elif CASE == 5  // expect: "Matrix / Matrix is not defined"
  auto bad = f22 / f22;
#elif CASE == 6  // expect: "scalar / Matrix is not defined"
  auto bad = 1.f / f22;
#elif CASE == 7  // expect: ""  (no implicit conversion between element types)
  Matrix<float, 2, 2> bad = i22;
#elif CASE == 8  // expect: "same rows and columns"
  auto bad = static_cast<Matrix<float, 3, 3>>(f22);
#elif CASE == 9  // expect: ""  (a single subscript)
  auto bad = f22[0];
#elif CASE == 10  // expect: ""  (bool is not an element type)
  Matrix<bool, 2, 2> bad;
#elif CASE == 11  // expect: "keeps the left operand's type only when the right operand is square"
  a23 *= a32;
  int bad = 0;
#elif CASE == 12  // expect: ""  (a scalar becomes a matrix only explicitly)
  Matrix<float, 2, 2> bad = 1.f;
#elif CASE == 13  // expect: "closed forms exist here for N <= 3"
  auto bad = libops::determinant(Matrix<double, 4, 4>());
#elif CASE == 14  // expect: "integer matrices have no inverse"
  auto bad = libops::inverse(i22);
#elif CASE == 15  // expect: "at least one row and one column"
  Matrix<float, 0, 2> bad;
#elif CASE == 16  // expect: "at most kMatrixMaxElements"
  Matrix<float, 64, 64> bad;
#elif CASE == 17  // expect: ""  (no unary minus: write 0 - m or m * -1)
  auto bad = -f22;
#elif CASE == 18  // expect: ""  (no comparison of matrices)
  bool bad = f22 == f22;
#endif
#if CASE != 0
  (void)bad;
#endif
  return 0;
}
