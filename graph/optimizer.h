// Optimizer: rewrites of a loaded body that keep what it computes (up to
// floating-point rounding) and make it cheaper to run. The loader runs it
// on every body after the body's nodes are read, checked and ordered, and
// before the planner infers shapes.
//
// Note [Graph rewrites]
//  - channels-last: every NCHW conv2d, depthwise_conv2d, deconv2d,
//    maxpool2d and avgpool2d runs NHWC between a permute to NHWC and one back. Then the
//    permutes back move down through the ops that do not care about the
//    layout (element-wise ops whose other inputs are scalars or permuted
//    alike, batchnorm over the channels, concat along the channels, global
//    reductions over H and W), and a permute to NHWC that meets a permute
//    back cancels with it. What is left is a permute where a value enters
//    the channels-last region and where it leaves to a layout-sensitive
//    reader (a reshape, a graph output). Why: oneDNN's convolutions run
//    NHWC data as it is, and NCHW data only through a reorder of x and of
//    z on every call (MobileNetV2 b1 spent half its time there).
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
//    sqrt(0.5)) becomes gelu(x), when no value inside the pattern has
//    another reader.
//  Each rewrite is listed (Graph::rewrites()), naming the nodes it touched.
//  LoadOptions::rewrites = false, or LIBOPS_GRAPH_REWRITES=0 in the
//  environment, loads the graph as written.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace libops::graph {

// Applies Note [Graph rewrites] to `body` (nodes in topological order),
// leaving its nodes ordered and its liveness recomputed; appends one line
// per rewrite to `log`.
Status optimize_body(Body& body, std::vector<std::string>& log);

// Whether rewrites are on by the environment (LIBOPS_GRAPH_REWRITES).
bool rewrites_enabled_by_environment();

}  // namespace libops::graph
