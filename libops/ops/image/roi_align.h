// roi_align's kernel interface (roi_align.cpp, .cu): one loop body for the
// CPU and the device.
#pragma once

#include <cmath>
#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct RoiAlignDesc {
  int64_t n = 0, c = 0, h = 0, w = 0;   // x [n, c, h, w]
  int64_t rois = 0, oh = 0, ow = 0;     // z [rois, c, oh, ow]
  int64_t sampling_ratio = 0;           // samples per bin along each side; 0: ceil(roi side / bins)
  double spatial_scale = 1.0;
  bool half_pixel = true;               // roi corners shifted by -0.5 after scaling (no minimum size)
  bool max_mode = false;
};

// An roi's geometry in pixels: its start, bin sizes and samples per bin.
template <typename C>
struct RoiGeometry {
  C start_h, start_w, bin_h, bin_w;
  int64_t grid_h, grid_w;
};

template <typename C>
LIBOPS_HOST_DEVICE inline RoiGeometry<C> roi_geometry(const RoiAlignDesc& d, const C* roi) {
  const C off = d.half_pixel ? C(0.5) : C(0);
  const C scale = static_cast<C>(d.spatial_scale);
  RoiGeometry<C> g;
  g.start_w = roi[0] * scale - off;
  g.start_h = roi[1] * scale - off;
  C rw = roi[2] * scale - off - g.start_w, rh = roi[3] * scale - off - g.start_h;
  if (!d.half_pixel) {
    rw = rw > C(1) ? rw : C(1);
    rh = rh > C(1) ? rh : C(1);
  }
  g.bin_h = rh / static_cast<C>(d.oh);
  g.bin_w = rw / static_cast<C>(d.ow);
  g.grid_h = d.sampling_ratio > 0 ? d.sampling_ratio : static_cast<int64_t>(std::ceil(g.bin_h));
  g.grid_w = d.sampling_ratio > 0 ? d.sampling_ratio : static_cast<int64_t>(std::ceil(g.bin_w));
  return g;
}

// Output element e of z [rois, c, oh, ow] (C order); x, rois [rois, 4]
// (x1, y1, x2, y2) dense in the compute dtype, batch [rois] int64 in [0, n)
// and rois finite (the op checks both). ONNX's RoiAlign (ONNX Runtime's
// algorithm): each bin averages (avg) or takes the largest of (max)
// grid_h x grid_w bilinear samples; a sample more than one pixel outside
// the image reads 0. max mode keeps ONNX Runtime's definition: the
// largest of the four weighted corner values of each sample.
template <typename C>
LIBOPS_HOST_DEVICE inline void roi_align_one(const RoiAlignDesc& d, const C* x, const C* rois, const int64_t* batch,
                                             int64_t e, C* z) {
  const int64_t pw = e % d.ow, ph = (e / d.ow) % d.oh, ch = (e / (d.ow * d.oh)) % d.c, r = e / (d.ow * d.oh * d.c);
  const RoiGeometry<C> g = roi_geometry(d, rois + 4 * r);
  const C* img = x + (batch[r] * d.c + ch) * d.h * d.w;
  const C fh = static_cast<C>(d.h), fw = static_cast<C>(d.w);
  C acc = C(0);
  bool any = false;
  for (int64_t iy = 0; iy < g.grid_h; ++iy) {
    C y = g.start_h + static_cast<C>(ph) * g.bin_h + (static_cast<C>(iy) + C(0.5)) * g.bin_h / static_cast<C>(g.grid_h);
    for (int64_t ix = 0; ix < g.grid_w; ++ix) {
      C xx = g.start_w + static_cast<C>(pw) * g.bin_w +
             (static_cast<C>(ix) + C(0.5)) * g.bin_w / static_cast<C>(g.grid_w);
      C v1 = 0, v2 = 0, v3 = 0, v4 = 0;  // the weighted corners
      if (!(y < C(-1) || y > fh || xx < C(-1) || xx > fw)) {
        C yc = y > C(0) ? y : C(0), xc = xx > C(0) ? xx : C(0);
        int64_t y_low = static_cast<int64_t>(yc), x_low = static_cast<int64_t>(xc), y_high, x_high;
        if (y_low >= d.h - 1) {
          y_high = y_low = d.h - 1;
          yc = static_cast<C>(y_low);
        } else {
          y_high = y_low + 1;
        }
        if (x_low >= d.w - 1) {
          x_high = x_low = d.w - 1;
          xc = static_cast<C>(x_low);
        } else {
          x_high = x_low + 1;
        }
        const C ly = yc - static_cast<C>(y_low), lx = xc - static_cast<C>(x_low);
        const C hy = C(1) - ly, hx = C(1) - lx;
        v1 = hy * hx * img[y_low * d.w + x_low];
        v2 = hy * lx * img[y_low * d.w + x_high];
        v3 = ly * hx * img[y_high * d.w + x_low];
        v4 = ly * lx * img[y_high * d.w + x_high];
      }
      if (d.max_mode) {
        C v = v1 > v2 ? v1 : v2;
        v = v > v3 ? v : v3;
        v = v > v4 ? v : v4;
        acc = any && acc > v ? acc : v;
        any = true;
      } else {
        acc += v1 + v2 + v3 + v4;
      }
    }
  }
  if (!d.max_mode) {
    const int64_t count = g.grid_h * g.grid_w;
    acc /= static_cast<C>(count > 1 ? count : 1);
  }
  z[e] = acc;
}

// x and rois dense in the compute dtype (float32 or float64), batch dense
// int64, z dense in the compute dtype.
using RoiAlignDeviceFn = Status (*)(Device device, const RoiAlignDesc& desc, const NDArray& x, const NDArray& rois,
                                    const NDArray& batch, NDArray& z);
extern DeviceKernel<RoiAlignDeviceFn> roi_align_device_kernel;

}  // namespace libops::ops
