// Determinants from LU factors, one value per matrix of a stack:
//
//   matrix_determinant(a)      det(a)                     (numpy det)
//   log_matrix_determinant(a)  log|det(a)|                (libnd4j's)
//   slogdet(a)                 sign, log|det(a)|          (numpy slogdet,
//                                                          TensorFlow's
//                                                          log_matrix_determinant)
//
//   input   a: float32 or float64, [..., n, n] (rank >= 2), any strides
//   outputs a's dtype, [...] (a's leading dims)
//
// A singular matrix has det 0, sign 0 and log|det| -inf (not an error);
// n == 0 gives det 1, sign 1, log|det| 0, as numpy. The product of U's
// diagonal runs in double (Note [Factoring the transpose] in lu_factors.h:
// the C-order copy of a is factored as it is, det(A^T) = det(A)).
//
// Note [Small determinants]
// On the CPU, matrices of n <= 3 skip the factorization: each is loaded as
// a Matrix<double, n, n> (libops/matrix/matrix.h) and its determinant taken
// by cofactor expansion, in double, so float32 inputs round once, on
// store. A LAPACK getrf call per matrix costs far more than the 9 loads and
// 12 multiplications: 2^20 3x3 float32 matrices took 182 ms through LU and
// take 7.3 ms so (2x2: 131 -> 1.4 ms; bench/small_matrix_bench.cpp,
// BM_Determinant, one thread).
// Results agree with the LU path within rounding; an exactly singular
// matrix of small integers gives exactly 0 either way.
#include <cmath>

#include "blas/decompositions.h"
#include "libops/matrix/matrix.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/lu_factors.h"
#include "libops/ops/linalg/matrix_staging.h"

namespace libops::ops {
namespace {

// Note [Small determinants]: det, or sign and log|det|, of `batch` dense
// N x N matrices at a (C order, or its transpose: the determinant is the
// same), into dense det and log_abs.
template <typename T, int N>
void small_determinants(const T* a, int64_t batch, T* det, T* log_abs) {
  for (int64_t b = 0; b < batch; ++b) {
    const double d = determinant(matrix_cast<double>(column_major_load<T, N, N>(a + b * N * N)));
    if (log_abs == nullptr) {
      det[b] = static_cast<T>(d);
      continue;
    }
    // numpy: a singular matrix has sign 0 and log|det| -inf; NaN gives NaN for both.
    det[b] = static_cast<T>(d > 0 ? 1.0 : d < 0 ? -1.0 : d == 0 ? 0.0 : d);
    log_abs[b] = static_cast<T>(std::log(std::fabs(d)));
  }
}

template <typename T>
void small_determinants(int64_t n, const T* a, int64_t batch, T* det, T* log_abs) {
  switch (n) {
    case 1: return small_determinants<T, 1>(a, batch, det, log_abs);
    case 2: return small_determinants<T, 2>(a, batch, det, log_abs);
    default: return small_determinants<T, 3>(a, batch, det, log_abs);
  }
}

// det (or sign) into outputs[0]; with `log_abs`, log|det| into the output
// at index log_output.
Status determinants(Context& block, bool log_abs, int det_output, int log_output) {
  const NDArray* a = block.input(0);
  const DataType dt = a->dtype();
  const int64_t n = a->dim(a->rank() - 1), batch = matrix_count(*a);
  if (batch == 0) return Status::ok();
  if (block.device().is_cpu() && n >= 1 && n <= 3) {
    NDArray ad, det, logs;
    RETURN_IF_ERROR(dense_on_device(block, *a, dt, ad));
    DeviceOutputStage det_out, log_out;
    if (det_output >= 0) {
      RETURN_IF_ERROR(det_out.begin(block, *block.output(det_output), dt));
    } else {
      RETURN_IF_ERROR(NDArray::create(dt, matrix_stack_shape(*a, {}), 'c', det));
    }
    if (log_abs) RETURN_IF_ERROR(log_out.begin(block, *block.output(log_output), dt));
    NDArray& det_target = det_output >= 0 ? det_out.target() : det;
    if (dt == DataType::kFloat32)
      small_determinants<float>(n, ad.data_as<float>(), batch, det_target.data_as<float>(),
                                log_abs ? log_out.target().data_as<float>() : nullptr);
    else
      small_determinants<double>(n, ad.data_as<double>(), batch, det_target.data_as<double>(),
                                 log_abs ? log_out.target().data_as<double>() : nullptr);
    if (det_output >= 0) RETURN_IF_ERROR(det_out.finish(block, *block.output(det_output)));
    if (log_abs) RETURN_IF_ERROR(log_out.finish(block, *block.output(log_output)));
    return Status::ok();
  }
  NDArray m;
  RETURN_IF_ERROR(linalg_scratch(block, dt, a->shape(), m));
  RETURN_IF_ERROR(assign_on_device(block, m, *a));
  LuFactors f;
  RETURN_IF_ERROR(lu_factor_in_place(block, m, f));

  NDArray det, logs;  // scratch for the value an op does not return
  DeviceOutputStage det_out, log_out;
  if (det_output >= 0) {
    RETURN_IF_ERROR(det_out.begin(block, *block.output(det_output), dt));
  } else {
    RETURN_IF_ERROR(linalg_scratch(block, dt, matrix_stack_shape(*a, {}), det));
  }
  if (log_abs) RETURN_IF_ERROR(log_out.begin(block, *block.output(log_output), dt));
  NDArray& det_target = det_output >= 0 ? det_out.target() : det;
  NDArray* log_target = log_abs ? &log_out.target() : nullptr;
  RETURN_IF_ERROR(sync_for_kernels(block, {&det_target, log_target}));
  RETURN_IF_ERROR(with_op_name(
      block, blas::lu_determinant_on(block.device(), dt, n, batch, kernel_pointer(block, f.lu),
                                     static_cast<const int32_t*>(kernel_pointer(block, f.pivots)),
                                     kernel_pointer(block, det_target),
                                     log_target ? kernel_pointer(block, *log_target) : nullptr)));
  mark_kernel_written(block, {&det_target, log_target});
  if (det_output >= 0) RETURN_IF_ERROR(det_out.finish(block, *block.output(det_output)));
  if (log_abs) RETURN_IF_ERROR(log_out.finish(block, *block.output(log_output)));
  return Status::ok();
}

Status determinant_shape(const Context& block, int outputs, ShapeList& shapes) {
  const NDArray* a = block.input(0);
  RETURN_IF_ERROR(check_matrix_stack(block, *a, "a", true));
  for (int i = 0; i < outputs; ++i) shapes.push_back(TensorShape{a->dtype(), matrix_stack_shape(*a, {}), 'c'});
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(matrix_determinant, 1, 1, false, 0, 0) {
  return libops::ops::determinants(block, /*log_abs=*/false, 0, -1);
}
DECLARE_SHAPE_FN(matrix_determinant) { return libops::ops::determinant_shape(block, 1, shapes); }
DECLARE_TYPES(matrix_determinant) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}
DECLARE_ARGS(matrix_determinant) {
  args.describe("The determinant of each square matrix, from its LU factors.");
  args.input("a", "square matrices [..., n, n]");
  args.output("det", "[...], a's dtype");
}

CUSTOM_OP_IMPL(log_matrix_determinant, 1, 1, false, 0, 0) {
  return libops::ops::determinants(block, /*log_abs=*/true, -1, 0);
}
DECLARE_SHAPE_FN(log_matrix_determinant) { return libops::ops::determinant_shape(block, 1, shapes); }
DECLARE_TYPES(log_matrix_determinant) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}
DECLARE_ARGS(log_matrix_determinant) {
  args.describe("log|det| of each square matrix (libnd4j's log_matrix_determinant; -inf when singular).");
  args.input("a", "square matrices [..., n, n]");
  args.output("log_abs_det", "[...], a's dtype");
}

CUSTOM_OP_IMPL(slogdet, 1, 2, false, 0, 0) { return libops::ops::determinants(block, /*log_abs=*/true, 0, 1); }
DECLARE_SHAPE_FN(slogdet) { return libops::ops::determinant_shape(block, 2, shapes); }
DECLARE_TYPES(slogdet) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}
DECLARE_ARGS(slogdet) {
  args.describe("Sign and log|det| of each square matrix (numpy's slogdet): det = sign * exp(log_abs_det).");
  args.input("a", "square matrices [..., n, n]");
  args.output("sign", "-1, 0 (singular) or 1, [...]");
  args.output("log_abs_det", "log|det|, -inf when singular, [...]");
}
