// avgpool2d: the mean of each kH x kW window of every channel.
//
//   input   x: [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC); float16, bfloat16,
//           float32 or float64
//   i args  0..8  kH, kW, sH, sW, pH, pW, dH, dW, same_mode
//                 (Note [Window arguments] in conv_utils.h)
//           9     count_include_pad, optional: 0 (default) divides each
//                 window's sum by the number of its taps inside the input
//                 (TF's SAME behaviour, libnd4j's extraParam0 = 0); 1 divides
//                 by kH * kW, so padding counts as zeros (PyTorch's default)
//           10    data_format, optional: 0 = NCHW (default), 1 = NHWC,
//                 2 = NCHWc [N, C / b, H, W, b] (the CPU only; Note
//                 [Channel-blocked layout] in conv_utils.h)
//           11    ceil_mode, optional: 1 rounds the output extent up (Note
//                 [Ceil mode] in conv_utils.h)
//   output  [N, C, oH, oW] (NCHW) or [N, oH, oW, C] (NHWC), x's dtype
//
// Explicit padding must be smaller than the dilated kernel; a window that
// still covers no input element (possible only with dilation) gives 0.
// Computed in float for float16/bfloat16/float32, in double for float64.
// On another device the backend pools in x's own dtype (Note [nn ops on
// devices] in nn_device.h), with the same divisor rule.
#include "libops/ops/nn/conv_utils.h"
#include "libops/ops/nn/nn_device.h"

CUSTOM_OP_IMPL(avgpool2d, 1, 1, false, 0, 9) {
  using namespace libops::ops::nn;
  const bool include_pad = INT_ARG(9) == 1;
  if (!block.device().is_cpu())
    return pool2d_device_exec(block, include_pad ? PoolMode::kAvgIncludePadding : PoolMode::kAvgExcludePadding);
  return pool2d_exec<AvgPoolReducer>(block, include_pad);
}

DECLARE_SHAPE_FN(avgpool2d) { return libops::ops::nn::pool2d_output_shape(block, shapes); }

DECLARE_TYPES(avgpool2d) {
  // On a device: through the backend's pooling (Note [nn ops on devices]).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(avgpool2d) {
  args.describe("2-D average pooling.");
  using namespace libops::ops::nn;
  pool2d_signature(args, "the mean of each window, [N, C, oH, oW] or [N, oH, oW, C]");
  args.i_arg("count_include_pad", 0, "1: divide by kH * kW (padding counts as zeros); 0: by the taps inside x")
      .flag();
  data_format_arg(args, true);
  args.i_arg("ceil_mode", 0, "1: round the output extent up (Note [Ceil mode] in conv_utils.h)").flag();
}
