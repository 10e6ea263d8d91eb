// prelu: leaky ReLU with a learned slope that broadcasts against x, as ONNX
// PRelu (unidirectional broadcasting: slope to x's shape, never the other
// way).
//
//   inputs  x      float16, bfloat16, float32 or float64, any shape
//           slope  x's dtype, a shape that broadcasts to x's (numpy rules,
//                  aligned at the trailing dims: [C, 1, 1] for NCHW x)
//   output  x's dtype and shape: x where x >= 0, else slope * x; NaN stays NaN
//
// One legacy pairwise leaky_relu call (its y is the slope) on block.device().
#include <string>

#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(prelu, 2, 1, true, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  legacy::LegacyCall call;
  call.group = OPS_PAIRWISE;
  call.num = static_cast<int>(legacy::BinaryOp::leaky_relu);
  call.x = INPUT_VARIABLE(0);
  call.y = INPUT_VARIABLE(1);
  call.z = z;
  call.device = block.device();
  Status s = legacy::exec(call);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

DECLARE_SHAPE_FN(prelu) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  const NDArray* slope = INPUT_VARIABLE(1);
  REQUIRE_TRUE(slope->dtype() == x->dtype(), OPS_ERR_DTYPE,
               "slope's dtype %s differs from x's %s: they must be the same", dtype_name(slope->dtype()),
               dtype_name(x->dtype()));
  Dims out;
  Status s = broadcast_shapes(block.op_name(), x->shape(), slope->shape(), out);
  REQUIRE_TRUE(s.is_ok() && out == x->shape(), OPS_ERR_SHAPE,
               "slope%s does not broadcast to x%s: slope's dims, aligned at the end, must each be 1 or x's",
               slope->shape().str().c_str(), x->shape().str().c_str());
  shapes.push_back(TensorShape{x->dtype(), x->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(prelu) {
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_PATTERN(prelu, kBroadcast)

DECLARE_ARGS(prelu) {
  args.describe("Leaky ReLU with a slope array broadcast against x (ONNX PRelu).");
  args.input("x", "the array");
  args.input("slope", "x's dtype; broadcasts to x's shape ([C, 1, 1] for NCHW)");
  args.output("z", "x where x >= 0, else slope * x; x's dtype and shape");
}
