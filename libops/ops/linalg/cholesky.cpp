// cholesky: the Cholesky factor of each symmetric positive-definite matrix.
//
//   input   a: float32 or float64, [..., n, n] (rank >= 2), any strides
//   b arg   upper (optional, default false)
//   output  a's dtype and shape: L, lower triangular with A = L * L^T, or
//           with upper U, upper triangular with A = U^T * U; zeros in the
//           other triangle
//
// Only the triangle the factor comes from is read (the lower one for L, the
// upper one for U), as numpy's and LAPACK's cholesky do: the other one may
// hold anything, NaN included. A matrix that is not positive definite is an
// error naming its batch index (C order over the leading dims) and the order
// of its first leading minor that is not; a NaN in the triangle read counts
// as such, as in reference LAPACK. Leading dims of extent 0, or
// n == 0, give an empty output.
//
// The factorization is blas::potrf_batched_on in place on a dense C-order
// copy of a, made on the device the call runs on (LAPACK on the CPU, the
// backend's solver elsewhere). The other triangle, which still holds a's
// values (or, on CUDA, whatever cuSOLVER left there: it uses that triangle
// as workspace), is then cleared on that device by clear_other_triangle
// (matrix_staging.h), with no host loop.
#include <cstdint>

#include "blas/linalg.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/matrix_staging.h"

namespace libops::ops {
namespace {

Status cholesky_upper(Context& block, bool& upper) {
  upper = block.b_arg(0);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(cholesky, 1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  bool upper = false;
  RETURN_IF_ERROR(cholesky_upper(block, upper));
  const NDArray* a = INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const Device dev = block.device();
  const DataType dt = a->dtype();
  const int64_t n = a->dim(a->rank() - 1);
  const int64_t batch = a->length() / (n * n);

  // The factorization's working copy: z itself when it is dense and shares
  // no memory with a, else a scratch array copied into z at the end.
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, dt));
  NDArray& work = out.target();
  RETURN_IF_ERROR(assign_on_device(block, work, *a));

  RETURN_IF_ERROR(sync_for_kernel(dev, {}, work));
  void* data = dev.is_cpu() ? work.data() : work.device_data();
  int64_t bad_matrix = -1, bad_order = 0;
  RETURN_IF_ERROR(
      with_op_name(block, blas::potrf_batched_on(dev, dt, !upper, n, data, n, n * n, batch, &bad_matrix, &bad_order)));
  if (!dev.is_cpu()) work.buffer()->mark_device_written();
  REQUIRE_TRUE(bad_matrix < 0, 0, "matrix %lld of a%s is not positive definite (its leading minor of order %lld is not)",
               static_cast<long long>(bad_matrix), a->shape().str().c_str(), static_cast<long long>(bad_order));

  RETURN_IF_ERROR(clear_other_triangle(block, upper, work));
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(cholesky) {
  using namespace libops;
  bool upper = false;
  RETURN_IF_ERROR(ops::cholesky_upper(block, upper));
  const NDArray* a = INPUT_VARIABLE(0);
  REQUIRE_TRUE(a->rank() >= 2, OPS_ERR_SHAPE, "a%s has rank %d; it needs rank >= 2 (a stack of square matrices)",
               a->shape().str().c_str(), a->rank());
  const int64_t rows = a->dim(a->rank() - 2), cols = a->dim(a->rank() - 1);
  REQUIRE_TRUE(rows == cols, OPS_ERR_SHAPE, "a%s is not a stack of square matrices: its last two dims are %lld x %lld",
               a->shape().str().c_str(), static_cast<long long>(rows), static_cast<long long>(cols));
  shapes.push_back(TensorShape{a->dtype(), a->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(cholesky) {
  // On a device: the copy and the triangle clearing through legacy kernels
  // there, the factorization through the backend's potrf (blas/linalg.h).
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(cholesky) {
  args.describe("Cholesky factors of positive-definite matrices.");
  args.input("a", "symmetric positive-definite matrices [..., n, n]; only the factor's triangle is read");
  args.output("factor", "L with a = L L^T (or U with a = U^T U when upper), zeros in the other triangle");
  args.b_arg("upper", false, "return the upper factor U");
}
