// clip: x limited to [lo, hi] element-wise, z = min(max(x, lo), hi) with
// lo and hi broadcast against x (numpy.clip, ONNX's Clip, TF's
// clip_by_value). The bounds come as inputs (either may be absent) or as t
// args (default: no bound). NaN in x stays NaN; when lo > hi every element
// becomes hi, as in numpy. On the CPU one pass over memory as the
// expression min(max(x, lo), hi) (Note [Expressions] in libops/expr/expr.h);
// on a device two legacy pairwise kernels.
#include <limits>

#include "libops/expr/expr.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(clip, -1, 1, true, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  NDArray lo, hi;
  if (block.num_inputs() > 1) lo = *INPUT_VARIABLE(1);
  else RETURN_IF_ERROR(NDArray::scalar(z->dtype(), T_ARG(0), lo));
  if (block.num_inputs() > 2) hi = *INPUT_VARIABLE(2);
  else RETURN_IF_ERROR(NDArray::scalar(z->dtype(), T_ARG(1), hi));
  NDArray x = *INPUT_VARIABLE(0);
  if (block.device().is_cpu()) {
    using namespace libops::expr;
    return with_op_name(block, (out(*z) = min(max(in(x), in(lo)), in(hi))).run());
  }
  if (z->may_overlap(x) && !z->same_view(x)) RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), x));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::max), x, &lo, *z));
  return legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::min), *z, &hi, *z);
}

DECLARE_SHAPE_FN(clip) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  for (int k = 1; k < block.num_inputs(); ++k) {
    Dims out;
    RETURN_IF_ERROR(broadcast_shapes(block.op_name(), x->shape(), INPUT_VARIABLE(k)->shape(), out));
    REQUIRE_TRUE(out == x->shape(), OPS_ERR_SHAPE, "bound %s would broadcast x%s to %s: bounds must fit x's shape",
                 INPUT_VARIABLE(k)->shape().str().c_str(), x->shape().str().c_str(), out.str().c_str());
  }
  shapes.push_back(TensorShape{x->dtype(), x->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(clip) { descriptor.allow_inputs(libops::types::kNumeric).require_same_type().runs_on_any_device(); }

DECLARE_PATTERN(clip, kBroadcast)

DECLARE_ARGS(clip) {
  args.describe("Limits x to [lo, hi] element-wise.");
  args.input("x", "numeric array");
  args.optional_input("lo", "the lower bound, broadcast against x (instead of t arg 0)");
  args.optional_input("hi", "the upper bound, broadcast against x (instead of t arg 1)");
  args.output("z", "min(max(x, lo), hi), x's dtype");
  args.t_arg("lo", -std::numeric_limits<double>::infinity(), "the lower bound when no input gives it");
  args.t_arg("hi", std::numeric_limits<double>::infinity(), "the upper bound when no input gives it");
}

DECLARE_SYN(clip_by_value, clip)
DECLARE_SYN(clipbyvalue, clip)
