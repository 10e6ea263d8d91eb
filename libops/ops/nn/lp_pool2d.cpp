// lp_pool2d: the p-norm of each kH x kW window of every channel,
// (sum |x|^p)^(1/p) (ONNX LpPool, libnd4j's pnormpool2d, PyTorch's
// LPPool2d with |x|).
//
//   input   x: [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC), float
//   i args  0..8  kH, kW, sH, sW, pH, pW, dH, dW, same_mode (Note [Window
//                 arguments] in conv_utils.h)
//           9     p >= 1 (libnd4j's extraParam0 slot; default 2)
//           10    data_format: 0 = NCHW (default), 1 = NHWC
//           11    ceil_mode (Note [Ceil mode] in conv_utils.h)
//   output  avgpool2d's shape, x's dtype
//
// Padding, and the part of a ceil-mode window past the input, count as
// zeros. Built from abs, pow, pad (ceil mode), avgpool2d with
// count_include_pad (whose divisor is then kH * kW, so times kH * kW it is
// the window's sum) and multiply on the call's device (nested_call.h).
#include <algorithm>
#include <vector>

#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"
#include "libops/ops/nn/conv_utils.h"

namespace libops::ops {
namespace {

// x^e in place, e a scalar of x's dtype (e == 1: nothing to do).
Status power_in_place(const Context& block, NDArray& x, double e) {
  if (e == 1.0) return Status::ok();
  NDArray s;
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(x.dtype(), e, s)));
  return run_nested(block, "pow", {&x, &s}, {.inplace = true}, x);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(lp_pool2d, 1, 1, false, 0, 9) {
  using namespace libops;
  using namespace libops::ops;
  nn::Window2d win;
  nn::Geometry2d g;
  RETURN_IF_ERROR(nn::pool2d_geometry(block, win, g));
  const double p = static_cast<double>(INT_ARG(9));
  NDArray a, pooled, k;
  RETURN_IF_ERROR(run_nested(block, "abs", {INPUT_VARIABLE(0)}, {}, a));
  RETURN_IF_ERROR(power_in_place(block, a, p));
  std::vector<int64_t> window(block.i_args().begin(), block.i_args().begin() + 9);
  if (win.ceil && !win.same) {
    // avgpool2d's ceil-mode windows past the padded input divide by fewer
    // taps; zeros appended after the input make every window whole, so the
    // plain windows over them are the ceil-mode ones, each divided by kH * kW.
    const int64_t eff_h = (win.kh - 1) * win.dh + 1, eff_w = (win.kw - 1) * win.dw + 1;
    const int64_t extra_h = std::max<int64_t>(0, (g.oh - 1) * win.sh + eff_h - (g.h + 2 * win.ph));
    const int64_t extra_w = std::max<int64_t>(0, (g.ow - 1) * win.sw + eff_w - (g.w + 2 * win.pw));
    std::vector<int64_t> pads = g.nchw ? std::vector<int64_t>{0, 0, 0, 0, 0, extra_h, 0, extra_w}
                                       : std::vector<int64_t>{0, 0, 0, extra_h, 0, extra_w, 0, 0};
    pads.insert(pads.begin(), 0);  // mode: constant
    RETURN_IF_ERROR(run_nested(block, "pad", {&a}, {.t = {0.0}, .i = pads}, a));
  }
  window.push_back(1);                       // count_include_pad: divide by kH * kW
  window.push_back(g.nchw ? 0 : 1);          // data_format
  window.push_back(0);                       // ceil_mode: done by the zeros above
  RETURN_IF_ERROR(run_nested(block, "avgpool2d", {&a}, {.i = window}, pooled));
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(a.dtype(), static_cast<double>(win.kh * win.kw), k)));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&pooled, &k}, {.inplace = true}, pooled));
  RETURN_IF_ERROR(power_in_place(block, pooled, 1.0 / p));
  return block.store_result(0, pooled);
}

DECLARE_SHAPE_FN(lp_pool2d) { return libops::ops::nn::pool2d_output_shape(block, shapes); }

DECLARE_TYPES(lp_pool2d) {
  // Runs abs, pow, avgpool2d and multiply on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(lp_pool2d) {
  args.describe("2-D p-norm pooling: (sum of |x|^p over each window)^(1/p).");
  using namespace libops::ops::nn;
  pool2d_signature(args, "the p-norm of each window, [N, C, oH, oW] or [N, oH, oW, C]");
  args.i_arg("p", 2, "the norm's order").at_least(1);
  data_format_arg(args);
  args.i_arg("ceil_mode", 0, "1: round the output extent up (Note [Ceil mode] in conv_utils.h)").flag();
}

DECLARE_SYN(pnormpool2d, lp_pool2d)
