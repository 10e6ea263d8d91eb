// concat: joins one or more arrays along an existing axis (numpy.concatenate).
//
//   inputs  one or more arrays of one dtype and one rank (>= 1), equal in
//           every dim but the axis; inputs with a 0 extent are allowed
//   i arg   axis (optional, default 0; negative counts from the end)
//   output  the inputs' shape with the axis extents summed
//
// The data is moved by copying each input into its slice of the output,
// on the op's device (Note [Copies on a device] in ops/device_copy.h).
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status concat_axis(Context& block, int& axis) {
  const NDArray* first = block.input(0);
  const int rank = first->rank();
  const int64_t a = block.i_arg(0);  // an axis of input 0 (the signature checked it)
  axis = static_cast<int>(a < 0 ? a + rank : a);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(concat, -1, 1, false, 0, 0) {
  using namespace libops;
  int axis = 0;
  RETURN_IF_ERROR(ops::concat_axis(block, axis));
  NDArray* z = OUTPUT_VARIABLE(0);
  int64_t offset = 0;
  for (int i = 0; i < block.num_inputs(); ++i) {
    const NDArray* in = INPUT_VARIABLE(i);
    const int64_t len = in->dim(axis);
    if (in->length() > 0) {
      NDArray part;
      RETURN_IF_ERROR(z->slice(axis, offset, offset + len, 1, part));
      RETURN_IF_ERROR(ops::assign_on_device(block, part, *in));
    }
    offset += len;
  }
  return Status::ok();
}

DECLARE_SHAPE_FN(concat) {
  using namespace libops;
  int axis = 0;
  RETURN_IF_ERROR(ops::concat_axis(block, axis));
  const NDArray* first = INPUT_VARIABLE(0);
  Dims out = first->shape();
  for (int i = 1; i < block.num_inputs(); ++i) {
    const NDArray* in = INPUT_VARIABLE(i);
    bool same = in->rank() == first->rank();
    for (int d = 0; same && d < first->rank(); ++d)
      if (d != axis && in->dim(d) != first->dim(d)) same = false;
    REQUIRE_TRUE(same, OPS_ERR_SHAPE,
                 "cannot concatenate input 0 %s with input %d %s along axis %d: all dims but the axis must match",
                 first->shape().str().c_str(), i, in->shape().str().c_str(), axis);
    out[axis] += in->dim(axis);
  }
  shapes.push_back(TensorShape{first->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(concat) { descriptor.allow_inputs(libops::types::kAny).require_same_type().runs_on_any_device(); }

DECLARE_PATTERN(concat, kInjective)

DECLARE_ARGS(concat) {
  args.describe("Joins arrays along an existing axis.");
  args.inputs_variadic("xs", "arrays of one dtype and rank (>= 1), equal in every dim but the axis");
  args.output("z", "the inputs joined along axis");
  args.i_arg("axis", 0, "the axis to join along").axis(0);
}
