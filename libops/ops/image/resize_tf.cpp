// libnd4j's (and TensorFlow's) image resizes: resize_nearest_neighbor,
// resize_bilinear and resize_bicubic. Images are NHWC, [N, H, W, C] or one
// image [H, W, C]; the new size is input 1 ([height, width], integers) or
// i args height, width; b args align_corners and half_pixel_centers (not
// both). They run on the resize engine (Note [Resize taps]) with
// TensorFlow's rules written as ONNX's coordinate modes:
//   nearest   default: floor(o * in / out)             asymmetric, floor
//             align_corners: round(o * (in-1)/(out-1))  align_corners, round half up
//             half_pixel: floor((o + 0.5) * in / out)   tf_half_pixel_for_nn, floor
//   bilinear  asymmetric / align_corners / half_pixel
//   bicubic   the same coordinates; Keys' a = -0.5 with half-pixel centres,
//             -0.75 otherwise, and with half-pixel centres taps outside the
//             image weigh 0 (the rest renormalized), as TensorFlow's kernel
// Source indices clamp into the image in every mode, as TensorFlow's do.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/image/resize.h"
#include "libops/ops/host_reads.h"

namespace libops::ops::image {
namespace {

// The spec, the axes and whether x is one image [H, W, C].
Status tf_resize_call(const Context& block, ResizeMode mode, ResizeSpec& spec, ResizeAxis& ay, ResizeAxis& ax,
                      bool& single) {
  const NDArray& x = *block.input(0);
  REQUIRE_TRUE(x.rank() == 3 || x.rank() == 4, OPS_ERR_SHAPE, "images%s must be [N, H, W, C] or [H, W, C]",
               x.shape().str().c_str());
  single = x.rank() == 3;
  const bool align = block.b_arg(0), half_pixel = block.b_arg(1);
  REQUIRE_TRUE(!(align && half_pixel), 0, "align_corners and half_pixel_centers cannot both be true");
  int64_t height = block.i_arg(0), width = block.i_arg(1);
  if (block.num_inputs() > 1) {
    std::vector<int64_t> size;
    RETURN_IF_ERROR(block.int_values(1, "size", size));
    REQUIRE_TRUE(size.size() == 2, OPS_ERR_SHAPE, "size given as input 1 must hold [height, width], got %zu values",
                 size.size());
    height = size[0], width = size[1];
  }
  REQUIRE_TRUE(height > 0 && width > 0, 0,
               "the new size %lld x %lld must be positive (i args height and width, or input 1)",
               static_cast<long long>(height), static_cast<long long>(width));
  const int h_dim = single ? 0 : 1;
  REQUIRE_TRUE(x.dim(h_dim) > 0 && x.dim(h_dim + 1) > 0, OPS_ERR_SHAPE,
               "images%s have no pixels to resample from", x.shape().str().c_str());
  spec.mode = mode;
  spec.coordinates = align ? CoordinateMode::kAlignCorners
                     : half_pixel ? (mode == ResizeMode::kNearest ? CoordinateMode::kTfHalfPixelForNn
                                                                  : CoordinateMode::kHalfPixel)
                                  : CoordinateMode::kAsymmetric;
  spec.nearest = align ? NearestMode::kRoundPreferCeil : NearestMode::kFloor;
  spec.cubic_a = half_pixel ? -0.5 : -0.75;
  spec.exclude_outside = half_pixel;  // TensorFlow's Keys cubic: taps past the edge weigh 0, the rest renormalized
  ay = ResizeAxis{x.dim(h_dim), height, 0.0};
  ax = ResizeAxis{x.dim(h_dim + 1), width, 0.0};
  return Status::ok();
}

Status tf_resize(Context& block, ResizeMode mode) {
  ResizeSpec spec;
  ResizeAxis ay, ax;
  bool single = false;
  RETURN_IF_ERROR(tf_resize_call(block, mode, spec, ay, ax, single));
  const NDArray& x = *block.input(0);
  NDArray* z = block.output(0);
  if (!single) return resize_exec(block, spec, x, true, ay, ax, *z);
  NDArray x4, z4;  // one image: a batch of one
  RETURN_IF_ERROR(x.reshape(Dims{1, x.dim(0), x.dim(1), x.dim(2)}, x4));
  RETURN_IF_ERROR(z->reshape(Dims{1, z->dim(0), z->dim(1), z->dim(2)}, z4));
  return resize_exec(block, spec, x4, true, ay, ax, z4);
}

Status tf_resize_shape(Context& block, ResizeMode mode, ShapeList& shapes) {
  ResizeSpec spec;
  ResizeAxis ay, ax;
  bool single = false;
  RETURN_IF_ERROR(tf_resize_call(block, mode, spec, ay, ax, single));
  const NDArray& x = *block.input(0);
  const Dims shape = single ? Dims{ay.out, ax.out, x.dim(2)} : Dims{x.dim(0), ay.out, ax.out, x.dim(3)};
  shapes.push_back(TensorShape{x.dtype(), shape, 'c'});
  return Status::ok();
}

void tf_resize_args(OpSignature& args, const char* what) {
  args.describe(what);
  reads_on_host(args, "the size input when given (z's shape)");
  args.input("images", "[N, H, W, C] or [H, W, C]");
  args.optional_input("size", "[height, width], integers, instead of the i args");
  args.output("z", "images' dtype, [N, height, width, C] or [height, width, C]");
  args.i_arg("height", -1, "the new height (when not given as input 1)").at_least(-1);
  args.i_arg("width", -1, "the new width (when not given as input 1)").at_least(-1);
  args.b_arg("align_corners", false, "the corner pixels of input and output line up");
  args.b_arg("half_pixel_centers", false, "pixel centres at half-integer coordinates (TensorFlow 2's default)");
}

void tf_resize_types(OpDescriptor& descriptor) {
  // On a device through resize_device_kernel, as resize.
  descriptor.allow_input(0, types::kFloat).allow_input(1, types::kInt).runs_on_any_device();
  descriptor.allow_outputs(types::kFloat);
}

}  // namespace
}  // namespace libops::ops::image

using libops::ops::image::ResizeMode;

CUSTOM_OP_IMPL(resize_nearest_neighbor, -1, 1, false, 0, 0) {
  return libops::ops::image::tf_resize(block, ResizeMode::kNearest);
}
DECLARE_SHAPE_FN(resize_nearest_neighbor) {
  return libops::ops::image::tf_resize_shape(block, ResizeMode::kNearest, shapes);
}
DECLARE_TYPES(resize_nearest_neighbor) { libops::ops::image::tf_resize_types(descriptor); }
DECLARE_ARGS(resize_nearest_neighbor) {
  libops::ops::image::tf_resize_args(args, "Nearest-neighbour resize of NHWC images (libnd4j's and TensorFlow's).");
}

CUSTOM_OP_IMPL(resize_bilinear, -1, 1, false, 0, 0) {
  return libops::ops::image::tf_resize(block, ResizeMode::kLinear);
}
DECLARE_SHAPE_FN(resize_bilinear) { return libops::ops::image::tf_resize_shape(block, ResizeMode::kLinear, shapes); }
DECLARE_TYPES(resize_bilinear) { libops::ops::image::tf_resize_types(descriptor); }
DECLARE_ARGS(resize_bilinear) {
  libops::ops::image::tf_resize_args(args, "Bilinear resize of NHWC images (libnd4j's and TensorFlow's).");
}

CUSTOM_OP_IMPL(resize_bicubic, -1, 1, false, 0, 0) {
  return libops::ops::image::tf_resize(block, ResizeMode::kCubic);
}
DECLARE_SHAPE_FN(resize_bicubic) { return libops::ops::image::tf_resize_shape(block, ResizeMode::kCubic, shapes); }
DECLARE_TYPES(resize_bicubic) { libops::ops::image::tf_resize_types(descriptor); }
DECLARE_ARGS(resize_bicubic) {
  libops::ops::image::tf_resize_args(
      args, "Bicubic resize of NHWC images (libnd4j's and TensorFlow's; Keys' a = -0.5 with half-pixel centres).");
}
