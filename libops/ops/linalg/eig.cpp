// eig: eigenvalues and right eigenvectors of general real matrices
// (numpy.linalg.eig, libnd4j's eig), complex results in libops' [..., 2]
// layout of (real, imaginary) pairs, the layout of the fft ops and of
// ops/complex/complex.cpp.
//
//   input   a: float32 or float64, [..., n, n] (rank >= 2), any strides,
//           finite
//   b arg   compute_v (default true): false returns w alone
//   outputs w [..., n, 2], then v [..., n, n, 2] with the eigenvectors as
//           columns (v[..., :, j, :] belongs to w[..., j, :]), each of
//           norm 1 with its largest component real; a's dtype
//
// Eigenvalues come in LAPACK's order (numpy's too): not sorted, conjugate
// pairs adjacent with the positive imaginary part first. LAPACK's geev on
// the CPU, cuSOLVER's Xgeev on CUDA; NaN or Inf in a is an error naming the
// matrix, as is a solver that does not converge.
#include "blas/decompositions.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/matrix_staging.h"
#include "libops/ops/host_reads.h"

CUSTOM_OP_IMPL(eig, 1, -1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray* a = INPUT_VARIABLE(0);
  const bool compute_v = block.b_arg(0);
  const DataType dt = a->dtype();
  const int64_t n = a->dim(a->rank() - 1);
  if (OUTPUT_VARIABLE(0)->length() == 0) return Status::ok();
  RETURN_IF_ERROR(check_finite_matrices(block, *a, "a"));

  NDArray af, vf;
  RETURN_IF_ERROR(column_major_copy(block, *a, dt, af));
  DeviceOutputStage w_out;
  RETURN_IF_ERROR(w_out.begin(block, *OUTPUT_VARIABLE(0), dt));
  NDArray& w = w_out.target();
  if (compute_v) RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(*a, {n, n, 2}), vf));
  RETURN_IF_ERROR(sync_for_kernels(block, {&af, &w, compute_v ? &vf : nullptr}));
  blas::EigArgs args;
  args.n = n;
  args.batch = matrix_count(*a);
  args.compute_v = compute_v;
  args.a = kernel_pointer(block, af);
  args.w = kernel_pointer(block, w);
  if (compute_v) args.v = kernel_pointer(block, vf);
  int64_t not_converged = -1;
  RETURN_IF_ERROR(with_op_name(block, blas::eig_batched_on(block.device(), dt, args, &not_converged)));
  mark_kernel_written(block, {&w, compute_v ? &vf : nullptr});
  REQUIRE_TRUE(not_converged < 0, 0, "the eigen-decomposition of matrix %lld of a%s did not converge",
               static_cast<long long>(not_converged), a->shape().str().c_str());
  RETURN_IF_ERROR(w_out.finish(block, *OUTPUT_VARIABLE(0)));
  if (!compute_v) return Status::ok();
  // vf is [..., column j, row i, 2]: swap the two matrix dims before the pair.
  return assign_from_column_major(block, *OUTPUT_VARIABLE(1), vf, /*trailing=*/1);
}

DECLARE_SHAPE_FN(eig) {
  using namespace libops;
  const NDArray* a = INPUT_VARIABLE(0);
  RETURN_IF_ERROR(ops::check_matrix_stack(block, *a, "a", true));
  const int64_t n = a->dim(a->rank() - 1);
  shapes.push_back(TensorShape{a->dtype(), ops::matrix_stack_shape(*a, {n, 2}), 'c'});
  if (block.b_arg(0)) shapes.push_back(TensorShape{a->dtype(), ops::matrix_stack_shape(*a, {n, n, 2}), 'c'});
  return Status::ok();
}

DECLARE_TYPES(eig) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(eig) {
  args.describe("Eigenvalues and right eigenvectors of general real matrices, as complex [..., 2] pairs.");
  reads_on_host(args, "one flag per matrix: whether it holds NaN or Inf");
  args.input("a", "finite matrices [..., n, n]");
  args.output("w", "the n eigenvalues of each matrix, [..., n, 2] (real, imaginary), LAPACK's order");
  args.outputs_variadic("v", "with compute_v: unit eigenvectors as columns, [..., n, n, 2]");
  args.b_arg("compute_v", true, "false: the eigenvalues alone");
}
