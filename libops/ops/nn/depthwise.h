// Depthwise 2-D convolution of float32 on the CPU, NHWC, NCHW and NCHWc:
// each channel with its own filter (conv2d with groups = C = Cout), the
// activation applied as each output is stored. Note [Depthwise NHWC
// kernel], Note [Depthwise NCHW kernel] and Note [Depthwise NCHWc kernel]
// in depthwise.cpp.
#pragma once

#include <cstdint>

namespace libops::ops::nn {

// The lanes of the NCHWc layout depthwise_nchwc16_f32 takes.
constexpr int64_t kDepthwiseLanes = 16;

struct DepthwiseGeometry {
  int64_t n = 0, h = 0, w = 0, c = 0;  // x [n, h, w, c] (NHWC) or [n, c, h, w] (NCHW)
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pad_top = 0, pad_left = 0;  // the rest of the padding is implicit
  int64_t oh = 0, ow = 0;             // z [n, oh, ow, c] or [n, c, oh, ow]
  int activation = 0;                 // 0 none, 1 relu, 2 relu6; NaN kept
};

// z = act(depthwise(x, taps) + bias): taps [kh, kw, c] (the c filters of
// each tap contiguous), bias [c] or null, x and z dense.
void depthwise_nhwc_f32(const DepthwiseGeometry& g, const float* x, const float* taps, const float* bias, float* z);
// The same in NCHW: w [c, kh, kw] (conv2d's [C, 1, kH, kW] weights as they
// are), bias [c] or null, x and z dense.
void depthwise_nchw_f32(const DepthwiseGeometry& g, const float* x, const float* w, const float* bias, float* z);

// The same in NCHWc with 16 lanes (Note [Channel-blocked layout]): x
// [n, ceil(c / 16), h, w, 16] and z [n, ceil(c / 16), oh, ow, 16], zeros
// past c in x; taps [ceil(c / 16), kh, kw, 16], zeros past c; bias [c] or
// null. z's lanes past c get act(0) = 0.
void depthwise_nchwc16_f32(const DepthwiseGeometry& g, const float* x, const float* taps, const float* bias,
                           float* z);

// Whether conv2d uses the kernel where it applies (default on); tests turn
// it off to compare with the other paths on the same cases.
bool depthwise_kernel_enabled();
void set_depthwise_kernel_enabled(bool on);

}  // namespace libops::ops::nn
