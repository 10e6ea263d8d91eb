// libops' own Winograd convolution for AVX2 machines: 3x3 filters at
// stride 1, channel-blocked activations of 8 lanes. A leaf like gemm.h:
// pointers and extents, no NDArray.
//
// Note [Own Winograd convolution]
//  oneDNN has Winograd kernels for AVX-512 only; on an AVX2 machine every
//  3x3 convolution ran its direct kernel, at about 77 GFLOP/s on this
//  project's Zen 3 (ResNet-18's 3x3 layers: 36 of its 43 ms at batch 1, 1.08x
//  ONNX Runtime's time). Here the algorithm F(4x4, 3x3) (Lavin and Gray,
//  "Fast Algorithms for Convolutional Neural Networks"): each 4x4 output tile
//  of each output channel is
//      Y = A^T [ sum over input channels of (G g G^T) . (B^T d B) ] A
//  with d the tile's 6x6 input window, g the 3x3 filter and . the
//  element-wise product: 36 multiplies per tile and channel pair where the
//  direct sum takes 144. The sum over input channels is, for each of the 36
//  positions p of the 6x6 transform, one GEMM
//      M_p [tiles, Cout] = V_p [tiles, Cin] x U_p [Cin, Cout]
//  run by Panel GEMM (Note [Panel GEMM]) on U_p packed once, when the
//  weights are prepared. A call works through the tiles in chunks whose
//  V and M stay within the caches: the input transform of the chunk (8
//  channels a vector, interior tiles read without bounds checks), the 36
//  GEMMs split over the threads, then the output transform, which adds
//  the bias and the residual, applies the activation and writes only the
//  outputs inside the image. One thread team runs the three phases of
//  every chunk, a barrier between them.
//  The transforms are the Lavin-Gray matrices at the points 0, +-1, +-2 and
//  infinity, factored so that each 1-D input transform takes 6 FMAs and 6
//  adds; the weights' transform runs in double.
//  Small images give few tiles of 4x4 (a 7x7 image 4, covering 8x8), and
//  then the GEMMs have a few rows each and read 36 x Cin x Cout
//  transformed filters for them: a 512-channel 7x7 layer took longer than
//  the direct kernel. There F(2x2, 3x3) runs instead: 16 positions of
//  4x4 transforms (0, +-1 and infinity: adds only), 2.25x fewer multiplies
//  than the direct sum instead of 4x, but four times the rows per GEMM
//  and 16 / 36 of the filters to read (tile_for: 4x4 tiles from
//  kMinTilesOf4 of them over the batch).
//  Numerically the results differ from the direct sum's (within 1e-6 of
//  the largest sum of the terms' magnitudes in the tests), and a NaN or an
//  infinity in one input reaches a whole tile: conv2d runs it only where
//  Note [Winograd convolution] allows Winograd's algorithm.
#pragma once

#include <cstdint>
#include <vector>

#include "blas/panel_gemm.h"

namespace libops::blas {

struct WinogradGeometry {
  int64_t n = 0;
  int64_t c = 0, cout = 0;  // channels, each a multiple of kLanes (the blocked layout's padded counts)
  int64_t h = 0, w = 0;     // input
  int64_t oh = 0, ow = 0;   // output: at most h + 2 pads - 2 each
  int64_t pad_top = 0, pad_left = 0;
};

class WinogradConv3x3 {
 public:
  static constexpr int64_t kLanes = 8;  // the channel block
  // Needs AVX2 and FMA (and Panel GEMM, which needs the same).
  static bool supported();
  // Output tiles of tile x tile: 4 (F(4x4, 3x3)) or 2 (F(2x2, 3x3)).
  // w dense [cout, cin, 3, 3] (the real channel counts); the transformed
  // filters are kept for cin_padded and cout_padded channels (multiples of
  // kLanes, zeros past the real ones). false (and nothing kept): out of
  // memory, or arguments it does not take.
  bool prepare(int tile, int64_t cin, int64_t cout, const float* w, int64_t cin_padded, int64_t cout_padded);
  bool prepared_for(int tile, int64_t cin_padded, int64_t cout_padded) const {
    return !u_.empty() && tile_ == tile && cin_ == cin_padded && cout_ == cout_padded;
  }
  // z = conv(x) + bias (+ residual), then the activation (0 none, 1 relu,
  // 2 relu6): x [n, c / 8, h, w, 8], z and residual [n, cout / 8, oh, ow,
  // 8], bias [cout] (padded: zeros past the real channels) or null; on up to
  // `threads` threads. Every value must be finite (Note [Winograd
  // convolution]). The padded lanes of z get bias + residual there, which
  // the caller keeps zero.
  void run(const WinogradGeometry& g, const float* x, const float* bias, const float* residual, int activation,
           float* z, int threads) const;

  // The output tile's side that suits g: 4 where the image gives enough
  // tiles of 4x4, else 2 (Note [Own Winograd convolution]).
  static int tile_for(int64_t n, int64_t oh, int64_t ow);
  static constexpr int64_t kMinTilesOf4 = 16;

 private:
  template <int M>
  void run_tiles(const WinogradGeometry& g, const float* x, const float* bias, const float* residual, int activation,
                 float* z, int threads) const;

  int tile_ = 0;
  int64_t cin_ = 0, cout_ = 0;
  std::vector<PanelGemmF32> u_;  // one per transform position: [cin_, cout_]
};

}  // namespace libops::blas
