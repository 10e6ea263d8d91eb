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

namespace libops::ops {
namespace {

Status concat_axis(Context& block, int& axis) {
  const NDArray* first = block.input(0);
  const int rank = first->rank();
  const int64_t a = block.num_i_args() > 0 ? block.i_arg(0) : 0;
  REQUIRE_TRUE(rank >= 1, 0, "input 0 %s is a scalar; inputs need rank >= 1", first->desc().str().c_str());
  REQUIRE_TRUE(a >= -rank && a < rank, 0, "axis %lld is out of range for rank %d (allowed %d..%d)",
               static_cast<long long>(a), rank, -rank, rank - 1);
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
  REQUIRE_TRUE(block.num_i_args() <= 1, 0, "expected at most 1 i arg (axis), got %d", block.num_i_args());
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
