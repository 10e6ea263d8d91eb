// maxpool2d: the maximum of each kH x kW window of every channel.
//
//   input   x: [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC); float16, bfloat16,
//           float32 or float64
//   i args  0..8  kH, kW, sH, sW, pH, pW, dH, dW, same_mode
//                 (Note [Window arguments] in conv_utils.h)
//           9     unused, optional (libnd4j's extraParam0 slot; kept so the
//                 two pooling ops share one argument order)
//           10    data_format, optional: 0 = NCHW (default), 1 = NHWC,
//                 2 = NCHWc [N, C / b, H, W, b] (the CPU only; Note
//                 [Channel-blocked layout] in conv_utils.h)
//           11    ceil_mode, optional: 1 rounds the output extent up (Note
//                 [Ceil mode] in conv_utils.h)
//   output  [N, C, oH, oW] (NCHW) or [N, oH, oW, C] (NHWC), x's dtype
//
// Padding never wins: only taps inside the input are compared (as if padded
// with -inf). A NaN in a window gives NaN, as numpy's max does. Explicit
// padding must be smaller than the dilated kernel; a window that still
// covers no input element (possible only with dilation) gives 0.
// Computed in float for float16/bfloat16/float32, in double for float64.
// On another device the backend pools in x's own dtype (Note [nn ops on
// devices] in nn_device.h), with the same padding and NaN rules.
#include "libops/ops/nn/conv_utils.h"
#include "libops/ops/nn/nn_device.h"

CUSTOM_OP_IMPL(maxpool2d, 1, 1, false, 0, 9) {
  using namespace libops::ops::nn;
  if (!block.device().is_cpu()) return pool2d_device_exec(block, PoolMode::kMax);
  return pool2d_exec<MaxPoolReducer>(block, false);
}

DECLARE_SHAPE_FN(maxpool2d) { return libops::ops::nn::pool2d_output_shape(block, shapes); }

DECLARE_TYPES(maxpool2d) {
  // On a device: through the backend's pooling (Note [nn ops on devices]).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(maxpool2d) {
  args.describe("2-D max pooling.");
  using namespace libops::ops::nn;
  pool2d_signature(args, "the maximum of each window, [N, C, oH, oW] or [N, oH, oW, C]; NaN wins");
  args.i_arg("unused", 0, "ignored: libnd4j's extraParam0 slot, so both pooling ops share one order");
  data_format_arg(args, true);
  args.i_arg("ceil_mode", 0, "1: round the output extent up (Note [Ceil mode] in conv_utils.h)").flag();
}
