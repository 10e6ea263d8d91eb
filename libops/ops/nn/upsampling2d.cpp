// upsampling2d: nearest-neighbour upsampling by whole factors (libnd4j's
// upsampling2d, Keras' UpSampling2D): each pixel repeated factor_h times
// down and factor_w times across.
//
//   input   x [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC, libnd4j's default)
//   i args  factor_h, factor_w >= 1, nchw (1: NCHW; 0, the default: NHWC)
//   output  [N, C, H fh, W fw] or [N, H fh, W fw, C]
//
// One copy on the call's device: z seen as [.., H, fh, W, fw, ..] is x
// broadcast along the two factor axes.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

Status upsample_dims(const Context& block, Dims& out) {
  const NDArray& x = *block.input(0);
  if (x.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, H, W] or [N, H, W, C]", x.shape().str().c_str());
  const int64_t fh = block.i_arg(0), fw = block.i_arg(1);
  const bool nchw = block.i_arg(2) == 1;
  out = nchw ? Dims{x.dim(0), x.dim(1), x.dim(2) * fh, x.dim(3) * fw} : Dims{x.dim(0), x.dim(1) * fh, x.dim(2) * fw, x.dim(3)};
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(upsampling2d, 1, 1, false, 0, 2) {
  using namespace libops;
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const int64_t fh = INT_ARG(0), fw = INT_ARG(1);
  const bool nchw = INT_ARG(2) == 1;
  // x with a unit axis after H and after W; z split the same way.
  const Dims xs = nchw ? Dims{x.dim(0), x.dim(1), x.dim(2), 1, x.dim(3), 1} : Dims{x.dim(0), x.dim(1), 1, x.dim(2), 1, x.dim(3)};
  const Dims zs = nchw ? Dims{x.dim(0), x.dim(1), x.dim(2), fh, x.dim(3), fw}
                       : Dims{x.dim(0), x.dim(1), fh, x.dim(2), fw, x.dim(3)};
  NDArray xv, zv;
  RETURN_IF_ERROR(ops::with_op_name(block, x.reshape(xs, xv)));
  RETURN_IF_ERROR(ops::with_op_name(block, z->reshape(zs, zv)));
  return ops::assign_on_device(block, zv, xv);  // broadcasts along the factor axes
}

DECLARE_SHAPE_FN(upsampling2d) {
  using namespace libops;
  Dims out;
  RETURN_IF_ERROR(ops::upsample_dims(block, out));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(upsampling2d) {
  // A broadcasting copy on the call's device.
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(upsampling2d) {
  args.describe("Nearest-neighbour upsampling by whole factors (each pixel repeated).");
  args.input("x", "[N, H, W, C] (NHWC, the default) or [N, C, H, W]");
  args.output("z", "each pixel repeated factor_h x factor_w times, x's dtype");
  args.i_arg("factor_h", "rows per input row").at_least(1);
  args.i_arg("factor_w", "columns per input column").at_least(1);
  args.i_arg("nchw", 0, "layout of x and z (libnd4j's isNCHW)").one_of({{0, "NHWC"}, {1, "NCHW"}});
}
