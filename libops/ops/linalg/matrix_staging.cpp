#include "libops/ops/linalg/matrix_staging.h"

#include <limits>
#include <utility>
#include <string>

#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"

namespace libops::ops {

Status swap_last_two(const NDArray& a, NDArray& out, int trailing) {
  Dims axes;
  for (int d = 0; d < a.rank(); ++d) axes.push_back(d);
  const int last = a.rank() - 1 - trailing;
  std::swap(axes[last - 1], axes[last]);
  return a.permute(axes, out);
}

Dims matrix_stack_shape(const NDArray& a, std::initializer_list<int64_t> tail) {
  Dims shape;
  for (int d = 0; d + 2 < a.rank(); ++d) shape.push_back(a.dim(d));
  for (int64_t t : tail) shape.push_back(t);
  return shape;
}

Status linalg_scratch(const Context& block, DataType dt, const Dims& shape, NDArray& out) {
  return step_array(block, dt, shape, out);
}

Status column_major_copy(const Context& block, const NDArray& a, DataType dt, NDArray& out) {
  NDArray swapped;
  RETURN_IF_ERROR(with_op_name(block, swap_last_two(a, swapped)));
  RETURN_IF_ERROR(linalg_scratch(block, dt, swapped.shape(), out));
  return assign_on_device(block, out, swapped);
}

Status assign_from_column_major(const Context& block, NDArray& z, const NDArray& f, int trailing) {
  NDArray swapped;
  RETURN_IF_ERROR(with_op_name(block, swap_last_two(f, swapped, trailing)));
  return assign_on_device(block, z, swapped);
}

Status sync_for_kernels(const Context& block, std::initializer_list<NDArray*> arrays) {
  for (NDArray* a : arrays)
    if (a != nullptr) RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {}, *a)));
  return Status::ok();
}

void* kernel_pointer(const Context& block, const NDArray& a) {
  return block.device().is_cpu() ? const_cast<void*>(static_cast<const void*>(a.data())) : a.device_data();
}

void mark_kernel_written(const Context& block, std::initializer_list<NDArray*> arrays) {
  if (block.device().is_cpu()) return;
  for (NDArray* a : arrays)
    if (a != nullptr) a->buffer()->mark_device_written();
}

int64_t matrix_count(const NDArray& a) {
  int64_t n = 1;
  for (int d = 0; d + 2 < a.rank(); ++d) n *= a.dim(d);
  return n;
}

Status check_matrix_stack(const Context& block, const NDArray& a, const char* name, bool square) {
  if (a.rank() < 2)
    return block.error(StatusCode::kShape, "%s%s has rank %d; it needs rank >= 2 (a stack of %smatrices)", name,
                       a.shape().str().c_str(), a.rank(), square ? "square " : "");
  const int64_t rows = a.dim(a.rank() - 2), cols = a.dim(a.rank() - 1);
  if (square && rows != cols)
    return block.error(StatusCode::kShape, "%s%s is not a stack of square matrices: its last two dims are %lld x %lld",
                       name, a.shape().str().c_str(), static_cast<long long>(rows), static_cast<long long>(cols));
  return Status::ok();
}

Status check_finite_matrices(const Context& block, const NDArray& a, const char* name) {
  if (a.length() == 0) return Status::ok();
  Dims batch_shape;
  for (int d = 0; d + 2 < a.rank(); ++d) batch_shape.push_back(a.dim(d));
  NDArray bad;
  RETURN_IF_ERROR(step_array(block, DataType::kBool, batch_shape, bad));
  const int64_t axes[2] = {a.rank() - 2, a.rank() - 1};
  legacy::LegacyCall call;
  call.group = OPS_REDUCE_BOOL;
  call.num = static_cast<int>(legacy::ReduceBoolOp::is_inf_or_nan);
  call.x = &a;
  call.z = &bad;
  call.axes = axes;
  call.n_axes = 2;
  call.device = block.device();
  RETURN_IF_ERROR(with_op_name(block, legacy::exec(call)));
  if (bad.buffer()->host_stale()) RETURN_IF_ERROR(with_op_name(block, bad.buffer()->sync_to_host()));
  const bool* flags = static_cast<const bool*>(bad.data());
  for (int64_t i = 0; i < bad.length(); ++i)
    if (flags[i])
      return block.error(StatusCode::kInvalidArgument, "matrix %lld of %s%s holds NaN or Inf; %s needs finite values",
                         static_cast<long long>(i), name, a.shape().str().c_str(), block.op_name());
  return Status::ok();
}

// The shape rules solve and lstsq share: b's rows match a's rows
// (`rows`), and b's leading dims equal a's, or a has rank 2.
Status check_right_hand_side(const Context& block, const NDArray& a, const NDArray& b, int64_t rows) {
  if (b.rank() == 1) {
    if (a.rank() != 2)
      return block.error(StatusCode::kShape, "b%s is a vector, which needs a of rank 2; a is %s",
                         b.shape().str().c_str(), a.shape().str().c_str());
    if (b.dim(0) != rows)
      return block.error(StatusCode::kShape, "b%s has %lld rows; a%s has %lld", b.shape().str().c_str(),
                         static_cast<long long>(b.dim(0)), a.shape().str().c_str(), static_cast<long long>(rows));
    return Status::ok();
  }
  if (b.rank() < 2)
    return block.error(StatusCode::kShape, "b%s has rank %d; it needs rank >= 1", b.shape().str().c_str(), b.rank());
  if (b.dim(b.rank() - 2) != rows)
    return block.error(StatusCode::kShape, "b%s has %lld rows; a%s has %lld", b.shape().str().c_str(),
                       static_cast<long long>(b.dim(b.rank() - 2)), a.shape().str().c_str(),
                       static_cast<long long>(rows));
  if (a.rank() == 2) return Status::ok();
  bool same = a.rank() == b.rank();
  for (int d = 0; same && d + 2 < a.rank(); ++d) same = a.dim(d) == b.dim(d);
  if (!same)
    return block.error(StatusCode::kShape,
                       "a%s and b%s: their leading (batch) dims must be equal, or a must have rank 2",
                       a.shape().str().c_str(), b.shape().str().c_str());
  return Status::ok();
}

// b, or a vector b as the one-column matrix [n, 1] (a view).
Status as_matrices(const NDArray& b, NDArray& out) {
  if (b.rank() != 1) {
    out = b;
    return Status::ok();
  }
  return b.reshape_copy({b.dim(0), 1}, out);
}

namespace {

// An [n, n] array holding `kept` on the kept triangle (diagonal included)
// and `other` elsewhere.
Status triangle_mask(DataType dt, int64_t n, bool keep_upper, double kept, double other, NDArray& out) {
  RETURN_IF_ERROR(NDArray::create(dt, {n, n}, 'c', out));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) out.set_double(i * n + j, (keep_upper ? j >= i : j <= i) ? kept : other);
  return Status::ok();
}

}  // namespace

// Two pairwise legacy kernels on the call's device, no host loop:
//   relu(z, t), t = -inf on the kept triangle and +inf on the other: x > -inf
//     keeps every number there, x > +inf holds for none, so 0;
//   replace_nans(z, f), f = NaN on the kept triangle and 0 on the other: the
//     NaNs relu lets through become 0 there, and a NaN in the kept triangle
//     stays visible.
// Multiplying by a 0/1 mask would leave NaN (or -0) where the other
// triangle held NaN, inf or negatives. t and f are [n, n] host arrays
// broadcast over the batch, synced to the device by legacy::exec.
Status clear_other_triangle(const Context& block, bool keep_upper, NDArray& z) {
  const int64_t n = z.dim(z.rank() - 1);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  NDArray threshold, fill;
  RETURN_IF_ERROR(with_op_name(block, triangle_mask(z.dtype(), n, keep_upper, -inf, inf, threshold)));
  RETURN_IF_ERROR(with_op_name(block, triangle_mask(z.dtype(), n, keep_upper, nan, 0.0, fill)));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::relu), z, &threshold, z));
  return legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::replace_nans), z, &fill, z);
}

}  // namespace libops::ops
