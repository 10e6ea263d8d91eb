// lstsq: the least-squares solution x minimizing |A x - b| (numpy's
// lstsq; libnd4j's and TensorFlow's matrix_solve_ls with l2_regularizer).
//
//   inputs  a: float32 or float64, [..., m, n] (rank >= 2), any strides,
//           finite; b: a's dtype, [..., m, k] with a's leading dims (or any
//           leading dims when a has rank 2), or [m] when a has rank 2
//   t args  l2_regularizer (default 0, >= 0): > 0 minimizes
//           |A x - b|^2 + l2 |x|^2 instead;
//           rcond (default -1): without l2, singular values <= rcond times
//           the largest count as zero; < 0 means machine epsilon times
//           max(m, n), numpy's default
//   b arg   fast (default true): libnd4j's choice of normal equations;
//           accepted, and the SVD below runs either way
//   output  x: [..., n, k] (or [n]), a's dtype
//
// Through the thin SVD A = U diag(s) V^T on the call's device:
// x = V diag(f(s)) U^T b with f(s) = 1/s above the cutoff, else 0 (the
// minimum-norm solution, any rank, under- or over-determined, as gelsd),
// or f(s) = s / (s^2 + l2) with the regularizer. Two batched GEMMs and one
// row scaling (blas/decompositions.h: pinv_scale_rows_on) follow the SVD.
#include <algorithm>
#include <limits>

#include "blas/decompositions.h"
#include "blas/gemm.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/matrix_staging.h"
#include "libops/ops/host_reads.h"

CUSTOM_OP_IMPL(lstsq, 2, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray* a = INPUT_VARIABLE(0);
  const NDArray* b = INPUT_VARIABLE(1);
  NDArray* z = OUTPUT_VARIABLE(0);
  const double l2 = block.t_arg(0);
  const DataType dt = a->dtype();
  const int64_t m = a->dim(a->rank() - 2), n = a->dim(a->rank() - 1), k = std::min(m, n);
  const double eps = dt == DataType::kFloat32 ? std::numeric_limits<float>::epsilon()
                                              : std::numeric_limits<double>::epsilon();
  const double rcond = block.t_arg(1) < 0 ? eps * static_cast<double>(std::max(m, n)) : block.t_arg(1);
  if (z->length() == 0) return Status::ok();
  RETURN_IF_ERROR(check_finite_matrices(block, *a, "a"));

  NDArray bm, zm;
  RETURN_IF_ERROR(with_op_name(block, as_matrices(*b, bm)));
  RETURN_IF_ERROR(with_op_name(block, as_matrices(*z, zm)));
  const int64_t cols = bm.dim(bm.rank() - 1), batch = matrix_count(bm);
  const bool shared_a = a->rank() == 2 && batch > 1;

  // The SVD of each A: U^T and V^T row-major are U and V column-major.
  NDArray af, s, ut, vt;
  RETURN_IF_ERROR(column_major_copy(block, *a, dt, af));
  RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(*a, {k}), s));
  RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(*a, {k, m}), ut));
  RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(*a, {k, n}), vt));
  RETURN_IF_ERROR(sync_for_kernels(block, {&af, &s, &ut, &vt}));
  blas::SvdArgs svd;
  svd.m = m;
  svd.n = n;
  svd.batch = matrix_count(*a);
  svd.a = kernel_pointer(block, af);
  svd.s = kernel_pointer(block, s);
  svd.u = kernel_pointer(block, ut);
  svd.v = kernel_pointer(block, vt);
  int64_t not_converged = -1;
  const Device dev = block.device();
  RETURN_IF_ERROR(with_op_name(block, blas::svd_batched_on(dev, dt, svd, &not_converged)));
  mark_kernel_written(block, {&s, &ut, &vt});
  REQUIRE_TRUE(not_converged < 0, 0, "the SVD of matrix %lld of a%s did not converge",
               static_cast<long long>(not_converged), a->shape().str().c_str());

  // t = U^T b, scaled row by row, then x = V t.
  NDArray bd, t;
  RETURN_IF_ERROR(dense_on_device(block, bm, dt, bd));
  RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(bm, {k, cols}), t));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, zm, dt));
  NDArray& x = out.target();
  // bd may be b itself, newest on the host: it is synced as an input. As a
  // kernel's output (sync_for_kernels) its device copy was only allocated,
  // and the GEMM read whatever that memory held.
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(dev, {&bd}, t)));
  RETURN_IF_ERROR(sync_for_kernels(block, {&x}));
  const int64_t a_stride = shared_a ? 0 : 1;
  RETURN_IF_ERROR(with_op_name(
      block, blas::gemm_batched_on(dev, dt, false, false, k, cols, m, 1.0, kernel_pointer(block, ut), m,
                                   a_stride * k * m, kernel_pointer(block, bd), cols, m * cols, 0.0,
                                   kernel_pointer(block, t), cols, k * cols, batch)));
  if (shared_a) {
    // One A: its k singular values serve every system, one row scaling each.
    for (int64_t i = 0; i < batch; ++i)
      RETURN_IF_ERROR(with_op_name(
          block, blas::pinv_scale_rows_on(dev, dt, 1, k, cols, kernel_pointer(block, s), rcond, l2,
                                          static_cast<char*>(kernel_pointer(block, t)) +
                                              i * k * cols * static_cast<int64_t>(dtype_size(dt)))));
  } else {
    RETURN_IF_ERROR(with_op_name(block, blas::pinv_scale_rows_on(dev, dt, batch, k, cols, kernel_pointer(block, s),
                                                                 rcond, l2, kernel_pointer(block, t))));
  }
  RETURN_IF_ERROR(with_op_name(
      block, blas::gemm_batched_on(dev, dt, true, false, n, cols, k, 1.0, kernel_pointer(block, vt), n,
                                   a_stride * k * n, kernel_pointer(block, t), cols, k * cols, 0.0,
                                   kernel_pointer(block, x), cols, n * cols, batch)));
  mark_kernel_written(block, {&t, &x});
  return out.finish(block, zm);
}

DECLARE_SHAPE_FN(lstsq) {
  using namespace libops;
  const NDArray* a = INPUT_VARIABLE(0);
  const NDArray* b = INPUT_VARIABLE(1);
  RETURN_IF_ERROR(ops::check_matrix_stack(block, *a, "a", false));
  REQUIRE_TRUE(a->dtype() == b->dtype(), 0, "a is %s and b is %s: they need one dtype", dtype_name(a->dtype()),
               dtype_name(b->dtype()));
  RETURN_IF_ERROR(ops::check_right_hand_side(block, *a, *b, a->dim(a->rank() - 2)));
  Dims shape = b->shape();
  shape[b->rank() == 1 ? 0 : b->rank() - 2] = a->dim(a->rank() - 1);
  shapes.push_back(TensorShape{b->dtype(), shape, 'c'});
  return Status::ok();
}

DECLARE_TYPES(lstsq) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(lstsq) {
  args.describe("Least-squares (minimum-norm) x minimizing |a x - b|, through the SVD; optional ridge term.");
  reads_on_host(args, "one flag per matrix: whether it holds NaN or Inf");
  args.input("a", "finite matrices [..., m, n]");
  args.input("b", "right-hand sides [..., m, k] (a's leading dims, or any when a has rank 2), or [m]");
  args.output("x", "[..., n, k] (or [n])");
  args.t_arg("l2_regularizer", 0.0, "> 0: minimize |a x - b|^2 + l2 |x|^2").at_least(0);
  args.t_arg("rcond", -1.0, "relative cutoff for small singular values; < 0: eps * max(m, n)");
  args.b_arg("fast", true, "libnd4j's normal-equations switch; accepted, the SVD runs either way");
}
