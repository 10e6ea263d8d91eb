// Graphs on cuda:0: a dense network (matmul, add, relu, softmax) and a
// chain of legacy nodes run by a CUDA session give the CPU session's
// outputs; a node whose call the device cannot run is an error naming it.
#include <cmath>

#include "cuda_test_util.h"
#include "graph/executor.h"
#include "graph/graph_builder.h"

namespace libops::graph {
namespace {

using libops::test::make;
using libops::test::values;
using test::BodyBuilder;
using test::GraphBuilder;
using test::NodeArgs;
using test::Ref;

std::vector<double> wave(int64_t n, double scale) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * std::sin(0.11 * static_cast<double>(i) + 0.5);
  return v;
}

std::shared_ptr<const Graph> dense_net() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4, 32});
  Ref w1 = m.constant("w1", make(DataType::kFloat32, {32, 64}, wave(32 * 64, 0.2)));
  Ref b1 = m.constant("b1", make(DataType::kFloat32, {64}, wave(64, 0.1)));
  Ref w2 = m.constant("w2", make(DataType::kFloat32, {64, 10}, wave(64 * 10, 0.3)));
  Ref h = m.op("relu", {m.op("add", {m.op("matmul", {x, w1}, {}, "fc1"), b1}, {}, "bias1")}, {}, "act1");
  m.output("probs", m.op("softmax", {m.op("matmul", {h, w2}, {}, "fc2")}, {}, "softmax"));
  std::shared_ptr<const Graph> graph;
  EXPECT_OK(test::load(g.finish(), graph));
  return graph;
}

TEST(CudaGraph, DenseNetworkMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  std::shared_ptr<const Graph> graph = dense_net();
  ASSERT_TRUE(graph);
  NDArray x = make(DataType::kFloat32, {4, 32}, wave(4 * 32, 1.0));
  const NDArray* feeds[1] = {&x};
  Session cpu(graph), gpu(graph);
  gpu.set_device(Device::cuda(0));
  ASSERT_OK(cpu.run(feeds, 1));
  ASSERT_OK(gpu.run(feeds, 1));
  NDArray out = gpu.output(0);
  ASSERT_OK(out.buffer()->sync_to_host());
  EXPECT_TRUE(libops::test::all_close(out, values(cpu.output(0)), 1e-5, 1e-6));
  // A second run reuses the session's device buffers and gives the same.
  ASSERT_OK(gpu.run(feeds, 1));
  NDArray again = gpu.output(0);
  ASSERT_OK(again.buffer()->sync_to_host());
  EXPECT_EQ(values(again), values(out));
}

// An NCHW conv block (conv -> batchnorm -> relu6 -> depthwise conv ->
// relu -> maxpool -> global mean): the loader's rewrites (channels-last,
// batchnorm folding, fused activations; Note [Graph rewrites]) give a
// graph of permutes and NHWC convolutions, which cuda:0 runs as the CPU
// does.
TEST(CudaGraph, RewrittenConvBlockMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 4, 10, 9});
  NodeArgs c1;
  c1.i = {3, 3, 1, 1, 1, 1, 1, 1, 0};
  Ref h = m.op("conv2d", {x, m.constant("w1", make(DataType::kFloat32, {8, 4, 3, 3}, wave(288, 0.3)))}, c1, "conv1");
  NodeArgs bn;
  bn.i = {1, 1, 1};
  bn.t = {1e-5};
  std::vector<double> var = wave(8, 0.2);
  for (double& v : var) v += 1.0;
  h = m.op("batchnorm", {h, m.constant("mean", make(DataType::kFloat32, {8}, wave(8, 0.1))),
                         m.constant("var", make(DataType::kFloat32, {8}, var)),
                         m.constant("gamma", make(DataType::kFloat32, {8}, wave(8, 1.5))),
                         m.constant("beta", make(DataType::kFloat32, {8}, wave(8, 0.5)))},
           bn, "bn1");
  h = m.op("relu6", {h}, {}, "act1");
  NodeArgs dw;
  dw.i = {3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1, 8};
  h = m.op("relu", {m.op("conv2d", {h, m.constant("w2", make(DataType::kFloat32, {8, 1, 3, 3}, wave(72, 0.5)))}, dw,
                         "dwconv")},
           {}, "act2");
  NodeArgs pool;
  pool.i = {2, 2, 1, 1, 0, 0, 1, 1, 0};
  NodeArgs mean;
  mean.i = {2, 3};
  m.output("y", m.op("reduce_mean", {m.op("maxpool2d", {h}, pool, "pool")}, mean, "gap"));
  std::shared_ptr<const Graph> graph;
  ASSERT_OK(test::load(g.finish(), graph));
  EXPECT_EQ(graph->rewrites().size(), 4u);  // channels-last, the fold and two fused activations
  NDArray xv = make(DataType::kFloat32, {2, 4, 10, 9}, wave(720, 2.0));
  const NDArray* feeds[1] = {&xv};
  Session cpu(graph), gpu(graph);
  gpu.set_device(Device::cuda(0));
  ASSERT_OK(cpu.run(feeds, 1));
  ASSERT_OK(gpu.run(feeds, 1));
  NDArray out = gpu.output(0);
  ASSERT_OK(out.buffer()->sync_to_host());
  EXPECT_TRUE(libops::test::all_close(out, values(cpu.output(0)), 1e-4, 1e-5));
}

TEST(CudaGraph, ProfiledRunsTimeEveryNodeAndStillMatch) {
  // Profiling drains the device around each node and runs it inside a
  // named range; the outputs are those of an unprofiled run.
  REQUIRE_CUDA_DEVICE();
  std::shared_ptr<const Graph> graph = dense_net();
  ASSERT_TRUE(graph);
  NDArray x = make(DataType::kFloat32, {4, 32}, wave(4 * 32, 1.0));
  const NDArray* feeds[1] = {&x};
  Session cpu(graph), gpu(graph);
  gpu.set_device(Device::cuda(0));
  gpu.set_profiling(true);
  ASSERT_OK(cpu.run(feeds, 1));
  ASSERT_OK(gpu.run(feeds, 1));
  NDArray out = gpu.output(0);
  ASSERT_OK(out.buffer()->sync_to_host());
  EXPECT_TRUE(libops::test::all_close(out, values(cpu.output(0)), 1e-5, 1e-6));
  const Profile& p = gpu.profile();
  EXPECT_TRUE(p.enabled);
  int timed = 0;
  for (const NodeProfile& n : p.nodes) {
    EXPECT_EQ(n.calls, 1) << n.name;
    if (n.total_ns > 0) ++timed;
  }
  EXPECT_EQ(timed, static_cast<int>(p.nodes.size()));
  EXPECT_EQ(p.events.size(), p.nodes.size());
}

TEST(CudaGraph, NodesTheDeviceCannotRunAreNamed) {
  // Every registered op has a CUDA path, but cuDNN's pooling has no
  // dilation: the node's call is refused, and the error names the node.
  REQUIRE_CUDA_DEVICE();
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, 1, 6, 6});
  test::NodeArgs dilated;
  dilated.i = {2, 2, 1, 1, 0, 0, 2, 2, 0};
  m.output("y", m.op("maxpool2d", {x}, dilated, "pool"));
  std::shared_ptr<const Graph> graph;
  ASSERT_OK(test::load(g.finish(), graph));
  Session s(graph);
  s.set_device(Device::cuda(0));
  NDArray x_in = make(DataType::kFloat32, {1, 1, 6, 6}, wave(36, 1));
  const NDArray* feeds[1] = {&x_in};
  Status st = s.run(feeds, 1);
  EXPECT_EQ(st.code(), StatusCode::kNotImplemented) << st.message();
  EXPECT_NE(st.message().find("'pool'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("cuDNN's pooling has no dilation"), std::string::npos) << st.message();
  // The same under profiling, which drains the device around the failing
  // node and closes its range on the error path.
  s.set_profiling(true);
  st = s.run(feeds, 1);
  EXPECT_EQ(st.code(), StatusCode::kNotImplemented) << st.message();
  EXPECT_NE(st.message().find("'pool'"), std::string::npos) << st.message();
  // The pool runs channels-last between permutes (Note [Graph rewrites]);
  // the permute before it ran, the pool was called once and failed.
  int pools = 0;
  for (const auto& n : s.profile().nodes)
    if (n.name == "pool") {
      ++pools;
      EXPECT_EQ(n.calls, 1);
    }
  EXPECT_EQ(pools, 1);
}

// Sequence nodes (Note [Sequence values] in graph/executor.h) over arrays on
// cuda:0: a split of a device array into views, an insert, a concatenation
// (the concat op on the device), an element and the length, as the CPU.
TEST(CudaGraph, SequenceNodesOnDeviceArraysMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{3, 4});
  Ref h = m.op("relu", {x}, {}, "act");
  NodeArgs split;
  split.i = {1, 1};
  Ref parts = m.seq(fb::SequenceOpKind::SPLIT, {h, m.constant("lengths", make(DataType::kInt64, {2}, {1, 3}))}, split);
  Ref grown = m.seq(fb::SequenceOpKind::INSERT, {parts, m.op("neg", {x}, {}, "negate")});
  NodeArgs concat;
  concat.i = {1, 0};
  m.output("joined", m.seq(fb::SequenceOpKind::CONCAT, {grown}, concat));
  m.output("last", m.seq(fb::SequenceOpKind::AT, {grown, m.constant("minus1", make(DataType::kInt64, {}, {-1}))}));
  m.output("n", m.seq(fb::SequenceOpKind::LENGTH, {grown}));
  std::shared_ptr<const Graph> graph;
  ASSERT_OK(test::load(g.finish(), graph));
  NDArray xv = make(DataType::kFloat32, {3, 4}, wave(12, 2.0));
  const NDArray* feeds[1] = {&xv};
  Session cpu(graph), gpu(graph);
  gpu.set_device(Device::cuda(0));
  ASSERT_OK(cpu.run(feeds, 1));
  ASSERT_OK(gpu.run(feeds, 1));
  for (int k = 0; k < 3; ++k) {
    NDArray out = gpu.output(k);
    ASSERT_OK(out.buffer()->sync_to_host());
    EXPECT_EQ(out.shape(), cpu.output(k).shape()) << "output " << k;
    EXPECT_TRUE(libops::test::all_close(out, values(cpu.output(k)), 1e-6, 0)) << "output " << k;
  }
  EXPECT_EQ(gpu.output(0).shape(), Dims({3, 8}));
}

}  // namespace
}  // namespace libops::graph
