// assert_true: x, unchanged, when every element of `condition` is true
// (non-zero); otherwise the call fails, naming the first element that is
// not (TensorFlow's Assert, libnd4j's Assert). It stops a graph's run on a
// value known only then: the ONNX importer checks a DFT's axis given at run
// time with it (Note [Axes given at run time] in graph/onnx/onnx_ops.cpp),
// and the node's name says what the condition means, which the executor's
// message names.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/host_reads.h"

CUSTOM_OP_IMPL(assert_true, 2, 1, false, 0, 0) {
  using namespace libops;
  const NDArray* condition = INPUT_VARIABLE(0);
  if (condition->buffer()->host_stale()) RETURN_IF_ERROR(condition->buffer()->sync_to_host());
  for (int64_t i = 0; i < condition->length(); ++i)
    REQUIRE_TRUE(condition->get_double(i) != 0.0, OPS_ERR_INVALID_ARGUMENT,
                 "the condition %s is false at element %lld", condition->desc().str().c_str(), static_cast<long long>(i));
  return ops::assign_on_device(block, *OUTPUT_VARIABLE(0), *INPUT_VARIABLE(1));
}

DECLARE_SHAPE_FN(assert_true) {
  const libops::NDArray* x = INPUT_VARIABLE(1);
  shapes.push_back(libops::TensorShape{x->dtype(), x->shape(), 'c'});
  return libops::Status::ok();
}

DECLARE_TYPES(assert_true) {
  descriptor.allow_input(0, libops::types::kBool).allow_input(1, libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(assert_true) {
  args.describe("Passes x through when every element of the condition is true; otherwise fails the call.");
  libops::reads_on_host(args, "the condition");
  args.input("condition", "bool, any shape (an empty one holds)");
  args.input("x", "any array");
  args.output("z", "x");
}
