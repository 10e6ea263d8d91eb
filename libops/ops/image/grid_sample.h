// grid_sample's kernel interface (grid_sample.cpp, .cu): one loop body for
// the CPU and the device.
#pragma once

#include <cmath>
#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

enum GridSampleMode : int { kGridBilinear = 0, kGridNearest = 1, kGridBicubic = 2 };
enum GridSamplePadding : int { kGridZeros = 0, kGridBorder = 1, kGridReflection = 2 };

struct GridSampleDesc {
  int64_t n = 0, c = 0, h = 0, w = 0;  // x [n, c, h, w] (volumetric: [n, c, d, h, w])
  int64_t oh = 0, ow = 0;              // grid [n, oh, ow, 2], z [n, c, oh, ow]
  int64_t d = 1, od = 1;               // volumetric: grid [n, od, oh, ow, 3], z [n, c, od, oh, ow]
  bool volumetric = false;
  int mode = kGridBilinear;
  int padding = kGridZeros;
  bool align_corners = false;
};

namespace grid_detail {

// A normalized coordinate in [-1, 1] as a pixel position.
template <typename C>
LIBOPS_HOST_DEVICE inline C unnormalize(C v, int64_t len, bool align) {
  return align ? (v + C(1)) / C(2) * static_cast<C>(len - 1) : ((v + C(1)) * static_cast<C>(len) - C(1)) / C(2);
}

// v reflected by the nearer border until it lies in [lo, hi].
template <typename C>
LIBOPS_HOST_DEVICE inline C reflect(C v, C lo, C hi) {
  const C range = hi - lo;
  if (!(range > C(0))) return lo;
  if (v < lo || v > hi) {
    const C dv = v < lo ? lo - v : v - hi;
    const C k = std::floor(dv / range);
    const C r = dv - k * range;
    const bool even = std::fmod(k, C(2)) == C(0);
    return (v < lo) == even ? lo + r : hi - r;
  }
  return v;
}

// Keys' cubic convolution weights (a = -0.75) of the taps at -1, 0, 1, 2
// from floor(x), t = x - floor(x).
template <typename C>
LIBOPS_HOST_DEVICE inline void cubic_weights(C t, C* k) {
  const C a = C(-0.75);
  const C x0 = t + C(1), x1 = t, x2 = C(1) - t, x3 = C(2) - t;
  k[0] = ((a * x0 - C(5) * a) * x0 + C(8) * a) * x0 - C(4) * a;
  k[1] = ((a + C(2)) * x1 - (a + C(3))) * x1 * x1 + C(1);
  k[2] = ((a + C(2)) * x2 - (a + C(3))) * x2 * x2 + C(1);
  k[3] = ((a * x3 - C(5) * a) * x3 + C(8) * a) * x3 - C(4) * a;
}

// One axis of the image: its extent and the border a point is clamped or
// reflected to ([0, len - 1] with align_corners, [-0.5, len - 0.5]
// without).
template <typename C>
struct GridAxis {
  int64_t len;
  C lo, hi;
};

template <typename C>
LIBOPS_HOST_DEVICE inline GridAxis<C> grid_axis(const GridSampleDesc& d, int64_t len) {
  const C lo = d.align_corners ? C(0) : C(-0.5), pad = d.align_corners ? C(1) : C(0.5);
  return GridAxis<C>{len, lo, static_cast<C>(len) - pad};
}

// The pixel position of normalized coordinate g along axis a: rounded half
// to even for nearest; for nearest and linear, clamped (border) or
// reflected (reflection) into the border. Bicubic pads each of its taps
// instead, leaving the point itself where it is (ONNX Runtime and PyTorch;
// onnx.reference clamps or reflects the point first, as for the others).
template <typename C>
LIBOPS_HOST_DEVICE inline C grid_position(const GridSampleDesc& d, C g, const GridAxis<C>& a) {
  C p = unnormalize(g, a.len, d.align_corners);
  if (d.mode == kGridNearest) p = std::rint(p);
  if (d.mode == kGridBicubic) return p;
  if (d.padding == kGridBorder) {
    if (p < a.lo || p > a.hi) p = std::fmin(std::fmax(p, C(0)), static_cast<C>(a.len - 1));
  } else if (d.padding == kGridReflection) {
    p = reflect(p, a.lo, a.hi);
  }
  return p;
}

// A tap at whole-number position v along a: its index, or -1 where it reads
// 0 (zeros padding outside the image); the nearest edge pixel (border) or
// its reflection otherwise. Only positions inside [0, len) reach the integer
// conversion.
template <typename C>
LIBOPS_HOST_DEVICE inline int64_t grid_index(const GridSampleDesc& d, C v, const GridAxis<C>& a) {
  const C last = static_cast<C>(a.len - 1);
  if (v >= C(0) && v <= last) return static_cast<int64_t>(v);
  if (d.padding == kGridZeros) return -1;
  if (d.padding == kGridReflection) v = reflect(v, a.lo, a.hi);
  return static_cast<int64_t>(std::fmin(std::fmax(v, C(0)), last));
}

}  // namespace grid_detail

// Output element e of z [n, c, oh, ow] (C order) from x and grid, dense in
// the compute dtype. ONNX's GridSample (opset 16 and 20, 2-D): a grid
// point (x, y) in [-1, 1] maps to the pixel position unnormalize(x, w),
// unnormalize(y, h), placed by grid_position; each tap then reads as
// grid_index says. A grid value that is not finite gives NaN.
template <typename C>
LIBOPS_HOST_DEVICE inline void grid_sample_one(const GridSampleDesc& d, const C* x, const C* grid, int64_t e, C* z) {
  using namespace grid_detail;
  const int64_t ox = e % d.ow, oy = (e / d.ow) % d.oh, ch = (e / (d.ow * d.oh)) % d.c, b = e / (d.ow * d.oh * d.c);
  const C* g = grid + ((b * d.oh + oy) * d.ow + ox) * 2;
  if (!std::isfinite(g[0]) || !std::isfinite(g[1])) {
    z[e] = C(NAN);
    return;
  }
  const GridAxis<C> ax = grid_axis<C>(d, d.w), ay = grid_axis<C>(d, d.h);
  const C px = grid_position(d, g[0], ax), py = grid_position(d, g[1], ay);
  const C* img = x + (b * d.c + ch) * d.h * d.w;
  auto pixel = [&](C yy, C xx) -> C {
    const int64_t r = grid_index(d, yy, ay), c = grid_index(d, xx, ax);
    return r < 0 || c < 0 ? C(0) : img[r * d.w + c];
  };
  if (d.mode == kGridNearest) {
    z[e] = pixel(py, px);
    return;
  }
  const C x0 = std::floor(px), y0 = std::floor(py);
  const C tx = px - x0, ty = py - y0;
  if (d.mode == kGridBilinear) {
    const C top = (C(1) - tx) * pixel(y0, x0) + tx * pixel(y0, x0 + C(1));
    const C bottom = (C(1) - tx) * pixel(y0 + C(1), x0) + tx * pixel(y0 + C(1), x0 + C(1));
    z[e] = (C(1) - ty) * top + ty * bottom;
    return;
  }
  C kx[4], ky[4];
  cubic_weights(tx, kx);
  cubic_weights(ty, ky);
  C acc = C(0);
  for (int i = 0; i < 4; ++i) {
    C row = C(0);
    for (int j = 0; j < 4; ++j) row += kx[j] * pixel(y0 + static_cast<C>(i - 1), x0 + static_cast<C>(j - 1));
    acc += ky[i] * row;
  }
  z[e] = acc;
}

// The volumetric form (ONNX's GridSample opset 20, 5-D): element e of z
// [n, c, od, oh, ow] from x [n, c, d, h, w] and grid [n, od, oh, ow, 3] of
// points (x, y, z); nearest or trilinear (linear along w, then h, then d),
// the axes placed and read as in 2-D.
template <typename C>
LIBOPS_HOST_DEVICE inline void grid_sample_one_3d(const GridSampleDesc& d, const C* x, const C* grid, int64_t e,
                                                  C* z) {
  using namespace grid_detail;
  const int64_t ox = e % d.ow, oy = (e / d.ow) % d.oh, oz = (e / (d.ow * d.oh)) % d.od;
  const int64_t ch = (e / (d.ow * d.oh * d.od)) % d.c, b = e / (d.ow * d.oh * d.od * d.c);
  const C* g = grid + (((b * d.od + oz) * d.oh + oy) * d.ow + ox) * 3;
  if (!std::isfinite(g[0]) || !std::isfinite(g[1]) || !std::isfinite(g[2])) {
    z[e] = C(NAN);
    return;
  }
  const GridAxis<C> ax = grid_axis<C>(d, d.w), ay = grid_axis<C>(d, d.h), az = grid_axis<C>(d, d.d);
  const C px = grid_position(d, g[0], ax), py = grid_position(d, g[1], ay), pz = grid_position(d, g[2], az);
  const C* vol = x + (b * d.c + ch) * d.d * d.h * d.w;
  auto voxel = [&](C zz, C yy, C xx) -> C {
    const int64_t s = grid_index(d, zz, az), r = grid_index(d, yy, ay), c = grid_index(d, xx, ax);
    return s < 0 || r < 0 || c < 0 ? C(0) : vol[(s * d.h + r) * d.w + c];
  };
  if (d.mode == kGridNearest) {
    z[e] = voxel(pz, py, px);
    return;
  }
  const C x0 = std::floor(px), y0 = std::floor(py), z0 = std::floor(pz);
  const C tx = px - x0, ty = py - y0, tz = pz - z0;
  auto plane = [&](C zz) {
    const C top = (C(1) - tx) * voxel(zz, y0, x0) + tx * voxel(zz, y0, x0 + C(1));
    const C bottom = (C(1) - tx) * voxel(zz, y0 + C(1), x0) + tx * voxel(zz, y0 + C(1), x0 + C(1));
    return (C(1) - ty) * top + ty * bottom;
  };
  z[e] = (C(1) - tz) * plane(z0) + tz * plane(z0 + C(1));
}

// Element e of z in either form.
template <typename C>
LIBOPS_HOST_DEVICE inline void grid_sample_at(const GridSampleDesc& d, const C* x, const C* grid, int64_t e, C* z) {
  if (d.volumetric) grid_sample_one_3d(d, x, grid, e, z);
  else grid_sample_one(d, x, grid, e, z);
}

// x and grid dense in the compute dtype (float32 or float64), z dense in it.
using GridSampleDeviceFn = Status (*)(Device device, const GridSampleDesc& desc, const NDArray& x, const NDArray& grid,
                                      NDArray& z);
extern DeviceKernel<GridSampleDeviceFn> grid_sample_device_kernel;

}  // namespace libops::ops
