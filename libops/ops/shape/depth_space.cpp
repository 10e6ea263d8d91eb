// depth_to_space and space_to_depth: channels moved into b x b spatial
// blocks and back (ONNX DepthToSpace / SpaceToDepth, TF's and libnd4j's
// depth_to_space / space_to_depth).
//
//   depth_to_space  [N, C, H, W] -> [N, C / b^2, H b, W b] (NCHW), or the
//                   NHWC equivalent; mode DCR (the default: ONNX's default,
//                   TF's order: depth index = (i b + j) C' + c) or CRD
//                   (c b^2 + i b + j)
//   space_to_depth  the inverse of DCR depth_to_space: [N, C, H, W] ->
//                   [N, C b^2, H / b, W / b]
//   i args          block_size >= 1, data_format (0 NCHW, 1 NHWC), and
//                   depth_to_space's mode (0 DCR, 1 CRD)
//
// A reshape, a permuted view and one copy on the call's device.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

struct Blocks {
  int64_t n = 0, c = 0, h = 0, w = 0, b = 1;
  bool nchw = true, crd = false;
};

Status read_blocks(const Context& block, bool to_space, Blocks& k) {
  const NDArray& x = *block.input(0);
  k.b = block.i_arg(0);
  k.nchw = block.i_arg(1) == 0;
  k.crd = to_space && block.i_arg(2) == 1;
  if (x.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, H, W] or [N, H, W, C]", x.shape().str().c_str());
  k.n = x.dim(0);
  k.c = x.dim(k.nchw ? 1 : 3);
  k.h = x.dim(k.nchw ? 2 : 1);
  k.w = x.dim(k.nchw ? 3 : 2);
  if (to_space && k.c % (k.b * k.b) != 0)
    return block.error(StatusCode::kInvalidArgument, "the %lld channels of x%s are not a multiple of block_size^2 = %lld",
                       static_cast<long long>(k.c), x.shape().str().c_str(), static_cast<long long>(k.b * k.b));
  if (!to_space && (k.h % k.b != 0 || k.w % k.b != 0))
    return block.error(StatusCode::kInvalidArgument, "the height and width of x%s are not multiples of block_size %lld",
                       x.shape().str().c_str(), static_cast<long long>(k.b));
  return Status::ok();
}

Dims result_dims(const Blocks& k, bool to_space) {
  const int64_t c = to_space ? k.c / (k.b * k.b) : k.c * k.b * k.b;
  const int64_t h = to_space ? k.h * k.b : k.h / k.b, w = to_space ? k.w * k.b : k.w / k.b;
  return k.nchw ? Dims{k.n, c, h, w} : Dims{k.n, h, w, c};
}

// x as a rank-6 view whose C-order copy is z: the one place the layouts
// differ.
Status rearranged_view(const NDArray& x, const Blocks& k, bool to_space, NDArray& out) {
  const int64_t b = k.b;
  NDArray v;
  if (to_space) {
    const int64_t c = k.c / (b * b);
    if (k.nchw) {
      RETURN_IF_ERROR(x.reshape(k.crd ? Dims{k.n, c, b, b, k.h, k.w} : Dims{k.n, b, b, c, k.h, k.w}, v));
      return v.permute(k.crd ? Dims{0, 1, 4, 2, 5, 3} : Dims{0, 3, 4, 1, 5, 2}, out);  // [N, c, H, b, W, b]
    }
    RETURN_IF_ERROR(x.reshape(k.crd ? Dims{k.n, k.h, k.w, c, b, b} : Dims{k.n, k.h, k.w, b, b, c}, v));
    return v.permute(k.crd ? Dims{0, 1, 4, 2, 5, 3} : Dims{0, 1, 3, 2, 4, 5}, out);    // [N, H, b, W, b, c]
  }
  if (k.nchw) {
    RETURN_IF_ERROR(x.reshape(Dims{k.n, k.c, k.h / b, b, k.w / b, b}, v));
    return v.permute(Dims{0, 3, 5, 1, 2, 4}, out);  // [N, b, b, C, H/b, W/b]
  }
  RETURN_IF_ERROR(x.reshape(Dims{k.n, k.h / b, b, k.w / b, b, k.c}, v));
  return v.permute(Dims{0, 1, 3, 2, 4, 5}, out);    // [N, H/b, W/b, b, b, C]
}

Status depth_space_exec(Context& block, bool to_space) {
  Blocks k;
  RETURN_IF_ERROR(read_blocks(block, to_space, k));
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  NDArray x, view, z6;
  RETURN_IF_ERROR(dense_on_device(block, *block.input(0), block.input(0)->dtype(), x));  // the reshape needs it dense
  RETURN_IF_ERROR(with_op_name(block, rearranged_view(x, k, to_space, view)));
  RETURN_IF_ERROR(with_op_name(block, z->reshape(view.shape(), z6)));
  return assign_on_device(block, z6, view);
}

Status depth_space_shape(Context& block, bool to_space, ShapeList& shapes) {
  Blocks k;
  RETURN_IF_ERROR(read_blocks(block, to_space, k));
  shapes.push_back(TensorShape{block.input(0)->dtype(), result_dims(k, to_space), 'c'});
  return Status::ok();
}

void depth_space_args(OpSignature& args) {
  args.input("x", "[N, C, H, W] (NCHW) or [N, H, W, C] (NHWC), any dtype");
  args.i_arg("block_size", "the block's side b").at_least(1);
  args.i_arg("data_format", 0, "layout of x and z").one_of({{0, "NCHW"}, {1, "NHWC"}});
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(depth_to_space, 1, 1, false, 0, 1) { return libops::ops::depth_space_exec(block, true); }

DECLARE_SHAPE_FN(depth_to_space) { return libops::ops::depth_space_shape(block, true, shapes); }

DECLARE_TYPES(depth_to_space) {
  // A copy of a permuted view on the call's device.
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(depth_to_space) {
  args.describe("Moves channels into b x b spatial blocks: [N, C, H, W] -> [N, C / b^2, H b, W b].");
  libops::ops::depth_space_args(args);
  args.output("z", "[N, C / b^2, H b, W b] (or NHWC), x's dtype");
  args.i_arg("mode", 0, "the channel order within a block").one_of({{0, "DCR (ONNX default, TF)"}, {1, "CRD"}});
}

CUSTOM_OP_IMPL(space_to_depth, 1, 1, false, 0, 1) { return libops::ops::depth_space_exec(block, false); }

DECLARE_SHAPE_FN(space_to_depth) { return libops::ops::depth_space_shape(block, false, shapes); }

DECLARE_TYPES(space_to_depth) {
  // A copy of a permuted view on the call's device.
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(space_to_depth) {
  args.describe("Moves b x b spatial blocks into channels: [N, C, H, W] -> [N, C b^2, H / b, W / b].");
  libops::ops::depth_space_args(args);
  args.output("z", "[N, C b^2, H / b, W / b] (or NHWC), x's dtype; depth index (i b + j) C + c");
}
