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
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/chain_graph.h"
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
