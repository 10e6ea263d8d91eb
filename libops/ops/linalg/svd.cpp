// svd: A = U diag(s) V^T for each matrix of a stack (libnd4j's and
// TensorFlow's svd: V itself is returned, not numpy's V^T).
//
//   input   a: float32 or float64, [..., m, n] (rank >= 2), any strides,
//           finite
//   i args  full_uv (default 0): U [..., m, m] and V [..., n, n]; else
//           U [..., m, k] and V [..., n, k], k = min(m, n);
//           compute_uv (default 1): 0 returns s alone;
//           switch_num (default 16): libnd4j's choice between its own two
//           algorithms, accepted and unused (libops always runs one solver)
//   outputs s [..., k] descending and >= 0, then U and V when compute_uv,
//           all a's dtype
//
// LAPACK's gesdd (divide and conquer, numpy's choice) on the CPU,
// cuSOLVER's Jacobi gesvdj on CUDA. Singular vectors are unique up to sign
// (and within repeated singular values, up to rotation), so the two devices
// may differ there; U diag(s) V^T is a either way. NaN or Inf in a is an
// error naming the matrix, as is a solver that does not converge.
#include <algorithm>

#include "blas/decompositions.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/matrix_staging.h"
#include "libops/ops/host_reads.h"

CUSTOM_OP_IMPL(svd, 1, -1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray* a = INPUT_VARIABLE(0);
  const bool full = block.i_arg(0) != 0, compute_uv = block.i_arg(1) != 0;
  const DataType dt = a->dtype();
  const int64_t m = a->dim(a->rank() - 2), n = a->dim(a->rank() - 1), k = std::min(m, n);
  const int64_t u_cols = full ? m : k, v_cols = full ? n : k;
  if (matrix_count(*a) == 0) return Status::ok();
  RETURN_IF_ERROR(check_finite_matrices(block, *a, "a"));

  NDArray af, uf, vf;
  RETURN_IF_ERROR(column_major_copy(block, *a, dt, af));
  DeviceOutputStage s_out;
  RETURN_IF_ERROR(s_out.begin(block, *OUTPUT_VARIABLE(0), dt));
  NDArray& s = s_out.target();
  if (compute_uv) {
    RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(*a, {u_cols, m}), uf));
    RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(*a, {v_cols, n}), vf));
  }
  RETURN_IF_ERROR(sync_for_kernels(block, {&af, &s, compute_uv ? &uf : nullptr, compute_uv ? &vf : nullptr}));
  blas::SvdArgs args;
  args.m = m;
  args.n = n;
  args.batch = matrix_count(*a);
  args.full = full;
  args.compute_uv = compute_uv;
  args.a = kernel_pointer(block, af);
  args.s = kernel_pointer(block, s);
  if (compute_uv) {
    args.u = kernel_pointer(block, uf);
    args.v = kernel_pointer(block, vf);
  }
  int64_t not_converged = -1;
  RETURN_IF_ERROR(with_op_name(block, blas::svd_batched_on(block.device(), dt, args, &not_converged)));
  mark_kernel_written(block, {&s, compute_uv ? &uf : nullptr, compute_uv ? &vf : nullptr});
  REQUIRE_TRUE(not_converged < 0, 0, "the SVD of matrix %lld of a%s did not converge",
               static_cast<long long>(not_converged), a->shape().str().c_str());
  RETURN_IF_ERROR(s_out.finish(block, *OUTPUT_VARIABLE(0)));
  if (!compute_uv) return Status::ok();
  RETURN_IF_ERROR(assign_from_column_major(block, *OUTPUT_VARIABLE(1), uf));
  return assign_from_column_major(block, *OUTPUT_VARIABLE(2), vf);
}

DECLARE_SHAPE_FN(svd) {
  using namespace libops;
  const NDArray* a = INPUT_VARIABLE(0);
  RETURN_IF_ERROR(ops::check_matrix_stack(block, *a, "a", false));
  const bool full = block.i_arg(0) != 0, compute_uv = block.i_arg(1) != 0;
  const int64_t m = a->dim(a->rank() - 2), n = a->dim(a->rank() - 1), k = std::min(m, n);
  shapes.push_back(TensorShape{a->dtype(), ops::matrix_stack_shape(*a, {k}), 'c'});
  if (compute_uv) {
    shapes.push_back(TensorShape{a->dtype(), ops::matrix_stack_shape(*a, {m, full ? m : k}), 'c'});
    shapes.push_back(TensorShape{a->dtype(), ops::matrix_stack_shape(*a, {n, full ? n : k}), 'c'});
  }
  return Status::ok();
}

DECLARE_TYPES(svd) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(svd) {
  args.describe("Singular value decomposition a = u diag(s) v^T (v, not v^T, as TensorFlow and libnd4j).");
  reads_on_host(args, "one flag per matrix: whether it holds NaN or Inf");
  args.input("a", "finite matrices [..., m, n]");
  args.output("s", "the k = min(m, n) singular values of each matrix, descending");
  args.outputs_variadic("u, v", "with compute_uv: u [..., m, k] and v [..., n, k] (m x m and n x n with full_uv)");
  args.i_arg("full_uv", 0, "1: square u and v").flag();
  args.i_arg("compute_uv", 1, "0: s alone").flag();
  args.i_arg("switch_num", 16, "libnd4j's algorithm switch; accepted and unused").at_least(0);
}
