// crop_and_resize's kernel interface (crop_and_resize.cpp, .cu): one loop
// body for the CPU and the device.
#pragma once

#include <cmath>
#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct CropResizeDesc {
  int64_t batch = 0, h = 0, w = 0, c = 0;  // image [batch, h, w, c]
  int64_t boxes = 0, crop_h = 0, crop_w = 0;
  bool nearest = false;
  double extrapolation = 0;
};

// Output element e of z [boxes, crop_h, crop_w, c] (C order). boxes are
// [boxes, 4] (y1, x1, y2, x2) in [0, 1] image coordinates; box_index[b] is
// in [0, batch) (the op checks it). TF's sampling: a box's crop_h rows
// spread evenly from y1 (H - 1) to y2 (H - 1) (one row: their middle); a
// sample outside the image reads `extrapolation`.
template <typename C>
LIBOPS_HOST_DEVICE inline void crop_resize_one(const CropResizeDesc& d, const C* image, const C* boxes,
                                               const int64_t* box_index, int64_t e, C* z) {
  const int64_t ch = e % d.c, x = (e / d.c) % d.crop_w, y = (e / (d.c * d.crop_w)) % d.crop_h,
                b = e / (d.c * d.crop_w * d.crop_h);
  const C y1 = boxes[4 * b], x1 = boxes[4 * b + 1], y2 = boxes[4 * b + 2], x2 = boxes[4 * b + 3];
  const C hm = static_cast<C>(d.h - 1), wm = static_cast<C>(d.w - 1);
  const C in_y = d.crop_h > 1 ? y1 * hm + static_cast<C>(y) * ((y2 - y1) * hm / static_cast<C>(d.crop_h - 1))
                              : C(0.5) * (y1 + y2) * hm;
  const C in_x = d.crop_w > 1 ? x1 * wm + static_cast<C>(x) * ((x2 - x1) * wm / static_cast<C>(d.crop_w - 1))
                              : C(0.5) * (x1 + x2) * wm;
  if (!(in_y >= 0 && in_y <= hm && in_x >= 0 && in_x <= wm)) {
    z[e] = static_cast<C>(d.extrapolation);
    return;
  }
  const C* img = image + box_index[b] * d.h * d.w * d.c + ch;
  auto at = [&](int64_t yy, int64_t xx) { return img[(yy * d.w + xx) * d.c]; };
  if (d.nearest) {
    z[e] = at(static_cast<int64_t>(round(in_y)), static_cast<int64_t>(round(in_x)));
    return;
  }
  const int64_t top = static_cast<int64_t>(floor(in_y)), bottom = static_cast<int64_t>(ceil(in_y));
  const int64_t left = static_cast<int64_t>(floor(in_x)), right = static_cast<int64_t>(ceil(in_x));
  const C y_lerp = in_y - static_cast<C>(top), x_lerp = in_x - static_cast<C>(left);
  const C t = at(top, left) + (at(top, right) - at(top, left)) * x_lerp;
  const C bo = at(bottom, left) + (at(bottom, right) - at(bottom, left)) * x_lerp;
  z[e] = t + (bo - t) * y_lerp;
}

// image and boxes dense in the compute dtype (float32 or float64), box_index
// dense int64, z dense in the compute dtype.
using CropResizeDeviceFn = Status (*)(Device device, const CropResizeDesc& desc, const NDArray& image,
                                      const NDArray& boxes, const NDArray& box_index, NDArray& z);
extern DeviceKernel<CropResizeDeviceFn> crop_resize_device_kernel;

}  // namespace libops::ops
