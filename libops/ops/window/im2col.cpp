// im2col and col2im in libnd4j's layout: the patches of 2-D images and
// their sum back into place (libnd4j's im2col and col2im).
//
//   im2col  x [N, C, H, W] -> z [N, C, kH, kW, oH, oW]
//           i args kH, kW, sH, sW, pH, pW, dH, dW, same_mode; t arg
//           pad_value (what padded taps read, default 0)
//   col2im  x [N, C, kH, kW, oH, oW] -> z [N, C, H, W], each element the
//           sum of the patch entries that came from it
//           i args sH, sW, pH, pW, H, W, dH, dW, same_mode
//
// oH = (H + 2 pH - dH (kH - 1) - 1) / sH + 1 (floor), or ceil(H / sH) with
// same_mode, whose padding is TF's SAME (the odd one after). [kH, kW, oH,
// oW] is unfold's [taps, windows] (Note [Sliding windows] in window.h), so
// these are unfold and fold over the last two dims with a reshape, on the
// call's device; a nonzero pad value pads x with pad first.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {
namespace {

struct Patches {
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1, h = 0, w = 0, oh = 0, ow = 0;
  int64_t top = 0, bottom = 0, left = 0, right = 0;  // padding
};

// Padding and output extents of one spatial dim (explicit or SAME).
Status resolve_dim(const Context& block, const char* name, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                   bool same, int64_t& before, int64_t& after, int64_t& out) {
  const int64_t eff = d * (k - 1) + 1;
  if (same) {
    out = (in + s - 1) / s;
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + eff - in);
    before = total / 2;
    after = total - before;
    return Status::ok();
  }
  if (in + 2 * p < eff)
    return block.error(StatusCode::kInvalidArgument,
                       "the dilated kernel (%lld along %s) is larger than the padded input (%lld + 2 * %lld)",
                       static_cast<long long>(eff), name, static_cast<long long>(in), static_cast<long long>(p));
  before = after = p;
  out = (in + 2 * p - eff) / s + 1;
  return Status::ok();
}

Status checked_window(const Context& block, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                      int64_t dh, int64_t dw, bool same, int64_t h, int64_t w, Patches& p) {
  if (kh < 1 || kw < 1 || sh < 1 || sw < 1 || dh < 1 || dw < 1 || ph < 0 || pw < 0)
    return block.error(StatusCode::kInvalidArgument,
                       "kernel %lldx%lld, strides %lldx%lld and dilations %lldx%lld must be >= 1 and padding "
                       "%lldx%lld >= 0",
                       static_cast<long long>(kh), static_cast<long long>(kw), static_cast<long long>(sh),
                       static_cast<long long>(sw), static_cast<long long>(dh), static_cast<long long>(dw),
                       static_cast<long long>(ph), static_cast<long long>(pw));
  p.kh = kh, p.kw = kw, p.sh = sh, p.sw = sw, p.dh = dh, p.dw = dw, p.h = h, p.w = w;
  RETURN_IF_ERROR(resolve_dim(block, "H", h, kh, sh, ph, dh, same, p.top, p.bottom, p.oh));
  return resolve_dim(block, "W", w, kw, sw, pw, dw, same, p.left, p.right, p.ow);
}

Status im2col_window(const Context& block, Patches& p) {
  const NDArray& x = *block.input(0);
  if (x.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, H, W]", x.shape().str().c_str());
  return checked_window(block, block.i_arg(0), block.i_arg(1), block.i_arg(2), block.i_arg(3), block.i_arg(4),
                        block.i_arg(5), block.i_arg(6), block.i_arg(7), block.i_arg(8) == 1, x.dim(2), x.dim(3), p);
}

Status col2im_window(const Context& block, Patches& p) {
  const NDArray& x = *block.input(0);
  if (x.rank() != 6)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, kH, kW, oH, oW]", x.shape().str().c_str());
  RETURN_IF_ERROR(checked_window(block, x.dim(2), x.dim(3), block.i_arg(0), block.i_arg(1), block.i_arg(2),
                                 block.i_arg(3), block.i_arg(6), block.i_arg(7), block.i_arg(8) == 1, block.i_arg(4),
                                 block.i_arg(5), p));
  if (p.oh != x.dim(4) || p.ow != x.dim(5))
    return block.error(StatusCode::kInvalidArgument,
                       "x%s holds %lldx%lld patches, but an image of %lldx%lld with these args has %lldx%lld",
                       x.shape().str().c_str(), static_cast<long long>(x.dim(4)), static_cast<long long>(x.dim(5)),
                       static_cast<long long>(p.h), static_cast<long long>(p.w), static_cast<long long>(p.oh),
                       static_cast<long long>(p.ow));
  return Status::ok();
}

// The window list of unfold (and, after the output sizes, of fold).
std::vector<int64_t> window_list(const Patches& p, bool padded) {
  return {p.kh, p.kw, p.sh, p.sw, p.dh, p.dw, padded ? p.top : 0, padded ? p.bottom : 0, padded ? p.left : 0,
          padded ? p.right : 0};
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(im2col, 1, 1, false, 0, 2) {
  using namespace libops;
  using namespace libops::ops;
  Patches p;
  RETURN_IF_ERROR(im2col_window(block, p));
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray padded = x, cols, view;
  const double pad_value = block.t_arg(0);
  const bool pad_first = pad_value != 0 && (p.top || p.bottom || p.left || p.right);
  if (pad_first)  // unfold pads with zeros: other values come from pad
    RETURN_IF_ERROR(run_nested(block, "pad", {&x}, {.t = {pad_value}, .i = {0, 0, 0, 0, 0, p.top, p.bottom, p.left,
                                                                           p.right}}, padded));
  RETURN_IF_ERROR(run_nested(block, "unfold", {&padded}, {.i = window_list(p, !pad_first)}, cols));
  RETURN_IF_ERROR(with_op_name(block, cols.reshape(Dims{x.dim(0), x.dim(1), p.kh, p.kw, p.oh, p.ow}, view)));
  return block.store_result(0, view);
}

DECLARE_SHAPE_FN(im2col) {
  using namespace libops;
  ops::Patches p;
  RETURN_IF_ERROR(ops::im2col_window(block, p));
  const NDArray& x = *INPUT_VARIABLE(0);
  shapes.push_back(TensorShape{x.dtype(), Dims{x.dim(0), x.dim(1), p.kh, p.kw, p.oh, p.ow}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(im2col) {
  // Runs pad and unfold on the call's device.
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
}

DECLARE_ARGS(im2col) {
  args.describe("The kH x kW patches of images, libnd4j's layout: [N, C, H, W] -> [N, C, kH, kW, oH, oW].");
  args.input("x", "[N, C, H, W]");
  args.output("z", "[N, C, kH, kW, oH, oW]: z[n, c, i, j, y, x] = x[n, c, y sH + i dH - pad_top, x sW + j dW - "
                   "pad_left], pad_value outside");
  args.i_arg("kH", "kernel height").at_least(1);
  args.i_arg("kW", "kernel width").at_least(1);
  args.i_arg("sH", 1, "stride along H").at_least(1);
  args.i_arg("sW", 1, "stride along W").at_least(1);
  args.i_arg("pH", 0, "padding above and below (when same_mode is 0)").at_least(0);
  args.i_arg("pW", 0, "padding left and right (when same_mode is 0)").at_least(0);
  args.i_arg("dH", 1, "dilation along H").at_least(1);
  args.i_arg("dW", 1, "dilation along W").at_least(1);
  args.i_arg("same_mode", 0, "1: TF's SAME padding, oH = ceil(H / sH)").flag();
  args.t_arg("pad_value", 0.0, "what taps in the padding read").finite();
}

CUSTOM_OP_IMPL(col2im, 1, 1, false, 0, 6) {
  using namespace libops;
  using namespace libops::ops;
  Patches p;
  RETURN_IF_ERROR(col2im_window(block, p));
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray dense, cols, z;  // merging the patch dims needs x dense
  RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), dense));
  RETURN_IF_ERROR(with_op_name(block, dense.reshape(Dims{x.dim(0), x.dim(1), p.kh * p.kw, p.oh * p.ow}, cols)));
  std::vector<int64_t> list{p.h, p.w};
  for (int64_t v : window_list(p, true)) list.push_back(v);
  RETURN_IF_ERROR(run_nested(block, "fold", {&cols}, {.i = list}, z));
  return block.store_result(0, z);
}

DECLARE_SHAPE_FN(col2im) {
  using namespace libops;
  ops::Patches p;
  RETURN_IF_ERROR(ops::col2im_window(block, p));
  const NDArray& x = *INPUT_VARIABLE(0);
  shapes.push_back(TensorShape{x.dtype(), Dims{x.dim(0), x.dim(1), p.h, p.w}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(col2im) {
  // Runs fold on the call's device.
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
}

DECLARE_ARGS(col2im) {
  args.describe("Sums image patches back into place (im2col's adjoint): [N, C, kH, kW, oH, oW] -> [N, C, H, W].");
  args.input("x", "[N, C, kH, kW, oH, oW] patches");
  args.output("z", "[N, C, H, W]: each element the sum of the patch entries taken from it (0 where none)");
  args.i_arg("sH", "stride along H").at_least(1);
  args.i_arg("sW", "stride along W").at_least(1);
  args.i_arg("pH", "padding above and below (when same_mode is 0)").at_least(0);
  args.i_arg("pW", "padding left and right (when same_mode is 0)").at_least(0);
  args.i_arg("H", "image height").at_least(1);
  args.i_arg("W", "image width").at_least(1);
  args.i_arg("dH", 1, "dilation along H").at_least(1);
  args.i_arg("dW", 1, "dilation along W").at_least(1);
  args.i_arg("same_mode", 0, "1: TF's SAME padding").flag();
}
