// Element-wise expressions from an installed libops (Note [Expressions] in
// libops/expr/expr.h): the tree is built by the operators, and nothing runs
// until run(), which computes each output element in one pass with no
// temporary arrays.
//
//   expressions            prints z = tanh(x * 2 + 1) * x for a [3, 4] float32 x, then the row sums
//                          of x * x over x's transpose (a strided view)
//
// tests_cpu/install/run_install_test.sh checks the values against numpy.
#include <libops/expr/expr.h>

#include <cstdio>

int main() {
  using namespace libops;
  NDArray x, z, sums;
  if (!NDArray::create(DataType::kFloat32, {3, 4}, 'c', x).is_ok() ||
      !NDArray::create(DataType::kFloat32, {3, 4}, 'c', z).is_ok() ||
      !NDArray::create(DataType::kFloat64, {4}, 'c', sums).is_ok())
    return 1;
  for (int64_t i = 0; i < x.length(); ++i) x.set_double(i, 0.25 * double(i) - 1.0);

  using namespace libops::expr;
  Status st = (out(z) = tanh(in(x) * 2.f + 1.f) * in(x)).run();
  if (st.is_ok()) st = (out(sums) = sum(in(x.transpose()) * in(x.transpose()), {1})).run();
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  for (int64_t i = 0; i < z.length(); ++i) std::printf("%.9g%c", z.get_double(i), i + 1 < z.length() ? ' ' : '\n');
  for (int64_t i = 0; i < sums.length(); ++i) std::printf("%.17g%c", sums.get_double(i), i + 1 < sums.length() ? ' ' : '\n');

  // Errors are found when the expression runs, and name it.
  NDArray wrong;
  if (!NDArray::create(DataType::kFloat32, {5}, 'c', wrong).is_ok()) return 1;
  st = (out(z) = in(x) + in(wrong)).run();
  std::printf("%s\n", st.message().c_str());
  return 0;
}
