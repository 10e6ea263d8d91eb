// Executor tests: feeding, shape re-inference, error wrapping, control
// flow, concurrency, memory planning and profiling, on hand-built graphs.
#include "graph/executor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include "graph_builder.h"
#include "libops/array/data_buffer.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using libops::test::all_close;
using libops::test::iota;
using libops::test::make;
using libops::test::values;
using test::BodyBuilder;
using test::GraphBuilder;
using test::must_load;
using test::NodeArgs;
using test::Ref;

Ref scalar_const(BodyBuilder& b, const std::string& name, DataType t, double v) {
  return b.constant(name, make(t, {}, {v}));
}

// ---- feeding ----

std::shared_ptr<const Graph> two_input_graph() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
  Ref y = m.placeholder("y", DataType::kFloat32, std::vector<int64_t>{2});
  m.output("z", m.op("subtract", {x, y}, {}, "diff"));
  return must_load(g);
}

TEST(GraphExecutor, RunsWithNamedFeeds) {
  Session s(two_input_graph());
  NDArray x = make(DataType::kFloat32, {2}, {5, 7});
  NDArray y = make(DataType::kFloat32, {2}, {1, 2});
  ASSERT_OK(s.run({{"y", &y}, {"x", &x}}));
  ASSERT_EQ(s.num_outputs(), 1);
  EXPECT_TRUE(all_close(*s.output("z"), {4, 5}));
  EXPECT_EQ(s.output("nope"), nullptr);
}

TEST(GraphExecutor, RefusesBadFeeds) {
  Session s(two_input_graph());
  NDArray x = make(DataType::kFloat32, {2}, {5, 7});
  NDArray xi = make(DataType::kInt32, {2}, {5, 7});
  NDArray x3 = make(DataType::kFloat32, {3}, {5, 7, 9});

  Status st = s.run({{"x", &x}});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "graph: placeholder 'y' (float32[2]) was not fed");

  st = s.run({{"x", &xi}, {"y", &x}});
  EXPECT_EQ(st.code(), StatusCode::kDtype);
  EXPECT_EQ(st.message(), "graph: input 'x' was given int32[2] but the placeholder is float32[2]");

  st = s.run({{"x", &x}, {"y", &x3}});
  EXPECT_EQ(st.code(), StatusCode::kShape);
  EXPECT_EQ(st.message(), "graph: input 'y' was given float32[3] but the placeholder is float32[2]");

  st = s.run({{"x", &x}, {"y", &x}, {"w", &x}});
  EXPECT_NE(st.message().find("no input named 'w' (inputs: x, y)"), std::string::npos) << st.message();

  st = s.run({{"x", &x}, {"x", &x}});
  EXPECT_NE(st.message().find("input 'x' is fed twice"), std::string::npos) << st.message();

  // The session still works after failures.
  ASSERT_OK(s.run({{"x", &x}, {"y", &x}}));
  EXPECT_TRUE(all_close(s.output(0), {0, 0}));
}

// ---- shapes ----

TEST(GraphExecutor, ReinfersShapesWhenFedShapesChange) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{-1, 3});
  Ref w = m.constant("w", make(DataType::kFloat32, {3, 2}, {1, 0, 0, 1, 1, 1}));
  Ref b = m.constant("b", make(DataType::kFloat32, {2}, {0.5, -0.5}));
  m.output("y", m.op("add", {m.op("matmul", {x, w}, {}, "mm"), b}, {}, "bias"));
  Session s(must_load(g));
  for (int rows : {2, 4, 2, 1}) {
    NDArray xv = make(DataType::kFloat32, {rows, 3}, iota(rows * 3));
    const NDArray* in[] = {&xv};
    ASSERT_OK(s.run(in, 1));
    std::vector<double> want;
    for (int r = 0; r < rows; ++r) {
      const double a = 3 * r, c = 3 * r + 1, d = 3 * r + 2;
      want.push_back(a + d + 0.5);
      want.push_back(c + d - 0.5);
    }
    EXPECT_EQ(s.output(0).shape(), (Dims{rows, 2}));
    EXPECT_TRUE(all_close(s.output(0), want)) << rows << " rows";
  }
}

TEST(GraphExecutor, WrapsOpErrorsOnceWithTheNode) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{-1});
  Ref y = m.placeholder("y", DataType::kFloat32, std::vector<int64_t>{-1});
  m.output("z", m.op("add", {x, y}, {}, "encoder/add_3"));
  Session s(must_load(g));
  NDArray a = make(DataType::kFloat32, {2}, {1, 2});
  NDArray b = make(DataType::kFloat32, {3}, {1, 2, 3});
  Status st = s.run({{"x", &a}, {"y", &b}});
  EXPECT_EQ(st.code(), StatusCode::kShape);
  EXPECT_EQ(st.message().rfind("node 2 'encoder/add_3' (op add): add: cannot broadcast shapes [2] and [3]", 0), 0u)
      << st.message();
  EXPECT_EQ(st.message().find("node ", 1), std::string::npos) << "wrapped twice: " << st.message();
}

TEST(GraphExecutor, RunsMultiOutputOps) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kInt32, std::vector<int64_t>{2, 3});
  NodeArgs tear;
  tear.i = {1};
  tear.num_outputs = 2;
  Ref rows = m.op("tear", {x}, tear, "rows");
  m.output("r0", rows);
  m.output("r1", Ref(rows.id(), 1));
  m.output("sum", m.op("add", {rows, Ref(rows.id(), 1)}, {}, "sum"));
  Session s(must_load(g));
  NDArray xv = make(DataType::kInt32, {2, 3}, {1, 2, 3, 10, 20, 30});
  const NDArray* in[] = {&xv};
  ASSERT_OK(s.run(in, 1));
  EXPECT_EQ(values(*s.output("r0")), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values(*s.output("r1")), (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(values(*s.output("sum")), (std::vector<double>{11, 22, 33}));
}

TEST(GraphExecutor, OutputsKeptByTheCallerSurviveLaterRuns) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4});
  Ref one = m.constant("one", make(DataType::kFloat32, {4}, {1, 1, 1, 1}));
  m.output("y", m.op("add", {m.op("add", {x, one}), one}));
  Session s(must_load(g));
  NDArray a = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  NDArray b = make(DataType::kFloat32, {4}, {-1, -2, -3, -4});
  const NDArray* in_a[] = {&a};
  const NDArray* in_b[] = {&b};
  ASSERT_OK(s.run(in_a, 1));
  NDArray kept = s.output(0);  // shares the data
  for (int i = 0; i < 3; ++i) ASSERT_OK(s.run(in_b, 1));
  EXPECT_TRUE(all_close(kept, {3, 4, 5, 6}));
  EXPECT_TRUE(all_close(s.output(0), {1, 0, -1, -2}));
}

// ---- control flow ----

// then: a * 2; else: a - 1.
std::shared_ptr<const Graph> if_graph() {
  GraphBuilder g;
  BodyBuilder& then_b = g.subgraph("then");
  Ref a = then_b.placeholder("a", DataType::kFloat32, std::nullopt);
  then_b.output("o", then_b.op("multiply", {a, scalar_const(then_b, "two", DataType::kFloat32, 2)}));
  BodyBuilder& else_b = g.subgraph("else");
  Ref e = else_b.placeholder("a", DataType::kFloat32, std::nullopt);
  else_b.output("o", else_b.op("subtract", {e, scalar_const(else_b, "one", DataType::kFloat32, 1)}));
  BodyBuilder& m = g.main();
  Ref c = m.placeholder("c", DataType::kBool, std::vector<int64_t>{});
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{3});
  m.output("y", m.if_(c, 0, 1, {x}, 1, "choose")[0]);
  return must_load(g);
}

TEST(GraphExecutor, IfRunsTheChosenBranch) {
  Session s(if_graph());
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray yes = make(DataType::kBool, {}, {1});
  NDArray no = make(DataType::kBool, {}, {0});
  ASSERT_OK(s.run({{"c", &yes}, {"x", &x}}));
  EXPECT_TRUE(all_close(s.output(0), {2, 4, 6}));
  ASSERT_OK(s.run({{"c", &no}, {"x", &x}}));
  EXPECT_TRUE(all_close(s.output(0), {0, 1, 2}));
}

// Note [Shape inference strictness]: a branch that cannot run on the shapes
// of the load (a reshape of 6 values to 4, declared [2, 3] in full) loads,
// since an If may never take it; taking it fails the run naming the node.
TEST(GraphExecutor, AnIfBranchTheseShapesCannotRunLoadsAndFailsOnlyWhenTaken) {
  GraphBuilder g;
  BodyBuilder& then_b = g.subgraph("then");
  Ref a = then_b.placeholder("a", DataType::kFloat32, std::vector<int64_t>{2, 3});
  NodeArgs to4;
  to4.i = {4};
  then_b.output("o", then_b.op("reshape", {a}, to4, "flatten4"));
  BodyBuilder& else_b = g.subgraph("else");
  Ref e = else_b.placeholder("a", DataType::kFloat32, std::vector<int64_t>{2, 3});
  NodeArgs to6;
  to6.i = {6};
  else_b.output("o", else_b.op("reshape", {e}, to6, "flatten6"));
  BodyBuilder& m = g.main();
  Ref c = m.placeholder("c", DataType::kBool, std::vector<int64_t>{});
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
  m.output("y", m.if_(c, 0, 1, {x}, 1, "choose")[0]);
  Session s(must_load(g));
  NDArray xv = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray yes = make(DataType::kBool, {}, {1});
  NDArray no = make(DataType::kBool, {}, {0});
  ASSERT_OK(s.run({{"c", &no}, {"x", &xv}}));
  EXPECT_TRUE(all_close(s.output(0), {1, 2, 3, 4, 5, 6}));
  Status st = s.run({{"c", &yes}, {"x", &xv}});
  EXPECT_EQ(st.code(), StatusCode::kShape);
  EXPECT_NE(st.message().find("node 2 'choose' (op if): subgraph 0 'then': node 1 'flatten4' (op reshape)"),
            std::string::npos)
      << st.message();
}

// cond: i < n; body: (i + 1, acc * 2). Returns the graph; outputs i, acc.
std::shared_ptr<const Graph> doubling_loop(int64_t n) {
  GraphBuilder g;
  BodyBuilder& cond = g.subgraph("cond");
  Ref ci = cond.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  cond.placeholder("acc", DataType::kFloat32, std::nullopt);
  cond.output("go", cond.legacy(OPS_SCALAR_BOOL, 1,
                                {ci, scalar_const(cond, "n", DataType::kInt64, static_cast<double>(n))}, {}, "less"));
  BodyBuilder& body = g.subgraph("body");
  Ref bi = body.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  Ref acc = body.placeholder("acc", DataType::kFloat32, std::nullopt);
  body.output("i", body.op("add", {bi, scalar_const(body, "one", DataType::kInt64, 1)}, {}, "next_i"));
  body.output("acc", body.op("multiply", {acc, scalar_const(body, "two", DataType::kFloat32, 2)}, {}, "twice"));
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
  std::vector<Ref> out = m.while_(0, 1, {scalar_const(m, "zero", DataType::kInt64, 0), x}, "loop");
  m.output("i", out[0]);
  m.output("acc", out[1]);
  return must_load(g);
}

TEST(GraphExecutor, WhileLoopsUntilTheConditionFails) {
  for (int64_t n : {0, 1, 5}) {
    Session s(doubling_loop(n));
    NDArray x = make(DataType::kFloat32, {2}, {1, -3});
    const NDArray* in[] = {&x};
    ASSERT_OK(s.run(in, 1));
    EXPECT_EQ(s.output("i")->get_int64(0), n);
    const double f = static_cast<double>(int64_t{1} << n);
    EXPECT_TRUE(all_close(*s.output("acc"), {f, -3 * f})) << n;
  }
}

TEST(GraphExecutor, WhileHasNoHiddenIterationCap) {
  Session s(doubling_loop(20000));
  NDArray x = make(DataType::kFloat32, {2}, {0, 0});
  const NDArray* in[] = {&x};
  ASSERT_OK(s.run(in, 1));
  EXPECT_EQ(s.output("i")->get_int64(0), 20000);
}

TEST(GraphExecutor, ALoopLimitStopsARunAndLeavesTheSessionUsable) {
  Session s(doubling_loop(1000));
  NDArray x = make(DataType::kFloat32, {2}, {1, 1});
  const NDArray* in[] = {&x};
  s.set_loop_limit(10);
  const Status stopped = s.run(in, 1);
  EXPECT_EQ(stopped.code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(stopped.message(),
            "node 2 'loop' (op while): the loop wants iteration 11; the session's loop limit is 10 iterations");
  EXPECT_EQ(s.num_outputs(), 0);
  // Exactly the limit is allowed, and no limit runs to the end.
  Session exact(doubling_loop(10));
  exact.set_loop_limit(10);
  ASSERT_OK(exact.run(in, 1));
  EXPECT_EQ(exact.output("i")->get_int64(0), 10);
  s.set_loop_limit(0);
  ASSERT_OK(s.run(in, 1));
  EXPECT_EQ(s.output("i")->get_int64(0), 1000);
}

// A loop that never ends (i < n with n out of reach), cancelled from another
// thread; then the same session runs a finite input to the end.
TEST(GraphExecutor, CancelStopsARunningLoopFromAnotherThread) {
  Session s(doubling_loop(int64_t{1} << 62));
  NDArray x = make(DataType::kFloat32, {2}, {0, 0});
  const NDArray* in[] = {&x};
  std::atomic<bool> started{false};
  Status result;
  std::thread runner([&] {
    started = true;
    result = s.run(in, 1);
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  s.cancel();
  runner.join();
  EXPECT_EQ(result.code(), StatusCode::kCancelled);
  EXPECT_NE(result.message().find("the run was cancelled"), std::string::npos) << result.message();
  // The cancel was taken by that run: the next one is not affected.
  s.set_loop_limit(3);
  EXPECT_EQ(s.run(in, 1).code(), StatusCode::kLimitExceeded);
  Session finite(doubling_loop(4));
  finite.cancel();  // before a run: that run stops before its first node
  EXPECT_EQ(finite.run(in, 1).code(), StatusCode::kCancelled);
  ASSERT_OK(finite.run(in, 1));
  EXPECT_EQ(finite.output("i")->get_int64(0), 4);
}

TEST(GraphExecutor, NestedLoopsAndIfInsideALoop) {
  GraphBuilder g;
  // Inner loop: (j, i, total) while j < i: (j + 1, i, total + 1).
  BodyBuilder& icond = g.subgraph("inner_cond");
  Ref j = icond.placeholder("j", DataType::kInt64, std::vector<int64_t>{});
  Ref i = icond.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  icond.placeholder("total", DataType::kInt64, std::vector<int64_t>{});
  icond.output("go", icond.legacy(OPS_PAIRWISE_BOOL, 1, {j, i}));
  BodyBuilder& ibody = g.subgraph("inner_body");
  Ref bj = ibody.placeholder("j", DataType::kInt64, std::vector<int64_t>{});
  Ref bi = ibody.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  Ref bt = ibody.placeholder("total", DataType::kInt64, std::vector<int64_t>{});
  Ref one = scalar_const(ibody, "one", DataType::kInt64, 1);
  ibody.output("j", ibody.op("add", {bj, one}));
  ibody.output("i", bi);  // passed through unchanged
  ibody.output("total", ibody.op("add", {bt, one}));
  // Branches for the if inside the outer body: small -> total + 100, big -> total * 10.
  BodyBuilder& small = g.subgraph("small");
  Ref st = small.placeholder("t", DataType::kInt64, std::vector<int64_t>{});
  small.output("t", small.op("add", {st, scalar_const(small, "hundred", DataType::kInt64, 100)}));
  BodyBuilder& big = g.subgraph("big");
  Ref gt = big.placeholder("t", DataType::kInt64, std::vector<int64_t>{});
  big.output("t", big.op("multiply", {gt, scalar_const(big, "ten", DataType::kInt64, 10)}));
  // Outer loop: (i, total) while i < 4: total = inner(i, total); total = i < 2 ? total + 100 : total * 10; i + 1.
  BodyBuilder& ocond = g.subgraph("outer_cond");
  Ref oi = ocond.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  ocond.placeholder("total", DataType::kInt64, std::vector<int64_t>{});
  ocond.output("go", ocond.legacy(OPS_SCALAR_BOOL, 1, {oi, scalar_const(ocond, "four", DataType::kInt64, 4)}));
  BodyBuilder& obody = g.subgraph("outer_body");
  Ref pi = obody.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  Ref pt = obody.placeholder("total", DataType::kInt64, std::vector<int64_t>{});
  std::vector<Ref> inner = obody.while_(0, 1, {scalar_const(obody, "zero", DataType::kInt64, 0), pi, pt}, "inner");
  Ref is_small = obody.legacy(OPS_SCALAR_BOOL, 1, {pi, scalar_const(obody, "two", DataType::kInt64, 2)});
  Ref total = obody.if_(is_small, 2, 3, {inner[2]}, 1, "adjust")[0];
  obody.output("i", obody.op("add", {pi, scalar_const(obody, "one", DataType::kInt64, 1)}));
  obody.output("total", total);
  BodyBuilder& m = g.main();
  Ref t0 = m.placeholder("t0", DataType::kInt64, std::vector<int64_t>{});
  std::vector<Ref> out = m.while_(4, 5, {scalar_const(m, "zero", DataType::kInt64, 0), t0}, "outer");
  m.output("total", out[1]);
  std::shared_ptr<const Graph> graph = must_load(g);

  // i=0: +0 -> +100; i=1: +1 -> +100; i=2: +2 -> *10; i=3: +3 -> *10.
  int64_t want = 5;
  for (int64_t k = 0; k < 4; ++k) want = k < 2 ? want + k + 100 : (want + k) * 10;
  Session s(graph);
  NDArray t = make(DataType::kInt64, {}, {5});
  const NDArray* in[] = {&t};
  ASSERT_OK(s.run(in, 1));
  EXPECT_EQ(s.output("total")->get_int64(0), want);
  ASSERT_OK(s.run(in, 1));  // and again, with the frames reused
  EXPECT_EQ(s.output("total")->get_int64(0), want);
}

TEST(GraphExecutor, ErrorsInsideLoopsNameTheWholePath) {
  GraphBuilder g;
  BodyBuilder& cond = g.subgraph("cond");
  cond.placeholder("acc", DataType::kFloat32, std::nullopt);
  cond.output("go", scalar_const(cond, "yes", DataType::kBool, 1));
  BodyBuilder& body = g.subgraph("body");
  Ref acc = body.placeholder("acc", DataType::kFloat32, std::nullopt);
  body.output("acc", body.op("add", {acc, body.constant("c", make(DataType::kFloat32, {2}, {1, 2}))}, {}, "bump"));
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{-1});
  m.output("acc", m.while_(0, 1, {x}, "loop")[0]);
  Session s(must_load(g));
  NDArray xv = make(DataType::kFloat32, {3}, {1, 2, 3});
  const NDArray* in[] = {&xv};
  Status st = s.run(in, 1);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message().rfind("node 1 'loop' (op while): body, iteration 0: subgraph 1 'body': node 2 'bump' (op "
                               "add): add: cannot broadcast",
                               0),
            0u)
      << st.message();
}

// ---- scan outputs (WhileOp.scan_outputs) ----

// cond: i < n; body: (i + 1, x * 2) and, stacked per iteration, x as it was
// (a loop value passed out unchanged) and i * i. Outputs i, x, xs, squares.
std::shared_ptr<const Graph> scan_loop(int64_t n) {
  GraphBuilder g;
  BodyBuilder& cond = g.subgraph("cond");
  Ref ci = cond.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  cond.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
  cond.output("go", cond.op("less", {ci, scalar_const(cond, "n", DataType::kInt64, static_cast<double>(n))}));
  BodyBuilder& body = g.subgraph("body");
  Ref bi = body.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  Ref bx = body.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
  body.output("i", body.op("add", {bi, scalar_const(body, "one", DataType::kInt64, 1)}));
  body.output("x", body.op("multiply", {bx, scalar_const(body, "two", DataType::kFloat32, 2)}));
  body.output("x_seen", bx);
  body.output("square", body.op("multiply", {bi, bi}));
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
  std::vector<Ref> out = m.while_scan(0, 1, {scalar_const(m, "zero", DataType::kInt64, 0), x}, 2, "loop");
  m.output("i", out[0]);
  m.output("x", out[1]);
  m.output("xs", out[2]);
  m.output("squares", out[3]);
  return must_load(g);
}

TEST(GraphExecutor, WhileStacksScanOutputsPerIteration) {
  std::shared_ptr<const Graph> graph = scan_loop(3);
  // Load-time shapes: the iteration count is only known at run time.
  EXPECT_EQ(graph->main().outputs[2].shape.str(), "float32[?,2]");
  EXPECT_EQ(graph->main().outputs[3].shape.str(), "int64[?]");
  Session s(graph);
  NDArray x = make(DataType::kFloat32, {2}, {1, -3});
  const NDArray* in[] = {&x};
  for (int run = 0; run < 2; ++run) {  // the second run reuses the frames and pooled buffers
    ASSERT_OK(s.run(in, 1));
    EXPECT_EQ(s.output("i")->get_int64(0), 3);
    EXPECT_TRUE(all_close(*s.output("x"), {8, -24}));
    const NDArray& xs = *s.output("xs");
    EXPECT_EQ(xs.dtype(), DataType::kFloat32);
    EXPECT_EQ(xs.shape().str(), "[3,2]");
    EXPECT_TRUE(all_close(xs, {1, -3, 2, -6, 4, -12}));
    const NDArray& sq = *s.output("squares");
    EXPECT_EQ(sq.dtype(), DataType::kInt64);
    EXPECT_EQ(sq.shape().str(), "[3]");
    EXPECT_TRUE(all_close(sq, {0, 1, 4}));
  }
}

TEST(GraphExecutor, WhileWithZeroIterationsGivesEmptyScanOutputsOfTheInferredShape) {
  Session s(scan_loop(0));
  NDArray x = make(DataType::kFloat32, {2}, {1, -3});
  const NDArray* in[] = {&x};
  ASSERT_OK(s.run(in, 1));
  EXPECT_EQ(s.output("i")->get_int64(0), 0);
  EXPECT_TRUE(all_close(*s.output("x"), {1, -3}));
  EXPECT_EQ(s.output("xs")->dtype(), DataType::kFloat32);
  EXPECT_EQ(s.output("xs")->shape().str(), "[0,2]");
  EXPECT_EQ(s.output("squares")->dtype(), DataType::kInt64);
  EXPECT_EQ(s.output("squares")->shape().str(), "[0]");
}

// cond: i < n; body: (i + 1) and, stacked, range(0, i): a value whose shape
// changes every iteration and depends on i's value.
std::shared_ptr<const Graph> growing_scan_loop(int64_t n) {
  GraphBuilder g;
  BodyBuilder& cond = g.subgraph("cond");
  Ref ci = cond.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  cond.output("go", cond.op("less", {ci, scalar_const(cond, "n", DataType::kInt64, static_cast<double>(n))}));
  BodyBuilder& body = g.subgraph("body");
  Ref bi = body.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  body.output("i", body.op("add", {bi, scalar_const(body, "one", DataType::kInt64, 1)}));
  body.output("upto", body.op("range", {scalar_const(body, "start", DataType::kInt64, 0), bi,
                                        scalar_const(body, "delta", DataType::kInt64, 1)}, {}, "upto"));
  BodyBuilder& m = g.main();
  std::vector<Ref> out = m.while_scan(0, 1, {scalar_const(m, "zero", DataType::kInt64, 0)}, 1, "loop");
  m.output("stacked", out[1]);
  return must_load(g);
}

TEST(GraphExecutor, WhileScanOutputsMustKeepTheirShape) {
  Session s(growing_scan_loop(3));
  const Status st = s.run(nullptr, 0);
  EXPECT_EQ(st.code(), StatusCode::kShape);
  EXPECT_EQ(st.message(),
            "node 1 'loop' (op while): body, iteration 1: scan output 0 is int64[1], but iteration 0 gave int64[0]; "
            "every iteration must give the same dtype and shape to be stacked");
  EXPECT_EQ(s.num_outputs(), 0);
  // One iteration stacks the one value.
  Session one(growing_scan_loop(1));
  ASSERT_OK(one.run(nullptr, 0));
  EXPECT_EQ(one.output(0).shape().str(), "[1,0]");
}

TEST(GraphExecutor, WhileWithZeroIterationsRefusesAScanOutputOfUnknownShape) {
  Session s(growing_scan_loop(0));
  const Status st = s.run(nullptr, 0);
  EXPECT_EQ(st.code(), StatusCode::kShape);
  EXPECT_EQ(st.message().rfind("node 1 'loop' (op while): the loop ran 0 iterations, and the shape of scan output 0 "
                               "(body output 'upto', ",
                               0),
            0u)
      << st.message();
  EXPECT_NE(st.message().find("cannot be inferred without running the body"), std::string::npos) << st.message();
}

// ---- concurrency ----

TEST(GraphExecutor, EightThreadsRunOneGraphWithIdenticalResults) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4, 8});
  Ref w = m.constant("w", make(DataType::kFloat32, {8, 16}, iota(128, 0.01, -0.6)));
  Ref b = m.constant("b", make(DataType::kFloat32, {16}, iota(16, -0.1, 0.3)));
  Ref h = m.op("add", {m.op("matmul", {x, w}, {}, "mm"), b}, {}, "bias");
  Ref e = m.legacy(OPS_TRANSFORM_STRICT, 0, {h}, {}, "exp");
  m.output("y", m.op("divide", {e, m.op("add", {e, b})}, {}, "ratio"));
  std::shared_ptr<const Graph> graph = must_load(g);

  constexpr int kThreads = 8;
  std::vector<NDArray> inputs, expected;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(make(DataType::kFloat32, {4, 8}, iota(32, 0.05 * (t + 1), -0.5)));
    Session s(graph);
    const NDArray* in[] = {&inputs.back()};
    ASSERT_OK(s.run(in, 1));
    expected.push_back(s.output(0));
  }
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Session s(graph);
      for (int r = 0; r < 1250; ++r) {  // 8 x 1250 = 10k runs
        const int k = (t + r) % kThreads;  // every thread feeds every input
        const NDArray* in[] = {&inputs[static_cast<size_t>(k)]};
        if (!s.run(in, 1).is_ok() || values(s.output(0)) != values(expected[static_cast<size_t>(k)]))
          ++mismatches[static_cast<size_t>(t)];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[static_cast<size_t>(t)], 0) << "thread " << t;
}

// ---- memory planning ----

TEST(GraphExecutor, PeakMemoryOfALongChainStaysAtTwoIntermediates) {
  constexpr int kLength = 64;
  constexpr int64_t kSide = 128;
  constexpr int64_t kBytes = kSide * kSide * 4;
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{kSide, kSide});
  Ref c = m.constant("c", make(DataType::kFloat32, {kSide, kSide}, iota(kSide * kSide, 1e-3)));
  Ref v = x;
  for (int k = 0; k < kLength; ++k) v = m.op("add", {v, c}, {}, "add_" + std::to_string(k));
  m.output("y", v);
  Session s(must_load(g));
  NDArray xv = make(DataType::kFloat32, {kSide, kSide}, iota(kSide * kSide, -1.0));
  const NDArray* in[] = {&xv};
  for (int run = 0; run < 2; ++run) {
    ASSERT_OK(s.run(in, 1));
    // Each add's output is allocated while its input is still alive; the
    // input is released right after. Without liveness it would be 64x.
    EXPECT_EQ(s.peak_bytes(), 2 * kBytes) << "run " << run;
    EXPECT_EQ(s.profile().peak_bytes, 2 * kBytes);
  }
  EXPECT_GT(s.pooled_bytes(), 0);  // the released buffer waits for the next run
  std::vector<double> want(static_cast<size_t>(kSide * kSide));
  for (int64_t i = 0; i < kSide * kSide; ++i)
    want[static_cast<size_t>(i)] = -1.0 * static_cast<double>(i) + kLength * 1e-3 * static_cast<double>(i);
  EXPECT_TRUE(all_close(s.output(0), want, 1e-4, 1e-3));
}

// Values of changing sizes (4, 1, 3 and 2 units, a unit 1 MiB): the live
// set peaks at 5 units, but a run takes 10 units of buffers. The pool keeps
// what a run with a known plan will take again (its footprint), so later
// runs allocate nothing; a pool held to the peak freed the 3-unit buffer
// at the end of every run and faulted it in again in the next.
TEST(GraphExecutor, RunsWithAKnownPlanAllocateNothingAfterTheFirst) {
  constexpr int64_t kUnit = 256 * 1024;  // floats
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{4 * kUnit});
  Ref a = m.op("add", {x, x}, {}, "a");                                              // 4 units
  NodeArgs first;
  first.i = {0, kUnit};
  Ref b = m.op("slice", {a}, first, "b");                                            // 1
  NodeArgs axis0;
  axis0.i = {0};
  Ref c = m.op("concat", {b, b, b}, axis0, "c");                                     // 3
  NodeArgs second;
  second.i = {kUnit / 2, 2 * kUnit};
  m.output("d", m.op("slice", {c}, second, "d"));                                    // 2
  Session s(must_load(g));
  NDArray xv = make(DataType::kFloat32, {4 * kUnit}, iota(4 * kUnit, 1e-3));
  const NDArray* in[] = {&xv};
  ASSERT_OK(s.run(in, 1));
  ASSERT_OK(s.run(in, 1));
  EXPECT_EQ(s.peak_bytes(), 5 * kUnit * 4);
  const int64_t before = fault_injection::host_allocation_count();
  for (int run = 0; run < 3; ++run) ASSERT_OK(s.run(in, 1));
  EXPECT_EQ(fault_injection::host_allocation_count(), before);
  // d = [2x[unit/2 : unit], 2x[0 : unit], 2x[0 : unit/2]].
  const NDArray& d = s.output(0);
  ASSERT_EQ(d.length(), 2 * kUnit);
  for (int64_t i : {int64_t{0}, kUnit / 2 + 10, 2 * kUnit - 1}) {
    const int64_t from = (i + kUnit / 2) % kUnit;
    EXPECT_FLOAT_EQ(static_cast<float>(d.get_double(i)), static_cast<float>(2e-3 * static_cast<double>(from))) << i;
  }
}

TEST(GraphExecutor, BuffersReusedAcrossDtypesDoNotPileUpOverRuns) {
  // cast to int32 and back: float32 and int32 arrays of the same byte size
  // take each other's buffers from the pool on every run. A reused buffer
  // is a view that keeps the original alive; a view of a view must not be
  // made, or every run adds a link that keeps all older buffers (and their
  // device copies) alive until the chain overflows the stack.
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{64});
  NodeArgs to_int, to_float;
  to_int.d = {static_cast<int32_t>(DataType::kInt32)};
  to_float.d = {static_cast<int32_t>(DataType::kFloat32)};
  m.output("y", m.op("add", {m.op("cast", {m.op("cast", {x}, to_int, "to_int")}, to_float, "to_float"), x}, {}, "y"));
  Session s(must_load(g));
  NDArray xv = make(DataType::kFloat32, {64}, iota(64, 0.5));
  const NDArray* in[] = {&xv};
  constexpr int kRuns = 40;
  std::vector<std::weak_ptr<DataBuffer>> outputs;
  for (int run = 0; run < kRuns; ++run) {
    ASSERT_OK(s.run(in, 1));
    outputs.push_back(s.output(0).buffer());
  }
  int alive = 0;
  for (const auto& w : outputs) alive += w.expired() ? 0 : 1;
  EXPECT_LE(alive, 4) << "of " << kRuns << " runs' output buffers";
  std::vector<double> want(64);
  for (int i = 0; i < 64; ++i) want[static_cast<size_t>(i)] = std::trunc(0.5 * i) + 0.5 * i;
  EXPECT_TRUE(all_close(s.output(0), want, 0, 0));
}

// ---- profiling ----

TEST(GraphExecutor, ProfilesNodesAndWritesAChromeTrace) {
  std::shared_ptr<const Graph> graph = doubling_loop(3);
  Session s(graph);
  s.set_profiling(true);
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  const NDArray* in[] = {&x};
  ASSERT_OK(s.run(in, 1));
  const Profile& p = s.profile();
  EXPECT_TRUE(p.enabled);
  EXPECT_GT(p.run_ns, 0);
  std::vector<const NodeProfile*> rows = p.by_time();
  ASSERT_EQ(rows.size(), 4u);  // loop, less (cond), next_i and twice (body)
  for (size_t r = 1; r < rows.size(); ++r) EXPECT_GE(rows[r - 1]->total_ns, rows[r]->total_ns);
  EXPECT_EQ(rows[0]->op, "while");  // it contains the others
  int64_t calls = 0;
  for (const NodeProfile* n : rows) {
    calls += n->calls;
    if (n->name == "twice") {
      EXPECT_EQ(n->calls, 3);
      EXPECT_EQ(n->shapes_str(), "float32[2]");
      EXPECT_EQ(n->bytes, 3 * 8);
    }
    if (n->name == "less") {
      EXPECT_EQ(n->calls, 4);
    }
  }
  EXPECT_EQ(calls, 1 + 4 + 3 + 3);
  const std::string table = p.table();
  EXPECT_NE(table.find("body/twice"), std::string::npos) << table;
  EXPECT_NE(table.find("output shapes"), std::string::npos) << table;

  const std::string trace = p.chrome_trace();
  EXPECT_EQ(trace.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  size_t events = 0;
  for (size_t at = trace.find("\"ph\":\"X\""); at != std::string::npos; at = trace.find("\"ph\":\"X\"", at + 1))
    ++events;
  EXPECT_EQ(events, static_cast<size_t>(calls));
  const std::string path = ::testing::TempDir() + std::to_string(getpid()) + "_graph_trace_test.json";
  ASSERT_OK(p.write_chrome_trace(path));
  std::remove(path.c_str());

  s.set_profiling(false);
  ASSERT_OK(s.run(in, 1));
  EXPECT_FALSE(s.profile().enabled);
  EXPECT_TRUE(s.profile().events.empty());
}

}  // namespace
}  // namespace libops::graph
