// Graph rewrites (Note [Graph rewrites] in graph/optimizer.h): each graph is
// loaded with and without them; both must give the same outputs, and the
// rewritten one must have lost the nodes the rewrite removed.
#include <gtest/gtest.h>

#include "graph/executor.h"
#include "graph_builder.h"
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

Loaded load_and_run(const std::vector<uint8_t>& bytes, bool rewrites, const NDArray& x) {
  Loaded r;
  LoadOptions o;
  o.rewrites = rewrites;
  EXPECT_TRUE(Graph::load_buffer(bytes.data(), bytes.size(), o, r.graph).is_ok());
  if (!r.graph) return r;
  Session s(r.graph);
  const NDArray* in[] = {&x};
  Status st = s.run(in, 1);
  EXPECT_TRUE(st.is_ok()) << st.message();
  if (st.is_ok()) EXPECT_TRUE(s.output(0).dup('c', r.out).is_ok());
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
  DataType dtype = DataType::kFloat32;

  std::vector<uint8_t> build() const {
    GraphBuilder g;
    auto& m = g.main();
    const std::vector<int64_t> xs = nhwc ? std::vector<int64_t>{2, 6, 7, 3} : std::vector<int64_t>{2, 3, 6, 7};
    Ref x = m.placeholder("x", dtype, xs);
    const Dims ws = nhwc ? Dims{3, 3, 3, 5} : Dims{5, 3, 3, 3};
    Ref w = m.constant("w", make(dtype, ws, ramp(45 * 3, 0.4, 0.1)));
    std::vector<Ref> conv_in = {x, w};
    if (conv_bias) conv_in.push_back(m.constant("b", make(dtype, {5}, ramp(5, 0.5, 0.3))));
    NodeArgs ca;
    ca.i = {3, 3, 1, 1, 1, 1, 1, 1, 0, nhwc ? 1 : 0, nhwc ? 0 : 1};
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

void expect_same_outputs(const ConvBnGraph& spec, size_t nodes_with_rewrites, size_t rewrites) {
  const std::vector<uint8_t> bytes = spec.build();
  const Dims xs = spec.nhwc ? Dims{2, 6, 7, 3} : Dims{2, 3, 6, 7};
  NDArray x = make(spec.dtype, xs, ramp(xs.product(), 1.0, 0.0));
  Loaded plain = load_and_run(bytes, false, x);
  Loaded rewritten = load_and_run(bytes, true, x);
  ASSERT_TRUE(plain.graph && rewritten.graph);
  EXPECT_EQ(plain.graph->main().nodes.size(), 3u);
  EXPECT_TRUE(plain.graph->rewrites().empty());
  EXPECT_EQ(rewritten.graph->main().nodes.size(), nodes_with_rewrites);
  EXPECT_EQ(rewritten.graph->rewrites().size(), rewrites);
  const double tol = spec.dtype == DataType::kFloat64 ? 1e-12 : 1e-5;
  ASSERT_EQ(plain.out.shape(), rewritten.out.shape());
  EXPECT_TRUE(libops::test::all_close(rewritten.out, libops::test::values(plain.out), tol, tol));
}

TEST(GraphRewrites, FoldsBatchnormIntoConv2d) {
  ConvBnGraph spec;
  expect_same_outputs(spec, 2, 1);
  std::shared_ptr<const Graph> g;
  ASSERT_TRUE(test::load(spec.build(), g).is_ok());
  ASSERT_EQ(g->rewrites().size(), 1u);
  EXPECT_EQ(g->rewrites()[0], "node 8 'bn1' (batchnorm) folded into node 3 'conv1' (conv2d)");
  EXPECT_EQ(g->main().nodes[0].op_label, "conv2d");
  EXPECT_EQ(g->main().nodes[1].op_label, "relu");
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
        expect_same_outputs(spec, 2, 1);
      }
}

TEST(GraphRewrites, FoldsNhwcWithFiltersLastAndFloat64) {
  ConvBnGraph spec;
  spec.nhwc = true;
  expect_same_outputs(spec, 2, 1);
  spec.dtype = DataType::kFloat64;
  expect_same_outputs(spec, 2, 1);
}

TEST(GraphRewrites, LeavesWhatItCannotFold) {
  ConvBnGraph spec;
  spec.mean_is_input = true;  // statistics known only at run time
  const std::vector<uint8_t> bytes = spec.build();
  std::shared_ptr<const Graph> g;
  ASSERT_TRUE(test::load(bytes, g).is_ok());
  EXPECT_EQ(g->main().nodes.size(), 3u);
  EXPECT_TRUE(g->rewrites().empty());

  ConvBnGraph shared;
  shared.conv_also_output = true;  // the conv2d's own output is needed too
  ASSERT_TRUE(test::load(shared.build(), g).is_ok());
  EXPECT_EQ(g->main().nodes.size(), 3u);

  ConvBnGraph half;
  half.dtype = DataType::kFloat16;  // folded weights would round differently
  expect_same_outputs(half, 3, 0);
}

}  // namespace
}  // namespace libops::graph
