// log_softmax: z = x - max - log(sum(exp(x - max))) along one axis.
//
//   input   x: float16, bfloat16, float32 or float64, rank >= 1, any strides
//   i arg   axis (optional, default -1; negative counts from the end)
//   output  z: x's dtype and shape; may run in place
//
// softmax's row loops with the exponentials only summed (softmax.cpp): the
// result never takes the log of a rounded-to-zero probability, so a logit
// 1000 below the row's maximum gives -1000, not -inf. A row with NaN or
// +inf is all NaN, a row of all -inf is NaN, as softmax's. On another
// device: softmax's fused kernel there (softmax.cu), or legacy kernels on
// that device (max, subtract, exp, sum, log, subtract); never the host.
#include "libops/ops/nn/softmax.h"

CUSTOM_OP_IMPL(log_softmax, 1, 1, true, 0, 0) { return libops::ops::softmax_exec(block, true); }

DECLARE_SHAPE_FN(log_softmax) { return libops::ops::softmax_shape(block, shapes); }

DECLARE_TYPES(log_softmax) {
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(log_softmax) {
  args.describe("Log of the softmax along an axis, without forming the softmax.");
  args.input("x", "the logits, rank >= 1");
  args.output("z", "x - log(sum(exp(x))) along axis; a row with a NaN is all NaN");
  args.i_arg("axis", -1, "the axis to normalise over").axis(0);
}

DECLARE_SYN(logsoftmax, log_softmax)
