#include "libops/ops/linalg/lu_factors.h"

#include "blas/decompositions.h"
#include "libops/matrix/matrix.h"
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

namespace {

// Note [Small inverses]
// On the CPU, matrices of n <= 3 are inverted in closed form, as the
// adjugate over the determinant of a Matrix<double, n, n>
// (libops/matrix/matrix.h), instead of an LU factorization and a solve each:
// 2^20 3x3 float32 matrices 433 -> 31 ms, 2x2 293 -> 5.4 ms at one thread
// (bench/small_matrix_bench.cpp, BM_Inverse). A matrix whose
// determinant is exactly 0 is singular, the error naming the first one as
// the LU path does; the values agree with the LU path's within rounding
// (double arithmetic, one rounding on store for float32).
template <typename T, int N>
int64_t small_inverses(const T* a, int64_t batch, T* x) {
  for (int64_t b = 0; b < batch; ++b) {
    const auto m = matrix_cast<double>(row_major_load<T, N, N>(a + b * N * N));
    if (determinant(m) == 0.0) return b;
    row_major_store(matrix_cast<T>(inverse(m)), x + b * N * N);
  }
  return -1;
}

template <typename T>
int64_t small_inverses(int64_t n, const T* a, int64_t batch, T* x) {
  switch (n) {
    case 1: return small_inverses<T, 1>(a, batch, x);
    case 2: return small_inverses<T, 2>(a, batch, x);
    default: return small_inverses<T, 3>(a, batch, x);
  }
}

}  // namespace

Status inverse_into(const Context& block, const NDArray& a, NDArray& x) {
  const DataType dt = a.dtype();
  const int64_t n = a.dim(a.rank() - 1);
  if (block.device().is_cpu() && n >= 1 && n <= 3) {
    NDArray ad;
    RETURN_IF_ERROR(dense_on_device(block, a, dt, ad));
    const int64_t batch = matrix_count(a);
    const int64_t singular = dt == DataType::kFloat32
                                 ? small_inverses<float>(n, ad.data_as<float>(), batch, x.data_as<float>())
                                 : small_inverses<double>(n, ad.data_as<double>(), batch, x.data_as<double>());
    if (singular >= 0)
      return block.error(StatusCode::kInvalidArgument, "matrix %lld of a%s is singular (its determinant is 0)",
                         static_cast<long long>(singular), a.shape().str().c_str());
    x.buffer()->mark_host_written();
    return Status::ok();
  }
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
