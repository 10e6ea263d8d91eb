// Optimizer: rewrites of a loaded body that keep what it computes (up to
// floating-point rounding) and make it cheaper to run. The loader runs it
// on every body after the body's nodes are read, checked and ordered, and
// before the planner infers shapes.
//
// Note [Graph rewrites]
//  - layout: every NCHW conv2d, depthwise_conv2d, deconv2d, maxpool2d and
//    avgpool2d runs in a layout oneDNN's kernels take as it is, between a
//    conversion to it and one back. Then the conversions back move down
//    through the ops that do not care about the layout (element-wise ops
//    whose other inputs are scalars or converted alike, batchnorm over the
//    channels, concat along the channels, global reductions over H and W),
//    and a conversion that meets a conversion back cancels with it. What is
//    left is a conversion where a value enters the region and where it
//    leaves to a layout-sensitive reader (a reshape, a graph output). Why:
//    oneDNN's convolutions run NCHW data only through a reorder of x and of
//    z on every call (MobileNetV2 b1 spent half its time there). Two
//    targets (GraphLayout, LoadOptions::layout, LIBOPS_GRAPH_LAYOUT):
//     * NCHWc (Note [Channel-blocked layout] in libops/ops/nn/conv_utils.h),
//       16 lanes on AVX-512, 8 otherwise, through block_channels and
//       unblock_channels: oneDNN's blocked kernels, which measured 10-20%
//       faster than its NHWC ones inside MobileNetV2 and ResNet-18 (they
//       stay fast when the activations come from memory rather than
//       cache), and Winograd's kernels, which need no reorder in it. Only
//       conv2d and deconv2d (float32 constant weights), maxpool2d and
//       avgpool2d take it;
//       a convolution of fewer input channels than a block (an image's
//       first layer) reads NCHW and writes NCHWc. The lanes past C hold
//       zeros, so only element-wise ops that keep 0 at 0 (relu, add,
//       multiply by a finite scalar, ...) and whose blocked inputs have the
//       same channels carry it, concat only whole blocks, and batchnorm
//       does not. Chosen (kAuto) where oneDNN is on, the CPU has AVX2 or
//       better, the graph is configured for the CPU, and every NCHW window
//       op of the body takes it (else NHWC). A session moved to a GPU
//       still runs it: there conv2d and the pools go through NCHW and NHWC
//       views on the device.
//     * NHWC through permutes: the rest.
//    kAuto leaves a body with a single NCHW window op as it is: with no
//    neighbour to cancel against, its two conversions cost more than the
//    layout saves it. But for a 3x3 stride-1 convolution that libops'
//    Winograd kernel takes in 8-lane blocks on an AVX2 machine (Note [Own
//    Winograd convolution] in blas/winograd_conv.h): blocked, it runs in
//    about two thirds of the time, conversions included. Where it reads a
//    graph input of known dims, the image must be large enough for that
//    kernel too (ops::nn::own_winograd_size), else it stays as it is.
//  - batchnorm folded into conv2d: a batchnorm over the channel axis whose
//    only input is the output of a conv2d read by nothing else, with the
//    conv2d's weights and bias and all of the batchnorm's statistics
//    constants, becomes part of the conv2d: with s = gamma / sqrt(variance
//    + epsilon), the weights of filter o are scaled by s[o] and the bias
//    becomes (bias - mean) * s + beta. The batchnorm node is removed (a
//    profile shows its time in the conv2d), and the old weights are
//    dropped when nothing else reads them. float32 and float64 only: for
//    float16 and bfloat16 weights the folded values would round where the
//    unfolded computation, done in float, does not.
//  - activation fused into conv2d: a relu, relu6, or clip to [0, 6] or
//    [0, inf) whose input is a conv2d output read by nothing else becomes
//    that conv2d's activation arg (NaN stays NaN, as in the ops).
//  - decomposed layer norm and gelu, as exporters write LayerNormalization
//    and GELU: add(multiply(divide(x - mean(x), sqrt(mean((x - mean)^2)
//    + eps)), gamma), beta) over the last axis becomes layer_norm(x, gamma,
//    beta), and 0.5 * x * (1 + erf(x / sqrt(2))) (either order, or x *
//    sqrt(0.5)) becomes gelu(x), and its tanh form 0.5 * x * (1 +
//    tanh(sqrt(2 / pi) * (x + 0.044715 x^3))), as GPT-2's exports write
//    it, gelu(x, approximate = tanh), when no value inside the pattern has
//    another reader; and x / sqrt(mean(x^2) + eps) * w over the last axis
//    (also x * rsqrt(..), x * reciprocal(sqrt(..))), as LLaMA's and T5's
//    exports write RMSNorm, rms_norm(x, w), after the layer norms (whose
//    scaled part is an RMS norm of x - mean).
//  - residual add fused into conv2d: an add of a conv2d output read by
//    nothing else (no activation of its own yet) and another value of the
//    same, statically known shape becomes that conv2d's residual input
//    (oneDNN adds it as a post-op while it writes each output tile), and a
//    relu or relu6 after the add then becomes the conv2d's activation:
//    ResNet's relu(conv + shortcut) in one node. It runs after the planner
//    has inferred the shapes (an add may broadcast), and the body is
//    planned again.
//  - bias add and activation fused into matmul (Note [Matmul epilogue] in
//    libops/ops/blas/matmul.cpp): an add (or a bias_add along the last
//    axis) of a matmul output read by nothing else and a rank-1 constant
//    of the product's last dim and dtype becomes the matmul's bias (after
//    shape inference, as above, which tells the product's rank and last
//    dim; the batch may stay unknown); a relu, relu6 or such clip of a
//    matmul output read by nothing else becomes its activation arg. A
//    dense layer relu(x W + b) is one node, as ONNX Runtime's Gemm.
//  - attention: matmul(softmax(scale * matmul(q, k^T) + mask), v) over the
//    last axis, as exporters write it (k^T a permute of k or matmul's
//    transpose_y, the scale a constant multiply or divide of the scores
//    or multiplies of q and k^T, the mask optional), becomes dot_product_attention(q, k, v, mask), whose
//    blocked kernel keeps each block of scores in cache (Note [Blocked
//    attention]): the encoder block of bench/compare_models.py lost a
//    transpose, a multiply and a softmax pass, and its attention took
//    0.64 -> 0.39 ms at 1 thread. After shape inference, like the adds.
//  - element-wise fusion (Note [Element-wise fusion] in fuse_elementwise.cpp):
//    a chain of float32, float16 or bfloat16 element-wise nodes whose inner
//    values nothing else reads (x * clip(x + 3, 0, 6) / 6, x * sigmoid(x),
//    (x * 2 + 1).tanh() * x, as exporters write HardSwish, SiLU and the
//    like) becomes one fused_elementwise node that computes it in one pass
//    over memory instead of one pass per node, with the same values; and a
//    float32 chain that only a reduction reads (x * x before the mean of an
//    RMS norm) joins it as one fused_reduce node, with no temporary for its
//    values. Last,
//    after the shapes are inferred and every other rewrite has taken its
//    patterns.
//  - constant folding: a node whose inputs are all constants (weights
//    transposed, cast or built by ConstantOfShape and friends, shapes
//    computed from constants) runs once, at load, and its outputs become
//    constants of the graph, which every session shares; the node is
//    removed. Random ops stay (each run draws anew), and so do control
//    flow and outputs over 64 MiB. Before every other rewrite, so that the
//    batchnorm fold sees weights that were computed.
//  The folds run first, so the layout rewrite sees convolutions with their
//  batchnorm and activation inside. Each rewrite is listed
//  (Graph::rewrites()), naming the nodes it touched.
//  LoadOptions::rewrites = false, or LIBOPS_GRAPH_REWRITES=0 in the
//  environment, loads the graph as written.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace libops::graph {

// What decides the layout rewrite's target (Note [Graph rewrites]).
struct LayoutChoice {
  GraphLayout layout = GraphLayout::kAuto;  // kAuto: LIBOPS_GRAPH_LAYOUT, else by the body and the CPU
  bool cpu_graph = true;                    // the graph's configured device is the CPU (or none)
};

// Applies Note [Graph rewrites] to `body` (nodes in topological order),
// leaving its nodes ordered and its liveness recomputed; appends one line
// per rewrite to `log`.
Status optimize_body(Body& body, const LayoutChoice& choice, std::vector<std::string>& log);

// The rewrites of Note [Graph rewrites] that need the shapes the planner
// inferred (body.static_shapes): the residual-add, bias-add and attention
// fusions. The caller plans the body again when `changed`.
Status optimize_planned_body(Body& body, std::vector<std::string>& log, bool& changed);

// Note [Element-wise fusion] (fuse_elementwise.cpp), after
// optimize_planned_body and its planning (LIBOPS_GRAPH_FUSION=0 in the
// environment turns it off): `changed` when it fused a chain; the
// body's nodes are then ordered and its liveness recomputed, and the caller
// plans it again.
Status fuse_elementwise_chains(Body& body, std::vector<std::string>& log, bool& changed);
// Whether rewrites are on by the environment (LIBOPS_GRAPH_REWRITES).
bool rewrites_enabled_by_environment();

}  // namespace libops::graph
