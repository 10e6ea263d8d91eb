// conv2d: 2-D convolution (cross-correlation, as in every DL framework) of a
// batch of images with a bank of filters, plus an optional bias.
//
//   inputs  x        [N, Cin, H, W] (NCHW), [N, H, W, Cin] (NHWC) or
//                    [N, ceil(Cin / b), H, W, b] (NCHWc: Note
//                    [Channel-blocked layout] in conv_utils.h)
//           weights  in the layout weights_format names, whatever the
//                    data format: 1 = [Cout, Cin, kH, kW] (PyTorch's and
//                    ONNX's layout, the default with NCHW), 0 = [kH, kW, Cin,
//                    Cout] (libnd4j's, TF's HWIO, the default with NHWC),
//                    2 = [Cout, kH, kW, Cin]
//           bias     optional, [Cout]
//           residual optional (after the bias), z's shape: added to the
//                    output before the activation, relu(conv + bias + r),
//                    as the graph optimizer fuses a ResNet block's add
//           all of one dtype: float16, bfloat16, float32 or float64
//   i args  0..8  kH, kW, sH, sW, pH, pW, dH, dW, same_mode
//                 (Note [Window arguments] in conv_utils.h); kH or kW = 0
//                 takes the extent from the weights, otherwise it must match
//           9     data_format, optional: 0 = NCHW (default), 1 = NHWC,
//                 2 = NCHWc (float32 through oneDNN, else, and on
//                 devices, through NCHW copies)
//           10    weights_format, optional: 0, 1 or 2 (above); by default
//                 (-1) 0 with NHWC, as libnd4j's and TF's calls give it,
//                 and 1 with NCHW and NCHWc, as ONNX and PyTorch models
//                 carry it (conv2d_weights_format in conv2d.h)
//           11    groups, optional (default 1): Note [Grouped convolution]
//                 in conv2d.h; the weights' Cin is then Cin / groups
//           12    activation, optional: 0 none (default), 1 relu, 2 relu6,
//                 applied after the bias (the graph optimizer fuses a
//                 following relu or relu6 here, Note [Graph rewrites])
//           13    lanes, optional: with data_format 2 and an NCHW (rank-4)
//                 x, z is NCHWc with this many lanes: an image of fewer
//                 channels than a block goes in as it is
//           14..  epilogue, optional (with the t list epilogue_values):
//                 an element-wise program of z run in place last (Note
//                 [Epilogue programs] in elementwise/fused_program.h)
//   output  [N, Cout, oH, oW] (NCHW), [N, oH, oW, Cout] (NHWC) or
//           [N, ceil(Cout / b), oH, oW, b] (NCHWc, zeros past Cout), x's dtype
//
//   z[n, co, oh, ow] = bias[co] + sum over ci, kh, kw of
//       w[co, ci, kh, kw] * x[n, g*Cin/G + ci, oh*sH - pad_top + kh*dH, ow*sW - pad_left + kw*dW]
//   with g = co / (Cout/G) the filter's group, x = 0 outside the image.
//
// float32 work (float16 and bfloat16 too, in float) goes to oneDNN's direct
// convolution where it is built in and takes the case (Note [oneDNN
// convolution] in blas/conv_dnnl.h), except 3x3 stride-1 NCHWc calls of 8
// lanes that libops' Winograd kernel takes (Note [Own Winograd
// convolution] in blas/winograd_conv.h), NCHW 1x1 calls, which oneDNN
// would reorder (Note [NCHW pointwise]), and NCHWc depthwise calls, which
// libops' own kernel runs faster (Note [Depthwise NCHWc kernel] in
// depthwise.cpp). Otherwise a depthwise call runs libops' own kernels
// (Note [Depthwise NHWC kernel] and Note [Depthwise NCHW kernel]), and the
// rest, as the reference, is
// computed as im2col + GEMM
// (blas/gemm.h) in the compute type: float for float16/bfloat16/float32,
// double for float64 (Note [Compute types]).
//   NCHW: per image, cols [Cin*kH*kW, oH*oW] and
//         z_n [Cout, oH*oW] = W [Cout, Cin*kH*kW] x cols; a chunk of images
//         is one gemm_batched call sharing W.
//   NHWC: one row per output pixel (n, oh, ow) of the whole batch:
//         cols [rows, kH*kW*Cin] and z [rows, Cout] = cols x W'^T, with W'
//         the weights permuted to [Cout, kH, kW, Cin] so that each tap of
//         cols is a contiguous copy of Cin values.
// A 1x1 kernel with stride 1 and no padding needs no im2col: x is the matrix.
// With groups, each group is one GEMM over its run of the columns (NCHW:
// rows of cols; NHWC: its own column buffer) and of the filters.
// The column buffer holds at most kColsBudget values; bigger batches run in
// chunks. im2col runs on parallel_for, and so does the GEMM, split in blocks
// (Note [GEMM threads] in blas/gemm_cpu.cpp).
//
// On another device the call goes to that device's backend (cuDNN for CUDA)
// in x's own dtype, with the weights in the filter layout that matches the
// data format (Note [nn ops on devices] in nn_device.h); a call the backend
// cannot express is an error there, never a silent trip through the host.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cfloat>
#include <limits>
#include <memory>
#include <vector>

#include "blas/conv_dnnl.h"
#include "blas/gemm.h"
#include "blas/winograd_conv.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/log.h"
#include "libops/core/parallel.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/elementwise/fused_program.h"
#include "libops/ops/nn/conv2d.h"
#include "libops/ops/nn/depthwise.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/nn/nn_device.h"
#include "libops/ops/shape/block_channels.h"

namespace libops::ops::nn {
namespace {

constexpr int64_t kColsBudget = int64_t{1} << 22;  // values in one column buffer
constexpr int64_t kCopyGrain = 32768;              // values one im2col task copies, at least

// Layouts of the weights_format arg, for messages.
const char* const kWeightLayouts[3] = {"[kH, kW, Cin, Cout]", "[Cout, Cin, kH, kW]", "[Cout, kH, kW, Cin]"};

// conv2d's own args: the weights in weights_format's layout, groups.
Status conv2d_plan(Context& block, ConvPlan& plan) {
  Window2d win;
  window_args(block, win);
  const NDArray& given = *block.input(1);
  const int64_t format = conv2d_weights_format(INT_ARG(10), INT_ARG(9));
  REQUIRE_TRUE(given.rank() == 4, OPS_ERR_SHAPE, "weights%s has rank %d: it must be rank 4 (weights_format %lld)",
               given.shape().str().c_str(), given.rank(), static_cast<long long>(format));
  NDArray w;
  switch (format) {
    case 0: RETURN_IF_ERROR(given.permute(Dims{3, 2, 0, 1}, w)); break;  // [kH, kW, Cin, Cout]
    case 2: RETURN_IF_ERROR(given.permute(Dims{0, 3, 1, 2}, w)); break;  // [Cout, kH, kW, Cin]
    default: w = given; break;
  }
  // NCHWc with a rank-4 x: an NCHW image in, NCHWc out (i arg 13 lanes).
  const bool nchw_input = INT_ARG(9) == 2 && block.input(0)->rank() == 4;
  RETURN_IF_ERROR(conv2d_check(block, *block.input(0), w, given, kWeightLayouts[format],
                               block.num_inputs() >= 3 ? block.input(2) : nullptr, INT_ARG(11),
                               nchw_input ? 0 : INT_ARG(9), win, plan));
  plan.activation = static_cast<ConvActivation>(INT_ARG(12));
  if (nchw_input) {
    REQUIRE_TRUE(INT_ARG(13) >= 1, OPS_ERR_SHAPE,
                 "x%s is NCHW with data_format 2 (NCHWc): the output's lanes (i arg 13) must be given",
                 block.input(0)->shape().str().c_str());
    plan.g.block = INT_ARG(13);
    plan.g.nchw = false;
    plan.nchw_input = true;
  }
  if (block.num_inputs() == 4) {
    const NDArray& r = *block.input(3);
    const Dims z = window_output_dims(plan.g, plan.cout);
    REQUIRE_TRUE(r.shape() == z, OPS_ERR_SHAPE, "residual%s must have the output's shape %s (x%s, weights%s)",
                 r.shape().str().c_str(), z.str().c_str(), block.input(0)->shape().str().c_str(),
                 given.shape().str().c_str());
    plan.residual = r;
  }
  return Status::ok();
}

// im2col of images [n0, n0 + nb) of dense NCHW x into cols, one
// [Cin*kH*kW, oH*oW] matrix per image.
template <typename C>
void im2col_nchw(const ConvPlan& plan, const C* x, int64_t n0, int64_t nb, C* cols) {
  const Geometry2d& g = plan.g;
  const Window2d& win = plan.win;
  const int64_t pix = g.oh * g.ow, taps = win.kh * win.kw;
  const int64_t grain = std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(1, taps * pix));
  parallel_for(nb * g.c, grain, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t n = n0 + t / g.c, c = t % g.c;
      const C* xc = x + (n * g.c + c) * g.h * g.w;
      C* dst = cols + t * taps * pix;  // rows (c, kh, kw) of image t / C
      for (int64_t kh = 0; kh < win.kh; ++kh) {
        // Output rows whose tap kh falls inside the image: [oh_lo, oh_hi).
        int64_t oh_lo, oh_hi;
        valid_taps(kh * win.dh - g.pad_top, win.sh, g.oh, g.h, oh_lo, oh_hi);
        for (int64_t kw = 0; kw < win.kw; ++kw, dst += pix) {
          int64_t ow_lo, ow_hi;
          valid_taps(kw * win.dw - g.pad_left, win.sw, g.ow, g.w, ow_lo, ow_hi);
          std::fill(dst, dst + oh_lo * g.ow, C(0));
          for (int64_t oh = oh_lo; oh < oh_hi; ++oh) {
            C* d = dst + oh * g.ow;
            // Index of the input element under output column 0 (may lie
            // left of the row: only columns [ow_lo, ow_hi) are read).
            const int64_t base = (oh * win.sh - g.pad_top + kh * win.dh) * g.w + kw * win.dw - g.pad_left;
            std::fill(d, d + ow_lo, C(0));
            if (win.sw == 1) std::copy(xc + base + ow_lo, xc + base + ow_hi, d + ow_lo);
            else
              for (int64_t ow = ow_lo; ow < ow_hi; ++ow) d[ow] = xc[base + ow * win.sw];
            std::fill(d + ow_hi, d + g.ow, C(0));
          }
          std::fill(dst + oh_hi * g.ow, dst + pix, C(0));
        }
      }
    }
  });
}

// im2col of output pixels [r0, r0 + rows) (of the whole batch, C order over
// n, oh, ow) of dense NHWC x into cols [rows, kH*kW*cg]: the cg channels
// from c0 on (one group's run; all of them without groups).
template <typename C>
void im2col_nhwc(const ConvPlan& plan, const C* x, int64_t r0, int64_t rows, int64_t c0, int64_t cg, C* cols) {
  const Geometry2d& g = plan.g;
  const Window2d& win = plan.win;
  const int64_t k = win.kh * win.kw * cg;
  parallel_for(rows, std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(1, k)), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t p = r0 + r;
      const int64_t ow = p % g.ow, oh = (p / g.ow) % g.oh, n = p / (g.ow * g.oh);
      C* dst = cols + r * k;
      for (int64_t kh = 0; kh < win.kh; ++kh) {
        const int64_t ih = oh * win.sh - g.pad_top + kh * win.dh;
        for (int64_t kw = 0; kw < win.kw; ++kw, dst += cg) {
          const int64_t iw = ow * win.sw - g.pad_left + kw * win.dw;
          if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) {
            std::fill(dst, dst + cg, C(0));
          } else {
            const C* src = x + ((n * g.h + ih) * g.w + iw) * g.c + c0;
            std::copy(src, src + cg, dst);
          }
        }
      }
    }
  });
}

// z [outer, cout, inner] += bias[cout] (NCHW: inner = oH*oW) or
// z [rows, cout] += bias (NHWC: outer = rows, inner = 1).
template <typename C>
void add_bias(const C* bias, int64_t outer, int64_t cout, int64_t inner, C* z) {
  const int64_t grain = std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(1, cout * inner));
  parallel_for(outer, grain, [&](int64_t begin, int64_t end) {
    for (int64_t gi = begin; gi < end; ++gi) {
      C* zg = z + gi * cout * inner;
      if (inner == 1) {
        for (int64_t co = 0; co < cout; ++co) zg[co] += bias[co];
      } else {
        for (int64_t co = 0; co < cout; ++co) {
          const C b = bias[co];
          C* zc = zg + co * inner;
          for (int64_t i = 0; i < inner; ++i) zc[i] += b;
        }
      }
    }
  });
}

// z = act(z) in place on block.device(), by the relu / relu6 ops' own
// (vectorized) kernels: the same results as those ops, NaN kept.
Status apply_activation(Context& block, ConvActivation act, NDArray& z) {
  return activation_step(block, static_cast<int64_t>(act), z);
}

// z += residual where conv2d has one and it is not in z yet, then the
// activation where it is not applied yet: relu(conv + bias + residual), in
// place on block.device().
Status conv_epilogue(Context& block, const ConvPlan& plan, NDArray& z, bool residual_added, bool activated) {
  if (!plan.residual.is_null() && !residual_added && z.length() > 0) {
    NDArray r;
    if (block.device().is_cpu()) RETURN_IF_ERROR(dense_as(plan.residual, z.dtype(), r));
    else RETURN_IF_ERROR(dense_on_device(block, plan.residual, z.dtype(), r));
    RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::add), z, &r, z));
  }
  return activated ? Status::ok() : apply_activation(block, plan.activation, z);
}

// Note [Fused activation]
// oneDNN can apply relu or relu6 to each output tile while it is still in
// registers (a post-op), which saves a pass over z after the convolution:
// a read and a write of the whole output, from L3 or memory where z is
// large (0.55 ms of MobileNetV2's 8.8 ms at batch 1). But its post-ops
// turn NaN into 0, and conv2d keeps NaN as the relu and relu6 ops do. So
// the post-op runs only where the convolution cannot make a NaN or an
// infinity: every x, w and bias finite, and
//     K max|x| max|w| + max|b| < FLT_MAX / 2    (K = Cin/G * kH * kW),
// which bounds every partial sum in any order of accumulation, so nothing
// overflows (with a residual, max|r| joins the bound). There the post-op's
// results are the activation's exactly; anywhere else the activation runs
// as its own pass, NaN kept.
// max|w| of constant weights is found once per session (Note [Op state]);
// max|x| costs a read of x, which is cheaper than the pass it saves only
// while x is at most twice z's size, so larger inputs (strided
// convolutions) keep the pass.

// Note [Winograd convolution]
// Winograd's algorithm (oneDNN's F(4x4, 3x3) kernels) makes a 3x3
// stride-1 convolution from transforms of 6x6 input tiles and of the
// filters, with a quarter of the direct method's multiplies: ResNet-18 at
// batch 1 went from 34.5 to 22.3 ms at 1 thread. Two things differ from
// the direct sum, so conv2d asks for it only where neither can arise:
//  * each output tile mixes its whole input tile: a NaN or an infinity in
//    x would reach all 16 outputs of the tile, not only those whose window
//    covers it; and the transforms' weighted sums of a tile can be larger
//    than any direct partial sum. So every x, w and bias must be finite,
//    and the bound of Note [Fused activation] must hold with
//    kWinogradGrowth of headroom, more than the transforms' coefficients
//    need (inputs up to 1e36 did not overflow oneDNN's kernels in tests);
//  * the rounding differs: measured against float64 sums, within 2e-6 of
//    the largest output (as the direct kernels are) on ResNet's layers.
// It pays off for enough channels and pixels (measured per layer: slower
// below 16 channels, even at 32 channels of 7x7). LIBOPS_WINOGRAD=0 turns
// it off. oneDNN has Winograd kernels for AVX-512 only; on AVX2 machines,
// whose layers run in 8-lane channel blocks, libops' own kernel takes them
// (Note [Own Winograd convolution] in blas/winograd_conv.h), under the
// same conditions, and oneDNN's direct kernel the layers it leaves.
constexpr double kWinogradGrowth = 1 << 20;
// Output tiles (over the batch) below which libops' own Winograd kernel
// leaves a call to oneDNN's direct one (Note [Own Winograd convolution]):
// its GEMMs then have too few rows to pay for reading the transformed
// filters, 4x the size of the filters. Weights that are not a graph
// constant are transformed on every call (50 to 110 ns per filter, against
// about 2 ns per filter and tile saved), so those calls need more tiles.
constexpr int64_t kOwnWinogradMinTiles = 16;
constexpr int64_t kOwnWinogradMinTilesPerTransform = 128;
// Transformed filters are kept per node, 4x the filters' size: layers whose
// would pass 64 MiB (above 680 channels in and out) stay direct.
constexpr double kOwnWinogradMaxFilterBytes = double{1 << 26};

// The largest |v| of p[0, n), or +infinity where a value is NaN or
// infinite. On bit patterns: without the sign, a float's integer order is
// its numeric order, with infinity above every finite value and NaN above
// infinity.
float max_abs_or_inf(const float* p, int64_t n) {
  constexpr uint32_t kInfBits = 0x7f800000u;
  std::atomic<uint32_t> top{0};
  parallel_for(n, int64_t{1} << 16, [&](int64_t begin, int64_t end) {
    const uint32_t m = isa_dispatch([&] {
      uint32_t acc = 0;
      for (int64_t i = begin; i < end; ++i) acc = std::max(acc, std::bit_cast<uint32_t>(p[i]) & 0x7fffffffu);
      return acc;
    });
    uint32_t seen = top.load(std::memory_order_relaxed);
    while (m > seen && !top.compare_exchange_weak(seen, m, std::memory_order_relaxed)) {
    }
  });
  const uint32_t m = top.load(std::memory_order_relaxed);
  return m >= kInfBits ? std::numeric_limits<float>::infinity() : std::bit_cast<float>(m);
}

// A 1x1 window at stride 1 without padding: x is already the GEMM's
// columns, with no im2col copy.
bool pointwise(const ConvPlan& plan) {
  const Geometry2d& g = plan.g;
  const Window2d& win = plan.win;
  return win.kh == 1 && win.kw == 1 && win.sh == 1 && win.sw == 1 && g.pad_top == 0 && g.pad_left == 0 &&
         g.oh == g.h && g.ow == g.w;
}

// Note [NCHW pointwise]
// An NCHW 1x1 convolution at stride 1 is one GEMM per image, z [Cout, HW]
// = w [Cout, Cin] x [Cin, HW], on x and z as they are. oneDNN would
// reorder x into its blocked layout and z back out of it on every call,
// which costs more than the convolution: measured at one thread, 16 -> 96
// channels at 112x112 took 0.74 ms through oneDNN and 0.40 ms as the GEMM,
// 8 x 64 -> 256 at 56x56 18.3 and 7.7 ms. At 7x7 (960 -> 160) oneDNN was
// faster (0.16 ms against 0.19): a GEMM 49 columns wide runs below its
// speed. So images of kPointwiseGemmPixels or more take the GEMM.
constexpr int64_t kPointwiseGemmPixels = 128;

// The im2col + GEMM path. w is dense [Cout, Cin/G, kH, kW] (NCHW) or
// [Cout, kH, kW, Cin/G] (NHWC): either way group gi's filters are the
// contiguous rows [gi * Cout/G, (gi + 1) * Cout/G) of a [Cout, kg] matrix.
template <typename C>
Status conv2d_compute(Context& block, const ConvPlan& plan, const C* x, const C* w, const C* bias, C* z) {
  const Geometry2d& g = plan.g;
  const Window2d& win = plan.win;
  const DataType dt = dtype_of_v<C>;
  const int64_t groups = plan.groups, cg = g.c / groups, coutg = plan.cout / groups, cout = plan.cout;
  const int64_t pix = g.oh * g.ow, taps = win.kh * win.kw, k = g.c * taps, kg = cg * taps;
  const bool one_by_one = pointwise(plan);
  auto gemm_error = [&](const Status& s) { return s.with_prefix(std::string(block.op_name()) + ": "); };

  if (k == 0) {
    std::fill(z, z + g.n * pix * cout, C(0));  // an empty sum
  } else if (g.nchw) {
    // Image n's z [Cout, pix]: group gi's rows = its filters x its rows of
    // the columns [Cin*taps, pix] (x itself when pointwise).
    if (one_by_one) {
      for (int64_t gi = 0; gi < groups; ++gi) {
        Status s = blas::gemm_batched(dt, false, false, coutg, pix, kg, 1.0, w + gi * coutg * kg, kg, 0,
                                      x + gi * kg * pix, pix, k * pix, 0.0, z + gi * coutg * pix, pix, cout * pix, g.n);
        if (!s.is_ok()) return gemm_error(s);
      }
    } else {
      const int64_t nb = std::clamp<int64_t>(kColsBudget / (k * pix), 1, g.n);
      C* cols = ALLOCATE(C, nb * k * pix);
      REQUIRE_TRUE(cols != nullptr, OPS_ERR_OUT_OF_MEMORY, "cannot allocate the %lld x %lld column buffer",
                   static_cast<long long>(nb * k), static_cast<long long>(pix));
      for (int64_t n0 = 0; n0 < g.n; n0 += nb) {
        const int64_t count = std::min(nb, g.n - n0);
        im2col_nchw(plan, x, n0, count, cols);
        for (int64_t gi = 0; gi < groups; ++gi) {
          Status s = blas::gemm_batched(dt, false, false, coutg, pix, kg, 1.0, w + gi * coutg * kg, kg, 0,
                                        cols + gi * kg * pix, pix, k * pix, 0.0, z + (n0 * cout + gi * coutg) * pix,
                                        pix, cout * pix, count);
          if (!s.is_ok()) {
            RELEASE(cols);
            return gemm_error(s);
          }
        }
      }
      RELEASE(cols);
    }
  } else {
    // z [rows, Cout]: group gi's columns = its columns x its filters^T.
    const int64_t rows = g.n * pix;
    if (one_by_one) {
      for (int64_t gi = 0; gi < groups; ++gi) {
        Status s = blas::gemm(dt, false, true, rows, coutg, cg, 1.0, x + gi * cg, g.c, w + gi * coutg * cg, cg, 0.0,
                              z + gi * coutg, cout);
        if (!s.is_ok()) return gemm_error(s);
      }
    } else {
      const int64_t chunk = std::clamp<int64_t>(kColsBudget / kg, 1, rows);
      C* cols = ALLOCATE(C, chunk * kg);
      REQUIRE_TRUE(cols != nullptr, OPS_ERR_OUT_OF_MEMORY, "cannot allocate the %lld x %lld column buffer",
                   static_cast<long long>(chunk), static_cast<long long>(kg));
      for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
        const int64_t count = std::min(chunk, rows - r0);
        for (int64_t gi = 0; gi < groups; ++gi) {
          im2col_nhwc(plan, x, r0, count, gi * cg, cg, cols);
          Status s = blas::gemm(dt, false, true, count, coutg, kg, 1.0, cols, kg, w + gi * coutg * kg, kg, 0.0,
                                z + r0 * cout + gi * coutg, cout);
          if (!s.is_ok()) {
            RELEASE(cols);
            return gemm_error(s);
          }
        }
      }
      RELEASE(cols);
    }
  }
  if (bias != nullptr) {
    if (g.nchw) add_bias(bias, g.n, cout, pix, z);
    else add_bias(bias, g.n * pix, cout, 1, z);
  }
  return Status::ok();
}

// conv2d on block.device(), not the CPU (Note [nn ops on devices]), NCHW
// or NHWC.
Status conv2d_device(Context& block, const ConvPlan& plan, const NDArray& x_in, const NDArray* bias, NDArray& z) {
  const NnDeviceOps* ops = nn_device_ops(block.device().type);
  if (ops == nullptr || ops->conv2d_usable == nullptr || ops->conv2d == nullptr)
    return no_device_implementation(block);
  if (z.length() == 0) return Status::ok();
  Conv2dDesc desc;
  desc.g = plan.g;
  desc.win = plan.win;
  desc.cout = plan.cout;
  desc.groups = plan.groups;
  desc.has_bias = plan.has_bias;
  desc.dtype = x_in.dtype();
  const bool extend = even_out_padding(desc.g, desc.win);
  RETURN_IF_ERROR(with_op_name(block, ops->conv2d_usable(block.device(), desc)));  // before any data moves
  NDArray padded;
  if (extend) RETURN_IF_ERROR(extended_input(block, x_in, desc.g, 0.0, padded));
  const NDArray& x = extend ? padded : x_in;

  NDArray xd, wd, bd;
  RETURN_IF_ERROR(dense_on_device(block, x, desc.dtype, xd));
  if (plan.g.nchw) {
    RETURN_IF_ERROR(dense_on_device(block, plan.w, desc.dtype, wd));
  } else {
    NDArray wp;  // [Cout, kH, kW, Cin/G], the filter layout of NHWC data
    RETURN_IF_ERROR(plan.w.permute(Dims{0, 2, 3, 1}, wp));
    RETURN_IF_ERROR(dense_on_device(block, wp, desc.dtype, wd));
  }
  if (plan.has_bias) RETURN_IF_ERROR(dense_on_device(block, *bias, desc.dtype, bd));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, desc.dtype));
  RETURN_IF_ERROR(with_op_name(
      block, ops->conv2d(block.device(), desc, xd, wd, plan.has_bias ? &bd : nullptr, out.target())));
  RETURN_IF_ERROR(conv_epilogue(block, plan, out.target(), false, false));
  return out.finish(block, z);
}

}  // namespace

Status conv2d_check(Context& block, const NDArray& x, const NDArray& w, const NDArray& given, const char* layout,
                    const NDArray* bias, int64_t groups, int64_t data_format, Window2d win, ConvPlan& plan) {
  Geometry2d& g = plan.g;
  RETURN_IF_ERROR(window_input(block, x, data_format, g));
  REQUIRE_TRUE(w.rank() == 4, OPS_ERR_SHAPE, "weights%s has rank %d: it must be rank 4 (%s)",
               given.shape().str().c_str(), given.rank(), layout);
  if (g.block > 0) {
    // NCHWc carries the padded channel count; the weights give the real one.
    const int64_t cin = w.dim(1) * groups;
    REQUIRE_TRUE((cin + g.block - 1) / g.block == x.dim(1), OPS_ERR_SHAPE,
                 "channel mismatch with x%s (NCHWc, %lld blocks of %lld channels) and weights%s (%s): the weights "
                 "expect %lld input channels%s, which fill %lld blocks",
                 x.shape().str().c_str(), static_cast<long long>(x.dim(1)), static_cast<long long>(g.block),
                 given.shape().str().c_str(), layout, static_cast<long long>(cin),
                 groups == 1 ? "" : str_format(" (%lld groups)", static_cast<long long>(groups)).c_str(),
                 static_cast<long long>((cin + g.block - 1) / g.block));
    g.c = cin;
  }
  plan.w = w;
  plan.cout = w.dim(0);
  plan.groups = groups;
  REQUIRE_TRUE(groups >= 1 && g.c % groups == 0 && plan.cout % groups == 0, OPS_ERR_SHAPE,
               "groups = %lld must divide both the %lld input channels of x%s (%s) and the %lld filters of weights%s (%s)",
               static_cast<long long>(groups), static_cast<long long>(g.c), x.shape().str().c_str(),
               format_name(g), static_cast<long long>(plan.cout), given.shape().str().c_str(), layout);
  REQUIRE_TRUE(w.dim(1) == g.c / groups, OPS_ERR_SHAPE,
               "channel mismatch with x%s (%s) and weights%s: x has %lld input channels%s, weights %s expect %lld",
               x.shape().str().c_str(), format_name(g), given.shape().str().c_str(), static_cast<long long>(g.c),
               groups == 1 ? "" : str_format(", %lld per group of %lld", static_cast<long long>(g.c / groups),
                                             static_cast<long long>(groups)).c_str(),
               layout, static_cast<long long>(w.dim(1)));
  RETURN_IF_ERROR(window_kernel_from_weights(block, w, given, layout, win));
  plan.win = win;
  plan.has_bias = bias != nullptr;
  if (bias != nullptr)
    REQUIRE_TRUE(bias->rank() == 1 && bias->dim(0) == plan.cout, OPS_ERR_SHAPE,
                 "bias%s does not match weights%s (%s): bias must be [Cout] = [%lld]", bias->shape().str().c_str(),
                 given.shape().str().c_str(), layout, static_cast<long long>(plan.cout));
  return window_output(block, x, plan.win, g);
}

// What a convolution node keeps across the runs of a session (Note [Op
// state]).
struct ConvWeightsState : OpState {
  blas::ConvWeightsCache cache;
  const void* bounded_source = nullptr;  // the weights max_abs is of
  float max_abs = 0;
  const void* taps_source = nullptr;  // the weights `taps` holds
  std::vector<float> taps;            // depthwise filters as [kH, kW, C], or [C / 16, kH, kW, 16] if taps_blocked
  bool taps_blocked = false;
  // The weights transformed for Winograd's tiles of 2x2 ([0]) and 4x4
  // ([1]), each made when a run first takes it: a batch size that changes
  // between runs may switch the tile (tile_for), and a switch must not
  // transform the filters again every time.
  const void* winograd_source[2] = {nullptr, nullptr};
  std::unique_ptr<blas::WinogradConv3x3> winograd[2];
};

namespace {

// max|w| of the weights input, once per session for constant weights.
Status weights_max_abs(Context& block, float& out) {
  const NDArray& w = *block.input(1);
  auto* st = block.input_is_constant(1) ? dynamic_cast<ConvWeightsState*>(block.op_state()) : nullptr;
  if (st != nullptr && st->bounded_source == w.data()) {
    out = st->max_abs;
    return Status::ok();
  }
  NDArray wd;  // any layout: only the values count
  RETURN_IF_ERROR(dense_as(w, DataType::kFloat32, wd));
  out = max_abs_or_inf(wd.data_as<float>(), wd.length());
  if (st != nullptr) st->bounded_source = w.data(), st->max_abs = out;
  return Status::ok();
}

// A bound on every partial sum of the convolution (Note [Fused
// activation]): K max|x| max|w| + max|b| (+ max|r|); +infinity where a
// value is NaN or infinite.
Status partial_sum_bound(Context& block, const ConvPlan& plan, const NDArray& xd, const NDArray* bd,
                         const NDArray* rd, double& bound) {
  bound = std::numeric_limits<double>::infinity();
  const float mx = max_abs_or_inf(xd.data_as<float>(), xd.length());
  if (!(mx < std::numeric_limits<float>::infinity())) return Status::ok();
  float mw = 0;
  RETURN_IF_ERROR(weights_max_abs(block, mw));
  const float mb = bd != nullptr ? max_abs_or_inf(bd->data_as<float>(), bd->length()) : 0.f;
  const float mr = rd != nullptr ? max_abs_or_inf(rd->data_as<float>(), rd->length()) : 0.f;
  const double taps = static_cast<double>(plan.g.c / plan.groups) * plan.win.kh * plan.win.kw;
  const double b = taps * mx * mw + mb + mr;
  if (b == b) bound = b;  // NaN (0 * infinity) stays unbounded
  return Status::ok();
}

// Whether a 3x3 stride-1 layer of these extents has the channels and the
// work for Winograd's algorithm to serve faster (Note [Winograd convolution]).
bool winograd_work(int64_t n, int64_t oh, int64_t ow, int64_t cin, int64_t cout) {
  return std::min(cin, cout) >= 16 && std::max(cin, cout) >= 32 &&
         static_cast<double>(n) * static_cast<double>(oh) * static_cast<double>(ow) * static_cast<double>(cin) *
                 static_cast<double>(cout) >=
             double{1 << 19};
}

// Whether the geometry is one Winograd's algorithm serves, and serves
// faster (Note [Winograd convolution]).
bool winograd_shape(const ConvPlan& plan) {
  const Geometry2d& g = plan.g;
  const Window2d& win = plan.win;
  if (plan.groups != 1 || win.kh != 3 || win.kw != 3 || win.sh != 1 || win.sw != 1 || win.dh != 1 || win.dw != 1)
    return false;
  return winograd_work(g.n, g.oh, g.ow, g.c, plan.cout);
}

// The post-op for plan's activation where it gives the activation's exact
// results and saves work (Note [Fused activation]), and Winograd's
// algorithm where it is safe and faster (Note [Winograd convolution]).
Status choose_algorithm(Context& block, const ConvPlan& plan, const NDArray& xd, const NDArray* bd,
                        const NDArray* rd, const NDArray& z, blas::Conv2dGeometry& geo) {
  geo.post_op = blas::ConvPostOp::kNone;
  geo.winograd = false;
  const bool wino = blas::winograd_enabled() && winograd_shape(plan);
  // Reading x (and the residual) costs less than the activation's pass it
  // saves only while they are at most twice z's size.
  // A residual added after the convolution, not as a post-op, must come
  // before the activation, which then cannot be a post-op either.
  const int64_t read = xd.length() + (rd != nullptr ? rd->length() : 0);
  const bool residual_after = !plan.residual.is_null() && rd == nullptr;
  const bool fuse = plan.activation != ConvActivation::kNone && read <= 2 * z.length() && !residual_after;
  if (!wino && !fuse) return Status::ok();
  double bound = 0;
  RETURN_IF_ERROR(partial_sum_bound(block, plan, xd, bd, rd, bound));
  geo.winograd = wino && bound * kWinogradGrowth < FLT_MAX / 2;
  if (fuse && bound < FLT_MAX / 2)
    geo.post_op = plan.activation == ConvActivation::kRelu ? blas::ConvPostOp::kRelu : blas::ConvPostOp::kRelu6;
  return Status::ok();
}

// Whether libops' depthwise kernels take the call: float32 with one filter
// per channel (groups = Cin = Cout), NHWC or NCHW.
bool own_depthwise(const ConvPlan& plan, DataType dt) {
  return dt == DataType::kFloat32 && plan.groups > 1 && plan.groups == plan.g.c && plan.cout == plan.g.c &&
         plan.g.block == 0 && depthwise_kernel_enabled();
}

// The same in NCHWc with 16 lanes (Note [Depthwise NCHWc kernel]); it
// runs before oneDNN.
bool own_depthwise_nchwc(const ConvPlan& plan, DataType dt) {
  return dt == DataType::kFloat32 && plan.g.block == kDepthwiseLanes && !plan.nchw_input && plan.groups > 1 &&
         plan.groups == plan.g.c && plan.cout == plan.g.c && depthwise_kernel_enabled();
}

// Note [Depthwise NHWC kernel]: the filters as [kH, kW, C] taps (once per
// session for constant weights: the node's state), then the kernel, which
// applies the activation. NCHW (Note [Depthwise NCHW kernel]) takes the
// weights [C, 1, kH, kW] as they are.
Status run_own_depthwise(Context& block, const ConvPlan& plan, const NDArray& xd, const NDArray* bd, NDArray& z) {
  const Geometry2d& g = plan.g;
  const Window2d& win = plan.win;
  DepthwiseGeometry d;
  d.n = g.n, d.h = g.h, d.w = g.w, d.c = g.c;
  d.kh = win.kh, d.kw = win.kw, d.sh = win.sh, d.sw = win.sw, d.dh = win.dh, d.dw = win.dw;
  d.pad_top = g.pad_top, d.pad_left = g.pad_left, d.oh = g.oh, d.ow = g.ow;
  d.activation = plan.residual.is_null() ? static_cast<int>(plan.activation) : 0;  // else after the residual
  const float* bias = bd != nullptr ? bd->data_as<float>() : nullptr;
  if (g.nchw) {
    NDArray wd;
    RETURN_IF_ERROR(dense_as(plan.w, DataType::kFloat32, wd));
    depthwise_nchw_f32(d, xd.data_as<float>(), wd.data_as<float>(), bias, z.data_as<float>());
    return Status::ok();
  }
  // NCHWc: the taps of each block of 16 channels together, zeros past C.
  const bool blocked = g.block == kDepthwiseLanes;
  const int64_t per_channel = win.kh * win.kw;
  const int64_t padded = blocked ? (g.c + kDepthwiseLanes - 1) / kDepthwiseLanes * kDepthwiseLanes : g.c;
  auto* st = block.input_is_constant(1) ? dynamic_cast<ConvWeightsState*>(block.op_state()) : nullptr;
  std::vector<float> local;
  std::vector<float>& taps = st != nullptr ? st->taps : local;
  const void* source = block.input(1)->data();
  if (st == nullptr || st->taps_source != source || st->taps_blocked != blocked ||
      static_cast<int64_t>(taps.size()) != padded * per_channel) {
    NDArray wd;  // [C, 1, kH, kW]
    RETURN_IF_ERROR(dense_as(plan.w, DataType::kFloat32, wd));
    const float* w = wd.data_as<float>();
    taps.assign(static_cast<size_t>(padded * per_channel), 0.0f);
    for (int64_t c = 0; c < d.c; ++c)
      for (int64_t t = 0; t < per_channel; ++t) {
        const int64_t at = blocked ? ((c / kDepthwiseLanes) * per_channel + t) * kDepthwiseLanes + c % kDepthwiseLanes
                                   : t * d.c + c;
        taps[static_cast<size_t>(at)] = w[c * per_channel + t];
      }
    if (st != nullptr) st->taps_source = source, st->taps_blocked = blocked;
  }
  if (blocked) depthwise_nchwc16_f32(d, xd.data_as<float>(), taps.data(), bias, z.data_as<float>());
  else depthwise_nhwc_f32(d, xd.data_as<float>(), taps.data(), bias, z.data_as<float>());
  return Status::ok();
}

// Whether libops' own Winograd kernel takes the call (Note [Own Winograd
// convolution] in blas/winograd_conv.h): a Winograd geometry in 8-lane
// channel blocks, where oneDNN has no Winograd kernel, with enough tiles
// to fill its GEMMs.
bool own_winograd_shape(const ConvPlan& plan, DataType dt, bool constant_weights) {
  const Geometry2d& g = plan.g;
  if (dt != DataType::kFloat32 || g.block != blas::WinogradConv3x3::kLanes || plan.nchw_input ||
      !blas::winograd_enabled() || !winograd_shape(plan) || !blas::WinogradConv3x3::supported())
    return false;
  return own_winograd_size(g.n, g.oh, g.ow, g.c, plan.cout, constant_weights);
}

// z = the convolution through libops' Winograd kernel, with the bias, the
// residual and the activation, where Note [Winograd convolution] allows it;
// `done` false leaves z unwritten for the direct path.
Status run_own_winograd(Context& block, const ConvPlan& plan, const NDArray& xd, const NDArray* bd, NDArray& z,
                        bool& done) {
  done = false;
  const Geometry2d& g = plan.g;
  NDArray rd;
  if (!plan.residual.is_null()) RETURN_IF_ERROR(dense_as(plan.residual, DataType::kFloat32, rd));
  double bound = 0;
  RETURN_IF_ERROR(partial_sum_bound(block, plan, xd, bd, rd.is_null() ? nullptr : &rd, bound));
  if (!(bound * kWinogradGrowth < FLT_MAX / 2)) return Status::ok();
  const int64_t lanes = blas::WinogradConv3x3::kLanes;
  // The blocked layout's channel counts (g.c is the real one: Note
  // [Channel-blocked layout]).
  const int64_t cin_padded = (g.c + lanes - 1) / lanes * lanes, cout_padded = (plan.cout + lanes - 1) / lanes * lanes;
  auto* st = block.input_is_constant(1) ? dynamic_cast<ConvWeightsState*>(block.op_state()) : nullptr;
  if (block.input_is_constant(1) && st == nullptr) {
    const void* source = nullptr;
    (void)constant_weights_cache(block, source);  // makes the node's state
    st = dynamic_cast<ConvWeightsState*>(block.op_state());
  }
  const int tile = blas::WinogradConv3x3::tile_for(g.n, g.oh, g.ow);
  const int variant = tile == 4 ? 1 : 0;
  blas::WinogradConv3x3 local;
  blas::WinogradConv3x3* wino = &local;
  const void* source = block.input(1)->data();
  if (st != nullptr) {
    if (st->winograd[variant] == nullptr) st->winograd[variant] = std::make_unique<blas::WinogradConv3x3>();
    wino = st->winograd[variant].get();
  }
  if (st == nullptr || st->winograd_source[variant] != source || !wino->prepared_for(tile, cin_padded, cout_padded)) {
    NDArray wd;  // [Cout, Cin, 3, 3]
    RETURN_IF_ERROR(dense_as(plan.w, DataType::kFloat32, wd));
    if (st != nullptr) st->winograd_source[variant] = nullptr;
    if (!wino->prepare(tile, g.c, plan.cout, wd.data_as<float>(), cin_padded, cout_padded))
      return Status::ok();  // unsupported, or out of memory for the transformed filters: the direct path
    if (st != nullptr) st->winograd_source[variant] = source;
  }
  std::vector<float> padded_bias;
  const float* bias = bd != nullptr ? bd->data_as<float>() : nullptr;
  if (bias != nullptr && cout_padded != plan.cout) {
    padded_bias.assign(static_cast<size_t>(cout_padded), 0.0f);
    std::copy(bias, bias + plan.cout, padded_bias.begin());
    bias = padded_bias.data();
  }
  blas::WinogradGeometry wg;
  wg.n = g.n, wg.c = cin_padded, wg.cout = cout_padded, wg.h = g.h, wg.w = g.w, wg.oh = g.oh, wg.ow = g.ow;
  wg.pad_top = g.pad_top, wg.pad_left = g.pad_left;
  wino->run(wg, xd.data_as<float>(), bias, rd.is_null() ? nullptr : rd.data_as<float>(),
            static_cast<int>(plan.activation), z.data_as<float>(), get_num_threads());
  done = true;
  return Status::ok();
}

}  // namespace

blas::ConvWeightsCache* constant_weights_cache(Context& block, const void*& source) {
  source = nullptr;
  if (!block.input_is_constant(1)) return nullptr;
  auto* st = dynamic_cast<ConvWeightsState*>(block.op_state());
  if (st == nullptr) {
    auto fresh = std::make_unique<ConvWeightsState>();
    st = fresh.get();
    block.set_op_state(std::move(fresh));
  }
  source = block.input(1)->data();
  return &st->cache;
}

namespace {

Status conv2d_cpu(Context& block, const ConvPlan& plan, const NDArray& x, const NDArray* bias, NDArray& z);

// An NCHWc call oneDNN does not take (another dtype, oneDNN off or
// refusing the case, another device) runs on an NCHW copy of x, and its
// result is blocked into z (Note [Channel-blocked layout] in
// conv_utils.h); on a device, the copies are made there.
Status conv2d_nchwc_by_nchw(Context& block, const ConvPlan& plan, const NDArray& x, const NDArray* bias,
                            NDArray& z) {
  const Geometry2d& g = plan.g;
  ConvPlan flat = plan;  // the bare convolution: the residual and the activation follow on z
  flat.g.block = 0;
  flat.g.nchw = true;
  flat.nchw_input = false;
  flat.residual = NDArray();
  flat.activation = ConvActivation::kNone;
  NDArray xn = x, zn;
  if (!plan.nchw_input) {
    RETURN_IF_ERROR(NDArray::create(x.dtype(), Dims{g.n, g.c, g.h, g.w}, 'c', xn));
    RETURN_IF_ERROR(unblock_channels_into(block, x, xn));
  }
  RETURN_IF_ERROR(NDArray::create(z.dtype(), Dims{g.n, plan.cout, g.oh, g.ow}, 'c', zn));
  RETURN_IF_ERROR(block.device().is_cpu() ? conv2d_cpu(block, flat, xn, bias, zn)
                                           : conv2d_device(block, flat, xn, bias, zn));
  RETURN_IF_ERROR(block_channels_into(block, zn, z));
  return conv_epilogue(block, plan, z, false, false);
}

Status conv2d_cpu(Context& block, const ConvPlan& plan, const NDArray& x, const NDArray* bias, NDArray& z_out) {
  NDArray* z = &z_out;
  if (z->length() == 0) return Status::ok();
  const DataType dt = float_compute_dtype(x.dtype());

  NDArray xd, wd, bd;
  RETURN_IF_ERROR(dense_as(x, dt, xd));
  if (plan.has_bias) RETURN_IF_ERROR(dense_as(*bias, dt, bd));
  OutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, dt, false));
  if (own_depthwise_nchwc(plan, dt)) {  // Note [Depthwise NCHWc kernel]
    const void* source = nullptr;
    (void)constant_weights_cache(block, source);  // makes a constant-weights node's state, which keeps the taps
    RETURN_IF_ERROR(run_own_depthwise(block, plan, xd, plan.has_bias ? &bd : nullptr, out.target()));
    RETURN_IF_ERROR(conv_epilogue(block, plan, out.target(), false, plan.residual.is_null()));
    return out.finish(*z);
  }
  if (own_winograd_shape(plan, dt, block.input_is_constant(1))) {  // Note [Own Winograd convolution]
    bool done = false;
    RETURN_IF_ERROR(run_own_winograd(block, plan, xd, plan.has_bias ? &bd : nullptr, out.target(), done));
    if (done) return out.finish(*z);
  }
  // NCHW 1x1 convolutions skip oneDNN (Note [NCHW pointwise]).
  const bool nchw_pointwise = plan.g.nchw && pointwise(plan) && plan.g.oh * plan.g.ow >= kPointwiseGemmPixels;
  if (dt == DataType::kFloat32 && blas::dnnl_enabled() && !nchw_pointwise) {
    // oneDNN's direct or Winograd convolution (Note [oneDNN convolution],
    // Note [Winograd convolution]); where it refuses the case, the im2col
    // path below runs instead. Constant weights are reordered once per
    // session (Note [Cached convolution weights], Note [Op state]): keyed
    // by the weights input's buffer.
    const Geometry2d& g = plan.g;
    const Window2d& win = plan.win;
    blas::Conv2dGeometry geo{g.n,    g.c,    g.h,       g.w,        plan.cout, win.kh, win.kw, win.sh,
                             win.sw, win.dh, win.dw,    g.pad_top,  g.pad_left, g.oh,  g.ow,   !g.nchw};
    geo.nhwc = !g.nchw && g.block == 0;
    geo.channel_block = g.block;
    geo.nchw_input = plan.nchw_input;
    geo.groups = plan.groups;
    // The residual as a post-op where x and z are taken as they are.
    NDArray rd;
    geo.residual = !plan.residual.is_null() && !g.nchw;
    if (geo.residual) RETURN_IF_ERROR(dense_as(plan.residual, dt, rd));
    const void* source = nullptr;
    blas::ConvWeightsCache* cache = constant_weights_cache(block, source);
    RETURN_IF_ERROR(choose_algorithm(block, plan, xd, plan.has_bias ? &bd : nullptr, geo.residual ? &rd : nullptr,
                                     *z, geo));
    const int threads = get_num_threads();
    const bool cached = cache != nullptr && cache->holds(source, geo, threads);
    if (!cached) RETURN_IF_ERROR(dense_as(plan.w, dt, wd));  // [Cout, Cin/G, kH, kW]
    const Status s = blas::dnnl_conv2d_f32(geo, xd.data_as<float>(), cached ? nullptr : wd.data_as<float>(),
                                           plan.has_bias ? bd.data_as<float>() : nullptr,
                                           out.target().data_as<float>(), threads, cache, source,
                                           geo.residual ? rd.data_as<float>() : nullptr);
    if (s.is_ok()) {
      RETURN_IF_ERROR(conv_epilogue(block, plan, out.target(), geo.residual, geo.post_op != blas::ConvPostOp::kNone));
      return out.finish(*z);
    }
    log_debug("%s: oneDNN declined: %s", block.op_name(), s.message().c_str());
  }
  if (plan.g.block > 0) return conv2d_nchwc_by_nchw(block, plan, x, bias, *z);
  if (own_depthwise(plan, dt)) {  // Note [Depthwise NHWC kernel], Note [Depthwise NCHW kernel]
    const void* source = nullptr;
    (void)constant_weights_cache(block, source);  // makes a constant-weights node's state, which keeps the taps
    RETURN_IF_ERROR(run_own_depthwise(block, plan, xd, plan.has_bias ? &bd : nullptr, out.target()));
    RETURN_IF_ERROR(conv_epilogue(block, plan, out.target(), false, plan.residual.is_null()));
    return out.finish(*z);
  }
  if (plan.g.nchw) {
    RETURN_IF_ERROR(dense_as(plan.w, dt, wd));
  } else {
    NDArray wp;  // [Cout, kH, kW, Cin/G], the tap order of NHWC columns
    RETURN_IF_ERROR(plan.w.permute(Dims{0, 2, 3, 1}, wp));
    RETURN_IF_ERROR(dense_as(wp, dt, wd));
  }

  auto run = [&](auto c) {
    using C = decltype(c);
    return conv2d_compute<C>(block, plan, xd.data_as<C>(), wd.data_as<C>(),
                             plan.has_bias ? bd.data_as<C>() : nullptr, out.target().data_as<C>());
  };
  RETURN_IF_ERROR(dt == DataType::kFloat64 ? run(double{}) : run(float{}));
  RETURN_IF_ERROR(conv_epilogue(block, plan, out.target(), false, false));
  return out.finish(*z);
}

}  // namespace

bool own_winograd_size(int64_t n, int64_t oh, int64_t ow, int64_t cin, int64_t cout, bool constant_weights) {
  if (!winograd_work(n, oh, ow, cin, cout)) return false;
  const int tile = blas::WinogradConv3x3::tile_for(n, oh, ow);
  const int64_t tiles = n * ((oh + tile - 1) / tile) * ((ow + tile - 1) / tile);
  const double filter_bytes = (tile + 2) * (tile + 2) * static_cast<double>(cin) * static_cast<double>(cout) * sizeof(float);
  return tiles >= (constant_weights ? kOwnWinogradMinTiles : kOwnWinogradMinTilesPerTransform) &&
         filter_bytes <= kOwnWinogradMaxFilterBytes;
}

Status conv2d_run(Context& block, const ConvPlan& plan, const NDArray& x, const NDArray* bias) {
  NDArray& z = *block.output(0);
  if (!block.device().is_cpu()) {
    if (plan.g.block > 0) return conv2d_nchwc_by_nchw(block, plan, x, bias, z);
    return conv2d_device(block, plan, x, bias, z);
  }
  return conv2d_cpu(block, plan, x, bias, z);
}

Status conv2d_check_epilogue(const Context& block) {
  FusedProgram epilogue;
  bool present = false;
  return read_epilogue(block, block.input(0)->dtype(), epilogue, present);
}

Status conv2d_run_with_epilogue(Context& block, const ConvPlan& plan, const NDArray& x, const NDArray* bias) {
  FusedProgram epilogue;
  bool present = false;
  RETURN_IF_ERROR(read_epilogue(block, x.dtype(), epilogue, present));
  RETURN_IF_ERROR(conv2d_run(block, plan, x, bias));
  return present ? run_epilogue(block, epilogue, *block.output(0)) : Status::ok();
}

}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(conv2d, -1, 1, false, 0, 9) {
  using namespace libops;
  using namespace libops::ops::nn;
  ConvPlan plan;
  RETURN_IF_ERROR(conv2d_plan(block, plan));
  return conv2d_run_with_epilogue(block, plan, *INPUT_VARIABLE(0), plan.has_bias ? INPUT_VARIABLE(2) : nullptr);
}

DECLARE_SHAPE_FN(conv2d) {
  using namespace libops;
  using namespace libops::ops::nn;
  ConvPlan plan;
  RETURN_IF_ERROR(conv2d_plan(block, plan));
  RETURN_IF_ERROR(conv2d_check_epilogue(block));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), window_output_dims(plan.g, plan.cout), 'c'});
  return Status::ok();
}

DECLARE_TYPES(conv2d) {
  // On a device: through the backend's conv2d (Note [nn ops on devices]).
  descriptor.allow_inputs(libops::types::kFloat).require_same_type().runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(conv2d) {
  args.describe("2-D convolution (cross-correlation) with an optional bias; grouped and depthwise with groups.");
  using namespace libops::ops::nn;
  args.input("x", "images, [N, Cin, H, W] (NCHW), [N, H, W, Cin] (NHWC) or [N, Cin / b, H, W, b] (NCHWc)");
  args.input("weights", "filters in the layout weights_format names, whatever the data format; Cin / groups "
                        "channels each");
  args.optional_input("bias", "[Cout]");
  args.optional_input("residual", "z's shape, added before the activation (needs the bias input)");
  args.output("z", "[N, Cout, oH, oW] (NCHW), [N, oH, oW, Cout] (NHWC) or [N, Cout / b, oH, oW, b] (NCHWc), x's "
                   "dtype");
  window_signature(args, true);
  data_format_arg(args, true);
  args.i_arg("weights_format", -1, "layout of the weights; by default that of the data format's usual callers")
      .one_of({{-1, "0 with NHWC, 1 with NCHW"}, {0, "[kH, kW, Cin, Cout]"}, {1, "[Cout, Cin, kH, kW]"},
               {2, "[Cout, kH, kW, Cin]"}});
  args.i_arg("groups", 1, "channel groups: Cin and Cout split into this many runs, run g of the filters seeing "
                          "run g of the channels (Cin = groups: depthwise)")
      .range(1, std::numeric_limits<int32_t>::max());
  args.i_arg("activation", 0, "applied after the bias, NaN kept").one_of({{0, "none"}, {1, "relu"}, {2, "relu6"}});
  args.i_arg("lanes", 0, "data_format 2 with an NCHW x (rank 4): the lanes b of the NCHWc output")
      .range(0, 1 << 20);
  libops::ops::declare_epilogue_args(args);
}
