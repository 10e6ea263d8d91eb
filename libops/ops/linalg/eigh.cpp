// eigh: eigenvalues and eigenvectors of symmetric matrices, A = V diag(w)
// V^T (numpy.linalg.eigh, TensorFlow's self_adjoint_eig).
//
//   input   a: float32 or float64, [..., n, n] (rank >= 2), any strides;
//           only one triangle is read, and it must be finite
//   b args  upper (default false): read the upper triangle, else the lower
//           (numpy's UPLO); compute_v (default true): false returns w alone
//   outputs w [..., n] ascending, then v [..., n, n] with the eigenvectors
//           as columns (v[..., :, j] belongs to w[..., j]), a's dtype
//
// LAPACK's syevd on the CPU, cuSOLVER's syevd on CUDA. Eigenvectors are
// unique up to sign (and within repeated eigenvalues, up to rotation).
// The triangle not read is cleared before the finiteness check, so
// anything may sit there, NaN included.
#include "blas/decompositions.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/matrix_staging.h"
#include "libops/ops/host_reads.h"

CUSTOM_OP_IMPL(eigh, 1, -1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray* a = INPUT_VARIABLE(0);
  const bool upper = block.b_arg(0), compute_v = block.b_arg(1);
  const DataType dt = a->dtype();
  const int64_t n = a->dim(a->rank() - 1);
  if (OUTPUT_VARIABLE(0)->length() == 0) return Status::ok();

  // af holds A column-major, which read as C order is A^T: A's lower
  // triangle is af's upper one.
  NDArray af;
  RETURN_IF_ERROR(column_major_copy(block, *a, dt, af));
  RETURN_IF_ERROR(clear_other_triangle(block, /*keep_upper=*/!upper, af));
  RETURN_IF_ERROR(check_finite_matrices(block, af, "a"));
  DeviceOutputStage w_out;
  RETURN_IF_ERROR(w_out.begin(block, *OUTPUT_VARIABLE(0), dt));
  NDArray& w = w_out.target();
  RETURN_IF_ERROR(sync_for_kernels(block, {&af, &w}));
  blas::EighArgs args;
  args.n = n;
  args.batch = matrix_count(*a);
  args.lower = !upper;
  args.compute_v = compute_v;
  args.a = kernel_pointer(block, af);
  args.w = kernel_pointer(block, w);
  int64_t not_converged = -1;
  RETURN_IF_ERROR(with_op_name(block, blas::eigh_batched_on(block.device(), dt, args, &not_converged)));
  mark_kernel_written(block, {&af, &w});
  REQUIRE_TRUE(not_converged < 0, 0, "the eigen-decomposition of matrix %lld of a%s did not converge",
               static_cast<long long>(not_converged), a->shape().str().c_str());
  RETURN_IF_ERROR(w_out.finish(block, *OUTPUT_VARIABLE(0)));
  if (!compute_v) return Status::ok();
  return assign_from_column_major(block, *OUTPUT_VARIABLE(1), af);
}

DECLARE_SHAPE_FN(eigh) {
  using namespace libops;
  const NDArray* a = INPUT_VARIABLE(0);
  RETURN_IF_ERROR(ops::check_matrix_stack(block, *a, "a", true));
  const int64_t n = a->dim(a->rank() - 1);
  shapes.push_back(TensorShape{a->dtype(), ops::matrix_stack_shape(*a, {n}), 'c'});
  if (block.b_arg(1)) shapes.push_back(TensorShape{a->dtype(), a->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(eigh) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_SYN(self_adjoint_eig, eigh)

DECLARE_ARGS(eigh) {
  args.describe("Eigenvalues (ascending) and eigenvectors of symmetric matrices.");
  reads_on_host(args, "one flag per matrix: whether it holds NaN or Inf");
  args.input("a", "symmetric matrices [..., n, n]; only one triangle is read");
  args.output("w", "the n eigenvalues of each matrix, ascending");
  args.outputs_variadic("v", "with compute_v: the eigenvectors as columns, [..., n, n]");
  args.b_arg("upper", false, "read the upper triangle rather than the lower");
  args.b_arg("compute_v", true, "false: the eigenvalues alone");
}
