// matrix_power: a^n for each square matrix (numpy.linalg.matrix_power).
//
//   input   a: float32 or float64, [..., n, n] (rank >= 2), any strides
//   i arg   n: the power; 0 gives identities, negative powers invert first
//           (a singular matrix is then an error naming it)
//   output  a's dtype and shape
//
// Binary exponentiation: about 2 log2|n| batched GEMMs on the call's
// device (blas::gemm_batched_on), each into a fresh array since GEMM's
// output must not overlap its inputs.
#include <cstdlib>

#include "blas/gemm.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/lu_factors.h"
#include "libops/ops/linalg/matrix_staging.h"

namespace libops::ops {
namespace {

// c = x y for every matrix of the dense stacks x and y.
Status matrix_product(const Context& block, NDArray& x, NDArray& y, NDArray& c) {
  const int64_t n = x.dim(x.rank() - 1);
  RETURN_IF_ERROR(linalg_scratch(block, x.dtype(), x.shape(), c));
  RETURN_IF_ERROR(sync_for_kernels(block, {&x, &y, &c}));
  RETURN_IF_ERROR(with_op_name(
      block, blas::gemm_batched_on(block.device(), x.dtype(), false, false, n, n, n, 1.0, kernel_pointer(block, x),
                                   n, n * n, kernel_pointer(block, y), n, n * n, 0.0, kernel_pointer(block, c), n,
                                   n * n, matrix_count(x))));
  mark_kernel_written(block, {&c});
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(matrix_power, 1, 1, false, 0, 1) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray* a = INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  const int64_t power = block.i_arg(0);
  const DataType dt = a->dtype();
  const int64_t n = a->dim(a->rank() - 1);
  if (z->length() == 0) return Status::ok();

  if (power == 0) {
    NDArray eye;
    RETURN_IF_ERROR(with_op_name(block, NDArray::create(dt, {n, n}, 'c', eye)));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) eye.set_double(i * n + j, i == j ? 1.0 : 0.0);
    return assign_on_device(block, *z, eye);
  }
  NDArray base;
  RETURN_IF_ERROR(linalg_scratch(block, dt, a->shape(), base));
  if (power < 0) RETURN_IF_ERROR(inverse_into(block, *a, base));
  else RETURN_IF_ERROR(assign_on_device(block, base, *a));

  // |power| in unsigned arithmetic: -INT64_MIN does not fit an int64.
  uint64_t bits = power < 0 ? 0 - static_cast<uint64_t>(power) : static_cast<uint64_t>(power);
  NDArray result;
  bool have_result = false;
  while (true) {
    if (bits & 1) {
      if (!have_result) {
        result = base;
        have_result = true;
      } else {
        NDArray next;
        RETURN_IF_ERROR(matrix_product(block, result, base, next));
        result = next;
      }
    }
    bits >>= 1;
    if (bits == 0) break;
    NDArray squared;
    RETURN_IF_ERROR(matrix_product(block, base, base, squared));
    base = squared;
  }
  return assign_on_device(block, *z, result);
}

DECLARE_SHAPE_FN(matrix_power) {
  using namespace libops;
  const NDArray* a = INPUT_VARIABLE(0);
  RETURN_IF_ERROR(ops::check_matrix_stack(block, *a, "a", true));
  shapes.push_back(TensorShape{a->dtype(), a->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(matrix_power) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(matrix_power) {
  args.describe("a^n for each square matrix by repeated squaring; negative n inverts first.");
  args.input("a", "square matrices [..., n, n]");
  args.output("z", "a^n, [..., n, n]");
  args.i_arg("n", "the power (any integer)");
}
