// dropout: the inference identity (libnd4j's and ONNX's Dropout outside
// training): z = x. The rate is declared and checked so that a training
// graph's node loads, but nothing is dropped; training is not supported.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

CUSTOM_OP_IMPL(dropout, 1, 1, true, 0, 0) {
  libops::NDArray* z = OUTPUT_VARIABLE(0);
  if (z->same_view(*INPUT_VARIABLE(0))) return libops::Status::ok();  // in place: nothing to do
  return libops::ops::assign_on_device(block, *z, *INPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(dropout) {
  shapes.push_back(libops::TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return libops::Status::ok();
}

DECLARE_TYPES(dropout) {
  // A copy on the call's device.
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(dropout) {
  args.describe("Dropout at inference: the identity.");
  args.input("x", "any array");
  args.output("z", "x");
  args.t_arg("rate", 0.0, "the training drop rate; unused at inference").range(0.0, 1.0);
}
