// max_pool_with_argmax's kernel interface (max_pool_with_argmax.cpp, .cu):
// one loop body for the CPU and the device.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct ArgmaxPoolDesc {
  int64_t n = 0, c = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1, pad_top = 0, pad_left = 0;
  bool nchw = true;
};

// Output element e (C order over z's layout): its window's maximum and the
// C-order offset in x of the first tap that holds it (a NaN beats every
// number, the first NaN wins); a window over no input element gives 0 and
// index -1. x is dense in x's layout, of compute type C.
template <typename C>
LIBOPS_HOST_DEVICE inline void argmax_pool_one(const ArgmaxPoolDesc& d, const C* x, int64_t e, C* z, int64_t* idx) {
  int64_t ch, oy, ox, b;
  if (d.nchw) {
    ox = e % d.ow, oy = (e / d.ow) % d.oh, ch = (e / (d.ow * d.oh)) % d.c, b = e / (d.ow * d.oh * d.c);
  } else {
    ch = e % d.c, ox = (e / d.c) % d.ow, oy = (e / (d.c * d.ow)) % d.oh, b = e / (d.c * d.ow * d.oh);
  }
  C best = 0;
  int64_t where = -1;
  bool best_nan = false;
  for (int64_t i = 0; i < d.kh; ++i) {
    const int64_t y = oy * d.sh + i * d.dh - d.pad_top;
    if (y < 0 || y >= d.h) continue;
    for (int64_t j = 0; j < d.kw; ++j) {
      const int64_t xx = ox * d.sw + j * d.dw - d.pad_left;
      if (xx < 0 || xx >= d.w) continue;
      const int64_t off = d.nchw ? ((b * d.c + ch) * d.h + y) * d.w + xx : ((b * d.h + y) * d.w + xx) * d.c + ch;
      const C v = x[off];
      const bool nan = v != v;
      if (where < 0 || (!best_nan && (nan || v > best))) {
        best = v;
        where = off;
        best_nan = nan;
      }
    }
  }
  z[e] = best;
  idx[e] = where;
}

// x dense in the compute dtype (float32 or float64), z dense in it too,
// indices dense int64; both z and indices in z's layout.
using ArgmaxPoolDeviceFn = Status (*)(Device device, const ArgmaxPoolDesc& desc, const NDArray& x, NDArray& z,
                                      NDArray& indices);
extern DeviceKernel<ArgmaxPoolDeviceFn> argmax_pool_device_kernel;

}  // namespace libops::ops
