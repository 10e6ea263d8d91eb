// lu: LU decomposition with partial pivoting, A[p] = L U (TensorFlow's and
// libnd4j's lu).
//
//   input   a: float32 or float64, [..., n, n] (rank >= 2), any strides
//   d arg   index_dtype (default int32): p's dtype, int32 or int64
//   outputs lu [..., n, n], a's dtype: L below the diagonal (its unit
//           diagonal not stored), U on and above it;
//           p [..., n]: the row permutation, row i of L U is row p[i] of A
//
// Singular matrices factor too (U then has a zero on its diagonal), as in
// LAPACK, numpy-based scipy.linalg.lu and TensorFlow. LAPACK's getrf on the
// CPU, cuSOLVER's getrf on CUDA; p is built from the pivots on the same
// device (Note [LU pivots] in blas/decomposition_kernels.h).
#include "blas/decompositions.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/lu_factors.h"
#include "libops/ops/linalg/matrix_staging.h"

namespace libops::ops {
namespace {

Status lu_index_dtype(const Context& block, DataType& dt) {
  dt = block.d_arg(0);
  if (dt == DataType::kInt32 || dt == DataType::kInt64) return Status::ok();
  return block.error(StatusCode::kInvalidArgument, "index_dtype %s: p is int32 or int64", dtype_name(dt));
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(lu, 1, 2, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray* a = INPUT_VARIABLE(0);
  DataType index_dt;
  RETURN_IF_ERROR(lu_index_dtype(block, index_dt));
  const int64_t n = a->dim(a->rank() - 1);
  if (OUTPUT_VARIABLE(0)->length() == 0) return Status::ok();

  NDArray af;
  RETURN_IF_ERROR(column_major_copy(block, *a, a->dtype(), af));
  LuFactors f;
  RETURN_IF_ERROR(lu_factor_in_place(block, af, f));
  DeviceOutputStage p_out;
  RETURN_IF_ERROR(p_out.begin(block, *OUTPUT_VARIABLE(1), index_dt));
  NDArray& p = p_out.target();
  RETURN_IF_ERROR(sync_for_kernels(block, {&p}));
  RETURN_IF_ERROR(with_op_name(
      block, blas::lu_permutation_on(block.device(), n, matrix_count(*a),
                                     static_cast<const int32_t*>(kernel_pointer(block, f.pivots)), index_dt,
                                     kernel_pointer(block, p))));
  mark_kernel_written(block, {&p});
  RETURN_IF_ERROR(p_out.finish(block, *OUTPUT_VARIABLE(1)));
  return assign_from_column_major(block, *OUTPUT_VARIABLE(0), f.lu);
}

DECLARE_SHAPE_FN(lu) {
  using namespace libops;
  const NDArray* a = INPUT_VARIABLE(0);
  RETURN_IF_ERROR(ops::check_matrix_stack(block, *a, "a", true));
  DataType index_dt;
  RETURN_IF_ERROR(ops::lu_index_dtype(block, index_dt));
  shapes.push_back(TensorShape{a->dtype(), a->shape(), 'c'});
  shapes.push_back(TensorShape{index_dt, ops::matrix_stack_shape(*a, {a->dim(a->rank() - 1)}), 'c'});
  return Status::ok();
}

DECLARE_TYPES(lu) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64, libops::DataType::kInt32,
                            libops::DataType::kInt64});
}

DECLARE_ARGS(lu) {
  args.describe("LU decomposition with partial pivoting: a[p] = L U.");
  args.input("a", "square matrices [..., n, n]");
  args.output("lu", "L (unit diagonal, not stored) below the diagonal and U on and above it, [..., n, n]");
  args.output("p", "the row permutation [..., n]: row i of L U is row p[i] of a");
  args.d_arg("index_dtype", libops::DataType::kInt32, "p's dtype: int32 or int64");
}
