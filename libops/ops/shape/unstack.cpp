// unstack: x split along an axis into its slices, the axis removed
// (libnd4j's unstack, TF's unstack): x.dim(axis) outputs of x's shape
// without that axis.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

CUSTOM_OP_IMPL(unstack, 1, -1, false, 0, 0) {
  using namespace libops;
  const NDArray& x = *INPUT_VARIABLE(0);
  const int axis = static_cast<int>(INT_ARG(0) < 0 ? INT_ARG(0) + x.rank() : INT_ARG(0));
  for (int i = 0; i < block.num_outputs(); ++i) {
    NDArray* z = OUTPUT_VARIABLE(i);
    if (z->length() == 0) continue;
    NDArray part;
    RETURN_IF_ERROR(x.slice(axis, i, i + 1, 1, part));
    RETURN_IF_ERROR(part.reshape_copy(z->shape(), part));  // drops the extent-1 axis: a view
    RETURN_IF_ERROR(ops::assign_on_device(block, *z, part));
  }
  return Status::ok();
}

DECLARE_SHAPE_FN(unstack) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  const int axis = static_cast<int>(INT_ARG(0) < 0 ? INT_ARG(0) + x->rank() : INT_ARG(0));
  const int64_t n = x->dim(axis);
  REQUIRE_TRUE(n >= 1 && n <= (1 << 20), OPS_ERR_SHAPE, "x%s has %lld positions along axis %d: unstack gives 1 to %d outputs",
               x->shape().str().c_str(), static_cast<long long>(n), axis, 1 << 20);
  Dims s;
  for (int d = 0; d < x->rank(); ++d)
    if (d != axis) s.push_back(x->dim(d));
  shapes.assign(static_cast<size_t>(n), TensorShape{x->dtype(), s, 'c'});
  return Status::ok();
}

DECLARE_TYPES(unstack) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(unstack) {
  args.describe("Splits x into its slices along an axis, dropping the axis.");
  args.input("x", "any array, rank >= 1");
  args.outputs_variadic("parts", "x.dim(axis) arrays, x's shape without the axis");
  args.i_arg("axis", 0, "the axis to unstack").axis(0);
}

DECLARE_SYN(unpack, unstack)
