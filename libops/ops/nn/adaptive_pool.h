// The adaptive pooling ops' kernel interface (adaptive_pool.cpp, .cu): one
// loop body for the CPU and the device.
//
// Note [Adaptive windows]
// Output row i of oH pools input rows [floor(i H / oH), ceil((i + 1) H / oH)),
// and likewise for columns (PyTorch's AdaptiveAvgPool2d / AdaptiveMaxPool2d):
// the windows tile the input, overlapping by at most a row where H is not a
// multiple of oH, and every window holds at least one row (oH <= H is not
// required: with oH > H rows repeat).
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct AdaptivePoolDesc {
  int64_t n = 0, c = 0, h = 0, w = 0, oh = 0, ow = 0;
  bool nchw = true;
  bool max = false;  // else average
};

// Output element e (C order over z's layout) of x (dense, x's layout, compute
// type C): the mean or the maximum (NaN wins) of its window.
template <typename C>
LIBOPS_HOST_DEVICE inline void adaptive_pool_one(const AdaptivePoolDesc& d, const C* x, int64_t e, C* z) {
  int64_t ch, oy, ox, b;
  if (d.nchw) {
    ox = e % d.ow, oy = (e / d.ow) % d.oh, ch = (e / (d.ow * d.oh)) % d.c, b = e / (d.ow * d.oh * d.c);
  } else {
    ch = e % d.c, ox = (e / d.c) % d.ow, oy = (e / (d.c * d.ow)) % d.oh, b = e / (d.c * d.ow * d.oh);
  }
  const int64_t y0 = oy * d.h / d.oh, y1 = ((oy + 1) * d.h + d.oh - 1) / d.oh;
  const int64_t x0 = ox * d.w / d.ow, x1 = ((ox + 1) * d.w + d.ow - 1) / d.ow;
  C acc = C(0);
  bool first = true;
  for (int64_t y = y0; y < y1; ++y)
    for (int64_t xx = x0; xx < x1; ++xx) {
      const C v = x[d.nchw ? ((b * d.c + ch) * d.h + y) * d.w + xx : ((b * d.h + y) * d.w + xx) * d.c + ch];
      if (!d.max) acc += v;
      else if (first || (acc == acc && (v > acc || v != v))) acc = v;  // a NaN, once taken, stays
      first = false;
    }
  z[e] = d.max ? acc : acc / static_cast<C>((y1 - y0) * (x1 - x0));
}

// x dense in the compute dtype (float32 or float64), z dense in it too.
using AdaptivePoolDeviceFn = Status (*)(Device device, const AdaptivePoolDesc& desc, const NDArray& x, NDArray& z);
extern DeviceKernel<AdaptivePoolDeviceFn> adaptive_pool_device_kernel;

}  // namespace libops::ops
