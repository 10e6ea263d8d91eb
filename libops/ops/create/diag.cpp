// diag and diag_part (TF's and libnd4j's): diag puts x's elements on the
// diagonal of an x.shape + x.shape array of zeros (a vector gives a square
// matrix); diag_part takes them back from an s + s array, giving s. Both
// see the big array as an [N, N] matrix, N = x.length(), and copy along its
// diagonal view on the call's device.
#include "libops/ops/create/diagonal.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"


CUSTOM_OP_IMPL(diag, 1, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray dense = *z, zero, square, d, flat_x;
  if (!z->is_c_contiguous()) RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', dense));
  RETURN_IF_ERROR(NDArray::scalar(z->dtype(), 0.0, zero));
  RETURN_IF_ERROR(ops::assign_on_device(block, dense, zero));
  RETURN_IF_ERROR(dense.reshape(Dims{x.length(), x.length()}, square));
  RETURN_IF_ERROR(ops::diagonal_view(square, d));
  RETURN_IF_ERROR(x.reshape_copy(Dims{1, x.length()}, flat_x));
  RETURN_IF_ERROR(ops::assign_on_device(block, d, flat_x));
  return dense.same_view(*z) ? Status::ok() : ops::assign_on_device(block, *z, dense);
}

DECLARE_SHAPE_FN(diag) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  REQUIRE_TRUE(x->rank() >= 1 && 2 * x->rank() <= kMaxRank, OPS_ERR_SHAPE, "x%s must have rank 1 to %d",
               x->shape().str().c_str(), kMaxRank / 2);
  Dims out = x->shape();
  for (int d = 0; d < x->rank(); ++d) out.push_back(x->dim(d));
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(diag) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(diag) {
  args.describe("An array with x on its diagonal and zeros elsewhere.");
  args.input("x", "any array of rank 1 to 5");
  args.output("z", "x.shape + x.shape, z[i..., i...] = x[i...]");
}

CUSTOM_OP_IMPL(diag_part, 1, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray dense, square, d, zv;
  RETURN_IF_ERROR(ops::dense_on_device(block, x, x.dtype(), dense));
  RETURN_IF_ERROR(dense.reshape(Dims{z->length(), z->length()}, square));
  RETURN_IF_ERROR(ops::diagonal_view(square, d));
  RETURN_IF_ERROR(d.reshape_copy(z->shape(), zv));
  return ops::assign_on_device(block, *z, zv);
}

DECLARE_SHAPE_FN(diag_part) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  const int half = x->rank() / 2;
  bool ok = x->rank() >= 2 && x->rank() % 2 == 0;
  for (int d = 0; ok && d < half; ++d) ok = x->dim(d) == x->dim(d + half);
  REQUIRE_TRUE(ok, OPS_ERR_SHAPE, "x%s must have an even rank >= 2 and shape s + s", x->shape().str().c_str());
  Dims out;
  for (int d = 0; d < half; ++d) out.push_back(x->dim(d));
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(diag_part) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(diag_part) {
  args.describe("The diagonal of an s + s array.");
  args.input("x", "an array of shape s + s");
  args.output("z", "s, z[i...] = x[i..., i...]");
}
