// broadcast_to: x broadcast to a shape (numpy.broadcast_to, a dense copy);
// the shape comes as i args or as an integer array input. x's dims must be
// 1 or equal to the shape's, aligned from the end (Note [Broadcasting]).
// With b arg bidirectional (ONNX Expand) the result is the broadcast of x's
// shape with the given one: a 1 in the shape keeps x's dim.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(broadcast_to, -1, 1, false, 0, 0) {
  return libops::ops::assign_on_device(block, *OUTPUT_VARIABLE(0), *INPUT_VARIABLE(0));  // assign broadcasts
}

DECLARE_SHAPE_FN(broadcast_to) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  thread_local std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("shape", given));
  REQUIRE_TRUE(given.size() <= static_cast<size_t>(kMaxRank), OPS_ERR_SHAPE, "shape has %zu dims; at most %d allowed",
               given.size(), kMaxRank);
  Dims shape(given.data(), static_cast<int>(given.size()));
  for (int d = 0; d < shape.size(); ++d)
    REQUIRE_TRUE(shape[d] >= 0, OPS_ERR_SHAPE, "shape %s has a negative extent", shape.str().c_str());
  if (B_ARG(0)) {
    Dims both;
    RETURN_IF_ERROR(broadcast_shapes("broadcast_to", x->shape(), shape, both));
    shape = both;
  }
  REQUIRE_TRUE(broadcasts_to_shape(x->shape(), shape), OPS_ERR_SHAPE,
               "cannot broadcast x%s to %s: each dim of x must be 1 or the target's, aligned from the end",
               x->shape().str().c_str(), shape.str().c_str());
  shapes.push_back(TensorShape{x->dtype(), shape, 'c'});
  return Status::ok();
}

DECLARE_TYPES(broadcast_to) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_PATTERN(broadcast_to, kInjective)

DECLARE_ARGS(broadcast_to) {
  args.describe("Broadcasts x to a shape.");
  args.input("x", "any array");
  args.optional_input("shape", "the target shape as an integer vector, instead of i args");
  args.output("z", "x repeated along the broadcast dims");
  args.b_arg("bidirectional", false, "the broadcast of x's shape and the target (ONNX Expand): a 1 keeps x's dim");
  args.i_list("shape", "the target shape").or_input(1);
}
