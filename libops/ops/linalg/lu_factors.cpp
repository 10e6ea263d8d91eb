#include "libops/ops/linalg/lu_factors.h"

#include "libops/blas/decompositions.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/matrix_staging.h"

namespace libops::ops {

Status lu_factor_in_place(const Context& block, NDArray& m, LuFactors& f) {
  const int64_t n = m.dim(m.rank() - 1);
  RETURN_IF_ERROR(linalg_scratch(block, DataType::kInt32, matrix_stack_shape(m, {n}), f.pivots));
  RETURN_IF_ERROR(sync_for_kernels(block, {&m, &f.pivots}));
  blas::LuArgs args;
  args.n = n;
  args.batch = matrix_count(m);
  args.a = kernel_pointer(block, m);
  args.pivots = static_cast<int32_t*>(kernel_pointer(block, f.pivots));
  RETURN_IF_ERROR(with_op_name(block, blas::lu_batched_on(block.device(), m.dtype(), args, &f.singular)));
  mark_kernel_written(block, {&m, &f.pivots});
  f.lu = m;
  return Status::ok();
}

Status require_nonsingular(const Context& block, const LuFactors& f, const NDArray& a) {
  if (f.singular < 0) return Status::ok();
  return block.error(StatusCode::kInvalidArgument,
                     "matrix %lld of a%s is singular (its LU factorization has an exact zero pivot)",
                     static_cast<long long>(f.singular), a.shape().str().c_str());
}

Status inverse_into(const Context& block, const NDArray& a, NDArray& x) {
  const DataType dt = a.dtype();
  const int64_t n = a.dim(a.rank() - 1);
  // Note [Factoring the transpose]: the C-order copy is A^T column-major.
  NDArray m;
  RETURN_IF_ERROR(linalg_scratch(block, dt, a.shape(), m));
  RETURN_IF_ERROR(assign_on_device(block, m, a));
  LuFactors f;
  RETURN_IF_ERROR(lu_factor_in_place(block, m, f));
  RETURN_IF_ERROR(require_nonsingular(block, f, a));

  NDArray eye;  // one host identity, broadcast over the batch on the device
  RETURN_IF_ERROR(with_op_name(block, NDArray::create(dt, {n, n}, 'c', eye)));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) eye.set_double(i * n + j, i == j ? 1.0 : 0.0);
  RETURN_IF_ERROR(assign_on_device(block, x, eye));

  RETURN_IF_ERROR(sync_for_kernels(block, {&x}));
  blas::LuSolveArgs args;
  args.n = n;
  args.k = n;
  args.batch = matrix_count(a);
  args.lu = kernel_pointer(block, f.lu);
  args.pivots = static_cast<const int32_t*>(kernel_pointer(block, f.pivots));
  args.b = kernel_pointer(block, x);
  RETURN_IF_ERROR(with_op_name(block, blas::lu_solve_batched_on(block.device(), dt, args)));
  mark_kernel_written(block, {&x});
  return Status::ok();
}

}  // namespace libops::ops
