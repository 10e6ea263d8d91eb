// Note [Depthwise NHWC kernel]
// A depthwise convolution does kH * kW multiply-adds per output and reads
// each input pixel about kH * kW / (sH * sW) times: it is bound by loads
// and memory traffic, not by arithmetic. In NHWC a pixel's channels are
// contiguous, so channels are the vector lanes: kVec = 16 channels of
// kCols = 4 neighbouring outputs of a row accumulate in registers; each
// tap's 16 weights are loaded once for the 4 outputs, and with stride 1
// neighbouring outputs read the same input pixels while they are in L1.
// Outputs whose window crosses the padding (and channel tails) take a
// per-output loop that skips the taps outside the image.
// The activation (relu, relu6) is applied before the store, NaN kept as
// the relu and relu6 ops keep it: no oneDNN post-op (which turns NaN into
// 0, Note [Fused activation] in conv2d.cpp) and no second pass over z.
// conv2d runs it where oneDNN is absent, turned off or refuses the call:
// it is as fast as oneDNN's NHWC depthwise kernels at stride 1 and 10-40%
// slower at stride 2 in MobileNetV2 (batch 1, one thread of a 2-core EPYC;
// both are bound by memory there, not arithmetic), and MobileNetV2 without
// oneDNN ran in 11.5 ms with it against 106 ms through im2col + grouped
// GEMMs.
//
// Note [Depthwise NCHW kernel]
// In NCHW each channel is its own plane, and an output row is a weighted
// sum of kH * kW shifted input rows: the kernel runs one plane per task
// and takes each row's outputs kVec at a time in one vector, adding every
// tap before the store (stride 1 and 2 are compile-time constants; stride
// 2 loads two vectors and keeps the even lanes). The last vector block of
// a row ends at its last interior output, overlapping the one before.
// Outputs whose window crosses the padding take a per-output loop that
// skips the taps outside the image, as oneDNN does (so an infinite weight
// times the padding gives no NaN).
// conv2d runs it where oneDNN is absent, turned off or refuses the call:
// oneDNN, even with the reorders of x and z into and out of its blocked
// layout that NCHW costs it, stayed faster (depthwise 3x3 of [1, 256, 56,
// 56] at one thread: 20.6 GF/s against this kernel's 16.9). Against
// im2col + grouped GEMMs (6.0 GF/s there) it took MobileNetV2 b1 loaded
// without graph rewrites and run without oneDNN from 20.5 to 15.9 ms.
#include "libops/ops/nn/depthwise.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "libops/core/cpu_isa.h"
#include "libops/core/fast_math.h"
#include "libops/core/parallel.h"

namespace libops::ops::nn {
namespace {

constexpr int64_t kVec = 16, kCols = 4;

// relu: x < 0 ? 0 : x; relu6: then min(x, 6); NaN compares false and stays.
template <int kAct>
LIBOPS_FORCE_INLINE float activate(float v) {
  if constexpr (kAct >= 1) v = detail::select_f32(v < 0.0f, 0.0f, v);
  if constexpr (kAct == 2) v = detail::select_f32(v > 6.0f, 6.0f, v);
  return v;
}

// kVec channels as one vector: a 512-bit register in the AVX-512 copy,
// two or four narrower ones elsewhere (Note [Runtime ISA dispatch]).
typedef float V __attribute__((vector_size(kVec * sizeof(float))));

LIBOPS_FORCE_INLINE V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The activation lane by lane (the comparisons give all-ones lanes), NaN kept.
template <int kAct>
LIBOPS_FORCE_INLINE void store(float* p, V v) {
  if constexpr (kAct >= 1) v = v < 0.0f ? V{} : v;
  if constexpr (kAct == 2) v = v > 6.0f ? V{} + 6.0f : v;
  std::memcpy(p, &v, sizeof v);
}

// One output row (n, oy).
template <int kAct>
LIBOPS_FORCE_INLINE void depthwise_row(const DepthwiseGeometry& g, const float* x, const float* taps, const float* bias,
                                       float* z, int64_t n, int64_t oy) {
  const int64_t C = g.c;
  const int64_t iy0 = oy * g.sh - g.pad_top;
  // The taps whose rows lie inside the image: [ky_lo, ky_hi).
  int64_t ky_lo = 0, ky_hi = g.kh;
  while (ky_lo < g.kh && iy0 + ky_lo * g.dh < 0) ++ky_lo;
  while (ky_hi > ky_lo && iy0 + (ky_hi - 1) * g.dh >= g.h) --ky_hi;
  // The outputs whose taps all lie inside the row: [ox_lo, ox_hi).
  const int64_t span = (g.kw - 1) * g.dw;
  const int64_t ox_lo = std::min(g.ow, (g.pad_left + g.sw - 1) / g.sw);
  const int64_t last = g.w - 1 - span + g.pad_left;  // ox * sw <= last
  const int64_t ox_hi = last < 0 ? ox_lo : std::clamp<int64_t>(last / g.sw + 1, ox_lo, g.ow);
  const float* image = x + n * g.h * g.w * C;
  float* zrow = z + (n * g.oh + oy) * g.ow * C;

  // Any output, channels [c0, c0 + len), with the taps checked.
  auto single = [&](int64_t ox, int64_t c0, int64_t len) {
    float acc[kVec];
    for (int64_t v = 0; v < len; ++v) acc[v] = bias != nullptr ? bias[c0 + v] : 0.0f;
    const int64_t ix0 = ox * g.sw - g.pad_left;
    for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
      const float* xr = image + (iy0 + ky * g.dh) * g.w * C + c0;
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const int64_t ix = ix0 + kx * g.dw;
        if (ix < 0 || ix >= g.w) continue;
        const float* xp = xr + ix * C;
        const float* wp = taps + (ky * g.kw + kx) * C + c0;
        for (int64_t v = 0; v < len; ++v) acc[v] += xp[v] * wp[v];
      }
    }
    float* zp = zrow + ox * C + c0;
    for (int64_t v = 0; v < len; ++v) zp[v] = activate<kAct>(acc[v]);
  };
  auto every_channel = [&](int64_t ox) {
    for (int64_t c0 = 0; c0 < C; c0 += kVec) single(ox, c0, std::min(kVec, C - c0));
  };

  int64_t ox = 0;
  for (; ox < ox_lo; ++ox) every_channel(ox);
  const int64_t full = C / kVec * kVec;
  for (; ox + kCols <= ox_hi; ox += kCols) {
    const int64_t ix0 = ox * g.sw - g.pad_left, step = g.sw * C;
    for (int64_t c0 = 0; c0 < full; c0 += kVec) {
      // Four accumulators as named vectors, so that they stay in registers
      // (an array of them went through the stack on every tap).
      const V b = bias != nullptr ? load(bias + c0) : V{};
      V a0 = b, a1 = b, a2 = b, a3 = b;
      for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
        const float* xr = image + (iy0 + ky * g.dh) * g.w * C + c0;
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          const V wv = load(taps + (ky * g.kw + kx) * C + c0);
          const float* xp = xr + (ix0 + kx * g.dw) * C;
          a0 += load(xp) * wv;
          a1 += load(xp + step) * wv;
          a2 += load(xp + 2 * step) * wv;
          a3 += load(xp + 3 * step) * wv;
        }
      }
      float* zp = zrow + ox * C + c0;
      store<kAct>(zp, a0);
      store<kAct>(zp + C, a1);
      store<kAct>(zp + 2 * C, a2);
      store<kAct>(zp + 3 * C, a3);
    }
    for (int64_t j = 0; j < kCols && full < C; ++j) single(ox + j, full, C - full);
  }
  for (; ox < g.ow; ++ox) every_channel(ox);
}

template <int kAct>
void depthwise_rows(const DepthwiseGeometry& g, const float* x, const float* taps, const float* bias, float* z) {
  const int64_t rows = g.n * g.oh;
  const int64_t row_work = std::max<int64_t>(1, g.ow * g.c * g.kh * g.kw);
  parallel_for(rows, std::max<int64_t>(1, 32768 / row_work), [&](int64_t begin, int64_t end) {
    isa_dispatch<true>([&] {
      for (int64_t r = begin; r < end; ++r) depthwise_row<kAct>(g, x, taps, bias, z, r / g.oh, r % g.oh);
    });
  });
}

// kVec floats p[0], p[s], p[2s], ... (kSw = s; 0: s at run time).
template <int kSw>
LIBOPS_FORCE_INLINE V load_strided(const float* p, int64_t s) {
  if constexpr (kSw == 1) {
    return load(p);
  } else if constexpr (kSw == 2) {
    const V a = load(p), b = load(p + kVec);
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  } else {
    V v;
    for (int64_t i = 0; i < kVec; ++i) v[i] = p[i * s];
    return v;
  }
}

// One output row (plane p, row oy) of an NCHW depthwise convolution with
// horizontal stride kSw (0: g.sw at run time).
template <int kAct, int kSw>
LIBOPS_FORCE_INLINE void depthwise_plane_row(const DepthwiseGeometry& g, const float* plane, const float* w,
                                             float b, float* zr, int64_t oy) {
  const int64_t sw = kSw > 0 ? kSw : g.sw;
  const int64_t iy0 = oy * g.sh - g.pad_top;
  int64_t ky_lo = 0, ky_hi = g.kh;
  while (ky_lo < g.kh && iy0 + ky_lo * g.dh < 0) ++ky_lo;
  while (ky_hi > ky_lo && iy0 + (ky_hi - 1) * g.dh >= g.h) --ky_hi;
  const int64_t span = (g.kw - 1) * g.dw;
  const int64_t ox_lo = std::min(g.ow, (g.pad_left + sw - 1) / sw);
  const int64_t last = g.w - 1 - span + g.pad_left;  // ox * sw <= last
  const int64_t ox_hi = last < 0 ? ox_lo : std::clamp<int64_t>(last / sw + 1, ox_lo, g.ow);
  // kVec outputs at a time in one vector, every tap added before the
  // store; the last block ends at ox_hi, overlapping the one before (its
  // outputs are computed twice, alike). Stride 2 loads 2 kVec inputs for
  // kVec outputs, the last of them one past the block's window: the block
  // then stops an output short of ox_hi, whose window holds that input.
  const int64_t stop = kSw == 2 ? ox_hi - 1 : ox_hi;
  auto block = [&](int64_t o0) {
    V acc = V{} + b;
    for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
      const float* xr = plane + (iy0 + ky * g.dh) * g.w - g.pad_left + o0 * sw;
      for (int64_t kx = 0; kx < g.kw; ++kx) acc += load_strided<kSw>(xr + kx * g.dw, sw) * w[ky * g.kw + kx];
    }
    std::memcpy(zr + o0, &acc, sizeof acc);
  };
  int64_t ox = ox_lo;
  if (stop - ox_lo >= kVec) {
    for (; ox + kVec <= stop; ox += kVec) block(ox);
    if (ox < stop) block(stop - kVec);
    ox = stop;
  }
  for (int64_t o = ox; o < ox_hi; ++o) zr[o] = b;
  for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
    const float* xr = plane + (iy0 + ky * g.dh) * g.w - g.pad_left;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const float wk = w[ky * g.kw + kx];
      const float* xk = xr + kx * g.dw;
      for (int64_t o = ox; o < ox_hi; ++o) zr[o] += wk * xk[o * sw];
    }
  }
  auto edge = [&](int64_t ox) {
    float acc = b;
    const int64_t ix0 = ox * sw - g.pad_left;
    for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
      const float* xr = plane + (iy0 + ky * g.dh) * g.w;
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const int64_t ix = ix0 + kx * g.dw;
        if (ix >= 0 && ix < g.w) acc += w[ky * g.kw + kx] * xr[ix];
      }
    }
    zr[ox] = acc;
  };
  for (int64_t ox = 0; ox < ox_lo; ++ox) edge(ox);
  for (int64_t ox = ox_hi; ox < g.ow; ++ox) edge(ox);
  if constexpr (kAct > 0)
    for (int64_t ox = 0; ox < g.ow; ++ox) zr[ox] = activate<kAct>(zr[ox]);
}

template <int kAct>
void depthwise_planes(const DepthwiseGeometry& g, const float* x, const float* w, const float* bias, float* z) {
  const int64_t plane_work = std::max<int64_t>(1, g.oh * g.ow * g.kh * g.kw);
  parallel_for(g.n * g.c, std::max<int64_t>(1, 32768 / plane_work), [&](int64_t begin, int64_t end) {
    isa_dispatch<true>([&] {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t c = p % g.c;
        const float* plane = x + p * g.h * g.w;
        const float* wc = w + c * g.kh * g.kw;
        const float b = bias != nullptr ? bias[c] : 0.0f;
        float* zp = z + p * g.oh * g.ow;
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          float* zr = zp + oy * g.ow;
          if (g.sw == 1) depthwise_plane_row<kAct, 1>(g, plane, wc, b, zr, oy);
          else if (g.sw == 2) depthwise_plane_row<kAct, 2>(g, plane, wc, b, zr, oy);
          else depthwise_plane_row<kAct, 0>(g, plane, wc, b, zr, oy);
        }
      }
    });
  });
}

std::atomic<bool> g_enabled{true};

}  // namespace

bool depthwise_kernel_enabled() { return g_enabled.load(std::memory_order_relaxed); }
void set_depthwise_kernel_enabled(bool on) { g_enabled.store(on, std::memory_order_relaxed); }

void depthwise_nhwc_f32(const DepthwiseGeometry& g, const float* x, const float* taps, const float* bias, float* z) {
  switch (g.activation) {
    case 1: return depthwise_rows<1>(g, x, taps, bias, z);
    case 2: return depthwise_rows<2>(g, x, taps, bias, z);
    default: return depthwise_rows<0>(g, x, taps, bias, z);
  }
}

void depthwise_nchw_f32(const DepthwiseGeometry& g, const float* x, const float* w, const float* bias, float* z) {
  switch (g.activation) {
    case 1: return depthwise_planes<1>(g, x, w, bias, z);
    case 2: return depthwise_planes<2>(g, x, w, bias, z);
    default: return depthwise_planes<0>(g, x, w, bias, z);
  }
}

}  // namespace libops::ops::nn
