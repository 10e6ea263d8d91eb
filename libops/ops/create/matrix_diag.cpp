// The batched diagonal ops of TensorFlow and libnd4j, over the last two
// dims of a stack of matrices (main diagonal only):
//   matrix_diag(d [..., k])                   -> [..., k, k], d on the diagonal
//   matrix_diag_part(x [..., m, n])           -> [..., min(m, n)]
//   matrix_set_diag(x [..., m, n], d [..., min(m, n)]) -> x with d on its diagonal
// Each is a copy into or out of the diagonal view of a dense C-order stack
// (diagonal.h), on the call's device.
#include <algorithm>

#include "libops/ops/create/diagonal.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

// The diagonals of z's matrices as a [batch, k] view, z dense C-order.
Status stack_diagonals(const NDArray& z, NDArray& view) { return diagonal_view(z, view); }

// d [..., k] seen as [batch, k].
Status as_rows(const NDArray& d, int64_t batch, int64_t k, NDArray& out) {
  return d.reshape_copy(Dims{batch, k}, out);
}

// Writes d onto the diagonals of dense z, whose other elements are set.
Status write_diagonals(const Context& block, NDArray& dense, const NDArray& d) {
  NDArray view, rows;
  RETURN_IF_ERROR(with_op_name(block, stack_diagonals(dense, view)));
  RETURN_IF_ERROR(with_op_name(block, as_rows(d, view.dim(0), view.dim(1), rows)));
  return assign_on_device(block, view, rows);
}

Status require_matrices(const Context& block, const NDArray& x) {
  if (x.rank() >= 2) return Status::ok();
  return block.error(StatusCode::kShape, "x%s has rank %d; it needs rank >= 2 (a stack of matrices)",
                     x.shape().str().c_str(), x.rank());
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(matrix_diag, 1, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  NDArray dense = *z, zero;
  if (!z->is_c_contiguous()) RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', dense));
  RETURN_IF_ERROR(NDArray::scalar(z->dtype(), 0.0, zero));
  RETURN_IF_ERROR(ops::assign_on_device(block, dense, zero));
  RETURN_IF_ERROR(ops::write_diagonals(block, dense, *INPUT_VARIABLE(0)));
  return dense.same_view(*z) ? Status::ok() : ops::assign_on_device(block, *z, dense);
}

DECLARE_SHAPE_FN(matrix_diag) {
  using namespace libops;
  const NDArray* d = INPUT_VARIABLE(0);
  REQUIRE_TRUE(d->rank() >= 1 && d->rank() < kMaxRank, OPS_ERR_SHAPE, "d%s must have rank 1 to %d",
               d->shape().str().c_str(), kMaxRank - 1);
  Dims out = d->shape();
  out.push_back(d->dim(d->rank() - 1));
  shapes.push_back(TensorShape{d->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(matrix_diag) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(matrix_diag) {
  args.describe("Square matrices with d on the diagonal and zeros elsewhere, one per row of d.");
  args.input("d", "diagonals [..., k]");
  args.output("z", "[..., k, k]");
}

CUSTOM_OP_IMPL(matrix_diag_part, 1, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray dense, view, zv;
  RETURN_IF_ERROR(ops::dense_on_device(block, x, x.dtype(), dense));
  RETURN_IF_ERROR(ops::with_op_name(block, ops::stack_diagonals(dense, view)));
  RETURN_IF_ERROR(ops::with_op_name(block, view.reshape_copy(z->shape(), zv)));
  return ops::assign_on_device(block, *z, zv);
}

DECLARE_SHAPE_FN(matrix_diag_part) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  RETURN_IF_ERROR(ops::require_matrices(block, *x));
  Dims out;
  for (int d = 0; d + 2 < x->rank(); ++d) out.push_back(x->dim(d));
  out.push_back(std::min(x->dim(x->rank() - 2), x->dim(x->rank() - 1)));
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(matrix_diag_part) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(matrix_diag_part) {
  args.describe("The main diagonal of each matrix of a stack.");
  args.input("x", "matrices [..., m, n]");
  args.output("z", "[..., min(m, n)]");
}

CUSTOM_OP_IMPL(matrix_set_diag, 2, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  NDArray dense = *z;
  if (!z->is_c_contiguous()) RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', dense));
  RETURN_IF_ERROR(ops::assign_on_device(block, dense, *INPUT_VARIABLE(0)));
  RETURN_IF_ERROR(ops::write_diagonals(block, dense, *INPUT_VARIABLE(1)));
  return dense.same_view(*z) ? Status::ok() : ops::assign_on_device(block, *z, dense);
}

DECLARE_SHAPE_FN(matrix_set_diag) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  const NDArray* d = INPUT_VARIABLE(1);
  RETURN_IF_ERROR(ops::require_matrices(block, *x));
  Dims want;
  for (int k = 0; k + 2 < x->rank(); ++k) want.push_back(x->dim(k));
  want.push_back(std::min(x->dim(x->rank() - 2), x->dim(x->rank() - 1)));
  REQUIRE_TRUE(d->shape() == want, OPS_ERR_SHAPE, "d%s must have shape %s for x%s", d->shape().str().c_str(),
               want.str().c_str(), x->shape().str().c_str());
  REQUIRE_TRUE(d->dtype() == x->dtype(), OPS_ERR_DTYPE, "d is %s and x is %s: they need one dtype",
               dtype_name(d->dtype()), dtype_name(x->dtype()));
  shapes.push_back(TensorShape{x->dtype(), x->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(matrix_set_diag) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(matrix_set_diag) {
  args.describe("x with the main diagonal of each matrix replaced by d.");
  args.input("x", "matrices [..., m, n]");
  args.input("d", "diagonals [..., min(m, n)], x's dtype");
  args.output("z", "x's shape and dtype");
}
