// deform_conv2d's sampling step (deform_conv2d.cpp, .cu): one loop body for
// the CPU and the device.
//
// Note [Deformable convolution]
// A deformable convolution (ONNX's DeformConv, torchvision's deform_conv2d)
// reads each kernel tap not at its place on the grid but displaced by a
// learned offset per output position, bilinearly: tap (i, j) of output
// (oy, ox) reads x at
//   y = oy sH - pad_top + i dH + offset_y,  x = ox sW - pad_left + j dW + offset_x
// where a neighbour outside the image reads 0, optionally times a mask
// value (DCNv2). The offsets and mask come per offset group of channels.
// As im2col does for a convolution, the samples become columns
// [C kH kW, oH oW] per image (this loop body), and each group of output
// channels is its weights [oC / g, C / g kH kW] times its rows of the
// columns, one batched GEMM (blas/) on the call's device.
#pragma once

#include <cmath>
#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct DeformDesc {
  int64_t c = 0, h = 0, w = 0;    // x [N, C, H, W]
  int64_t kh = 1, kw = 1;         // the kernel
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;  // strides, top / left pads, dilations
  int64_t oh = 0, ow = 0;         // z's extents (offset's)
  int64_t offset_groups = 1;
  bool has_mask = false;
};

// Column element e of one image: e = (ch kH kW + tap) oH oW + position,
// from that image's x [C, H, W], offset [og 2 kH kW, oH, oW] (dy, dx per
// tap) and mask [og kH kW, oH, oW], dense in the compute dtype. A sample
// whose position is not finite is NaN.
template <typename C>
LIBOPS_HOST_DEVICE inline void deform_column(const DeformDesc& d, const C* x, const C* offset, const C* mask, int64_t e,
                                             C* col) {
  const int64_t positions = d.oh * d.ow, taps = d.kh * d.kw;
  const int64_t p = e % positions, k = (e / positions) % taps, ch = e / (positions * taps);
  const int64_t g = ch / (d.c / d.offset_groups);
  const int64_t oy = p / d.ow, ox = p % d.ow, i = k / d.kw, j = k % d.kw;
  const C dy = offset[((g * taps + k) * 2) * positions + p], dx = offset[((g * taps + k) * 2 + 1) * positions + p];
  const C y = static_cast<C>(oy * d.sh - d.ph + i * d.dh) + dy, xx = static_cast<C>(ox * d.sw - d.pw + j * d.dw) + dx;
  if (!std::isfinite(y) || !std::isfinite(xx)) {
    col[e] = C(NAN);
    return;
  }
  const C* img = x + ch * d.h * d.w;
  // Only positions inside the image reach the integer conversion.
  auto pixel = [&](C r, C c) -> C {
    return r >= C(0) && r <= static_cast<C>(d.h - 1) && c >= C(0) && c <= static_cast<C>(d.w - 1)
               ? img[static_cast<int64_t>(r) * d.w + static_cast<int64_t>(c)]
               : C(0);
  };
  const C y0 = std::floor(y), x0 = std::floor(xx);
  const C ty = y - y0, tx = xx - x0;
  const C top = (C(1) - tx) * pixel(y0, x0) + tx * pixel(y0, x0 + C(1));
  const C bottom = (C(1) - tx) * pixel(y0 + C(1), x0) + tx * pixel(y0 + C(1), x0 + C(1));
  C v = (C(1) - ty) * top + ty * bottom;
  if (d.has_mask) v *= mask[(g * taps + k) * positions + p];
  col[e] = v;
}

// One image's columns [C kH kW, oH oW] into cols on `device`: x, offset
// and mask (nullptr: none) dense in cols' dtype (float32 or float64), image
// `image` of each.
using DeformColumnsFn = Status (*)(Device device, const DeformDesc& d, const NDArray& x, const NDArray& offset,
                                   const NDArray* mask, int64_t image, NDArray& cols);
extern DeviceKernel<DeformColumnsFn> deform_columns_device_kernel;

}  // namespace libops::ops
