// trace: the sum of the main diagonal of each matrix of x [..., rows,
// cols] (numpy.trace over the last two dims, libnd4j's trace): the
// diagonal view summed by the legacy sum kernel on the call's device.
// Integers sum in 64 bits and wrap on store, in x's dtype.
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/create/diagonal.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/reduce/reduce_common.h"


CUSTOM_OP_IMPL(trace, 1, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  NDArray dense, d, zv;
  RETURN_IF_ERROR(ops::dense_on_device(block, *INPUT_VARIABLE(0), INPUT_VARIABLE(0)->dtype(), dense));
  RETURN_IF_ERROR(ops::diagonal_view(dense, d));
  NDArray dense_z = *z;
  if (!z->is_c_contiguous()) RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', dense_z));
  RETURN_IF_ERROR(dense_z.reshape(Dims{z->length()}, zv));
  RETURN_IF_ERROR(ops::reduce_into(block, OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::sum), d, Dims{1}, zv));
  return dense_z.same_view(*z) ? Status::ok() : ops::assign_on_device(block, *z, dense_z);
}

DECLARE_SHAPE_FN(trace) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  REQUIRE_TRUE(x->rank() >= 2, OPS_ERR_SHAPE, "x%s must have rank >= 2 ([..., rows, cols])", x->shape().str().c_str());
  Dims out;
  for (int d = 0; d + 2 < x->rank(); ++d) out.push_back(x->dim(d));
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(trace) { descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device(); }

DECLARE_ARGS(trace) {
  args.describe("Sum of the main diagonal of each matrix.");
  args.input("x", "[..., rows, cols], numeric");
  args.output("z", "[...], x's dtype");
}
