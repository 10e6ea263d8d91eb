// libnd4j's colour-space conversions (images.h), with TensorFlow's matrices
// and formulas (tf.image.rgb_to_yuv etc.): rgb_to_yuv, yuv_to_rgb,
// rgb_to_yiq, yiq_to_rgb, rgb_to_grs, rgb_to_hsv and hsv_to_rgb.
//
//   input   images of any rank >= 1 with 3 channels along dim_c (float;
//           rgb_to_grs takes integers too)
//   i arg   0 dim_c (libnd4j's dimC): the channel axis, default -1 (last)
//   output  images' shape and dtype; rgb_to_grs keeps dim_c with extent 1
//
// The linear ones are out_k = sum_j in_j * K[j][k] with TensorFlow's
// kernels K; grayscale is 0.2989 R + 0.5870 G + 0.1140 B (integers
// truncate toward zero, as libnd4j's float-to-T store). HSV has H, S and V
// in [0, 1]:
//   V = max(R, G, B), C = V - min(R, G, B), S = C / V (0 where V = 0),
//   H = (G - B) / 6C when V = R (wrapped into [0, 1)), (B - R) / 6C + 1/3
//   when V = G, (R - G) / 6C + 2/3 otherwise, and 0 where C = 0;
// back: with c = S V and h6 = 6 H, each channel is V - c + c f with
// f_R = clamp(|h6 - 3| - 1), f_G = clamp(2 - |h6 - 2|), f_B = clamp(2 - |h6 - 4|)
// (TensorFlow's kernel). H is first wrapped into [0, 1) (H - floor(H)):
// within [0, 1] that changes nothing (H = 1 is H = 0), and outside it
// libnd4j's sector branches and TensorFlow's clamps disagree, so a hue
// that went round is taken round.
//
// Each is built from channel views (slices along dim_c) and element-wise
// ops on the call's device, in float32 (float64 for float64 images); the
// results are written into views of z.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

namespace libops::ops::image {
namespace {

using Kernel = double[3][3];

// TensorFlow's kernels (image_ops_impl.py): rows are input channels.
constexpr Kernel kRgbToYuv = {{0.299, -0.14714119, 0.61497538},
                              {0.587, -0.28886916, -0.51496512},
                              {0.114, 0.43601035, -0.10001026}};
constexpr Kernel kYuvToRgb = {{1, 1, 1}, {0, -0.394642334, 2.03206185}, {1.13988303, -0.58062185, 0}};
constexpr Kernel kRgbToYiq = {{0.299, 0.59590059, 0.2115},
                              {0.587, -0.27455667, -0.52273617},
                              {0.114, -0.32134392, 0.31119955}};
constexpr Kernel kYiqToRgb = {{1, 1, 1}, {0.95598634, -0.27201283, -1.10674021}, {0.6208248, -0.64720424, 1.70423049}};
constexpr double kGray[3] = {0.2989, 0.5870, 0.1140};

int channel_axis(const Context& block) {
  const int64_t c = block.i_arg(0);  // the signature checked it is an axis of images
  return static_cast<int>(c < 0 ? c + block.input(0)->rank() : c);
}

// What the shape functions share: 3 channels along dim_c.
Status check_channels(const Context& block, const char* space) {
  const NDArray& x = *block.input(0);
  const int c = channel_axis(block);
  REQUIRE_TRUE(x.dim(c) == 3, OPS_ERR_SHAPE, "images%s have %lld channels along dim_c = %d: %s needs 3",
               x.shape().str().c_str(), static_cast<long long>(x.dim(c)), c, space);
  return Status::ok();
}

Status same_shape_out(Context& block, const char* space, ShapeList& shapes) {
  RETURN_IF_ERROR(check_channels(block, space));
  const NDArray& x = *block.input(0);
  shapes.push_back(TensorShape{x.dtype(), x.shape(), 'c'});
  return Status::ok();
}

DataType compute_dtype(DataType t) { return t == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32; }

// Channel k of x (a view keeping dim_c as extent 1), in dtype `cf`.
Status channel(const Context& block, const NDArray& x, int axis, int k, DataType cf, NDArray& out) {
  NDArray view;
  RETURN_IF_ERROR(with_op_name(block, x.slice(axis, k, k + 1, 1, view)));
  if (view.dtype() == cf) {
    out = view;
    return Status::ok();
  }
  return run_nested(block, "cast", {&view}, {.i = {static_cast<int64_t>(cf)}}, out);
}

Status channels(const Context& block, DataType cf, NDArray (&out)[3]) {
  const int axis = channel_axis(block);
  for (int k = 0; k < 3; ++k) RETURN_IF_ERROR(channel(block, *block.input(0), axis, k, cf, out[k]));
  return Status::ok();
}

// Writes `value` (one channel) into channel k of z.
Status store_channel(Context& block, int k, const NDArray& value) {
  NDArray view;
  RETURN_IF_ERROR(with_op_name(block, block.output(0)->slice(channel_axis(block), k, k + 1, 1, view)));
  return assign_on_device(block, view, value);
}

Status constant(const Context& block, DataType t, double v, NDArray& out) {
  return with_op_name(block, NDArray::scalar(t, v, out));
}

Status binary(const Context& block, const char* op, const NDArray& a, const NDArray& b, NDArray& out) {
  return run_nested(block, op, {&a, &b}, {}, out);
}

// sum_j in[j] * w[j] (zero weights skipped).
Status weighted_sum(const Context& block, const NDArray (&in)[3], const double (&w)[3], NDArray& out) {
  out = NDArray();
  for (int j = 0; j < 3; ++j) {
    if (w[j] == 0) continue;
    NDArray weight, term;
    RETURN_IF_ERROR(constant(block, in[j].dtype(), w[j], weight));
    RETURN_IF_ERROR(binary(block, "multiply", in[j], weight, term));
    if (out.is_null()) out = term;
    else RETURN_IF_ERROR(binary(block, "add", out, term, out));
  }
  return Status::ok();
}

Status run_linear(Context& block, const Kernel& m) {
  if (block.output(0)->length() == 0) return Status::ok();
  NDArray in[3];
  RETURN_IF_ERROR(channels(block, compute_dtype(block.input(0)->dtype()), in));
  for (int k = 0; k < 3; ++k) {
    const double w[3] = {m[0][k], m[1][k], m[2][k]};
    NDArray out;
    RETURN_IF_ERROR(weighted_sum(block, in, w, out));
    RETURN_IF_ERROR(store_channel(block, k, out));
  }
  return Status::ok();
}

Status run_grayscale(Context& block) {
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  NDArray in[3], gray;
  RETURN_IF_ERROR(channels(block, compute_dtype(block.input(0)->dtype()), in));
  RETURN_IF_ERROR(weighted_sum(block, in, kGray, gray));
  return assign_on_device(block, *z, gray);  // z has extent 1 along dim_c, as gray
}

Status run_rgb_to_hsv(Context& block) {
  if (block.output(0)->length() == 0) return Status::ok();
  const DataType cf = compute_dtype(block.input(0)->dtype());
  NDArray in[3];
  RETURN_IF_ERROR(channels(block, cf, in));
  const NDArray &r = in[0], &g = in[1], &b = in[2];
  NDArray t, v, lo, c, s, c2, c4, c6, six, one;
  RETURN_IF_ERROR(binary(block, "maximum", r, g, t));
  RETURN_IF_ERROR(binary(block, "maximum", t, b, v));
  RETURN_IF_ERROR(binary(block, "minimum", r, g, t));
  RETURN_IF_ERROR(binary(block, "minimum", t, b, lo));
  RETURN_IF_ERROR(binary(block, "subtract", v, lo, c));
  RETURN_IF_ERROR(binary(block, "divide_no_nan", c, v, s));  // 0 for black
  // The hue's numerator in units of C/6 per sector: G - B (red sector),
  // B - R + 2C (green), R - G + 4C (blue); red wins ties, then green.
  NDArray is_r, is_g, nr, ng, nb, num, h6, h;
  RETURN_IF_ERROR(binary(block, "equal", v, r, is_r));
  RETURN_IF_ERROR(binary(block, "equal", v, g, is_g));
  RETURN_IF_ERROR(binary(block, "add", c, c, c2));
  RETURN_IF_ERROR(binary(block, "add", c2, c2, c4));
  RETURN_IF_ERROR(binary(block, "subtract", g, b, nr));
  RETURN_IF_ERROR(binary(block, "subtract", b, r, t));
  RETURN_IF_ERROR(binary(block, "add", t, c2, ng));
  RETURN_IF_ERROR(binary(block, "subtract", r, g, t));
  RETURN_IF_ERROR(binary(block, "add", t, c4, nb));
  RETURN_IF_ERROR(run_nested(block, "where", {&is_g, &ng, &nb}, {}, t));
  RETURN_IF_ERROR(run_nested(block, "where", {&is_r, &nr, &t}, {}, num));
  RETURN_IF_ERROR(constant(block, cf, 6.0, six));
  RETURN_IF_ERROR(constant(block, cf, 1.0, one));
  RETURN_IF_ERROR(binary(block, "multiply", c, six, c6));
  RETURN_IF_ERROR(binary(block, "divide_no_nan", num, c6, h6));  // a gray has C = 0 and num = 0: hue 0
  RETURN_IF_ERROR(binary(block, "floor_mod", h6, one, h));       // the red sector's negative half wraps to 1
  RETURN_IF_ERROR(store_channel(block, 0, h));
  RETURN_IF_ERROR(store_channel(block, 1, s));
  return store_channel(block, 2, v);
}

Status run_hsv_to_rgb(Context& block) {
  if (block.output(0)->length() == 0) return Status::ok();
  const DataType cf = compute_dtype(block.input(0)->dtype());
  NDArray in[3];
  RETURN_IF_ERROR(channels(block, cf, in));
  NDArray one, six, h, h6, c, m;
  RETURN_IF_ERROR(constant(block, cf, 1.0, one));
  RETURN_IF_ERROR(constant(block, cf, 6.0, six));
  RETURN_IF_ERROR(binary(block, "floor_mod", in[0], one, h));
  RETURN_IF_ERROR(binary(block, "multiply", h, six, h6));
  RETURN_IF_ERROR(binary(block, "multiply", in[1], in[2], c));
  RETURN_IF_ERROR(binary(block, "subtract", in[2], c, m));
  // f_R = |h6 - 3| - 1, f_G = 2 - |h6 - 2|, f_B = 2 - |h6 - 4|, each clamped to [0, 1].
  const double centre[3] = {3, 2, 4};
  for (int k = 0; k < 3; ++k) {
    NDArray at, t, dist, f, out;
    RETURN_IF_ERROR(constant(block, cf, centre[k], at));
    RETURN_IF_ERROR(binary(block, "subtract", h6, at, t));
    RETURN_IF_ERROR(run_nested(block, "abs", {&t}, {}, dist));
    if (k == 0) {
      RETURN_IF_ERROR(binary(block, "subtract", dist, one, f));
    } else {
      NDArray two;
      RETURN_IF_ERROR(constant(block, cf, 2.0, two));
      RETURN_IF_ERROR(binary(block, "subtract", two, dist, f));
    }
    RETURN_IF_ERROR(run_nested(block, "clip", {&f}, {.t = {0.0, 1.0}}, t));
    RETURN_IF_ERROR(binary(block, "multiply", t, c, f));
    RETURN_IF_ERROR(binary(block, "add", f, m, out));
    RETURN_IF_ERROR(store_channel(block, k, out));
  }
  return Status::ok();
}

void colour_args(OpSignature& args, const char* what, const char* from, const char* to) {
  args.describe(what);
  args.input("images", from);
  args.output("z", to);
  args.i_arg("dim_c", -1, "the channel axis (libnd4j's dimC)").axis(0);
}

void float_types(OpDescriptor& descriptor) {
  descriptor.allow_inputs(types::kFloat).allow_outputs(types::kFloat).runs_on_any_device();  // nested ops
}

}  // namespace
}  // namespace libops::ops::image

namespace image = libops::ops::image;

CUSTOM_OP_IMPL(rgb_to_yuv, 1, 1, false, 0, 0) { return image::run_linear(block, image::kRgbToYuv); }
DECLARE_SHAPE_FN(rgb_to_yuv) { return image::same_shape_out(block, "RGB", shapes); }
DECLARE_TYPES(rgb_to_yuv) { image::float_types(descriptor); }
DECLARE_ARGS(rgb_to_yuv) {
  image::colour_args(args, "RGB to YUV (TensorFlow's kernel) along the channel axis.", "RGB, 3 channels along dim_c",
                     "YUV: Y in [0, 1], U and V in about [-0.5, 0.5] for RGB in [0, 1]");
}

CUSTOM_OP_IMPL(yuv_to_rgb, 1, 1, false, 0, 0) { return image::run_linear(block, image::kYuvToRgb); }
DECLARE_SHAPE_FN(yuv_to_rgb) { return image::same_shape_out(block, "YUV", shapes); }
DECLARE_TYPES(yuv_to_rgb) { image::float_types(descriptor); }
DECLARE_ARGS(yuv_to_rgb) {
  image::colour_args(args, "YUV to RGB (TensorFlow's kernel) along the channel axis.", "YUV, 3 channels along dim_c",
                     "RGB");
}

CUSTOM_OP_IMPL(rgb_to_yiq, 1, 1, false, 0, 0) { return image::run_linear(block, image::kRgbToYiq); }
DECLARE_SHAPE_FN(rgb_to_yiq) { return image::same_shape_out(block, "RGB", shapes); }
DECLARE_TYPES(rgb_to_yiq) { image::float_types(descriptor); }
DECLARE_ARGS(rgb_to_yiq) {
  image::colour_args(args, "RGB to YIQ (TensorFlow's kernel) along the channel axis.", "RGB, 3 channels along dim_c",
                     "YIQ");
}

CUSTOM_OP_IMPL(yiq_to_rgb, 1, 1, false, 0, 0) { return image::run_linear(block, image::kYiqToRgb); }
DECLARE_SHAPE_FN(yiq_to_rgb) { return image::same_shape_out(block, "YIQ", shapes); }
DECLARE_TYPES(yiq_to_rgb) { image::float_types(descriptor); }
DECLARE_ARGS(yiq_to_rgb) {
  image::colour_args(args, "YIQ to RGB (TensorFlow's kernel) along the channel axis.", "YIQ, 3 channels along dim_c",
                     "RGB");
}

CUSTOM_OP_IMPL(rgb_to_grs, 1, 1, false, 0, 0) { return image::run_grayscale(block); }
DECLARE_SHAPE_FN(rgb_to_grs) {
  using namespace libops;
  RETURN_IF_ERROR(image::check_channels(block, "RGB"));
  const NDArray& x = *INPUT_VARIABLE(0);
  Dims s = x.shape();
  s[image::channel_axis(block)] = 1;
  shapes.push_back(TensorShape{x.dtype(), s, 'c'});
  return Status::ok();
}
DECLARE_TYPES(rgb_to_grs) {
  descriptor.allow_inputs(libops::types::kNumeric).allow_outputs(libops::types::kNumeric).runs_on_any_device();
}
DECLARE_ARGS(rgb_to_grs) {
  image::colour_args(args, "RGB to grayscale, 0.2989 R + 0.5870 G + 0.1140 B, along the channel axis.",
                     "RGB, 3 channels along dim_c",
                     "gray: images' shape with extent 1 along dim_c, images' dtype (integers truncated)");
}

CUSTOM_OP_IMPL(rgb_to_hsv, 1, 1, false, 0, 0) { return image::run_rgb_to_hsv(block); }
DECLARE_SHAPE_FN(rgb_to_hsv) { return image::same_shape_out(block, "RGB", shapes); }
DECLARE_TYPES(rgb_to_hsv) { image::float_types(descriptor); }
DECLARE_ARGS(rgb_to_hsv) {
  image::colour_args(args, "RGB to HSV (TensorFlow's and libnd4j's formulas) along the channel axis.",
                     "RGB, 3 channels along dim_c", "HSV, each in [0, 1] for RGB in [0, 1]");
}

CUSTOM_OP_IMPL(hsv_to_rgb, 1, 1, false, 0, 0) { return image::run_hsv_to_rgb(block); }
DECLARE_SHAPE_FN(hsv_to_rgb) { return image::same_shape_out(block, "HSV", shapes); }
DECLARE_TYPES(hsv_to_rgb) { image::float_types(descriptor); }
DECLARE_ARGS(hsv_to_rgb) {
  image::colour_args(args, "HSV to RGB (TensorFlow's formula) along the channel axis; the hue wraps around.",
                     "HSV, 3 channels along dim_c; H in turns (1 = 360 degrees)", "RGB");
}
