// stack: arrays of one shape and dtype joined along a new axis (numpy.stack,
// libnd4j's stack); the axis is counted in the output's dims, in
// [-rank - 1, rank]. Each input is one copy into its slice of z, on the
// call's device.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

Status stack_axis(Context& block, int& axis) {
  const NDArray& first = *block.input(0);
  const int64_t a = INT_ARG(0), r = first.rank();
  REQUIRE_TRUE(a >= -r - 1 && a <= r, 0, "axis %lld is out of range for inputs of rank %lld: it must be in [%lld, %lld]",
               static_cast<long long>(a), static_cast<long long>(r), static_cast<long long>(-r - 1),
               static_cast<long long>(r));
  REQUIRE_TRUE(r < kMaxRank, OPS_ERR_SHAPE, "inputs of rank %lld: the result would exceed the maximum rank %d",
               static_cast<long long>(r), kMaxRank);
  axis = static_cast<int>(a < 0 ? a + r + 1 : a);
  for (int i = 1; i < block.num_inputs(); ++i)
    REQUIRE_TRUE(block.input(i)->shape() == first.shape(), OPS_ERR_SHAPE,
                 "input %d %s differs from input 0 %s: stacked arrays must have one shape", i,
                 block.input(i)->shape().str().c_str(), first.shape().str().c_str());
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(stack, -1, 1, false, 0, 0) {
  using namespace libops;
  int axis = 0;
  RETURN_IF_ERROR(ops::stack_axis(block, axis));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  for (int i = 0; i < block.num_inputs(); ++i) {
    NDArray part;
    RETURN_IF_ERROR(z->slice(axis, i, i + 1, 1, part));
    RETURN_IF_ERROR(part.reshape_copy(INPUT_VARIABLE(i)->shape(), part));  // drops the extent-1 axis: a view
    RETURN_IF_ERROR(ops::assign_on_device(block, part, *INPUT_VARIABLE(i)));
  }
  return Status::ok();
}

DECLARE_SHAPE_FN(stack) {
  using namespace libops;
  int axis = 0;
  RETURN_IF_ERROR(ops::stack_axis(block, axis));
  Dims out;
  const NDArray* first = INPUT_VARIABLE(0);
  for (int d = 0; d <= first->rank(); ++d) {
    if (d == axis) out.push_back(block.num_inputs());
    if (d < first->rank()) out.push_back(first->dim(d));
  }
  shapes.push_back(TensorShape{first->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(stack) { descriptor.allow_inputs(libops::types::kAny).require_same_type().runs_on_any_device(); }

DECLARE_ARGS(stack) {
  args.describe("Joins arrays of one shape along a new axis.");
  args.inputs_variadic("xs", "arrays of one shape and dtype");
  args.output("z", "the inputs stacked: the new axis has one position per input");
  args.i_arg("axis", 0, "where the new axis goes, in the output's dims");
}

DECLARE_SYN(pack, stack)
