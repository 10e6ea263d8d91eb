// The 2-D convolution engine behind conv2d and depthwise_conv2d: one set of
// checks, one CPU path (oneDNN, else im2col + GEMM) and one device path
// (the backend's conv2d), whatever op the call came through.
//
// Note [Grouped convolution]
//  With `groups` G, the Cin input channels and the Cout filters are cut
//  into G equal runs; filter run g sees only channel run g. The weights are
//  [Cout, Cin / G, kH, kW]: filter o reads channels
//  (o / (Cout / G)) * (Cin / G) ... + Cin / G - 1. G = 1 is the ordinary
//  convolution; G = Cin is depthwise (each channel convolved with its own
//  Cout / Cin filters, Cout / Cin being the channel multiplier). Output
//  channel o of a depthwise call is input channel o / multiplier's filter
//  o % multiplier, the order of TF's and libnd4j's depthwise_conv2d.
#pragma once

#include "blas/conv_dnnl.h"
#include "libops/ops/nn/conv_utils.h"

namespace libops::ops::nn {

// conv2d's weights_format i arg 10 as a layout: given (0, 1 or 2), or by the
// data format when left at its default -1: libnd4j's and TensorFlow's
// [kH, kW, Cin, Cout] (0) with NHWC, ONNX's and PyTorch's [Cout, Cin, kH, kW]
// (1) with NCHW and NCHWc. The graph optimizer resolves it the same way
// before it changes a node's data format.
inline int64_t conv2d_weights_format(int64_t weights_format, int64_t data_format) {
  if (weights_format >= 0) return weights_format;
  return data_format == 1 ? 0 : 1;
}

// Whether an undilated ungrouped 3x3 stride-1 convolution of n images to
// oh x ow outputs, cin -> cout channels, is large enough for libops' own
// Winograd kernel (Note [Own Winograd convolution] in blas/winograd_conv.h):
// enough work for Winograd's algorithm, enough output tiles to fill its
// GEMMs (fewer where the weights are a graph constant, transformed once),
// and transformed filters of at most 64 MiB. The graph optimizer asks it
// where a convolution's image size is known before choosing a layout for it.
bool own_winograd_size(int64_t n, int64_t oh, int64_t ow, int64_t cin, int64_t cout, bool constant_weights);

// An activation applied to the convolution's output (after the bias), as
// the relu and relu6 ops compute it: NaN stays NaN.
enum class ConvActivation : int64_t { kNone = 0, kRelu = 1, kRelu6 = 2 };

struct ConvPlan {
  NDArray w;  // [Cout, Cin / groups, kH, kW]; may be shape-only in a shape function
  Window2d win;
  Geometry2d g;
  int64_t cout = 0;
  int64_t groups = 1;
  bool has_bias = false;
  ConvActivation activation = ConvActivation::kNone;
  // NCHWc z (g.block lanes) from an NCHW x: data_format 2 with a rank-4 x,
  // for an image of fewer channels than a block.
  bool nchw_input = false;
  // conv2d's residual input (z's shape), added before the activation; null
  // when absent.
  NDArray residual;
};

// Checks x (data_format 0 NCHW or 1 NHWC, rank 4; 2 NCHWc, rank 5: Note
// [Channel-blocked layout] in conv_utils.h), the weights `w` viewed as
// [Cout, Cin / groups, kH, kW] and the optional bias [Cout] against each
// other and the window (kH or kW = 0 in win: taken from the weights), and
// fills plan with the output geometry. Messages show `given` (the weights
// as the caller passed them) and `layout`, the order their format names.
Status conv2d_check(Context& block, const NDArray& x, const NDArray& w, const NDArray& given, const char* layout,
                    const NDArray* bias, int64_t groups, int64_t data_format, Window2d win, ConvPlan& plan);

// z = act(conv(x, plan.w) (+ bias)) into block.output(0), on block.device():
// on the CPU through oneDNN where it takes the case, else im2col + GEMM; on
// another device through that device's backend (Note [nn ops on devices]).
Status conv2d_run(Context& block, const ConvPlan& plan, const NDArray& x, const NDArray* bias);
// conv2d_run, then the call's epilogue program on z (Note [Epilogue
// programs] in elementwise/fused_program.h), for conv2d and
// depthwise_conv2d; the check of that program for their shape functions.
Status conv2d_run_with_epilogue(Context& block, const ConvPlan& plan, const NDArray& x, const NDArray* bias);
Status conv2d_check_epilogue(const Context& block);

// The oneDNN weights cache of a node whose weights (input 1) are a graph
// constant, with `source` set to their buffer (Note [Cached convolution
// weights] in blas/conv_dnnl.h); nullptr (and no source) otherwise.
blas::ConvWeightsCache* constant_weights_cache(Context& block, const void*& source);

}  // namespace libops::ops::nn
