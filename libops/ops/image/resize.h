// The resampling engine of the resize op (and libnd4j's resize_bilinear,
// resize_nearest_neighbor and resize_bicubic): every output pixel is a
// weighted sum of source pixels, separable over height and width.
//
// Note [Resize taps]
// For each output row oy (and, alike, column ox) the host computes once the
// source coordinate and its taps: K source indices and K weights (K = 1
// nearest, 2 linear, 4 cubic), then
//   z[.., oy, ox, ..] = sum_a sum_b wy[oy][a] * wx[ox][b] * x[.., iy[oy][a], ix[ox][b], ..]
// The coordinate of output index o along an axis of in -> out elements
// (scale s: given, or out / in), ONNX Resize's coordinate modes:
//   half_pixel            (o + 0.5) / s - 0.5
//   asymmetric            o / s
//   align_corners         o * (in - 1) / (out - 1)   (0 when out == 1)
//   pytorch_half_pixel    half_pixel, or 0 when out == 1
//   tf_half_pixel_for_nn  (o + 0.5) / s
//   half_pixel_symmetric  half_pixel shifted by c * (1 - out / (s * in)),
//                         c = in / 2 (the same centre when out is rounded)
//   tf_crop_and_resize    the box [start, end] of the axis (roi, fractions of
//                         in - 1) sampled at out points: start (in - 1) +
//                         o (end - start) (in - 1) / (out - 1), or the box's
//                         centre when out == 1; an output whose coordinate
//                         falls outside [0, in - 1] on either axis is the
//                         extrapolation value (TensorFlow's crop_and_resize)
// nearest: the coordinate rounded by nearest_mode (round half down / up,
//   floor, ceil), clamped into [0, in - 1];
// linear: floor(c) and floor(c) + 1 weighted 1 - f and f (f = c - floor(c)),
//   indices clamped into [0, in - 1];
// cubic: floor(c) - 1 .. floor(c) + 2 with Keys' kernel of coefficient a
//   (cubic_coeff_a, -0.75 as ONNX and PyTorch; -0.5 as TensorFlow), indices
//   clamped; with exclude_outside, taps outside [0, in - 1] get weight 0 and
//   the rest are renormalized to sum to 1.
// antialias (linear and cubic, on an axis that shrinks, s < 1): the kernel
//   is stretched by 1 / s, so every source pixel under it counts: the taps
//   are f + i for i in [start, 1 - start), f = ceil(c) - 1 (the pixel left
//   of c, c itself excluded), start = floor(-1 / s) + 1 (linear, a triangle
//   of half-width 1 / s) or floor(-2 / s) + 1 (cubic), weighted by the
//   kernel at s (i - (c - f)) and normalized to sum to 1, then as above
//   (exclude_outside, clamping). PyTorch's interpolate(antialias=True) and
//   Pillow filter so; the tap count grows as s falls (4 at s = 1/2 linear).
// These are the ONNX reference's and ONNX Runtime's rules. The tables are
// computed in double on the host and handed to the device's kernel, so
// every device resamples from the same taps.
#pragma once

#include <cstdint>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/context.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops::image {

enum class ResizeMode : int { kNearest = 0, kLinear = 1, kCubic = 2 };
enum class CoordinateMode : int {
  kHalfPixel = 0, kAsymmetric = 1, kAlignCorners = 2, kPytorchHalfPixel = 3, kTfHalfPixelForNn = 4,
  kHalfPixelSymmetric = 5, kTfCropAndResize = 6,
};
enum class NearestMode : int { kRoundPreferFloor = 0, kRoundPreferCeil = 1, kFloor = 2, kCeil = 3 };

struct ResizeAxis {
  int64_t in = 0, out = 0;
  double scale = 0;  // 0: out / in
  double roi_start = 0, roi_end = 1;  // tf_crop_and_resize's box
};

struct ResizeSpec {
  ResizeMode mode = ResizeMode::kNearest;
  CoordinateMode coordinates = CoordinateMode::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;  // linear and cubic, on axes that shrink
  double extrapolation_value = 0;  // tf_crop_and_resize, outside the image
  // The taps per output along `axis` (Note [Resize taps]).
  int taps(const ResizeAxis& axis) const;
};

// One axis' taps: out * k indices and weights (Note [Resize taps]), k at
// least spec.taps(axis); the taps past those have weight 0. An output
// outside the image (tf_crop_and_resize) gets weight 0 and, when `outside`
// is given, outside[o] = 1 (else 0).
void resize_taps(const ResizeSpec& spec, const ResizeAxis& axis, int k, std::vector<int64_t>& index,
                 std::vector<double>& weight, std::vector<uint8_t>* outside = nullptr);

// The resampling as the kernels see it: x dense [outer, H, W, inner], z
// dense [outer, oH, oW, inner] (NCHW: outer N*C, inner 1; NHWC: outer N,
// inner C), the tap tables dense in the compute dtype (weights) and int64
// (indices).
struct ResizeDesc {
  int64_t outer = 0, h = 0, w = 0, inner = 0, oh = 0, ow = 0;
  int taps = 1;
};

using ResizeDeviceFn = Status (*)(Device device, DataType ct, const ResizeDesc& d, const NDArray& x,
                                  const NDArray& iy, const NDArray& wy, const NDArray& ix, const NDArray& wx,
                                  NDArray& z);
extern DeviceKernel<ResizeDeviceFn> resize_device_kernel;

// The op side: x [N, C, H, W] (NCHW) or [N, H, W, C] (nhwc) in any layout
// and float dtype, into z (x's dtype, [.., oH, oW, ..]) on block.device().
Status resize_exec(Context& block, const ResizeSpec& spec, const NDArray& x, bool nhwc, const ResizeAxis& ay,
                   const ResizeAxis& ax, NDArray& z);

}  // namespace libops::ops::image
