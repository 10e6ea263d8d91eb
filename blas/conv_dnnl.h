// 2-D convolution through oneDNN's JIT kernels on the CPU (Note [oneDNN
// convolution]). A leaf like gemm.h: pointers and extents, no NDArray.
//
// Note [oneDNN convolution]
//  conv2d's own path is im2col + GEMM, which copies every input pixel kH*kW
//  times and runs a GEMM whose shape suits the BLAS poorly (M = Cout); it
//  stays as the reference and the fallback. oneDNN's direct convolution
//  (jit:avx512_core / avx2 kernels, picked at run time for the CPU it runs
//  on) works on blocked layouts (nChw16c activations, OIhw16i16o weights):
//  an NCHW call reorders x into the blocked layout, convolves, and reorders
//  z back (Note [NCHW through channel blocks]); an NHWC or blocked
//  (channel_block) call runs on x and z as they are (oneDNN has direct
//  kernels for nhwc). The weights are reordered on every call unless the
//  caller keeps them (Note [Cached convolution weights]).
//  Each thread keeps the primitives it made, keyed by the whole geometry
//  and the thread count they were planned for, with their scratch buffers,
//  so a repeated shape (every run of a graph) creates nothing. oneDNN uses
//  the same OpenMP runtime as libops, told libops' thread count per call:
//  one pool, no oversubscription.
//  Grouped convolutions (depthwise included) pass oneDNN grouped weights;
//  deconv2d runs oneDNN's deconvolution through the same cache
//  (Conv2dGeometry::transposed). An activation runs as a oneDNN post-op
//  where the caller asks (Conv2dGeometry::post_op): oneDNN's eltwise
//  post-ops turn NaN into 0, so conv2d asks only where no NaN can arise
//  (Note [Fused activation] in libops/ops/nn/conv2d.cpp). A residual
//  (Conv2dGeometry::residual) is a binary-add post-op before it; Winograd's
//  kernels have no binary post-ops, so there z first gets a copy of the
//  residual and a sum post-op adds the convolution to it.
//  float32 only. LIBOPS_DNNL=0 in the environment (or set_dnnl_enabled)
//  turns the helper off; a build without oneDNN never uses it.
//
// Note [NCHW through channel blocks]
//  For an NCHW call, x and z are asked for in the channel blocks of the
//  CPU's vector width (nChw16c on AVX-512, nChw8c on AVX2; an image of
//  fewer channels than a block stays nchw, as oneDNN's first-layer kernels
//  read it), and only where no kernel takes those does oneDNN pick the
//  layout (format any). Its own pick ignores the reorders around the
//  convolution: for depthwise it chose nhwc, and oneDNN's reorder between
//  nchw and nhwc ran at 5 GB/s. MobileNetV2's 96-channel 112x112 stride-2
//  depthwise spent 0.92 + 0.22 ms in reorders around a 0.35 ms
//  convolution; through nChw16c 0.46 + 0.08 around 0.24. MobileNetV2 b1
//  loaded without graph rewrites (every convolution NCHW): 17.9 -> 12.0 ms
//  at one thread; a depthwise 3x3 op call on [1, 256, 56, 56]: 16.4 ->
//  37.4 GF/s.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "libops/core/status.h"

namespace libops::blas {

// An activation applied to each output as oneDNN writes it.
enum class ConvPostOp : int8_t { kNone, kRelu, kRelu6 };  // max(x, 0); min(max(x, 0), 6)

struct Conv2dGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input
  int64_t cout = 0, kh = 0, kw = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pad_top = 0, pad_left = 0;
  int64_t oh = 0, ow = 0;  // output
  bool nhwc = false;       // layout of x and z; weights are always [Cout, Cin / groups, kH, kW]
  // x and z channel-blocked instead ([n, ceil(c / b), h, w, b], zeros past
  // c: oneDNN's nChw8c / nChw16c), b = 8 or 16; 0: nhwc decides.
  int64_t channel_block = 0;
  bool nchw_input = false;  // with channel_block: x is nchw (an image of few channels), z blocked
  int64_t groups = 1;      // Note [Grouped convolution] in libops/ops/nn/conv2d.h
  // deconv2d: the transposed convolution from x [n, c, h, w] to z [n,
  // cout, oh, ow]; weights [c, cout, kH, kW]; groups 1.
  bool transposed = false;
  // z = conv + bias + r, r a dense array of z's layout and extents (the
  // `residual` pointer of dnnl_conv2d_f32), before the post-op; nhwc or
  // channel_block only.
  bool residual = false;
  // NaN becomes 0 under either activation; finite values are exact.
  ConvPostOp post_op = ConvPostOp::kNone;
  // Winograd's algorithm where oneDNN has it for the case, else the direct
  // one: a NaN or an overflow spreads over an output tile, so the caller
  // asks only where the inputs rule both out (Note [Winograd convolution]
  // in libops/ops/nn/conv2d.cpp).
  bool winograd = false;
  bool operator==(const Conv2dGeometry&) const = default;
};

// Whether oneDNN is built in and enabled (LIBOPS_DNNL, set_dnnl_enabled).
bool dnnl_enabled();
// Tests compare both paths on the same cases; true restores the default
// (the environment's choice).
void set_dnnl_enabled(bool on);
// Whether conv2d may ask for Winograd's algorithm: on unless
// LIBOPS_WINOGRAD=0 in the environment or set_winograd_enabled(false).
bool winograd_enabled();
void set_winograd_enabled(bool on);  // true restores the environment's choice

// Note [Cached convolution weights]
// The weights' reorder into the primitive's blocked layout costs a read and
// a write of every weight on every call: 3 to 4 ms of a 5 ms call for a
// ResNet 3x3 convolution of 512 channels at 7x7 (9.4 MB of weights). A
// caller whose weights never change (a graph constant: Note [Op state])
// passes a ConvWeightsCache it keeps: the first call reorders into the
// cache, later calls with the same `source`, geometry and thread count use
// it and do not read w at all (w may then be null).
class ConvWeightsCache {
 public:
  ConvWeightsCache();
  ~ConvWeightsCache();
  ConvWeightsCache(const ConvWeightsCache&) = delete;
  ConvWeightsCache& operator=(const ConvWeightsCache&) = delete;
  // Whether a call with these would use the cache (and may pass w = null).
  bool holds(const void* source, const Conv2dGeometry& g, int threads) const;

 private:
  friend Status dnnl_conv2d_f32(const Conv2dGeometry&, const float*, const float*, const float*, float*, int,
                                ConvWeightsCache*, const void*, const float*);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// z = conv(x, w) (+ bias): x and z dense in g's layout, w dense
// [Cout, Cin / groups, kH, kW] ([Cin, Cout, kH, kW] when transposed), bias
// [Cout] or null; `threads` OpenMP threads. An
// error (oneDNN refused the case, or is off) leaves z unwritten, and the
// caller runs its own path.
// With `cache` (and `source`, the identity of the caller's weights), the
// reordered weights are kept or reused (Note [Cached convolution weights]).
// With g.residual, `residual` is added to every output before the post-op
// (a binary post-op; Winograd's kernels, which have none, sum into z after
// a copy of it); it may be z itself.
Status dnnl_conv2d_f32(const Conv2dGeometry& g, const float* x, const float* w, const float* bias, float* z,
                       int threads, ConvWeightsCache* cache = nullptr, const void* source = nullptr,
                       const float* residual = nullptr);

// oneDNN's name for the kernel a call with g (with or without a bias) runs
// on `threads` threads, e.g. "jit:avx512_core" or "jit_wino_4x3:avx512_core"
// ("... (over the padded image)": Note [Padding oneDNN cannot take] in
// conv_dnnl.cpp); empty where oneDNN refuses the case or is off. For logs
// and tests.
std::string dnnl_conv2d_kernel(const Conv2dGeometry& g, bool has_bias, int threads);

}  // namespace libops::blas
