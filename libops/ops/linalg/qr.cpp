// qr: A = Q R for each matrix of a stack (numpy.linalg.qr, libnd4j's qr).
//
//   input   a: float32 or float64, [..., m, n] (rank >= 2), any strides
//   b arg   full_matrices (default false): Q [..., m, m] and R [..., m, n];
//           else the reduced Q [..., m, k] and R [..., k, n], k = min(m, n)
//   outputs q (orthonormal columns), r (upper triangular), a's dtype
//
// Householder QR (LAPACK's geqrf and orgqr on the CPU, cuSOLVER's on CUDA):
// R's diagonal may be negative, and the signs match numpy's, which calls the
// same routines. NaN in a gives NaN in Q and R, not an error. a is staged
// column-major on the call's device (matrix_staging.h).
#include <algorithm>

#include "blas/decompositions.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/matrix_staging.h"

CUSTOM_OP_IMPL(qr, 1, 2, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray* a = INPUT_VARIABLE(0);
  NDArray* q = OUTPUT_VARIABLE(0);
  NDArray* r = OUTPUT_VARIABLE(1);
  const bool complete = block.b_arg(0);
  const DataType dt = a->dtype();
  const int64_t m = a->dim(a->rank() - 2), n = a->dim(a->rank() - 1), k = std::min(m, n);
  const int64_t q_cols = complete ? m : k, r_rows = complete ? m : k;
  if (q->length() == 0 && r->length() == 0) return Status::ok();

  NDArray af, qf, rf;
  RETURN_IF_ERROR(column_major_copy(block, *a, dt, af));
  RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(*a, {q_cols, m}), qf));
  RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(*a, {n, r_rows}), rf));
  RETURN_IF_ERROR(sync_for_kernels(block, {&af, &qf, &rf}));
  blas::QrArgs args;
  args.m = m;
  args.n = n;
  args.batch = matrix_count(*a);
  args.complete = complete;
  args.a = kernel_pointer(block, af);
  args.q = kernel_pointer(block, qf);
  args.r = kernel_pointer(block, rf);
  RETURN_IF_ERROR(with_op_name(block, blas::qr_batched_on(block.device(), dt, args)));
  mark_kernel_written(block, {&qf, &rf});
  RETURN_IF_ERROR(assign_from_column_major(block, *q, qf));
  return assign_from_column_major(block, *r, rf);
}

DECLARE_SHAPE_FN(qr) {
  using namespace libops;
  const NDArray* a = INPUT_VARIABLE(0);
  RETURN_IF_ERROR(ops::check_matrix_stack(block, *a, "a", false));
  const bool complete = block.b_arg(0);
  const int64_t m = a->dim(a->rank() - 2), n = a->dim(a->rank() - 1), k = std::min(m, n);
  shapes.push_back(TensorShape{a->dtype(), ops::matrix_stack_shape(*a, {m, complete ? m : k}), 'c'});
  shapes.push_back(TensorShape{a->dtype(), ops::matrix_stack_shape(*a, {complete ? m : k, n}), 'c'});
  return Status::ok();
}

DECLARE_TYPES(qr) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(qr) {
  args.describe("QR decomposition a = q r of a stack of matrices (Householder; numpy's signs).");
  args.input("a", "matrices [..., m, n]");
  args.output("q", "orthonormal columns, [..., m, k] (or [..., m, m] with full_matrices)");
  args.output("r", "upper triangular, [..., k, n] (or [..., m, n] with full_matrices); k = min(m, n)");
  args.b_arg("full_matrices", false, "complete Q and R rather than the reduced ones");
}
