// solve: x with A x = b (or A^T x = b) for square A (numpy.linalg.solve,
// libnd4j's and TensorFlow's matrix_solve).
//
//   inputs  a: float32 or float64, [..., n, n] (rank >= 2), any strides;
//           b: a's dtype, [..., n, k] with a's leading dims, or any
//           [..., n, k] when a has rank 2 (one A for every system), or [n]
//           when a has rank 2 (numpy's vector right-hand side)
//   b arg   adjoint (default false): solve A^T x = b
//   output  x: b's shape and dtype
//
// LU with partial pivoting (getrf, then getrs: LAPACK on the CPU,
// cuSOLVER on CUDA; Note [Factoring the transpose] in lu_factors.h). A
// singular matrix (an exact zero pivot) is an error naming it.
#include "blas/decompositions.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/lu_factors.h"
#include "libops/ops/linalg/matrix_staging.h"

CUSTOM_OP_IMPL(solve, 2, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray* a = INPUT_VARIABLE(0);
  const NDArray* b = INPUT_VARIABLE(1);
  NDArray* z = OUTPUT_VARIABLE(0);
  const bool adjoint = block.b_arg(0);
  const DataType dt = a->dtype();
  const int64_t n = a->dim(a->rank() - 1);
  if (z->length() == 0) return Status::ok();

  NDArray m;
  RETURN_IF_ERROR(linalg_scratch(block, dt, a->shape(), m));
  RETURN_IF_ERROR(assign_on_device(block, m, *a));
  LuFactors f;
  RETURN_IF_ERROR(lu_factor_in_place(block, m, f));
  RETURN_IF_ERROR(require_nonsingular(block, f, *a));

  NDArray bm, zm, bf;
  RETURN_IF_ERROR(with_op_name(block, as_matrices(*b, bm)));
  RETURN_IF_ERROR(with_op_name(block, as_matrices(*z, zm)));
  RETURN_IF_ERROR(column_major_copy(block, bm, dt, bf));
  RETURN_IF_ERROR(sync_for_kernels(block, {&bf}));
  blas::LuSolveArgs args;
  args.n = n;
  args.k = bm.dim(bm.rank() - 1);
  args.batch = matrix_count(bm);
  // The factors are of A^T: A x = b is their transposed solve.
  args.transpose = !adjoint;
  args.shared_a = a->rank() == 2;
  args.lu = kernel_pointer(block, f.lu);
  args.pivots = static_cast<const int32_t*>(kernel_pointer(block, f.pivots));
  args.b = kernel_pointer(block, bf);
  RETURN_IF_ERROR(with_op_name(block, blas::lu_solve_batched_on(block.device(), dt, args)));
  mark_kernel_written(block, {&bf});
  return assign_from_column_major(block, zm, bf);
}

DECLARE_SHAPE_FN(solve) {
  using namespace libops;
  const NDArray* a = INPUT_VARIABLE(0);
  const NDArray* b = INPUT_VARIABLE(1);
  RETURN_IF_ERROR(ops::check_matrix_stack(block, *a, "a", true));
  REQUIRE_TRUE(a->dtype() == b->dtype(), 0, "a is %s and b is %s: they need one dtype", dtype_name(a->dtype()),
               dtype_name(b->dtype()));
  RETURN_IF_ERROR(ops::check_right_hand_side(block, *a, *b, a->dim(a->rank() - 1)));
  shapes.push_back(TensorShape{b->dtype(), b->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(solve) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(solve) {
  args.describe("x with a x = b for square a (LU with partial pivoting); a singular a is an error.");
  args.input("a", "square matrices [..., n, n]");
  args.input("b", "right-hand sides [..., n, k] (a's leading dims, or any when a has rank 2), or [n]");
  args.output("x", "b's shape");
  args.b_arg("adjoint", false, "solve a^T x = b");
}
