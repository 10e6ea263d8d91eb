// Graph rewrites (Note [Graph rewrites] in graph/optimizer.h): each graph is
// loaded with and without them; both must give the same outputs, and the
// rewritten one must have lost the nodes the rewrite removed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "graph/executor.h"
#include "blas/conv_dnnl.h"
#include "blas/winograd_conv.h"
#include "libops/ops/nn/conv2d.h"
#include "libops/core/cpu_isa.h"
#include "graph_builder.h"
#include "libops/ops/elementwise/elementwise.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using libops::test::make;
using test::GraphBuilder;
using test::NodeArgs;
using test::Ref;

std::vector<double> ramp(int64_t n, double scale, double phase) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * std::sin(0.7 * static_cast<double>(i) + phase);
  return v;
}

struct Loaded {
  std::shared_ptr<const Graph> graph;
  NDArray out;
};

Loaded load_and_run(const std::vector<uint8_t>& bytes, bool rewrites, const NDArray& x,
                    GraphLayout layout = GraphLayout::kAuto) {
  Loaded r;
  LoadOptions o;
  o.rewrites = rewrites;
  o.layout = layout;
  Status ls = Graph::load_buffer(bytes.data(), bytes.size(), o, r.graph);
  EXPECT_TRUE(ls.is_ok()) << ls.message();
  if (!r.graph) return r;
  Session s(r.graph);
  const NDArray* in[] = {&x};
  Status st = s.run(in, 1);
  EXPECT_TRUE(st.is_ok()) << st.message();
  if (st.is_ok()) {
    EXPECT_TRUE(s.output(0).dup('c', r.out).is_ok());
  }
  return r;
}

// conv2d -> batchnorm -> relu; `nhwc` with HWIO weights (weights_format 0),
// else NCHW with OIHW weights. 5 filters over 3 channels, 3x3, pad 1.
struct ConvBnGraph {
  bool nhwc = false;
  bool conv_bias = true;
  bool gamma = true, beta = true;
  bool mean_is_input = false;  // a placeholder: nothing to fold
  bool conv_also_output = false;
  bool residual = false;        // conv2d's input 3, added before the batchnorm
  int64_t conv_activation = 0;  // conv2d's own activation arg
  DataType dtype = DataType::kFloat32;

  std::vector<uint8_t> build() const {
    GraphBuilder g;
    auto& m = g.main();
    const std::vector<int64_t> xs = nhwc ? std::vector<int64_t>{2, 6, 7, 3} : std::vector<int64_t>{2, 3, 6, 7};
    Ref x = m.placeholder("x", dtype, xs);
    const Dims ws = nhwc ? Dims{3, 3, 3, 5} : Dims{5, 3, 3, 3};
    Ref w = m.constant("w", make(dtype, ws, ramp(45 * 3, 0.4, 0.1)));
    std::vector<Ref> conv_in = {x, w};
    if (conv_bias || residual) conv_in.push_back(m.constant("b", make(dtype, {5}, ramp(5, 0.5, 0.3))));
    if (residual) {
      const Dims zs = nhwc ? Dims{2, 6, 7, 5} : Dims{2, 5, 6, 7};
      conv_in.push_back(m.constant("r", make(dtype, zs, ramp(zs.product(), 2.0, 0.4))));
    }
    NodeArgs ca;
    ca.i = {3, 3, 1, 1, 1, 1, 1, 1, 0, nhwc ? 1 : 0, nhwc ? 0 : 1, 1, conv_activation};
    Ref c = m.op("conv2d", conv_in, ca, "conv1");
    Ref mean = mean_is_input ? m.placeholder("mean", dtype, std::vector<int64_t>{5})
                             : m.constant("mean", make(dtype, {5}, ramp(5, 0.3, 1.0)));
    std::vector<double> var_values = ramp(5, 0.4, 2.0);
    for (double& v : var_values) v = 1.2 + v;
    std::vector<Ref> bn_in = {c, mean, m.constant("var", make(dtype, {5}, var_values))};
    if (gamma) bn_in.push_back(m.constant("gamma", make(dtype, {5}, ramp(5, 0.8, 0.5))));
    if (beta) bn_in.push_back(m.constant("beta", make(dtype, {5}, ramp(5, 0.2, 0.9))));
    NodeArgs ba;
    ba.i = {gamma ? 1 : 0, beta ? 1 : 0, nhwc ? -1 : 1};
    ba.t = {1e-3};
    Ref bn = m.op("batchnorm", bn_in, ba, "bn1");
    m.output("y", m.op("relu", {bn}, {}, "relu1"));
    if (conv_also_output) m.output("conv_out", c);
    return g.finish();
  }
};

int count_ops(const Graph& g, const char* label) {
  int n = 0;
  for (const Node& node : g.main().nodes) n += node.op_label == label ? 1 : 0;
  return n;
}

// Loads `bytes` without rewrites and with them, for each target layout of
// the layout rewrite, and runs each on x; they must agree. Returns the
// graph rewritten for `layout`.
std::shared_ptr<const Graph> expect_same_outputs(const std::vector<uint8_t>& bytes, const NDArray& x, double tol,
                                                 GraphLayout layout = GraphLayout::kAuto) {
  Loaded plain = load_and_run(bytes, false, x);
  if (!plain.graph) {
    ADD_FAILURE() << "did not load";
    return nullptr;
  }
  EXPECT_TRUE(plain.graph->rewrites().empty());
  std::shared_ptr<const Graph> asked;
  for (GraphLayout l : {GraphLayout::kAuto, GraphLayout::kNhwc, GraphLayout::kNchwc}) {
    SCOPED_TRACE(l == GraphLayout::kAuto ? "auto layout" : l == GraphLayout::kNhwc ? "NHWC" : "NCHWc");
    Loaded rewritten = load_and_run(bytes, true, x, l);
    if (!rewritten.graph) {
      ADD_FAILURE() << "did not load";
      return nullptr;
    }
    EXPECT_EQ(plain.out.shape(), rewritten.out.shape());
    if (plain.out.shape() != rewritten.out.shape()) continue;  // a failed run has no output to compare
    EXPECT_TRUE(libops::test::all_close(rewritten.out, libops::test::values(plain.out), tol, tol));
    if (l == layout) asked = rewritten.graph;
  }
  return asked;
}

// oneDNN turned off for a scope (the default comes back after it).
struct Im2colOnlyForGraphs {
  Im2colOnlyForGraphs() { blas::set_dnnl_enabled(false); }
  ~Im2colOnlyForGraphs() { blas::set_dnnl_enabled(true); }
};

std::shared_ptr<const Graph> load_with_layout(const std::vector<uint8_t>& bytes, GraphLayout layout) {
  LoadOptions o;
  o.layout = layout;
  std::shared_ptr<const Graph> g;
  const Status s = Graph::load_buffer(bytes.data(), bytes.size(), o, g);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return g;
}

// The batchnorm is folded (`folded`) or left, and the outputs agree.
void expect_fold(const ConvBnGraph& spec, bool folded) {
  const Dims xs = spec.nhwc ? Dims{2, 6, 7, 3} : Dims{2, 3, 6, 7};
  NDArray x = make(spec.dtype, xs, ramp(xs.product(), 1.0, 0.0));
  auto g = expect_same_outputs(spec.build(), x, spec.dtype == DataType::kFloat64 ? 1e-12 : 1e-5);
  if (!g) return;
  EXPECT_EQ(count_ops(*g, "batchnorm"), folded ? 0 : 1);
  EXPECT_EQ(count_ops(*g, "conv2d"), 1);
}

TEST(GraphRewrites, FoldsBatchnormIntoConv2d) {
  ConvBnGraph spec;
  expect_fold(spec, true);
  std::shared_ptr<const Graph> g = load_with_layout(spec.build(), GraphLayout::kNhwc);
  ASSERT_TRUE(g);
  ASSERT_EQ(g->rewrites().size(), 3u);
  EXPECT_EQ(g->rewrites()[0], "node 8 'bn1' (batchnorm) folded into node 3 'conv1' (conv2d)");
  EXPECT_EQ(g->rewrites()[1], "node 9 'relu1' (relu) fused into node 3 'conv1' (conv2d)");
  EXPECT_EQ(g->rewrites()[2], "main: 1 convolution and pooling nodes run channels-last (NHWC), with 2 layout permutes");
  // x -> permute to NHWC -> conv2d (with the batchnorm and the relu) ->
  // permute back.
  ASSERT_EQ(g->main().nodes.size(), 3u);
  EXPECT_EQ(g->main().nodes[0].op_label, "permute");
  EXPECT_EQ(g->main().nodes[1].op_label, "conv2d");
  EXPECT_EQ(g->main().nodes[1].args.i[12], 1);  // activation: relu
  EXPECT_EQ(g->main().nodes[2].op_label, "permute");
  // The old weights and bias and the statistics are released; the folded
  // weights and bias are the only constants left.
  EXPECT_EQ(g->main().constants.size(), 2u);
  EXPECT_TRUE(g->main().static_plan);
}

TEST(GraphRewrites, FoldsEveryParameterCombination) {
  for (bool bias : {true, false})
    for (bool gamma : {true, false})
      for (bool beta : {true, false}) {
        SCOPED_TRACE(testing::Message() << "bias " << bias << " gamma " << gamma << " beta " << beta);
        ConvBnGraph spec;
        spec.conv_bias = bias;
        spec.gamma = gamma;
        spec.beta = beta;
        expect_fold(spec, true);
      }
}

TEST(GraphRewrites, FoldsNhwcWithFiltersLastAndFloat64) {
  ConvBnGraph spec;
  spec.nhwc = true;
  expect_fold(spec, true);
  spec.dtype = DataType::kFloat64;
  expect_fold(spec, true);
}

TEST(GraphRewrites, LeavesWhatItCannotFold) {
  ConvBnGraph spec;
  spec.mean_is_input = true;  // statistics known only at run time
  std::shared_ptr<const Graph> g;
  ASSERT_TRUE(test::load(spec.build(), g).is_ok());
  EXPECT_EQ(count_ops(*g, "batchnorm"), 1);

  ConvBnGraph shared;
  shared.conv_also_output = true;  // the conv2d's own output is needed too
  expect_fold(shared, false);

  ConvBnGraph half;
  half.dtype = DataType::kFloat16;  // folded weights would round differently
  expect_fold(half, false);

  ConvBnGraph activated;
  activated.conv_activation = 1;  // batchnorm(relu(conv)): the relu comes first
  expect_fold(activated, false);

  // batchnorm(conv + b + r) would scale r too; the fold once dropped r.
  for (bool nhwc : {false, true}) {
    ConvBnGraph with_residual;
    with_residual.residual = true;
    with_residual.nhwc = nhwc;
    expect_fold(with_residual, false);
  }
}

// A conv2d given its residual (input 3) by the graph, not by the rewrite,
// of C == H == W: the layout rewrite converts the residual with input 0
// (it once stayed NCHW and was added transposed, silently).
TEST(GraphRewrites, ConvertsAGivenResidualToTheConvsLayout) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, 8, 8, 8});
  NodeArgs a;
  a.i = {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0};
  Ref w = m.constant("w", make(DataType::kFloat32, {8, 8, 3, 3}, ramp(8 * 8 * 9, 0.2, 0.1)));
  Ref b = m.constant("b", make(DataType::kFloat32, {8}, ramp(8, 0.5, 0.3)));
  Ref r = m.constant("r", make(DataType::kFloat32, {1, 8, 8, 8}, ramp(512, 3.0, 0.7)));
  Ref c1 = m.op("conv2d", {x, w, b, r}, a, "conv1");
  m.output("y", m.op("conv2d", {c1, w, b}, a, "conv2"));  // two window ops: the rewrite has a chain to convert
  NDArray xv = make(DataType::kFloat32, {1, 8, 8, 8}, ramp(512, 1.0, 0.0));
  auto rewritten = expect_same_outputs(g.finish(), xv, 1e-4, GraphLayout::kNhwc);
  ASSERT_TRUE(rewritten);
  int permutes = 0;
  for (const Node& n : rewritten->main().nodes) permutes += n.op_label == "permute" ? 1 : 0;
  EXPECT_EQ(permutes, 3) << "x and r to NHWC, the output back";
}

// A residual block of an NCHW network: conv -> relu -> maxpool -> conv,
// added to the pooled value, relu, a 1x1 conv, then a global average pool
// and a reshape (which cares about the layout); conv2's output is a graph
// output too (an NCHW output in the middle still reads NCHW). `width`
// channels after conv1, `last` after conv3.
std::vector<uint8_t> residual_network(int64_t width, int64_t last) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3, 9, 8});
  auto conv = [&](Ref in, int64_t cin, int64_t cout, int64_t k, int64_t pad, const char* name) {
    NodeArgs a;
    a.i = {k, k, 1, 1, pad, pad, 1, 1, 0};
    Ref w = m.constant(std::string(name) + "_w", make(DataType::kFloat32, {cout, cin, k, k},
                                                       ramp(cout * cin * k * k, 0.3, static_cast<double>(cout))));
    return m.op("conv2d", {in, w}, a, name);
  };
  Ref c1 = m.op("relu", {conv(x, 3, width, 3, 1, "conv1")}, {}, "relu1");
  NodeArgs pool;
  pool.i = {2, 2, 2, 2, 0, 0, 1, 1, 0};
  Ref p = m.op("maxpool2d", {c1}, pool, "pool");
  Ref c2 = conv(p, width, width, 3, 1, "conv2");
  Ref half = m.constant("half", make(DataType::kFloat32, {}, {0.5}));
  Ref sum = m.op("add", {m.op("multiply", {c2, half}, {}, "scale"), p}, {}, "residual");
  Ref c3 = conv(m.op("relu", {sum}, {}, "relu2"), width, last, 1, 0, "conv3");
  NodeArgs mean;
  mean.i = {2, 3};
  Ref pooled = m.op("reduce_mean", {c3}, mean, "gap");
  NodeArgs flat;
  flat.i = {2, last / 2, 2};
  m.output("y", m.op("reshape", {pooled}, flat, "reshape"));
  m.output("features", c2);
  return g.finish();
}

// Channels-last leaves one permute at the input and none after the pool,
// whose [N, C] is the same in both layouts.
TEST(GraphRewrites, RunsNchwNetworksChannelsLast) {
  NDArray xv = make(DataType::kFloat32, {2, 3, 9, 8}, ramp(2 * 3 * 9 * 8, 1.0, 0.0));
  auto rewritten = expect_same_outputs(residual_network(4, 6), xv, 1e-5, GraphLayout::kNhwc);
  ASSERT_TRUE(rewritten);
  // conv1, pool, conv2 and conv3; permutes: x to NHWC, conv2's output back
  // for the "features" output. relu1 joins conv1; relu2 follows an add.
  ASSERT_EQ(rewritten->rewrites().size(), 3u);
  EXPECT_EQ(rewritten->rewrites()[0], "node 3 'relu1' (relu) fused into node 2 'conv1' (conv2d)");
  EXPECT_EQ(rewritten->rewrites()[1],
            "main: 4 convolution and pooling nodes run channels-last (NHWC), with 2 layout permutes");
  // The scale, the residual add and relu2 (Note [Element-wise fusion]).
  EXPECT_EQ(rewritten->rewrites()[2],
            "nodes 8 'scale', 9 'residual' fused into node 10 'relu2' (fused_elementwise of multiply, add, relu: "
            "t0 = multiply(x0, x1); t1 = add(t0, x2); t2 = relu(t1))");
  EXPECT_EQ(count_ops(*rewritten, "permute"), 2);
  EXPECT_EQ(count_ops(*rewritten, "relu"), 0);
  EXPECT_EQ(count_ops(*rewritten, "fused_elementwise(multiply, add, relu)"), 1);
}

// The same network channel-blocked (Note [Channel-blocked layout]): conv1
// reads the 3-channel image as NCHW (fewer channels than a block) and
// writes NCHWc; the pool, conv2, the scale by a constant, the residual
// add, relu2, conv3 and the global pool all stay NCHWc. What is left is an
// unblock for the "features" output and one after the global pool, whose
// [N, C / b, b] becomes [N, C].
TEST(GraphRewrites, RunsNchwNetworksChannelBlocked) {
  NDArray xv = make(DataType::kFloat32, {2, 3, 9, 8}, ramp(2 * 3 * 9 * 8, 1.0, 0.0));
  auto rewritten = expect_same_outputs(residual_network(20, 24), xv, 1e-5, GraphLayout::kNchwc);
  ASSERT_TRUE(rewritten);
  ASSERT_EQ(rewritten->rewrites().size(), 3u);  // relu1 into conv1, the layout, the scale-add-relu2 chain
  const std::string lanes = cpu_isa_supported() == CpuIsa::kAvx512 ? "16" : "8";
  EXPECT_EQ(rewritten->rewrites()[1], "main: 4 convolution and pooling nodes run channel-blocked (NCHWc, " + lanes +
                                          " lanes), with 2 layout conversions");
  EXPECT_EQ(count_ops(*rewritten, "block_channels"), 0);
  EXPECT_EQ(count_ops(*rewritten, "unblock_channels"), 2);
  for (const Node& n : rewritten->main().nodes) {
    if (n.op_label == "conv2d") {
      EXPECT_EQ(n.args.i[9], 2) << n.name;
    }
    if (n.op_label == "maxpool2d") {
      EXPECT_EQ(n.args.i[10], 2) << n.name;
    }
  }
}

// The default layout (GraphLayout::kAuto): NCHWc where oneDNN runs and
// every NCHW window op takes it; a depthwise_conv2d node (which does not)
// sends the whole body to NHWC; without oneDNN, NHWC.
TEST(GraphRewrites, ChoosesChannelBlockedWhereEveryWindowOpTakesIt) {
  auto layout_line = [](const std::shared_ptr<const Graph>& g) {
    for (const std::string& r : g->rewrites())
      if (r.find("convolution and pooling nodes run") != std::string::npos) return r;
    return std::string();
  };
  const bool blocked_here = blas::dnnl_enabled() && cpu_isa_supported() != CpuIsa::kBaseline;
  auto plain = load_with_layout(residual_network(20, 24), GraphLayout::kAuto);
  ASSERT_TRUE(plain);
  EXPECT_NE(layout_line(plain).find(blocked_here ? "channel-blocked (NCHWc" : "channels-last (NHWC)"),
            std::string::npos)
      << layout_line(plain);

  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, 16, 6, 6});
  NodeArgs a;
  a.i = {3, 3, 1, 1, 1, 1, 1, 1, 0};
  Ref w = m.constant("w", make(DataType::kFloat32, {16, 16, 3, 3}, ramp(16 * 16 * 9, 0.2, 0.1)));
  Ref dw = m.constant("dw", make(DataType::kFloat32, {3, 3, 16, 1}, ramp(144, 0.3, 0.2)));
  NodeArgs da;
  da.i = {3, 3, 1, 1, 1, 1, 1, 1, 0};
  m.output("y", m.op("depthwise_conv2d", {m.op("conv2d", {x, w}, a, "conv"), dw}, da, "depthwise"));
  const std::vector<uint8_t> bytes = g.finish();
  auto mixed = load_with_layout(bytes, GraphLayout::kAuto);
  ASSERT_TRUE(mixed);
  EXPECT_NE(layout_line(mixed).find("channels-last (NHWC)"), std::string::npos) << layout_line(mixed);
  {
    Im2colOnlyForGraphs off;
    auto without = load_with_layout(residual_network(20, 24), GraphLayout::kAuto);
    ASSERT_TRUE(without);
    EXPECT_NE(layout_line(without).find("channels-last (NHWC)"), std::string::npos) << layout_line(without);
  }
}

// A body with one window op (a lone conv2d, then a relu) keeps NCHW under
// kAuto: its conversions would have nothing to cancel against. Asked for
// explicitly, the layout still applies.
TEST(GraphRewrites, LeavesALoneWindowOpInNchw) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, 16, 6, 6});
  NodeArgs a;
  a.i = {1, 1, 1, 1, 0, 0, 1, 1, 0};
  Ref w = m.constant("w", make(DataType::kFloat32, {16, 16, 1, 1}, ramp(256, 0.2, 0.1)));
  m.output("y", m.op("relu", {m.op("conv2d", {x, w}, a, "conv")}, {}, "relu"));
  const std::vector<uint8_t> bytes = g.finish();
  auto lone = load_with_layout(bytes, GraphLayout::kAuto);
  ASSERT_TRUE(lone);
  for (const std::string& r : lone->rewrites()) EXPECT_EQ(r.find("convolution and pooling nodes run"), std::string::npos) << r;
  EXPECT_EQ(count_ops(*lone, "permute") + count_ops(*lone, "block_channels") + count_ops(*lone, "unblock_channels"), 0);
  auto forced = load_with_layout(bytes, GraphLayout::kNhwc);
  ASSERT_TRUE(forced);
  EXPECT_EQ(count_ops(*forced, "permute"), 2);
}

// A lone 3x3 stride-1 convolution that Winograd's algorithm takes once
// blocked goes NCHWc on an AVX2 machine (Note [Own Winograd convolution]),
// with its two conversions, and gives the NCHW graph's values within
// Winograd's rounding; a lone one it would not take (too few channels)
// stays NCHW.
TEST(GraphRewrites, BlocksALoneWinogradConvolution) {
  auto lone_conv = [](int64_t channels, int64_t side = 24) {
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, channels, side, side});
    NodeArgs a;
    a.i = {3, 3, 1, 1, 1, 1, 1, 1, 0};
    Ref w = m.constant("w", make(DataType::kFloat32, {channels, channels, 3, 3}, ramp(channels * channels * 9, 0.05, 0.3)));
    m.output("y", m.op("relu", {m.op("conv2d", {x, w}, a, "conv")}, {}, "relu"));
    return g.finish();
  };
  const bool blocks = blas::dnnl_enabled() && blas::winograd_enabled() && cpu_isa_supported() == CpuIsa::kAvx2 &&
                      blas::WinogradConv3x3::supported();
  NDArray x = make(DataType::kFloat32, {1, 32, 24, 24}, ramp(32 * 576, 1.0, 0.1));
  // |x| <= 1, |w| <= 0.05, 288 taps: sums of magnitudes up to 15.
  auto rewritten = expect_same_outputs(lone_conv(32), x, 1e-4, GraphLayout::kAuto);
  ASSERT_TRUE(rewritten);
  EXPECT_EQ(count_ops(*rewritten, "block_channels"), blocks ? 1 : 0);
  EXPECT_EQ(count_ops(*rewritten, "unblock_channels"), blocks ? 1 : 0);
  auto few = load_with_layout(lone_conv(8), GraphLayout::kAuto);
  ASSERT_TRUE(few);
  EXPECT_EQ(count_ops(*few, "block_channels") + count_ops(*few, "permute"), 0);
  // 32 channels on a 6x6 image: nine 2x2 tiles, too few for the kernel,
  // which would leave the blocked convolution to the direct path.
  EXPECT_FALSE(ops::nn::own_winograd_size(1, 6, 6, 32, 32, true));
  EXPECT_TRUE(ops::nn::own_winograd_size(1, 24, 24, 32, 32, true));
  auto small = load_with_layout(lone_conv(32, 6), GraphLayout::kAuto);
  ASSERT_TRUE(small);
  EXPECT_EQ(count_ops(*small, "block_channels") + count_ops(*small, "permute"), 0);
}

// What NCHWc cannot carry stays NCHW around it: a sigmoid (which makes
// the zero lanes 0.5) and an add of a value broadcast across the
// channels; each convolution then has its own conversions, and the
// outputs agree all the same.
TEST(GraphRewrites, ChannelBlockedChainsStopWhereZerosWouldNotStay) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, 20, 6, 6});
  Ref mask = m.placeholder("mask", DataType::kFloat32, std::vector<int64_t>{1, 1, 6, 6});
  NodeArgs a;
  a.i = {3, 3, 1, 1, 1, 1, 1, 1, 0};
  Ref w1 = m.constant("w1", make(DataType::kFloat32, {20, 20, 3, 3}, ramp(20 * 20 * 9, 0.2, 0.1)));
  Ref w2 = m.constant("w2", make(DataType::kFloat32, {20, 20, 3, 3}, ramp(20 * 20 * 9, 0.2, 0.7)));
  Ref c1 = m.op("conv2d", {x, w1}, a, "conv1");
  Ref s = m.op("sigmoid", {c1}, {}, "sig");
  Ref masked = m.op("add", {m.op("conv2d", {s, w2}, a, "conv2"), mask}, {}, "masked");
  m.output("y", m.op("conv2d", {masked, w2}, a, "conv3"));
  std::vector<uint8_t> bytes = g.finish();
  NDArray xv = make(DataType::kFloat32, {1, 20, 6, 6}, ramp(720, 1.0, 0.0));
  NDArray mv = make(DataType::kFloat32, {1, 1, 6, 6}, ramp(36, 2.0, 0.5));
  std::vector<std::vector<double>> outs;
  for (bool rewrites : {false, true}) {
    LoadOptions o;
    o.rewrites = rewrites;
    o.layout = GraphLayout::kNchwc;
    std::shared_ptr<const Graph> loaded;
    ASSERT_OK(Graph::load_buffer(bytes.data(), bytes.size(), o, loaded));
    if (rewrites) {
      EXPECT_EQ(count_ops(*loaded, "block_channels"), 3);
      EXPECT_EQ(count_ops(*loaded, "unblock_channels"), 3);
    }
    Session session(loaded);
    const NDArray* in[] = {&xv, &mv};
    ASSERT_OK(session.run(in, 2));
    outs.push_back(libops::test::values(session.output(0)));
  }
  EXPECT_TRUE(libops::test::all_close(outs[1], outs[0], 1e-5, 1e-5));
}

// A ResNet block, relu(conv(relu(conv(h))) + h), and a shortcut through a
// 1x1 conv without bias: each add becomes the residual of the conv2d
// before it (the one without bias gets a zero bias), and the relu after it
// that conv2d's activation. An add that broadcasts a [N, C, 1, 1] value
// stays, and so does every add of a graph whose batch is not known.
TEST(GraphRewrites, FusesResidualAddsIntoConv2d) {
  for (bool known_batch : {true, false}) {
    SCOPED_TRACE(known_batch ? "static shapes" : "unknown batch");
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{known_batch ? 2 : -1, 16, 6, 6});
    auto conv = [&](Ref in, int64_t cin, int64_t cout, int64_t k, bool bias, const char* name) {
      NodeArgs a;
      a.i = {k, k, 1, 1, k / 2, k / 2, 1, 1, 0};
      std::vector<Ref> inputs = {in, m.constant(std::string(name) + "_w",
                                                make(DataType::kFloat32, {cout, cin, k, k},
                                                     ramp(cout * cin * k * k, 0.2, static_cast<double>(cout))))};
      if (bias)
        inputs.push_back(m.constant(std::string(name) + "_b", make(DataType::kFloat32, {cout}, ramp(cout, 0.3, 1.0))));
      return m.op("conv2d", inputs, a, name);
    };
    Ref x0 = m.op("relu", {conv(x, 16, 16, 3, true, "conv0")}, {}, "relu0");
    Ref h = m.op("relu", {conv(x0, 16, 16, 3, true, "conv1")}, {}, "relu1");
    Ref y = m.op("relu", {m.op("add", {conv(h, 16, 16, 3, true, "conv2"), x0}, {}, "res1")}, {}, "relu2");
    Ref y2 = m.op("add", {y, conv(y, 16, 16, 1, false, "conv3")}, {}, "res2");  // the conv output second
    NodeArgs mean;
    mean.i = {2, 3};
    mean.b = {true};
    Ref pooled = m.op("reduce_mean", {y2}, mean, "gap");  // [N, 16, 1, 1]
    m.output("y", m.op("add", {conv(y2, 16, 16, 1, true, "conv4"), pooled}, {}, "broadcast"));
    const std::vector<uint8_t> bytes = g.finish();
    NDArray xv = make(DataType::kFloat32, {2, 16, 6, 6}, ramp(2 * 16 * 36, 1.0, 0.0));
    for (GraphLayout layout : {GraphLayout::kNchwc, GraphLayout::kNhwc}) {
      auto rewritten = expect_same_outputs(bytes, xv, 1e-5, layout);
      ASSERT_TRUE(rewritten);
      // With an unknown batch, res1 and relu2 run as one fused node
      // (Note [Element-wise fusion]) instead of joining conv2.
      EXPECT_EQ(count_ops(*rewritten, "add"), known_batch ? 1 : 2);
      EXPECT_EQ(count_ops(*rewritten, "relu"), 0);
      EXPECT_EQ(count_ops(*rewritten, "fused_elementwise(add, relu)"), known_batch ? 0 : 1);
      int with_residual = 0;
      for (const Node& n : rewritten->main().nodes)
        if (n.op_label == "conv2d" && n.inputs.size() == 4) {
          ++with_residual;
          if (n.name == "conv2") {
            EXPECT_EQ(n.args.i[12], 1) << "relu2 joins conv2";
          }
        }
      EXPECT_EQ(with_residual, known_batch ? 2 : 0);
      if (known_batch) {
        std::string all;
        for (const std::string& r : rewritten->rewrites()) all += r + "\n";
        EXPECT_NE(all.find("'res1' (add) fused into node"), std::string::npos) << all;
        EXPECT_NE(all.find("'conv2' (conv2d) as its residual"), std::string::npos) << all;
        EXPECT_NE(all.find("'relu2' (relu) fused into node"), std::string::npos) << all;
      }
    }
  }
}

// A dense layer relu(x W + b), a bias_add layer and a last layer b + x W
// become one matmul each (Note [Matmul epilogue]), with a known batch and
// an unknown one; an add that broadcasts the product to a larger shape, a
// bias that is not a constant, and a product read twice stay as they are.
// A batch of one row also runs the packed GEMV, which applies the bias and
// relu in registers (Note [Packed GEMV]).
TEST(GraphRewrites, FusesBiasAddsAndReluIntoMatmul) {
  for (int64_t batch : {3, -1, 1}) {
    SCOPED_TRACE(batch < 0 ? "unknown batch" : batch == 1 ? "one row" : "static shapes");
    const int64_t rows = batch < 0 ? 3 : batch;
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{batch, 6});
    Ref w1 = m.constant("w1", make(DataType::kFloat32, {6, 8}, ramp(48, 0.5, 0.2)));
    Ref b1 = m.constant("b1", make(DataType::kFloat32, {8}, ramp(8, 0.4, 1.1)));
    Ref w2 = m.constant("w2", make(DataType::kFloat32, {8, 8}, ramp(64, 0.5, 0.9)));
    Ref b2 = m.constant("b2", make(DataType::kFloat32, {8}, ramp(8, 0.2, 0.6)));
    Ref w3 = m.constant("w3", make(DataType::kFloat32, {8, 4}, ramp(32, 0.5, 0.7)));
    Ref b3 = m.constant("b3", make(DataType::kFloat32, {4}, ramp(4, 0.3, 2.0)));
    Ref h = m.op("relu", {m.op("add", {m.op("matmul", {x, w1}, {}, "fc1"), b1}, {}, "bias1")}, {}, "relu1");
    NodeArgs last_axis;
    last_axis.i = {-1};
    h = m.op("relu", {m.op("bias_add", {m.op("matmul", {h, w2}, {}, "fc2"), b2}, last_axis, "bias2")}, {}, "relu2");
    m.output("y", m.op("add", {b3, m.op("matmul", {h, w3}, {}, "fc3")}, {}, "bias3"));  // the bias first
    // Not fused: a [2, 3, 4] broadcast of the product, a bias that is a
    // graph input, and a product that is also an output.
    Ref wide = m.constant("wide", make(DataType::kFloat32, {2, 1, 4}, ramp(8, 0.3, 0.4)));
    m.output("broadcast", m.op("add", {m.op("matmul", {h, w3}, {}, "fc4"), wide}, {}, "bias4"));
    Ref b_in = m.placeholder("b_in", DataType::kFloat32, std::vector<int64_t>{4});
    m.output("placeholder_bias", m.op("add", {m.op("matmul", {h, w3}, {}, "fc5"), b_in}, {}, "bias5"));
    Ref twice = m.op("matmul", {h, w3}, {}, "fc6");
    m.output("twice", m.op("add", {twice, b3}, {}, "bias6"));
    m.output("product", twice);
    const std::vector<uint8_t> bytes = g.finish();

    NDArray xv = make(DataType::kFloat32, {rows, 6}, ramp(rows * 6, 2.0, 0.0));
    if (rows > 1) xv.set_double(4, std::nan(""));  // row 0 of the output is NaN, through the relus
    NDArray bv = make(DataType::kFloat32, {4}, {0.5, -1, 2, 0});
    const NDArray* in[] = {&xv, &bv};
    std::vector<NDArray> outs[2];
    std::shared_ptr<const Graph> graphs[2];
    for (int rewrites = 0; rewrites < 2; ++rewrites) {
      LoadOptions o;
      o.rewrites = rewrites == 1;
      ASSERT_OK(Graph::load_buffer(bytes.data(), bytes.size(), o, graphs[rewrites]));
      Session s(graphs[rewrites]);
      ASSERT_OK(s.run(in, 2));
      for (int k = 0; k < 5; ++k) {
        NDArray d;
        ASSERT_OK(s.output(k).dup('c', d));
        outs[rewrites].push_back(d);
      }
    }
    for (int k = 0; k < 5; ++k) {
      EXPECT_EQ(outs[0][k].shape(), outs[1][k].shape()) << "output " << k;
      EXPECT_TRUE(libops::test::all_close(outs[1][k], libops::test::values(outs[0][k]), 1e-6, 1e-6)) << "output " << k;
    }
    if (rows > 1) {
      EXPECT_TRUE(std::isnan(outs[1][0].get_double(0))) << "NaN stays NaN through the fused relus";
    }
    const Graph& r = *graphs[1];
    EXPECT_EQ(count_ops(r, "relu"), 0);
    EXPECT_EQ(count_ops(r, "bias_add"), 0);
    EXPECT_EQ(count_ops(r, "add"), 3);
    int with_bias = 0;
    for (const Node& n : r.main().nodes)
      if (n.op_label == "matmul" && n.inputs.size() == 3) ++with_bias;
    EXPECT_EQ(with_bias, 3);
    std::string all;
    for (const std::string& line : r.rewrites()) all += line + "\n";
    EXPECT_NE(all.find("'bias1' (add) fused into node"), std::string::npos) << all;
    EXPECT_NE(all.find("'bias2' (bias_add) fused into node"), std::string::npos) << all;
    EXPECT_NE(all.find("'fc3' (matmul) as its bias"), std::string::npos) << all;
    EXPECT_NE(all.find("'relu1' (relu) fused into node"), std::string::npos) << all;
    EXPECT_EQ(all.find("'bias4'"), std::string::npos) << all;
  }
}

// clip to [0, 6] is relu6 and clip to [0, inf) relu; another clip becomes
// the conv2d's epilogue program (Note [Epilogue programs]).
TEST(GraphRewrites, FusesClipsThatAreReluOrRelu6) {
  for (double hi : {6.0, std::numeric_limits<double>::infinity(), 5.0}) {
    SCOPED_TRACE(hi);
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, 5, 5, 2});
    NodeArgs a;
    a.i = {3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 1};  // NHWC with [Cout, Cin, kH, kW] weights
    Ref w = m.constant("w", make(DataType::kFloat32, {3, 2, 3, 3}, ramp(54, 2.0, 0.4)));
    NodeArgs clip;
    clip.t = {0.0, hi};
    m.output("y", m.op("clip", {m.op("conv2d", {x, w}, a, "conv")}, clip, "clip"));
    NDArray xv = make(DataType::kFloat32, {1, 5, 5, 2}, ramp(50, 3.0, 0.0));
    xv.set_double(7, std::nan(""));
    auto r = expect_same_outputs(g.finish(), xv, 1e-5);
    ASSERT_TRUE(r);
    EXPECT_EQ(count_ops(*r, "clip"), 0);
    EXPECT_EQ(count_ops(*r, "conv2d + clip"), hi == 5.0 ? 1 : 0);
    EXPECT_EQ(count_ops(*r, "conv2d"), hi == 5.0 ? 0 : 1);
  }
}

// LayerNormalization and GELU as exporters decompose them: the loader
// rewrites them into layer_norm and gelu, with the same outputs. `square`
// picks how (x - mean)^2 is written; `half_first` which GELU order.
std::vector<uint8_t> decomposed_block(int square, bool half_first, DataType constants = DataType::kFloat32) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3, 8});
  auto scalar = [&](const char* name, double v) { return m.constant(name, make(constants, {}, {v})); };
  NodeArgs last;
  last.i = {-1};
  last.b = {true};
  Ref mean = m.op("reduce_mean", {x}, last, "mean");
  Ref xc = m.op("subtract", {x, mean}, {}, "center");
  Ref sq = square == 0   ? m.op("pow", {xc, scalar("two", 2.0)}, {}, "pow")
           : square == 1 ? m.op("multiply", {xc, xc}, {}, "sq")
                         : m.op("square", {xc}, {}, "sq");
  Ref var = m.op("reduce_mean", {sq}, last, "var");
  Ref sd = m.op("sqrt", {m.op("add", {scalar("eps", 1e-5), var}, {}, "add_eps")}, {}, "sd");
  Ref norm = m.op("divide", {xc, sd}, {}, "norm");
  Ref gamma = m.constant("gamma", make(constants, {8}, ramp(8, 0.5, 1.0)));
  Ref beta = m.constant("beta", make(constants, {8}, ramp(8, 0.3, 2.0)));
  Ref ln = m.op("add", {beta, m.op("multiply", {norm, gamma}, {}, "scale")}, {}, "ln");
  // gelu(ln)
  Ref e = m.op("erf", {m.op("divide", {ln, scalar("sqrt2", std::sqrt(2.0))}, {}, "div")}, {}, "erf");
  Ref one_plus = m.op("add", {e, scalar("one", 1.0)}, {}, "one_plus");
  Ref y = half_first ? m.op("multiply", {m.op("multiply", {ln, scalar("half", 0.5)}, {}, "half"), one_plus}, {}, "gelu")
                     : m.op("multiply", {scalar("half", 0.5), m.op("multiply", {ln, one_plus}, {}, "xg")}, {}, "gelu");
  m.output("y", y);
  return g.finish();
}

TEST(GraphRewrites, FusesDecomposedLayerNormAndGelu) {
  NDArray x = make(DataType::kFloat32, {2, 3, 8}, ramp(48, 2.0, 0.3));
  for (int square : {0, 1, 2})
    for (bool half_first : {false, true}) {
      SCOPED_TRACE(testing::Message() << "square " << square << " half_first " << half_first);
      auto g = expect_same_outputs(decomposed_block(square, half_first), x, 1e-5);
      ASSERT_TRUE(g);
      ASSERT_EQ(g->main().nodes.size(), 2u);
      EXPECT_EQ(g->main().nodes[0].op_label, "layer_norm");
      EXPECT_EQ(g->main().nodes[1].op_label, "gelu");
      ASSERT_EQ(g->rewrites().size(), 2u);
      EXPECT_NE(g->rewrites()[0].find("(a decomposed layer norm) became layer_norm"), std::string::npos) << g->rewrites()[0];
      EXPECT_NE(g->rewrites()[1].find("(a decomposed gelu) became gelu"), std::string::npos) << g->rewrites()[1];
    }
}

// float32 x with float64 constants computes in float64 when unfused; a
// fused layer_norm would give float32, so it is not fused. The gelu after
// it reads that float64 value with float64 constants: fused, in float64.
TEST(GraphRewrites, LeavesDecompositionsWhoseConstantsWidenTheDtype) {
  NDArray x = make(DataType::kFloat32, {2, 3, 8}, ramp(48, 2.0, 0.3));
  const std::vector<uint8_t> bytes = decomposed_block(1, true, DataType::kFloat64);
  auto g = expect_same_outputs(bytes, x, 1e-5);
  ASSERT_TRUE(g);
  EXPECT_EQ(count_ops(*g, "layer_norm"), 0);
  EXPECT_EQ(count_ops(*g, "gelu"), 1);
  EXPECT_EQ(load_and_run(bytes, true, x).out.dtype(), DataType::kFloat64);
}

// conv2d (4 -> `mid` channels) -> a GELU written out (x * 0.5 * (1 + erf(x
// / sqrt 2))), or h + 1, or the unary op `unary` -> conv2d (`mid` -> 4),
// NCHW, on x[1, 4, 6, 6].
std::vector<uint8_t> chain_between_convolutions(int64_t mid, bool gelu_chain, const char* unary = nullptr) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, 4, 6, 6});
  auto scalar = [&](const char* name, double v) { return m.constant(name, make(DataType::kFloat32, {}, {v})); };
  NodeArgs a;
  a.i = {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1};
  const int64_t n = mid * 4 * 9;
  Ref w1 = m.constant("w1", make(DataType::kFloat32, {mid, 4, 3, 3}, ramp(n, 0.3, 0.1)));
  Ref w2 = m.constant("w2", make(DataType::kFloat32, {4, mid, 3, 3}, ramp(n, 0.3, 0.7)));
  Ref h = m.op("conv2d", {x, w1}, a, "conv1");
  Ref between;
  if (gelu_chain) {
    Ref e = m.op("erf", {m.op("divide", {h, scalar("sqrt2", std::sqrt(2.0))}, {}, "div")}, {}, "erf");
    between = m.op("multiply", {m.op("multiply", {h, scalar("half", 0.5)}, {}, "half"),
                                m.op("add", {e, scalar("one", 1.0)}, {}, "one_plus")}, {}, "gelu");
  } else if (unary != nullptr) {
    between = m.op(unary, {h}, {}, unary);
  } else {
    between = m.op("add", {h, scalar("one", 1.0)}, {}, "plus_one");
  }
  m.output("y", m.op("conv2d", {between, w2}, a, "conv2"));
  return g.finish();
}

// The GELU between two NCHW convolutions: the layout rewrite sees its pieces
// (it runs before the GELU fusion, which waits for the planned dtypes) and
// moves NHWC through all of them, erf included: one conversion in, one out.
TEST(GraphRewrites, RunsADecomposedGeluBetweenConvolutionsChannelsLast) {
  NDArray xv = make(DataType::kFloat32, {1, 4, 6, 6}, ramp(144, 1.0, 0.0));
  auto rewritten = expect_same_outputs(chain_between_convolutions(4, true), xv, 1e-5, GraphLayout::kNhwc);
  ASSERT_TRUE(rewritten);
  EXPECT_EQ(count_ops(*rewritten, "permute"), 2);
  EXPECT_EQ(count_ops(*rewritten, "gelu"), 1);
}

// The same with channel-blocked convolutions (Note [Padding lanes]): 1 +
// erf(x / sqrt 2) holds 1 in the padding lanes, the product with x * 0.5
// holds 0 again, so the chain runs between the convolutions with no
// conversion and fuses into gelu. A chain that leaves 1 there (h + 1) keeps
// its conversion pair before the next convolution, and gives the same
// values.
TEST(GraphRewrites, RunsADecomposedGeluBetweenConvolutionsChannelBlocked) {
  NDArray xv = make(DataType::kFloat32, {1, 4, 6, 6}, ramp(144, 1.0, 0.0));
  for (bool gelu_chain : {true, false}) {
    SCOPED_TRACE(gelu_chain ? "gelu" : "h + 1");
    // 20 channels: 2 blocks of 16 (or 3 of 8), padding lanes in the last.
    auto rewritten = expect_same_outputs(chain_between_convolutions(20, gelu_chain), xv, 1e-5, GraphLayout::kNchwc);
    ASSERT_TRUE(rewritten);
    EXPECT_EQ(count_ops(*rewritten, "block_channels"), gelu_chain ? 0 : 1);
    EXPECT_EQ(count_ops(*rewritten, "unblock_channels"), gelu_chain ? 1 : 2);
    if (gelu_chain) {
      EXPECT_EQ(count_ops(*rewritten, "gelu"), 1);
    }
  }
}

// Any element-wise op of the tables moves through the layouts (the layout
// rewrite asks Note [Element-wise fusion] what is element-wise): channels-
// last, one permute in and one out whatever the op; channel-blocked, a
// chain that keeps 0 in the padding lanes (sin 0 = 0, atan 0 = 0, the op's
// own kernel says so) needs no conversion between the convolutions, and one
// that does not (softplus 0 = log 2, cos 0 = 1) keeps its pair.
TEST(GraphRewrites, MovesLayoutsThroughEveryElementwiseOp) {
  NDArray xv = make(DataType::kFloat32, {1, 4, 6, 6}, ramp(144, 1.0, 0.0));
  for (const char* op : {"sin", "atan", "softplus", "cos"}) {
    SCOPED_TRACE(op);
    const bool zero_at_zero = std::string(op) == "sin" || std::string(op) == "atan";
    auto nhwc = expect_same_outputs(chain_between_convolutions(4, false, op), xv, 1e-5, GraphLayout::kNhwc);
    ASSERT_TRUE(nhwc);
    EXPECT_EQ(count_ops(*nhwc, "permute"), 2);
    auto blocked = expect_same_outputs(chain_between_convolutions(20, false, op), xv, 1e-5, GraphLayout::kNchwc);
    ASSERT_TRUE(blocked);
    EXPECT_EQ(count_ops(*blocked, "block_channels"), zero_at_zero ? 0 : 1);
    EXPECT_EQ(count_ops(*blocked, "unblock_channels"), zero_at_zero ? 1 : 2);
  }
}

// Note [Op patterns]: an op that only declares itself element-wise (gelu:
// its CPU kernel is no table row) moves through both layouts as the table
// ops do, its padding lanes worked out by running it (gelu 0 = 0: no
// conversion between the convolutions in NCHWc).
TEST(GraphRewrites, MovesLayoutsThroughOpsThatDeclareThemselvesElementwise) {
  NDArray xv = make(DataType::kFloat32, {1, 4, 6, 6}, ramp(144, 1.0, 0.0));
  auto nhwc = expect_same_outputs(chain_between_convolutions(4, false, "gelu"), xv, 1e-5, GraphLayout::kNhwc);
  ASSERT_TRUE(nhwc);
  EXPECT_EQ(count_ops(*nhwc, "permute"), 2);
  auto blocked = expect_same_outputs(chain_between_convolutions(20, false, "gelu"), xv, 1e-5, GraphLayout::kNchwc);
  ASSERT_TRUE(blocked);
  EXPECT_EQ(count_ops(*blocked, "block_channels"), 0);
  EXPECT_EQ(count_ops(*blocked, "unblock_channels"), 1);
}

// Every reduction op with the reduction ops' args reads a convolution's
// NHWC or NCHWc output as it is when it pools over H and W (the rewrite
// reads Note [Op patterns], not a list of four names): the norm and the
// variance convert only their [1, 20] result back. Channel-blocked, a
// pool whose all-zero padding lanes would not give 0 (log-sum-exp: log 36)
// reads the NCHW value instead, and its values stay right.
TEST(GraphRewrites, GlobalPoolsOfEveryReductionKeepTheConvsLayout) {
  for (const char* op : {"reduce_norm2", "reduce_variance", "reduce_logsumexp"}) {
    SCOPED_TRACE(op);
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, 4, 6, 6});
    NodeArgs a;
    a.i = {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1};
    Ref w = m.constant("w", make(DataType::kFloat32, {20, 4, 3, 3}, ramp(20 * 4 * 9, 0.3, 0.1)));
    NodeArgs pool;
    pool.i = {2, 3};
    m.output("y", m.op(op, {m.op("conv2d", {x, w}, a, "conv")}, pool, "pool"));
    const std::vector<uint8_t> bytes = g.finish();
    NDArray xv = make(DataType::kFloat32, {1, 4, 6, 6}, ramp(144, 1.0, 0.0));
    const bool zero_at_zero = std::string(op) != "reduce_logsumexp";
    auto nhwc = expect_same_outputs(bytes, xv, 1e-5, GraphLayout::kNhwc);
    ASSERT_TRUE(nhwc);
    EXPECT_EQ(count_ops(*nhwc, "permute"), 1) << "x in; the pooled [1, 20] needs no permute back";
    auto blocked = expect_same_outputs(bytes, xv, 1e-5, GraphLayout::kNchwc);
    ASSERT_TRUE(blocked);
    EXPECT_EQ(count_ops(*blocked, "unblock_channels"), 1);
    bool unblocked_last = false;
    for (const Node& n : blocked->main().nodes) unblocked_last = n.op_label == "unblock_channels";
    EXPECT_EQ(unblocked_last, zero_at_zero) << "the pooled value is unblocked after the pool where it reads NCHWc";
  }
}

// GELU's tanh form as GPT-2's exports write it, x^3 three ways (`cube`: 0
// pow, 1 x * (x * x), 2 (x * x) * x), 0.5 * x first or last. `other`
// puts another value where one x belongs (0 nowhere, 1 the cube's base or
// outer factor, 2 the square, 3 the half, 4 the sum), which no rewrite may
// take for a gelu.
std::vector<uint8_t> decomposed_tanh_gelu(int cube, bool half_first, int other = 0) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3, 8});
  auto scalar = [&](const char* name, double v) { return m.constant(name, make(DataType::kFloat32, {}, {v})); };
  const Ref y = other == 0 ? x : m.op("add", {x, scalar("shift", 0.25)}, {}, "other");
  auto at = [&](int place) { return other == place ? y : x; };
  Ref x3 = cube == 0   ? m.op("pow", {at(1), scalar("three", 3.0)}, {}, "cube")
           : cube == 1 ? m.op("multiply", {at(1), m.op("multiply", {x, at(2)}, {}, "sq")}, {}, "cube")
                       : m.op("multiply", {m.op("multiply", {at(2), x}, {}, "sq"), at(1)}, {}, "cube");
  Ref inner = m.op("add", {at(4), m.op("multiply", {scalar("c", 0.044715), x3}, {}, "cubic")}, {}, "sum");
  Ref t = m.op("tanh", {m.op("multiply", {inner, scalar("k", std::sqrt(2.0 / M_PI))}, {}, "outer")}, {}, "tanh");
  Ref one_plus = m.op("add", {scalar("one", 1.0), t}, {}, "one_plus");
  const Ref h = at(3);
  Ref z = half_first ? m.op("multiply", {m.op("multiply", {scalar("half", 0.5), h}, {}, "half"), one_plus}, {}, "gelu")
                     : m.op("multiply", {m.op("multiply", {h, one_plus}, {}, "xg"), scalar("half", 0.5)}, {}, "gelu");
  m.output("y", z);
  return g.finish();
}

TEST(GraphRewrites, FusesDecomposedTanhGelu) {
  NDArray x = make(DataType::kFloat32, {2, 3, 8}, ramp(48, 4.0, 0.3));
  for (int cube : {0, 1, 2})
    for (bool half_first : {false, true}) {
      SCOPED_TRACE(testing::Message() << "cube " << cube << " half_first " << half_first);
      auto g = expect_same_outputs(decomposed_tanh_gelu(cube, half_first), x, 1e-5);
      ASSERT_TRUE(g);
      ASSERT_EQ(g->main().nodes.size(), 1u);
      const Node& n = g->main().nodes[0];
      EXPECT_EQ(n.op_label, "gelu");
      ASSERT_FALSE(n.args.i.empty());
      EXPECT_EQ(n.args.i[0], 1) << "the tanh form";
      ASSERT_EQ(g->rewrites().size(), 1u);
      EXPECT_NE(g->rewrites()[0].find("(a decomposed tanh gelu) became gelu"), std::string::npos) << g->rewrites()[0];
    }
}

TEST(GraphRewrites, LeavesTanhGeluOverTwoValues) {
  NDArray x = make(DataType::kFloat32, {2, 3, 8}, ramp(48, 4.0, 0.3));
  for (int cube : {0, 1, 2})
    for (bool half_first : {false, true})
      for (int other : {1, 2, 3, 4}) {
        if (cube == 0 && other == 2) continue;  // pow has no square
        SCOPED_TRACE(testing::Message() << "cube " << cube << " half_first " << half_first << " other " << other);
        auto g = expect_same_outputs(decomposed_tanh_gelu(cube, half_first, other), x, 1e-5);
        ASSERT_TRUE(g);
        EXPECT_EQ(count_ops(*g, "gelu"), 0);
      }
}

// A value of the pattern read elsewhere too keeps the pattern as written.
TEST(GraphRewrites, LeavesDecompositionsWhoseInsidesAreReadElsewhere) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4});
  Ref e = m.op("erf", {m.op("divide", {x, m.constant("s", make(DataType::kFloat32, {}, {std::sqrt(2.0)}))})});
  Ref one_plus = m.op("add", {e, m.constant("one", make(DataType::kFloat32, {}, {1.0}))});
  Ref y = m.op("multiply", {m.constant("half", make(DataType::kFloat32, {}, {0.5})), m.op("multiply", {x, one_plus})});
  m.output("y", y);
  m.output("erf", e);
  NDArray xv = make(DataType::kFloat32, {4}, {-1, 0, 0.5, 2});
  auto r = expect_same_outputs(g.finish(), xv, 1e-6);
  ASSERT_TRUE(r);
  EXPECT_EQ(count_ops(*r, "gelu"), 0);
}

// softmax(scale * q k^T + mask) v as exporters write it, q the graph's
// input, k, v and the mask constants. Each knob picks one of the forms
// the attention rewrite takes, or one it must leave alone.
struct AttentionGraph {
  int transpose = 0;  // k^T: 0 permute(k), 1 matmul's transpose_y, 2 permute of k stored [B, Tk, H, d]
  // 0 none, 1 multiply (constant first), 2 divide by sqrt(d), 3 multiply by a negative, 4 q and k^T each
  // multiplied (PyTorch's export), 5 q and k each multiplied (k before its permute), 6 as 4 with a negative on k^T,
  // 7 multiply by 0, 8 q multiplied by a one-element constant of rank 5 (which widens q's rank)
  int scale = 1;
  bool mask = true;   // add a [1, 1, 1, Tk] mask (before the scores)
  bool wide_mask = false;       // a [2, 1, 1, Tk] mask that widens scores of batch 1
  int64_t softmax_axis = -1;
  bool scores_also_output = false;
  DataType dtype = DataType::kFloat32;
  DataType q_dtype = DataType::kFloat32;  // another than dtype: matmul promotes, the rewrite must not fuse
  // k computed from the graph's input (plus 0 * sum(q)), so that the load's
  // constant folding cannot turn k^T into a constant, which the rewrite
  // takes whatever made it.
  bool k_from_input = false;

  int64_t batch() const { return wide_mask ? 1 : 2; }
  std::vector<uint8_t> build() const {
    const int64_t b = batch(), h = 3, tq = 5, tk = 6, d = 4;
    GraphBuilder g;
    auto& m = g.main();
    auto scalar = [&](const char* name, double v) { return m.constant(name, make(dtype, {}, {v})); };
    Ref q = m.placeholder("q", q_dtype, std::vector<int64_t>{b, h, tq, d});
    if (scale >= 4 && scale <= 6) q = m.op("multiply", {q, scalar("cq", 0.8)}, {}, "scale_q");
    if (scale == 8) q = m.op("multiply", {q, m.constant("cq", make(dtype, {1, 1, 1, 1, 1}, {0.8}))}, {}, "scale_q");
    NodeArgs perm;
    perm.i = {0, 1, 3, 2};
    Ref kt;
    if (transpose == 2) {
      perm.i = {0, 2, 3, 1};
      Ref k = m.constant("k", make(dtype, {b, tk, h, d}, ramp(b * tk * h * d, 1.0, 0.3)));
      if (k_from_input) {
        Ref none = m.op("multiply", {m.op("reduce_sum", {q}, {}, "sum_q"), scalar("zero", 0.0)}, {}, "none");
        k = m.op("add", {k, none}, {}, "k_plus_none");
      }
      kt = m.op("permute", {k}, perm, "kt");
    } else {
      Ref k = m.constant("k", make(dtype, {b, h, tk, d}, ramp(b * h * tk * d, 1.0, 0.3)));
      if (k_from_input) {
        Ref none = m.op("multiply", {m.op("reduce_sum", {q}, {}, "sum_q"), scalar("zero", 0.0)}, {}, "none");
        k = m.op("add", {k, none}, {}, "k_plus_none");
      }
      if (scale == 5) k = m.op("multiply", {scalar("ck", 0.7), k}, {}, "scale_k");
      kt = transpose == 0 ? m.op("permute", {k}, perm, "kt") : k;
    }
    if (scale == 4 || scale == 6) kt = m.op("multiply", {kt, scalar("ck", scale == 4 ? 0.7 : -0.7)}, {}, "scale_k");
    NodeArgs mm;
    mm.i = {0, transpose == 1 ? 1 : 0, 0, 0};
    Ref s = m.op("matmul", {q, kt}, mm, "qk");
    if (scale == 1) s = m.op("multiply", {scalar("c", 0.5), s}, {}, "scale");
    if (scale == 2) s = m.op("divide", {s, scalar("c", 2.0)}, {}, "scale");
    if (scale == 3) s = m.op("multiply", {s, scalar("c", -0.5)}, {}, "scale");
    if (scale == 7) s = m.op("multiply", {s, scalar("c", 0.0)}, {}, "scale");
    if (scores_also_output) m.output("scores", s);
    if (mask || wide_mask) {
      std::vector<double> mv = ramp(wide_mask ? 2 * tk : tk, 2.0, 0.1);
      mv[2] = -1e4;  // key 2 hidden (from batch entry 0, with the wide mask)
      s = m.op("add", {m.constant("mask", make(dtype, {wide_mask ? 2 : 1, 1, 1, tk}, mv)), s}, {}, "mask");
    }
    NodeArgs axis;
    axis.i = {softmax_axis};
    Ref w = m.op("softmax", {s}, axis, "softmax");
    Ref v = m.constant("v", make(dtype, {b, h, tk, 3}, ramp(b * h * tk * 3, 1.5, 0.7)));
    m.output("z", m.op("matmul", {w, v}, {}, "pv"));
    return g.finish();
  }
};

// `nodes`: the nodes the rewritten graph keeps when fused.
void expect_attention(const AttentionGraph& spec, bool fused, size_t nodes = 1) {
  const Dims qs = {spec.batch(), 3, 5, 4};
  NDArray q = make(spec.q_dtype, qs, ramp(qs.product(), 1.2, 0.0));
  auto g = expect_same_outputs(spec.build(), q, spec.dtype == DataType::kFloat64 ? 1e-12 : 2e-6);
  ASSERT_TRUE(g);
  EXPECT_EQ(count_ops(*g, "dot_product_attention"), fused ? 1 : 0);
  EXPECT_EQ(count_ops(*g, "softmax"), fused ? 0 : 1);
  if (!fused) return;
  EXPECT_EQ(g->main().nodes.size(), nodes);  // permute, matmuls, scales, add and softmax gone
  std::string all;
  for (const std::string& line : g->rewrites()) all += line + "\n";
  EXPECT_NE(all.find("'pv' and "), std::string::npos) << all;
  EXPECT_NE(all.find("(softmax(q k^T) v) became dot_product_attention"), std::string::npos) << all;
}

TEST(GraphRewrites, FusesAttentionIntoDotProductAttention) {
  for (int transpose : {0, 1})
    for (int scale : {0, 1, 2, 4, 5})
      for (bool mask : {false, true}) {
        SCOPED_TRACE(testing::Message() << "transpose " << transpose << " scale " << scale << " mask " << mask);
        AttentionGraph a;
        a.transpose = transpose, a.scale = scale, a.mask = mask;
        expect_attention(a, true);
      }
  AttentionGraph f64;
  f64.dtype = f64.q_dtype = DataType::kFloat64;
  expect_attention(f64, true);
  // A multiply that raises q's rank stays, its product the new node's q.
  AttentionGraph widening_scale;
  widening_scale.scale = 8;
  expect_attention(widening_scale, true, 2);
}

TEST(GraphRewrites, LeavesAttentionItCannotFuse) {
  std::vector<std::pair<const char*, AttentionGraph>> cases(8);
  cases[0].first = "negative scale";  // dot_product_attention's scale is positive
  cases[0].second.scale = 3;
  cases[1].first = "k^T from k stored another way";
  cases[1].second.transpose = 2;
  cases[2].first = "softmax over the queries";
  cases[2].second.softmax_axis = 2;
  cases[3].first = "scores read twice";
  cases[3].second.scores_also_output = true;
  cases[4].first = "a mask that widens the scores";
  cases[4].second.mask = false;
  cases[4].second.wide_mask = true;
  cases[5].first = "q float32, the rest float64";
  cases[5].second.dtype = DataType::kFloat64;
  cases[6].first = "q and k^T scaled, k^T by a negative";
  cases[6].second.scale = 6;
  cases[7].first = "scores times 0 (dot_product_attention's scale 0 means 1 / sqrt(d))";
  cases[7].second.scale = 7;
  for (auto& [what, graph] : cases) {
    SCOPED_TRACE(what);
    graph.k_from_input = true;
    expect_attention(graph, false);
  }
}

// k^T a constant (a permute of a constant k, folded at load): the rewrite
// fuses with k the constant transposed back.
TEST(GraphRewrites, FusesAttentionWithAConstantKeyTranspose) {
  AttentionGraph a;
  a.transpose = 2;  // k stored [B, Tk, H, d], permuted to k^T: a constant once folded
  expect_attention(a, true);
}

}  // namespace
}  // namespace libops::graph

namespace libops::graph {
namespace {

// Constant folding at load: a weight transposed and cast from constants
// (as exporters write Transpose and Cast of an initializer) runs once when
// the graph loads; the graph keeps the matmul alone, lists the folds, and
// computes what the unfolded graph does. A random op is not folded.
TEST(GraphRewrites, FoldsConstantSubgraphsAtLoad) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
  NodeArgs perm, to_float;
  perm.i = {1, 0};
  to_float.d = {static_cast<int32_t>(DataType::kFloat32)};
  Ref w = m.constant("w", make(DataType::kFloat64, {4, 3}, ramp(12, 0.5, 0.1)));
  Ref wt = m.op("cast", {m.op("permute", {w}, perm, "w_t")}, to_float, "w_f32");
  m.output("y", m.op("matmul", {x, wt}, {}, "mm"));
  NDArray in = make(DataType::kFloat32, {2, 3}, ramp(6, 1.0, 0.2));
  auto loaded = expect_same_outputs(g.finish(), in, 1e-6);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->main().nodes.size(), 1u);
  EXPECT_EQ(count_ops(*loaded, "matmul"), 1);
  std::string all;
  for (const std::string& line : loaded->rewrites()) all += line + "\n";
  EXPECT_NE(all.find("node 2 'w_t' (permute) folded to a constant float64[3,4] at load"), std::string::npos) << all;
  EXPECT_NE(all.find("'w_f32' (cast) folded to a constant float32[3,4] at load"), std::string::npos) << all;

  GraphBuilder r;
  auto& rm = r.main();
  NodeArgs shape;
  shape.i = {2, 3};
  rm.output("u", rm.op("random_uniform", {}, shape, "draw"));
  std::shared_ptr<const Graph> rg;
  ASSERT_OK(test::load(r.finish(), rg));
  EXPECT_EQ(count_ops(*rg, "random_uniform"), 1) << "a random op draws anew on every run";
}


// ---- element-wise fusion (Note [Element-wise fusion] in graph/fuse_elementwise.cpp)

// Equal values, element by element: the same float with the same sign, or
// both NaN. GCC compiles a functor alike in the legacy engine's loop and in
// a block kernel; clang may contract a * b + c into an FMA in one copy and
// not in the other (Note [Runtime ISA dispatch]), so a clang build allows
// the rounding of one such step: 1e-6 relative, 1e-7 absolute (hard_swish
// near x = -3 turns half an ulp of x / 6 + 0.5 into 47 ulps of its small
// result).
::testing::AssertionResult same_values(const NDArray& got, const NDArray& want) {
#if defined(__clang__)
  constexpr double kRtol = 1e-6, kAtol = 1e-7;
#else
  constexpr double kRtol = 0, kAtol = 0;
#endif
  if (got.shape() != want.shape() || got.dtype() != want.dtype())
    return ::testing::AssertionFailure() << got.desc().str() << ", want " << want.desc().str();
  for (int64_t i = 0; i < want.length(); ++i) {
    const double g = got.get_double(i), w = want.get_double(i);
    const bool same = std::isnan(w) ? std::isnan(g)
                      : std::isinf(w) || w == 0 ? g == w && std::signbit(g) == std::signbit(w)
                                                : std::fabs(g - w) <= kAtol + kRtol * std::fabs(w);
    if (!same) return ::testing::AssertionFailure() << "element " << i << ": " << g << ", want " << w;
  }
  return ::testing::AssertionSuccess();
}

// Runs `bytes` as written and rewritten; the outputs must be the same
// values. Returns the rewritten graph.
std::shared_ptr<const Graph> expect_same_values(const std::vector<uint8_t>& bytes, const NDArray& x) {
  Loaded plain = load_and_run(bytes, false, x);
  Loaded fused = load_and_run(bytes, true, x);
  if (!plain.graph || !fused.graph || plain.out.is_null() || fused.out.is_null()) {
    ADD_FAILURE() << "did not run";
    return nullptr;
  }
  EXPECT_TRUE(same_values(fused.out, plain.out));
  return fused.graph;
}

NDArray with_specials(const Dims& shape, double scale) {
  std::vector<double> v = ramp(shape.product(), scale, 0.4);
  v[1] = std::numeric_limits<double>::quiet_NaN();
  v[2] = std::numeric_limits<double>::infinity();
  v[3] = -std::numeric_limits<double>::infinity();
  v[4] = 0.0;
  v[5] = -0.0;
  return make(DataType::kFloat32, shape, v);
}

// HardSwish and SiLU as exporters write them: h = x * clip(x + 3, 0, 6) / 6,
// y = h * sigmoid(h). Six nodes become one, with the same values.
TEST(GraphRewrites, FusesElementwiseChainsAsExportersWriteThem) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3, 5, 7});
  NodeArgs bounds;
  bounds.t = {0.0, 6.0};
  Ref shifted = m.op("add", {x, m.constant("three", make(DataType::kFloat32, {}, {3.0}))}, {}, "add3");
  Ref clipped = m.op("clip", {shifted}, bounds, "clip");
  Ref h = m.op("divide", {m.op("multiply", {x, clipped}, {}, "mul"), m.constant("six", make(DataType::kFloat32, {1}, {6.0}))},
               {}, "div6");
  m.output("y", m.op("multiply", {h, m.op("sigmoid", {h}, {}, "sig")}, {}, "silu"));
  auto fused = expect_same_values(g.finish(), with_specials({2, 3, 5, 7}, 5.0));
  ASSERT_TRUE(fused);
  ASSERT_EQ(fused->main().nodes.size(), 1u);
  EXPECT_EQ(fused->main().nodes[0].op_label, "fused_elementwise(add, clip, multiply, divide, sigmoid, multiply)");
  EXPECT_EQ(fused->main().nodes[0].name, "silu");
  ASSERT_EQ(fused->rewrites().size(), 1u);
  EXPECT_EQ(fused->rewrites()[0],
            "nodes 2 'add3', 3 'clip', 4 'mul', 6 'div6', 7 'sig' fused into node 8 'silu' (fused_elementwise of add, "
            "clip, multiply, divide, sigmoid, multiply: t0 = add(x0, x1); t1 = max(t0, 0); t2 = min(t1, 6); "
            "t3 = multiply(x0, t2); t4 = divide(t3, x2); t5 = sigmoid(t4); t6 = multiply(t4, t5))");
}

// The same chain in float16 and bfloat16: one fused node whose steps round
// to the dtype as the nodes stored their values, so the same values.
TEST(GraphRewrites, FusesSixteenBitChainsWithTheirOwnValues) {
  for (DataType dt : {DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", dt, std::vector<int64_t>{2, 3, 5, 7});
    NodeArgs bounds;
    bounds.t = {0.0, 6.0};
    Ref shifted = m.op("add", {x, m.constant("three", make(dt, {}, {3.0}))}, {}, "add3");
    Ref clipped = m.op("clip", {shifted}, bounds, "clip");
    Ref h = m.op("divide", {m.op("multiply", {x, clipped}, {}, "mul"), m.constant("six", make(dt, {1}, {6.0}))}, {},
                 "div6");
    m.output("y", m.op("multiply", {h, m.op("sigmoid", {h}, {}, "sig")}, {}, "silu"));
    const NDArray xv = make(dt, {2, 3, 5, 7}, libops::test::values(with_specials({2, 3, 5, 7}, 5.0)));
    auto fused = expect_same_values(g.finish(), xv);
    ASSERT_TRUE(fused);
    ASSERT_EQ(fused->main().nodes.size(), 1u);
    EXPECT_EQ(fused->main().nodes[0].op_label, "fused_elementwise(add, clip, multiply, divide, sigmoid, multiply)");
  }
}

// Every element-wise op of the tables (ops/elementwise/) and the arithmetic,
// relu and clip ops, as `op(x[, c]) -> neg`: fused, the same values as run
// as written. Ops whose rows give bool, or take no float32, are left alone.
TEST(GraphRewrites, FusesEveryElementwiseOpWithItsOwnValues) {
  struct Case {
    std::string op;
    int arity;
    std::vector<double> t;
  };
  std::vector<Case> cases = {{"add", 2, {}},      {"subtract", 2, {}},         {"multiply", 2, {}},
                             {"divide", 2, {}},   {"squared_difference", 2, {}}, {"relu", 1, {}},
                             {"relu", 1, {0.5}},  {"relu6", 1, {}},           {"clip", 1, {-0.5, 2.0}},
                             {"clip", 2, {}}};
  int table_ops = 0;
  for (auto defs : {&ops::unary_elementwise_defs, &ops::binary_elementwise_defs, &ops::activation_elementwise_defs}) {
    int n = 0;
    const ops::ElementwiseDef* d = defs(n);
    for (int k = 0; k < n; ++k) {
      if (d[k].result == ops::ElementwiseResult::kBool || !d[k].inputs.contains(DataType::kFloat32)) continue;
      if (d[k].arity == 2 && d[k].group != OPS_PAIRWISE) continue;  // the integer-only bit ops' groups
      cases.push_back({d[k].name, d[k].arity, {}});
      ++table_ops;
    }
  }
  EXPECT_GE(table_ops, 65);
  const Dims shape{3, 37};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>(shape.begin(), shape.end()));
    std::vector<Ref> in = {x};
    if (c.arity == 2) {
      std::vector<double> y = ramp(shape.product(), 1.0, 1.3);
      for (double& v : y) v += 1.5;  // (0.5, 2.5): positive, as pow, igamma and the like want
      in.push_back(m.constant("c", make(DataType::kFloat32, shape, y)));
    }
    NodeArgs a;
    a.t = c.t;
    m.output("y", m.op("neg", {m.op(c.op, in, a, "op")}, {}, "neg"));
    auto fused = expect_same_values(g.finish(), with_specials(shape, 3.0));
    ASSERT_TRUE(fused);
    EXPECT_EQ(fused->main().nodes.size(), 1u);
    EXPECT_EQ(fused->main().nodes[0].op_label, "fused_elementwise(" + c.op + ", neg)");
  }
  // pow(x, 2) with one exponent runs as x * x (Note [pow of 2] in
  // legacy/legacy.cpp), fused or not: the same values.
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>(shape.begin(), shape.end()));
  Ref two = m.constant("two", make(DataType::kFloat32, {}, {2.0}));
  m.output("y", m.op("neg", {m.op("pow", {x, two}, {}, "pow")}, {}, "neg"));
  auto fused = expect_same_values(g.finish(), with_specials(shape, 3.0));
  ASSERT_TRUE(fused);
  EXPECT_EQ(fused->main().nodes.size(), 1u);
}

// What must stay apart: a value read outside the chain (a graph output, a
// reduction), a value that broadcasts to a larger shape later (it would be
// computed once per output element), other dtypes, and more than 8 inputs.
TEST(GraphRewrites, LeavesElementwiseValuesItMustNotFuse) {
  auto scalar = [](test::BodyBuilder& m, const char* name, double v) {
    return m.constant(name, make(DataType::kFloat32, {}, {v}));
  };
  const NDArray xv = with_specials({4, 7}, 2.0);
  {
    SCOPED_TRACE("an inner value that is also an output, or read by a reduction");
    for (bool reduced : {false, true}) {
      GraphBuilder g;
      auto& m = g.main();
      Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4, 7});
      Ref a = m.op("add", {x, scalar(m, "one", 1.0)}, {}, "a");
      m.output("y", m.op("multiply", {m.op("tanh", {a}, {}, "t"), x}, {}, "y"));
      if (reduced) m.output("s", m.op("reduce_sum", {a}, {}, "sum"));
      else m.output("a", a);
      auto fused = expect_same_values(g.finish(), xv);
      ASSERT_TRUE(fused);
      EXPECT_EQ(count_ops(*fused, "add"), 1);
      EXPECT_EQ(count_ops(*fused, "fused_elementwise(tanh, multiply)"), 1);
    }
  }
  {
    SCOPED_TRACE("a value that broadcasts wider later");
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4, 7});
    Ref row = m.constant("row", make(DataType::kFloat32, {7}, ramp(7, 1.0, 0.2)));
    Ref e = m.op("exp", {m.op("neg", {row}, {}, "neg")}, {}, "exp");  // [7]: fuses with neg, not with the add
    m.output("y", m.op("sigmoid", {m.op("add", {x, e}, {}, "add")}, {}, "sig"));
    auto fused = expect_same_values(g.finish(), xv);
    ASSERT_TRUE(fused);
    EXPECT_EQ(count_ops(*fused, "fused_elementwise(add, sigmoid)"), 1);
    EXPECT_EQ(count_ops(*fused, "exp"), 0) << "constant: folded at load";
  }
  {
    SCOPED_TRACE("float64, and a cast between float32 nodes");
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4, 7});
    NodeArgs to64;
    to64.d = {static_cast<int32_t>(DataType::kFloat64)};
    Ref wide = m.op("cast", {m.op("tanh", {x}, {}, "t32")}, to64, "cast");
    Ref two = m.constant("two", make(DataType::kFloat64, {}, {2.0}));
    m.output("y", m.op("sigmoid", {m.op("multiply", {wide, two}, {}, "m64")}, {}, "s64"));
    const std::vector<uint8_t> bytes = g.finish();
    Loaded plain = load_and_run(bytes, false, xv), fused = load_and_run(bytes, true, xv);
    ASSERT_TRUE(fused.graph);
    EXPECT_TRUE(same_values(fused.out, plain.out));
    EXPECT_TRUE(fused.graph->rewrites().empty());
    EXPECT_EQ(fused.graph->main().nodes.size(), 4u);
  }
  {
    SCOPED_TRACE("a sum of 11 values: at most 8 inputs a node");
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4, 7});
    Ref sum = x;
    for (int k = 0; k < 10; ++k) {
      const std::string name = "c" + std::to_string(k);
      sum = m.op("add", {sum, m.constant(name, make(DataType::kFloat32, {4, 7}, ramp(28, 1.0, k)))}, {},
                 "add" + std::to_string(k));
    }
    m.output("y", sum);
    auto fused = expect_same_values(g.finish(), xv);
    ASSERT_TRUE(fused);
    ASSERT_EQ(fused->main().nodes.size(), 2u);
    for (const Node& n : fused->main().nodes) {
      EXPECT_EQ(n.op->name(), std::string("fused_elementwise"));
      EXPECT_LE(n.inputs.size(), 8u);
    }
  }
}

// LIBOPS_GRAPH_REWRITES=0 / LoadOptions::rewrites = false keeps every node.
TEST(GraphRewrites, LoadsElementwiseChainsAsWrittenWithoutRewrites) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4, 7});
  m.output("y", m.op("exp", {m.op("neg", {x}, {}, "neg")}, {}, "exp"));
  Loaded plain = load_and_run(g.finish(), false, with_specials({4, 7}, 1.0));
  ASSERT_TRUE(plain.graph);
  EXPECT_EQ(plain.graph->main().nodes.size(), 2u);
  EXPECT_TRUE(plain.graph->rewrites().empty());
}

// Random element-wise graphs (fixed seeds): values read by several nodes,
// by outputs, broadcasts of [7] and one-value constants, unary and binary
// ops, clips with t args. Every output of the fused graph must equal the
// unfused one's, value for value, and the fused graph must hold fewer nodes
// wherever a chain could form.
TEST(GraphRewrites, FusesRandomElementwiseGraphsWithTheSameValues) {
  const char* const kUnary[] = {"tanh", "sigmoid", "neg", "exp", "relu", "abs", "square", "softsign", "relu6"};
  const char* const kBinary[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum"};
  int fused_graphs = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    uint32_t state = seed * 2654435761u;
    auto next = [&](uint32_t n) {
      state = state * 1664525u + 1013904223u;
      return (state >> 8) % n;
    };
    GraphBuilder g;
    auto& m = g.main();
    std::vector<Ref> values = {m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4, 7})};
    const Ref constants[] = {m.constant("row", make(DataType::kFloat32, {7}, ramp(7, 1.5, 0.3))),
                             m.constant("one", make(DataType::kFloat32, {1}, {0.75}))};
    std::vector<Ref> made;
    const int nodes = 6 + static_cast<int>(next(10));
    for (int k = 0; k < nodes; ++k) {
      const std::string name = "n" + std::to_string(k);
      // Mostly the newest values, so chains form; sometimes any value.
      auto pick = [&] {
        const size_t n = values.size();
        return values[next(3) == 0 ? next(static_cast<uint32_t>(n)) : n - 1 - next(std::min<uint32_t>(2, n))];
      };
      Ref v;
      const uint32_t kind = next(10);
      if (kind < 4) {
        v = m.op(kUnary[next(9)], {pick()}, {}, name);
      } else if (kind < 9) {
        // The second operand a constant one time in three.
        const Ref a = pick(), b = next(3) == 0 ? constants[next(2)] : pick();
        v = next(2) == 0 ? m.op(kBinary[next(6)], {a, b}, {}, name) : m.op(kBinary[next(6)], {b, a}, {}, name);
      } else {
        NodeArgs bounds;
        bounds.t = {-0.5, 1.5};
        v = m.op("clip", {pick()}, bounds, name);
      }
      values.push_back(v);
      made.push_back(v);
    }
    // The last value is an output; so is any other made value, one time in four.
    std::vector<std::string> outputs;
    for (size_t k = 0; k < made.size(); ++k)
      if (k + 1 == made.size() || next(4) == 0) {
        outputs.push_back("y" + std::to_string(k));
        m.output(outputs.back(), made[k]);
      }
    const std::vector<uint8_t> bytes = g.finish();
    const NDArray xv = with_specials({4, 7}, 2.5);
    std::vector<std::vector<NDArray>> results;
    size_t fused_nodes = 0, plain_nodes = 0;
    for (bool fuse : {false, true}) {
      LoadOptions o;
      o.fuse_elementwise = fuse;
      std::shared_ptr<const Graph> graph;
      ASSERT_OK(Graph::load_buffer(bytes.data(), bytes.size(), o, graph));
      (fuse ? fused_nodes : plain_nodes) = graph->main().nodes.size();
      Session session(graph);
      const NDArray* in[] = {&xv};
      ASSERT_OK(session.run(in, 1));
      results.emplace_back();
      for (int k = 0; k < session.num_outputs(); ++k) {
        NDArray copy;
        ASSERT_OK(session.output(k).dup('c', copy));
        results.back().push_back(std::move(copy));
      }
    }
    ASSERT_EQ(results[0].size(), outputs.size());
    for (size_t k = 0; k < outputs.size(); ++k) EXPECT_TRUE(same_values(results[1][k], results[0][k])) << outputs[k];
    EXPECT_LE(fused_nodes, plain_nodes);
    fused_graphs += fused_nodes < plain_nodes;
  }
  EXPECT_GE(fused_graphs, 30);  // most graphs hold a chain to fuse
}

// An element-wise prologue of a reduction: x * rsqrt(mean(x * x, -1) + eps)
// + x (an RMS norm without its weight, which the rms_norm rewrite takes
// whole). The square joins the mean (fused_reduce: no [6, 64] temporary),
// eps and rsqrt fuse on the [6, 1] statistics, the scaling on [6, 64]. A
// square that something else also reads stays apart; so does the
// reduction's input when it is an output.
TEST(GraphRewrites, FusesElementwiseProloguesIntoReductions) {
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant == 0 ? "rms norm" : variant == 1 ? "square read twice" : "square an output");
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{6, 64});
    Ref sq = m.op("multiply", {x, x}, {}, "square");
    NodeArgs mean;
    mean.i = {-1};
    mean.b = {true};
    Ref ms = m.op("reduce_mean", {sq}, mean, "mean");
    Ref r = m.op("rsqrt", {m.op("add", {ms, m.constant("eps", make(DataType::kFloat32, {}, {1e-6}))}, {}, "eps")},
                 {}, "rsqrt");
    Ref y = m.op("add", {m.op("multiply", {x, r}, {}, "scale"), x}, {}, "plus_x");
    if (variant == 1) y = m.op("add", {y, sq}, {}, "plus_square");
    m.output("y", y);
    if (variant == 2) m.output("square_out", sq);
    auto fused = expect_same_outputs(g.finish(), make(DataType::kFloat32, {6, 64}, ramp(384, 2.0, 0.1)), 1e-5);
    ASSERT_TRUE(fused);
    EXPECT_EQ(count_ops(*fused, "fused_reduce(multiply, reduce_mean)"), variant == 0 ? 1 : 0);
    EXPECT_EQ(count_ops(*fused, "reduce_mean"), variant == 0 ? 0 : 1);
    EXPECT_EQ(count_ops(*fused, "fused_elementwise(add, rsqrt)"), 1);
    if (variant == 0) {
      ASSERT_EQ(fused->main().nodes.size(), 3u);  // fused_reduce, (add, rsqrt), (multiply, add)
      bool logged = false;
      for (const std::string& line : fused->rewrites())
        logged = logged || line == "nodes 1 'square' fused into node 2 'mean' (fused_reduce of multiply, reduce_mean: "
                                   "t0 = multiply(x0, x0); reduce_mean over axes -1, kept)";
      EXPECT_TRUE(logged);
    }
  }
}

// Note [Epilogue programs]: element-wise work after a conv2d or matmul that
// reads nothing else but one-element constants becomes the op's epilogue,
// in every layout, with the values of the graph as written.
TEST(GraphRewrites, FoldsElementwiseChainsIntoConvolutionAndMatmulEpilogues) {
  auto scalar = [](test::BodyBuilder& m, const char* name, double v) {
    return m.constant(name, make(DataType::kFloat32, {}, {v}));
  };
  NodeArgs conv;
  conv.i = {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1};  // NCHW, [Cout, Cin, kH, kW]
  const NDArray image = make(DataType::kFloat32, {2, 3, 6, 6}, ramp(216, 2.0, 0.05));
  // conv2d of the placeholder x [2, 3, 6, 6] by 5 constant 3x3 filters.
  auto image_conv = [&](test::BodyBuilder& m, const char* name) {
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3, 6, 6});
    const std::string w = std::string(name) + "_w";
    return m.op("conv2d", {x, m.constant(w.c_str(), make(DataType::kFloat32, {5, 3, 3, 3}, ramp(135, 0.3, 0.0)))},
                conv, name);
  };
  {
    SCOPED_TRACE("conv2d -> tanh(2z + 1) z + 1/4 -> conv2d -> tanh");
    GraphBuilder g;
    auto& m = g.main();
    Ref z = image_conv(m, "conv1");
    Ref t = m.op("tanh", {m.op("add", {m.op("multiply", {z, scalar(m, "two", 2.0)}, {}, "twice"), scalar(m, "one", 1.0)},
                               {}, "plus1")},
                 {}, "tanh");
    // The constant on the left of an add: the operands commute exactly.
    Ref y = m.op("add", {scalar(m, "quarter", 0.25), m.op("multiply", {t, z}, {}, "times_z")}, {}, "shift");
    Ref z2 = m.op("conv2d", {y, m.constant("w2", make(DataType::kFloat32, {4, 5, 3, 3}, ramp(180, 0.2, 0.0)))}, conv,
                  "conv2");
    m.output("out", m.op("tanh", {z2}, {}, "tanh2"));
    auto fused = expect_same_outputs(g.finish(), image, 2e-5);
    ASSERT_TRUE(fused);
    EXPECT_EQ(count_ops(*fused, "conv2d + fused_elementwise(multiply, add, tanh, multiply, add)"), 1);
    EXPECT_EQ(count_ops(*fused, "conv2d + tanh"), 1);
    bool logged = false;
    for (const std::string& line : fused->rewrites())
      logged = logged || line.find("(fused_elementwise(multiply, add, tanh, multiply, add)) folded into node 2 "
                                   "'conv1' (conv2d) as its epilogue: t0 = multiply(x0, 2); t1 = add(t0, 1); "
                                   "t2 = tanh(t1); t3 = multiply(t2, x0); t4 = add(t3, 0.25)") != std::string::npos;
    EXPECT_TRUE(logged);
  }
  {
    SCOPED_TRACE("matmul + bias -> SiLU; float16");
    for (DataType dt : {DataType::kFloat32, DataType::kFloat16}) {
      GraphBuilder g;
      auto& m = g.main();
      Ref x = m.placeholder("x", dt, std::vector<int64_t>{6, 16});
      Ref h = m.op("add", {m.op("matmul", {x, m.constant("w", make(dt, {16, 24}, ramp(384, 0.1, 0.0)))}, {}, "mm"),
                           m.constant("b", make(dt, {24}, ramp(24, 0.5, 0.0)))},
                   {}, "bias");
      m.output("y", m.op("multiply", {h, m.op("sigmoid", {h}, {}, "sig")}, {}, "silu"));
      const NDArray xv = make(dt, {6, 16}, ramp(96, 1.0, 0.1));
      auto fused = expect_same_values(g.finish(), xv);
      ASSERT_TRUE(fused);
      ASSERT_EQ(fused->main().nodes.size(), 1u);
      EXPECT_EQ(fused->main().nodes[0].op_label, "matmul + fused_elementwise(sigmoid, multiply)");
      EXPECT_EQ(fused->main().nodes[0].inputs.size(), 3u) << "the bias folded too";
    }
  }
  {
    SCOPED_TRACE("what must stay a node of its own");
    for (int variant = 0; variant < 4; ++variant) {
      SCOPED_TRACE(variant);
      GraphBuilder g;
      auto& m = g.main();
      Ref z = image_conv(m, "conv");
      Ref other = variant == 2 ? m.constant("per_channel", make(DataType::kFloat32, {1, 5, 1, 1}, ramp(5, 1.0, 0.5)))
                               : scalar(m, "six", 6.0);
      // variant 3: the constant divided by z, not z by it
      Ref e = variant == 3 ? m.op("divide", {other, m.op("exp", {z}, {}, "exp")}, {}, "ratio")
                           : m.op("multiply", {m.op("exp", {z}, {}, "exp"), other}, {}, "ratio");
      m.output("y", e);
      if (variant == 0) m.output("z", z);                                   // z is an output too
      if (variant == 1) m.output("s", m.op("reduce_sum", {z}, {}, "sum"));  // z read elsewhere
      auto fused = expect_same_outputs(g.finish(), image, 1e-5);
      ASSERT_TRUE(fused);
      EXPECT_EQ(count_ops(*fused, "fused_elementwise(exp, multiply)") + count_ops(*fused, "fused_elementwise(exp, "
                                                                                            "divide)"),
                1);
      for (const std::string& line : fused->rewrites()) EXPECT_EQ(line.find("epilogue"), std::string::npos) << line;
    }
  }
  {
    SCOPED_TRACE("float64, and a cast to float16 between the conv2d and the chain");
    for (bool cast : {false, true}) {
      GraphBuilder g;
      auto& m = g.main();
      const DataType dt = cast ? DataType::kFloat32 : DataType::kFloat64;
      Ref x = m.placeholder("x", dt, std::vector<int64_t>{2, 3, 6, 6});
      Ref z = m.op("conv2d", {x, m.constant("w", make(dt, {5, 3, 3, 3}, ramp(135, 0.3, 0.0)))}, conv, "conv");
      if (cast) {
        NodeArgs to16;
        to16.d = {static_cast<int32_t>(DataType::kFloat16)};
        z = m.op("cast", {z}, to16, "to16");
      }
      m.output("y", m.op("tanh", {z}, {}, "tanh"));
      auto fused = expect_same_outputs(g.finish(), make(dt, {2, 3, 6, 6}, ramp(216, 2.0, 0.05)), 1e-3);
      ASSERT_TRUE(fused);
      EXPECT_EQ(count_ops(*fused, "tanh"), 1);
      EXPECT_EQ(count_ops(*fused, "conv2d"), 1);
    }
  }
  {
    SCOPED_TRACE("element-wise fusion off");
    GraphBuilder g;
    auto& m = g.main();
    m.output("y", m.op("tanh", {image_conv(m, "conv")}, {}, "tanh"));
    const std::vector<uint8_t> bytes = g.finish();
    LoadOptions o;
    o.fuse_elementwise = false;
    std::shared_ptr<const Graph> loaded;
    ASSERT_OK(Graph::load_buffer(bytes.data(), bytes.size(), o, loaded));
    EXPECT_EQ(count_ops(*loaded, "tanh"), 1);
    EXPECT_EQ(count_ops(*loaded, "conv2d"), 1);
  }
}

// The same prologue in float16 and bfloat16 (a mean of squares over rows):
// one fused_reduce of the dtype, within a rounding of it.
TEST(GraphRewrites, FusesSixteenBitProloguesIntoReductions) {
  for (DataType dt : {DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    GraphBuilder g;
    auto& m = g.main();
    Ref x = m.placeholder("x", dt, std::vector<int64_t>{6, 64});
    NodeArgs mean;
    mean.i = {-1};
    mean.b = {true};
    Ref sq = m.op("multiply", {m.op("tanh", {x}, {}, "tanh"), x}, {}, "xtanh");
    m.output("y", m.op("reduce_mean", {sq}, mean, "mean"));
    const NDArray xv = make(dt, {6, 64}, ramp(384, 2.0, 0.1));
    auto fused = expect_same_outputs(g.finish(), xv, dt == DataType::kFloat16 ? 2e-3 : 1.6e-2);
    ASSERT_TRUE(fused);
    ASSERT_EQ(fused->main().nodes.size(), 1u);
    EXPECT_EQ(fused->main().nodes[0].op_label, "fused_reduce(tanh, multiply, reduce_mean)");
  }
}

// RMS norm as exporters write it, in each spelling the rewrite knows:
// x / sqrt(m + eps), x * rsqrt(m + eps) or x * reciprocal(sqrt(m + eps))
// with m = mean(x^2) over the last axis and x^2 as pow, multiply or
// square, the weight on either side: one rms_norm node. Over another axis,
// or with a weight of another length, the pieces stay (and fuse as
// element-wise work).
TEST(GraphRewrites, FusesDecomposedRmsNorms) {
  for (int spelling = 0; spelling < 9; ++spelling) {
    for (bool other_axis : {false, true}) {
      SCOPED_TRACE("spelling " + std::to_string(spelling) + (other_axis ? ", mean over axis 0" : ""));
      GraphBuilder g;
      auto& m = g.main();
      Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{6, 64});
      Ref sq;
      switch (spelling % 3) {
        case 0: sq = m.op("pow", {x, m.constant("two", make(DataType::kFloat32, {}, {2.0}))}, {}, "sq"); break;
        case 1: sq = m.op("multiply", {x, x}, {}, "sq"); break;
        default: sq = m.op("square", {x}, {}, "sq"); break;
      }
      NodeArgs mean;
      mean.i = {other_axis ? 0 : -1};
      mean.b = {true};
      Ref e = m.op("add", {m.op("reduce_mean", {sq}, mean, "mean"), m.constant("eps", make(DataType::kFloat32, {}, {1e-5}))},
                   {}, "eps");
      Ref normed;
      switch (spelling / 3) {
        case 0: normed = m.op("divide", {x, m.op("sqrt", {e}, {}, "sqrt")}, {}, "norm"); break;
        case 1: normed = m.op("multiply", {m.op("rsqrt", {e}, {}, "rsqrt"), x}, {}, "norm"); break;
        default:
          normed = m.op("multiply", {x, m.op("reciprocal", {m.op("sqrt", {e}, {}, "sqrt")}, {}, "inv")}, {}, "norm");
          break;
      }
      Ref w = m.constant("w", make(DataType::kFloat32, {64}, ramp(64, 1.0, 0.4)));
      m.output("y", spelling % 2 ? m.op("multiply", {w, normed}, {}, "weight") : m.op("multiply", {normed, w}, {}, "weight"));
      auto fused = expect_same_outputs(g.finish(), make(DataType::kFloat32, {6, 64}, ramp(384, 3.0, 0.1)), 1e-5);
      ASSERT_TRUE(fused);
      EXPECT_EQ(count_ops(*fused, "rms_norm"), other_axis ? 0 : 1);
      if (!other_axis) {
        EXPECT_EQ(fused->main().nodes.size(), 1u);
      }
    }
  }
}

}  // namespace
}  // namespace libops::graph
