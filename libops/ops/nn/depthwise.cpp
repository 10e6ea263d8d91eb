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
//
// Note [Depthwise NCHWc kernel]
// In NCHWc (Note [Channel-blocked layout] in conv_utils.h) a block of 16
// channels is an NHWC image of its own with 16 channels: the lanes are the
// block's channels, and a task takes output rows of one block, so that the
// rows of input it reads (3 rows of 16 floats per pixel for a 3x3 window,
// 7 KB at width 112) stay in L1 from one output row to the next, and the
// block's 9 taps stay in registers for a whole row. A 3x3 window of
// dilation 1 has its stride (1 or 2) at compile time, which lets the
// compiler share the loads of neighbouring outputs; other windows take the
// general loop. conv2d runs it before oneDNN: in MobileNetV2 at batch 1
// (one thread of a 2-core EPYC) oneDNN 2.6's depthwise kernels took
// 0.31 ms for the 96-channel stride-2 layer at 112x112 (ONNX Runtime's
// NCHWc kernel 0.20, this one 0.13) and 0.21 ms for the 144-channel layer
// at 56x56 (ORT 0.17, this one 0.15); the whole model went from 7.3 to
// 6.8 ms.
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

// One output row (oy) of one channel block of an NCHWc depthwise
// convolution (Note [Depthwise NCHWc kernel]): plane [h, w, kVec], taps
// [kh, kw, kVec], zrow [ow, kVec]. kKh = kKw = 3 with kS = 1 or 2 fixes a
// dilation-1 3x3 window and its stride at compile time; kKh = 0 reads the
// window from g.
template <int kAct, int kKh, int kKw, int kS>
LIBOPS_FORCE_INLINE void depthwise_block_row(const DepthwiseGeometry& g, const float* plane, const float* taps, V b,
                                             float* zrow, int64_t oy) {
  constexpr bool kFixed = kKh > 0;
  const int64_t kh = kFixed ? kKh : g.kh, kw = kFixed ? kKw : g.kw;
  const int64_t sh = kFixed ? kS : g.sh, sw = kFixed ? kS : g.sw;
  const int64_t dh = kFixed ? 1 : g.dh, dw = kFixed ? 1 : g.dw;
  const int64_t iy0 = oy * sh - g.pad_top;
  int64_t ky_lo = 0, ky_hi = kh;
  while (ky_lo < kh && iy0 + ky_lo * dh < 0) ++ky_lo;
  while (ky_hi > ky_lo && iy0 + (ky_hi - 1) * dh >= g.h) --ky_hi;
  const int64_t span = (kw - 1) * dw;
  const int64_t ox_lo = std::min(g.ow, (g.pad_left + sw - 1) / sw);
  const int64_t last = g.w - 1 - span + g.pad_left;  // ox * sw <= last
  const int64_t ox_hi = last < 0 ? ox_lo : std::clamp<int64_t>(last / sw + 1, ox_lo, g.ow);
  const int64_t row = g.w * kVec;

  // Any output, the taps outside the image skipped.
  auto edge = [&](int64_t ox) {
    V acc = b;
    const int64_t ix0 = ox * sw - g.pad_left;
    for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
      const float* xr = plane + (iy0 + ky * dh) * row;
      for (int64_t kx = 0; kx < kw; ++kx) {
        const int64_t ix = ix0 + kx * dw;
        if (ix >= 0 && ix < g.w) acc += load(xr + ix * kVec) * load(taps + (ky * kw + kx) * kVec);
      }
    }
    store<kAct>(zrow + ox * kVec, acc);
  };
  for (int64_t ox = 0; ox < ox_lo; ++ox) edge(ox);
  int64_t ox = ox_lo;
  if (kFixed && ky_lo == 0 && ky_hi == kh) {
    // Every row of the window inside the image: the taps in registers for
    // the whole row, kCols outputs at a time.
    V wt[kFixed ? kKh * kKw : 1];
    for (int64_t t = 0; t < kKh * kKw; ++t) wt[t] = load(taps + t * kVec);
    const float* x0 = plane + iy0 * row - g.pad_left * kVec;
    for (; ox + kCols <= ox_hi; ox += kCols) {
      V a0 = b, a1 = b, a2 = b, a3 = b;
      for (int64_t ky = 0; ky < kKh; ++ky) {
        const float* xp = x0 + ky * row + ox * kS * kVec;
        for (int64_t kx = 0; kx < kKw; ++kx) {
          const V wv = wt[ky * kKw + kx];
          a0 += load(xp + kx * kVec) * wv;
          a1 += load(xp + (kS + kx) * kVec) * wv;
          a2 += load(xp + (2 * kS + kx) * kVec) * wv;
          a3 += load(xp + (3 * kS + kx) * kVec) * wv;
        }
      }
      float* zp = zrow + ox * kVec;
      store<kAct>(zp, a0);
      store<kAct>(zp + kVec, a1);
      store<kAct>(zp + 2 * kVec, a2);
      store<kAct>(zp + 3 * kVec, a3);
    }
    for (; ox < ox_hi; ++ox) {
      V acc = b;
      const float* xp = x0 + ox * kS * kVec;
      for (int64_t ky = 0; ky < kKh; ++ky)
        for (int64_t kx = 0; kx < kKw; ++kx) acc += load(xp + ky * row + kx * kVec) * wt[ky * kKw + kx];
      store<kAct>(zrow + ox * kVec, acc);
    }
  } else {
    for (; ox + kCols <= ox_hi; ox += kCols) {
      V a0 = b, a1 = b, a2 = b, a3 = b;
      const int64_t step = sw * kVec;
      for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
        const float* xr = plane + (iy0 + ky * dh) * row + (ox * sw - g.pad_left) * kVec;
        for (int64_t kx = 0; kx < kw; ++kx) {
          const V wv = load(taps + (ky * kw + kx) * kVec);
          const float* xp = xr + kx * dw * kVec;
          a0 += load(xp) * wv;
          a1 += load(xp + step) * wv;
          a2 += load(xp + 2 * step) * wv;
          a3 += load(xp + 3 * step) * wv;
        }
      }
      float* zp = zrow + ox * kVec;
      store<kAct>(zp, a0);
      store<kAct>(zp + kVec, a1);
      store<kAct>(zp + 2 * kVec, a2);
      store<kAct>(zp + 3 * kVec, a3);
    }
  }
  for (; ox < g.ow; ++ox) edge(ox);
}

template <int kAct, int kKh, int kKw, int kS>
void depthwise_blocks_with(const DepthwiseGeometry& g, const float* x, const float* taps, const float* bias,
                           float* z) {
  const int64_t blocks = (g.c + kVec - 1) / kVec, rows = g.n * blocks * g.oh;
  const int64_t row_work = std::max<int64_t>(1, g.ow * kVec * g.kh * g.kw);
  parallel_for(rows, std::max<int64_t>(1, 32768 / row_work), [&](int64_t begin, int64_t end) {
    isa_dispatch<true>([&] {
      for (int64_t r = begin; r < end;) {
        const int64_t plane_index = r / g.oh, cb = plane_index % blocks;  // plane_index = n * blocks + cb
        // The block's bias, zeros past C.
        V b{};
        if (bias != nullptr)
          for (int64_t v = 0; v < kVec && cb * kVec + v < g.c; ++v) b[v] = bias[cb * kVec + v];
        const float* plane = x + plane_index * g.h * g.w * kVec;
        const float* bt = taps + cb * g.kh * g.kw * kVec;
        float* zp = z + plane_index * g.oh * g.ow * kVec;
        const int64_t stop = std::min(end, (plane_index + 1) * g.oh);
        for (; r < stop; ++r) {
          const int64_t oy = r % g.oh;
          depthwise_block_row<kAct, kKh, kKw, kS>(g, plane, bt, b, zp + oy * g.ow * kVec, oy);
        }
      }
    });
  });
}

template <int kAct>
void depthwise_blocks(const DepthwiseGeometry& g, const float* x, const float* taps, const float* bias, float* z) {
  const bool three = g.kh == 3 && g.kw == 3 && g.dh == 1 && g.dw == 1 && g.sh == g.sw;
  if (three && g.sw == 1) return depthwise_blocks_with<kAct, 3, 3, 1>(g, x, taps, bias, z);
  if (three && g.sw == 2) return depthwise_blocks_with<kAct, 3, 3, 2>(g, x, taps, bias, z);
  depthwise_blocks_with<kAct, 0, 0, 0>(g, x, taps, bias, z);
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

void depthwise_nchwc16_f32(const DepthwiseGeometry& g, const float* x, const float* taps, const float* bias,
                           float* z) {
  switch (g.activation) {
    case 1: return depthwise_blocks<1>(g, x, taps, bias, z);
    case 2: return depthwise_blocks<2>(g, x, taps, bias, z);
    default: return depthwise_blocks<0>(g, x, taps, bias, z);
  }
}

}  // namespace libops::ops::nn
