// Planned custom nodes run only their op's compute
// (DeclarableOp::execute_prepared), through a call each Session sets up once:
// the node's args must reach the op on every run, and each Session's calls
// must read and write its own values. Planned pairwise legacy nodes skip
// the checks their plan covers (legacy::exec_pairwise_prechecked).
#include <gtest/gtest.h>

#include <cmath>

#include "graph/executor.h"
#include "graph_builder.h"
#include "libops/legacy/ops/binary_ops.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using libops::test::iota;
using libops::test::make;
using libops::test::values;
using test::BodyBuilder;
using test::GraphBuilder;
using test::NodeArgs;
using test::Ref;

// y = cast(reduce_sum(x, axis 1, keep dims), int32) + [[100], [200]], x: float32[2,3]
std::shared_ptr<const Graph> sum_cast_add_graph() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
  NodeArgs sum;
  sum.i = {1};
  sum.b = {true};
  NodeArgs to_int;
  to_int.d = {static_cast<int32_t>(DataType::kInt32)};
  Ref c = m.constant("c", make(DataType::kInt32, {2, 1}, {100, 200}));
  m.output("y", m.op("add", {m.op("cast", {m.op("reduce_sum", {x}, sum, "sum")}, to_int, "to_int"), c}, {}, "plus"));
  std::shared_ptr<const Graph> graph;
  Status s = test::load(g.finish(), graph);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return graph;
}

// Row sums of x = iota(6, scale, -1), truncated toward zero, plus 100 / 200.
std::vector<double> expected(double scale) {
  return {std::trunc(3 * scale - 3) + 100, std::trunc(12 * scale - 3) + 200};
}

TEST(GraphPreparedCalls, NodeArgsReachTheOpOnEveryRun) {
  Session s(sum_cast_add_graph());
  for (double scale : {0.5, 1.0, 1.5, 0.5}) {
    NDArray x = make(DataType::kFloat32, {2, 3}, iota(6, scale, -1));
    const NDArray* in[] = {&x};
    ASSERT_OK(s.run(in, 1));
    EXPECT_EQ(s.output(0).dtype(), DataType::kInt32);
    EXPECT_EQ(s.output(0).shape(), (Dims{2, 1}));
    EXPECT_EQ(values(s.output(0)), expected(scale)) << "scale " << scale;
  }
}

TEST(GraphPreparedCalls, InterleavedSessionsKeepTheirOwnValues) {
  std::shared_ptr<const Graph> graph = sum_cast_add_graph();
  Session a(graph), b(graph);
  NDArray xa = make(DataType::kFloat32, {2, 3}, iota(6, 0.5, -1));
  NDArray xb = make(DataType::kFloat32, {2, 3}, iota(6, 1.5, -1));
  const NDArray* in_a[] = {&xa};
  const NDArray* in_b[] = {&xb};
  for (int round = 0; round < 2; ++round) {
    ASSERT_OK(a.run(in_a, 1));
    ASSERT_OK(b.run(in_b, 1));
    EXPECT_EQ(values(a.output(0)), expected(0.5)) << "round " << round;
    EXPECT_EQ(values(b.output(0)), expected(1.5)) << "round " << round;
  }
}

TEST(GraphPreparedCalls, PlannedPairwiseLegacyNodesBroadcastAndPromote) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
  Ref y = m.constant("y", make(DataType::kInt32, {3}, {2, -1, 3}));
  m.output("z", m.legacy(OPS_PAIRWISE, static_cast<int32_t>(legacy::BinaryOp::multiply), {x, y}, {}, "scale"));
  std::shared_ptr<const Graph> graph;
  Status st = test::load(g.finish(), graph);
  ASSERT_TRUE(st.is_ok()) << st.message();
  Session s(graph);
  for (double shift : {0.0, -2.5}) {
    NDArray xv = make(DataType::kFloat32, {2, 3}, iota(6, 1, shift));
    const NDArray* in[] = {&xv};
    ASSERT_OK(s.run(in, 1));
    EXPECT_EQ(s.output(0).dtype(), DataType::kFloat32);
    const double v = shift;
    EXPECT_EQ(values(s.output(0)), (std::vector<double>{2 * v, -(v + 1), 3 * (v + 2), 2 * (v + 3), -(v + 4), 3 * (v + 5)}))
        << "shift " << shift;
  }
}

}  // namespace
}  // namespace libops::graph
