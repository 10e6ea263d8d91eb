// max_roi_pool's kernel interface (max_roi_pool.cpp, .cu): one loop body for
// the CPU and the device.
#pragma once

#include <cmath>
#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct MaxRoiPoolDesc {
  int64_t n = 0, c = 0, h = 0, w = 0;  // x [n, c, h, w]
  int64_t rois = 0, oh = 0, ow = 0;    // z [rois, c, oh, ow]
  double spatial_scale = 1.0;
};

// Output element e of z [rois, c, oh, ow] (C order); x and rois [rois, 5]
// (batch, x1, y1, x2, y2) dense in the compute dtype, the batch entries
// whole numbers in [0, n) and every value finite (the op checks them).
// Fast R-CNN's RoI pooling, as ONNX's MaxRoiPool: the roi's corners are
// scaled and rounded (halves away from zero), its size is at least one
// pixel, and bin (ph, pw) takes the largest value of the rows
// [floor(ph * bin_h), ceil((ph + 1) * bin_h)) and the columns likewise,
// offset by the roi's start and clipped to the image; an empty bin is 0.
template <typename C>
LIBOPS_HOST_DEVICE inline void max_roi_pool_one(const MaxRoiPoolDesc& d, const C* x, const C* rois, int64_t e, C* z) {
  const int64_t pw = e % d.ow, ph = (e / d.ow) % d.oh, ch = (e / (d.ow * d.oh)) % d.c, r = e / (d.ow * d.oh * d.c);
  const C* roi = rois + 5 * r;
  const C scale = static_cast<C>(d.spatial_scale);
  const int64_t b = static_cast<int64_t>(roi[0]);
  auto corner = [&](C v) { return static_cast<int64_t>(std::round(v * scale)); };
  const int64_t x1 = corner(roi[1]), y1 = corner(roi[2]), x2 = corner(roi[3]), y2 = corner(roi[4]);
  const int64_t rh = y2 - y1 + 1 > 1 ? y2 - y1 + 1 : 1, rw = x2 - x1 + 1 > 1 ? x2 - x1 + 1 : 1;
  const C bin_h = static_cast<C>(rh) / static_cast<C>(d.oh), bin_w = static_cast<C>(rw) / static_cast<C>(d.ow);
  auto clip = [](int64_t v, int64_t hi) { return v < 0 ? 0 : (v > hi ? hi : v); };
  const int64_t hs = clip(static_cast<int64_t>(std::floor(static_cast<C>(ph) * bin_h)) + y1, d.h);
  const int64_t he = clip(static_cast<int64_t>(std::ceil(static_cast<C>(ph + 1) * bin_h)) + y1, d.h);
  const int64_t ws = clip(static_cast<int64_t>(std::floor(static_cast<C>(pw) * bin_w)) + x1, d.w);
  const int64_t we = clip(static_cast<int64_t>(std::ceil(static_cast<C>(pw + 1) * bin_w)) + x1, d.w);
  if (he <= hs || we <= ws) {
    z[e] = C(0);
    return;
  }
  const C* img = x + (b * d.c + ch) * d.h * d.w;
  C best = img[hs * d.w + ws];
  for (int64_t yy = hs; yy < he; ++yy)
    for (int64_t xx = ws; xx < we; ++xx) {
      const C v = img[yy * d.w + xx];
      if (v > best || v != v) best = v;  // NaN wins, as in the other max pools
    }
  z[e] = best;
}

// x and rois dense in the compute dtype (float32 or float64), z dense in it.
using MaxRoiPoolDeviceFn = Status (*)(Device device, const MaxRoiPoolDesc& desc, const NDArray& x, const NDArray& rois,
                                      NDArray& z);
extern DeviceKernel<MaxRoiPoolDeviceFn> max_roi_pool_device_kernel;

}  // namespace libops::ops
