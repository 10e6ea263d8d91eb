// libFuzzer target for the graph loader (graph/loader.cpp): any bytes must
// give a Graph or an error Status, never a crash, leak or hang. Graphs that
// load, have no control flow and small, fully known shapes are also run
// once, which exercises the executor and the ops' validation.
//
// Build and run: see README.md in this folder.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/executor.h"

namespace {

constexpr int64_t kMaxRunBytes = 1 << 20;  // per value; larger graphs are only loaded

bool small_and_static(const libops::graph::Graph& g) {
  if (g.num_bodies() != 1 || !g.main().static_plan) return false;
  for (const libops::graph::ValueShape& v : g.main().static_shapes) {
    int64_t n = 0;
    const int64_t item = static_cast<int64_t>(libops::dtype_size(v.dtype));
    if (!libops::checked_length(v.dims, n) || item == 0 || n > kMaxRunBytes / item) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace libops;
  using namespace libops::graph;
  std::shared_ptr<const Graph> g;
  // Copied into an aligned block (the usual path) ...
  Status s = Graph::load_buffer(data, size, LoadOptions{}, g);
  // ... and used in place, where the fuzzer's buffer has any alignment.
  std::shared_ptr<const Graph> borrowed;
  LoadOptions borrow;
  borrow.borrow_buffer = true;
  Status s2 = Graph::load_buffer(data, size, borrow, borrowed);
  if (s.is_ok() != s2.is_ok()) __builtin_trap();  // both paths must agree
  if (!s.is_ok() || !small_and_static(*g)) return 0;

  std::vector<NDArray> inputs;
  for (const GraphInput& in : g->main().inputs) {
    NDArray a;
    if (!NDArray::zeros(in.shape.dtype, in.shape.dims, 'c', a).is_ok()) return 0;
    for (int64_t i = 0; i < a.length(); ++i) a.set_double(i, static_cast<double>(i % 5) - 2.0);
    inputs.push_back(a);
  }
  std::vector<const NDArray*> feeds;
  for (const NDArray& a : inputs) feeds.push_back(&a);
  Session session(g);
  (void)session.run(feeds.data(), static_cast<int>(feeds.size()));
  return 0;
}
