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
// as workspace), is then cleared by two pairwise legacy kernels on that
// device, with no host loop:
//   relu(z, t), t = -inf on the kept triangle and +inf on the other: x > -inf
//     keeps every number of the factor, x > +inf holds for none, so 0;
//   replace_nans(z, f), f = NaN on the kept triangle and 0 on the other: the
//     NaNs relu lets through become 0 there, and a NaN in the factor (of
//     an input whose NaN pivot a backend missed) stays visible.
// Multiplying by a 0/1 mask would leave NaN (or -0) where the unread
// triangle held NaN, inf or negatives. t and f are [n, n] host arrays
// broadcast over the batch, synced to the device by legacy::exec.
#include <cstdint>
#include <limits>

#include "blas/linalg.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

Status cholesky_upper(Context& block, bool& upper) {
  upper = block.b_arg(0);
  return Status::ok();
}

// One pairwise legacy kernel, z = op(z, y), on the call's device.
Status pairwise_in_place(const Context& block, legacy::BinaryOp op, const NDArray& y, NDArray& z) {
  legacy::LegacyCall call;
  call.group = OPS_PAIRWISE;
  call.num = static_cast<int>(op);
  call.x = &z;
  call.y = &y;
  call.z = &z;
  call.device = block.device();
  return with_op_name(block, legacy::exec(call));
}

// An [n, n] array holding `kept` on the factor's triangle (diagonal
// included) and `other` elsewhere.
Status triangle_mask(DataType dt, int64_t n, bool upper, double kept, double other, NDArray& out) {
  RETURN_IF_ERROR(NDArray::create(dt, {n, n}, 'c', out));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) out.set_double(i * n + j, (upper ? j >= i : j <= i) ? kept : other);
  return Status::ok();
}

// Zeros the triangle of z's matrices that the factor does not use (see the
// file comment for why relu and replace_nans rather than a product).
Status clear_other_triangle(const Context& block, bool upper, NDArray& z) {
  const int64_t n = z.dim(z.rank() - 1);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  NDArray threshold, fill;
  RETURN_IF_ERROR(triangle_mask(z.dtype(), n, upper, -inf, inf, threshold));
  RETURN_IF_ERROR(triangle_mask(z.dtype(), n, upper, nan, 0.0, fill));
  RETURN_IF_ERROR(pairwise_in_place(block, legacy::BinaryOp::relu, threshold, z));
  return pairwise_in_place(block, legacy::BinaryOp::replace_nans, fill, z);
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
