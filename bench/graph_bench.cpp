// Graph executor overhead (Google Benchmark).
//
//   BM_GraphChain/N        a chain of N adds on 1-element float32 arrays, run
//                          by a Session node by node (element-wise fusion
//                          off); per_node = time / N. The per-node overhead
//                          is (time(100) - time(1)) / 99.
//   BM_GraphChainFused/N   the same chain as loaded by default: fused into
//                          fused_elementwise nodes of up to 32 steps
//                          (Note [Element-wise fusion]); per_node counts the
//                          N adds written.
//   BM_CApiOneNodeRun      one run of a 1-node graph through the C API
//                          (ops_graph_run), the fixed cost of a run.
//   BM_CApiOneNodeRunAndOutput  the same plus fetching and freeing the output.
//   BM_OpExecute           the add op alone through DeclarableOp::execute with
//                          a reused Context and output: the whole checked
//                          pipeline, as direct callers and unplanned graph
//                          nodes run it.
//   BM_OpExecutePrepared   the add op's compute alone
//                          (DeclarableOp::execute_prepared) with a Context
//                          set up once, as planned graph nodes run it: the
//                          floor for the executor; its own per-node cost is
//                          per_node minus this.
//   BM_CApiOpExec          the add op alone through ops_exec, for reference.
//   BM_WhileAppendList/N   a While that appends its counter to a list N times
//                          (Note [Sequence values]: the body edits the list in
//                          place); per_iteration = time / N, flat in N.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/chain_graph.h"
#include "schemas/graph_generated.h"
#include "graph/executor.h"
#include "libops/c_graph.h"
#include "libops/ops/declarable_op.h"

namespace {

using libops::bench::chain_graph;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "graph_bench: %s failed: %s\n", what, ops_last_error());
    std::exit(1);
  }
}

void run_chain(benchmark::State& state, bool fused) {
  const int n = static_cast<int>(state.range(0));
  std::vector<uint8_t> bytes = chain_graph(n);
  std::shared_ptr<const libops::graph::Graph> g;
  libops::graph::LoadOptions options;
  options.fuse_elementwise = fused;
  libops::Status s = libops::graph::Graph::load_buffer(bytes.data(), bytes.size(), options, g);
  if (!s.is_ok()) {
    state.SkipWithError(s.message().c_str());
    return;
  }
  libops::graph::Session session(g);
  libops::NDArray x;
  check(libops::NDArray::scalar(libops::DataType::kFloat32, 2.0, x).is_ok(), "scalar");
  libops::NDArray x1;
  check(x.reshape(libops::Dims{1}, x1).is_ok(), "reshape");
  const libops::NDArray* in[] = {&x1};
  for (auto _ : state) {
    libops::Status r = session.run(in, 1);
    benchmark::DoNotOptimize(r);
  }
  check(session.output(0).get_double(0) == 2.0 + n, "result");
  state.counters["per_node"] = benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void BM_GraphChain(benchmark::State& state) { run_chain(state, false); }
void BM_GraphChainFused(benchmark::State& state) { run_chain(state, true); }
BENCHMARK(BM_GraphChain)->Arg(1)->Arg(100);
BENCHMARK(BM_GraphChainFused)->Arg(100);

// i = 0; s = []; while (i < n) { s.append(i); i = i + 1 }; output len(s).
std::vector<uint8_t> list_loop_graph(int64_t n) {
  namespace fb = libops::fb;
  flatbuffers::FlatBufferBuilder b;
  auto int64_constant = [&](uint32_t id, const char* name, int64_t v) {
    b.PreAlign(8, 64);
    auto data = b.CreateVector(reinterpret_cast<const uint8_t*>(&v), 8);
    auto arr = fb::CreateArray(b, fb::DType::INT64, b.CreateVector(std::vector<int64_t>{}), fb::Order::C, data);
    return fb::CreateVariable(b, id, b.CreateString(name), fb::VariableValue::Array, arr.Union());
  };
  auto placeholder = [&](uint32_t id, const char* name, fb::ValueKind kind) {
    auto shape = kind == fb::ValueKind::TENSOR ? b.CreateVector(std::vector<int64_t>{}) : 0;
    auto p = fb::CreatePlaceholder(b, fb::DType::INT64, shape, 0, kind);
    return fb::CreateVariable(b, id, b.CreateString(name), fb::VariableValue::Placeholder, p.Union());
  };
  auto node = [&](uint32_t id, const char* name, fb::Op type, flatbuffers::Offset<void> op,
                  std::vector<fb::ValueRef> in, uint32_t outputs = 1, std::vector<fb::DType> d = {}) {
    return fb::CreateNode(b, id, b.CreateString(name), type, op, b.CreateVectorOfStructs(in), outputs, 0, 0, 0,
                          d.empty() ? 0 : b.CreateVector(d));
  };
  auto custom = [&](const char* op) { return fb::CreateCustomOp(b, b.CreateString(op), libops::op_name_hash(op)).Union(); };
  auto output = [&](const char* name, uint32_t id) {
    fb::ValueRef r(id, 0);
    return fb::CreateOutput(b, b.CreateString(name), &r);
  };
  // cond: i < n
  auto cond = fb::CreateSubgraph(
      b, b.CreateString("cond"),
      b.CreateVector(std::vector{placeholder(0, "i", fb::ValueKind::TENSOR), placeholder(1, "s", fb::ValueKind::SEQUENCE),
                                 int64_constant(2, "n", n)}),
      b.CreateVector(std::vector{node(3, "less", fb::Op::CustomOp, custom("less"), {{0, 0}, {2, 0}})}),
      b.CreateVectorOfStrings({"i", "s"}), b.CreateVector(std::vector{output("go", 3)}));
  // body: (i + 1, s + [i])
  auto body = fb::CreateSubgraph(
      b, b.CreateString("body"),
      b.CreateVector(std::vector{placeholder(0, "i", fb::ValueKind::TENSOR), placeholder(1, "s", fb::ValueKind::SEQUENCE),
                                 int64_constant(2, "one", 1)}),
      b.CreateVector(std::vector{node(3, "next", fb::Op::CustomOp, custom("add"), {{0, 0}, {2, 0}}),
                                 node(4, "append", fb::Op::SequenceOp,
                                      fb::CreateSequenceOp(b, fb::SequenceOpKind::INSERT).Union(), {{1, 0}, {0, 0}})}),
      b.CreateVectorOfStrings({"i", "s"}), b.CreateVector(std::vector{output("i", 3), output("s", 4)}));
  auto main_vars = b.CreateVector(std::vector{int64_constant(0, "zero", 0)});
  auto main_nodes = b.CreateVector(std::vector{
      node(1, "empty", fb::Op::SequenceOp, fb::CreateSequenceOp(b, fb::SequenceOpKind::EMPTY).Union(), {}, 1,
           {fb::DType::INT64}),
      node(2, "loop", fb::Op::WhileOp, fb::CreateWhileOp(b, 0, 1).Union(), {{0, 0}, {1, 0}}, 2),
      node(3, "length", fb::Op::SequenceOp, fb::CreateSequenceOp(b, fb::SequenceOpKind::LENGTH).Union(), {{2, 1}})});
  auto root = fb::CreateGraph(b, 1, main_vars, main_nodes, b.CreateVectorOfStrings(std::vector<std::string>{}),
                              b.CreateVector(std::vector{output("n", 3)}),
                              b.CreateVector(std::vector{cond, body}));
  b.Finish(root, "LOPS");
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

void BM_WhileAppendList(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<uint8_t> bytes = list_loop_graph(n);
  std::shared_ptr<const libops::graph::Graph> g;
  libops::Status s = libops::graph::Graph::load_buffer(bytes.data(), bytes.size(), {}, g);
  if (!s.is_ok()) {
    state.SkipWithError(s.message().c_str());
    return;
  }
  libops::graph::Session session(g);
  for (auto _ : state) {
    libops::Status r = session.run(static_cast<const libops::NDArray* const*>(nullptr), 0);
    benchmark::DoNotOptimize(r);
  }
  check(session.num_outputs() == 1 && session.output(0).get_double(0) == static_cast<double>(n), "list length");
  state.counters["per_iteration"] = benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()),
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_WhileAppendList)->Arg(1000)->Arg(16000)->Unit(benchmark::kMillisecond);

struct CApiGraph {
  ops_graph_t* graph = nullptr;
  ops_graph_session_t* session = nullptr;
  ops_array_t* x = nullptr;
  CApiGraph() {
    std::vector<uint8_t> bytes = chain_graph(1);
    check(ops_graph_load_buffer(bytes.data(), bytes.size(), 0, &graph) == OPS_OK, "load");
    check(ops_graph_session_create(graph, &session) == OPS_OK, "session");
    const int64_t shape[] = {1};
    const float v = 2.0f;
    check(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, shape, &v, sizeof(v), &x) == OPS_OK, "input");
  }
  ~CApiGraph() {
    ops_array_free(x);
    ops_graph_session_free(session);
    ops_graph_free(graph);
  }
};

void BM_CApiOneNodeRun(benchmark::State& state) {
  CApiGraph g;
  const char* names[] = {"x"};
  const ops_array_t* inputs[] = {g.x};
  for (auto _ : state) {
    ops_status_t st = ops_graph_run(g.session, names, inputs, 1);
    benchmark::DoNotOptimize(st);
  }
}
BENCHMARK(BM_CApiOneNodeRun);

void BM_CApiOneNodeRunAndOutput(benchmark::State& state) {
  CApiGraph g;
  const char* names[] = {"x"};
  const ops_array_t* inputs[] = {g.x};
  for (auto _ : state) {
    ops_status_t st = ops_graph_run(g.session, names, inputs, 1);
    ops_array_t* y = nullptr;
    st = static_cast<ops_status_t>(st | ops_graph_session_output(g.session, "y", &y));
    benchmark::DoNotOptimize(st);
    ops_array_free(y);
  }
}
BENCHMARK(BM_CApiOneNodeRunAndOutput);

void BM_OpExecute(benchmark::State& state) {
  libops::DeclarableOp* op = libops::OpRegistry::instance().find("add");
  libops::NDArray x, z;
  check(libops::NDArray::create(libops::DataType::kFloat32, libops::Dims{1}, 'c', x).is_ok(), "x");
  check(libops::NDArray::create(libops::DataType::kFloat32, libops::Dims{1}, 'c', z).is_ok(), "z");
  x.set_double(0, 2.0);
  libops::Context ctx;
  for (auto _ : state) {
    ctx.clear();
    ctx.add_input(&x);
    ctx.add_input(&x);
    ctx.add_output(&z);
    libops::Status s = op->execute(ctx);
    benchmark::DoNotOptimize(s);
  }
  check(z.get_double(0) == 4.0, "add result");
}
BENCHMARK(BM_OpExecute);

void BM_OpExecutePrepared(benchmark::State& state) {
  libops::DeclarableOp* op = libops::OpRegistry::instance().find("add");
  libops::NDArray x, z;
  check(libops::NDArray::create(libops::DataType::kFloat32, libops::Dims{1}, 'c', x).is_ok(), "x");
  check(libops::NDArray::create(libops::DataType::kFloat32, libops::Dims{1}, 'c', z).is_ok(), "z");
  x.set_double(0, 2.0);
  libops::Context ctx;
  ctx.add_input(&x);
  ctx.add_input(&x);
  ctx.add_output(&z);
  libops::ShapeList shapes;
  check(op->infer_shapes(ctx, shapes).is_ok(), "infer_shapes");  // what the planner proves once
  for (auto _ : state) {
    libops::Status s = op->execute_prepared(ctx);
    benchmark::DoNotOptimize(s);
  }
  check(z.get_double(0) == 4.0, "add result");
}
BENCHMARK(BM_OpExecutePrepared);

void BM_CApiOpExec(benchmark::State& state) {
  CApiGraph g;
  ops_array_t* z = nullptr;
  const int64_t shape[] = {1};
  check(ops_array_create(OPS_DTYPE_FLOAT32, 1, shape, 'c', &z) == OPS_OK, "z");
  ops_array_t* const inputs[] = {g.x, g.x};
  ops_array_t* const outputs[] = {z};
  for (auto _ : state) {
    ops_status_t st = ops_exec("add", inputs, 2, outputs, 1, nullptr);
    benchmark::DoNotOptimize(st);
  }
  ops_array_free(z);
}
BENCHMARK(BM_CApiOpExec);

}  // namespace

BENCHMARK_MAIN();
