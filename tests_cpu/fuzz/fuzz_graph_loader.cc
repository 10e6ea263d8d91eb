// libFuzzer target for the graph loader (graph/loader.cpp): any bytes must
// give a Graph or an error Status, never a crash, leak or hang. Graphs that
// load, have no control flow and small, fully known shapes are also run
// once (sequence inputs fed two elements), which exercises the executor and
// the ops' validation.
//
// Build and run: see README.md in this folder.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/executor.h"

namespace {

constexpr int64_t kMaxRunBytes = 1 << 20;  // per value; larger graphs are only loaded

// One body whose tensors all have small shapes known at load: those its
// sequence nodes (Note [Sequence values]) give are bounded by what they
// read, and the rest are known.
bool small_and_static(const libops::graph::Graph& g) {
  using namespace libops::graph;
  if (g.num_bodies() != 1) return false;
  const Body& b = g.main();
  if (!b.static_plan && !b.has_lists) return false;
  std::vector<uint8_t> from_sequence(static_cast<size_t>(b.num_slots), 0);
  for (const Node& n : b.nodes)
    if (n.kind == NodeKind::kSequence) from_sequence[static_cast<size_t>(n.first_output)] = 1;
  for (const GraphInput& in : b.inputs) from_sequence[static_cast<size_t>(in.slot)] = in.kind != ValueKind::kTensor;
  for (size_t s = 0; s < b.static_shapes.size(); ++s) {
    if (from_sequence[s] || b.kinds[s] != ValueKind::kTensor) continue;
    const ValueShape& v = b.static_shapes[s];
    int64_t n = 0;
    const int64_t item = static_cast<int64_t>(libops::dtype_size(v.dtype));
    if (!v.fully_known() || !libops::checked_length(v.dims, n) || item == 0 || n > kMaxRunBytes / item) return false;
  }
  // A sequence input is fed two elements of its declared shape.
  for (const GraphInput& in : b.inputs) {
    int64_t n = 0;
    if (in.kind == ValueKind::kTensor || in.kind == ValueKind::kOptionalTensor) continue;
    if (!in.shape.fully_known() || !libops::checked_length(in.shape.dims, n) ||
        n > kMaxRunBytes / static_cast<int64_t>(libops::dtype_size(in.shape.dtype)))
      return false;
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

  // Tensors as zeros-and-small-ints of their declared shapes, sequences as
  // two such elements, optional tensors as none.
  std::vector<NDArray> inputs;
  std::vector<TensorList> lists;
  inputs.reserve(g->main().inputs.size());
  lists.reserve(g->main().inputs.size());
  std::vector<Session::Feed> feeds;
  for (const GraphInput& in : g->main().inputs) {
    if (in.kind == ValueKind::kOptionalTensor) {
      feeds.push_back({in.name, nullptr, nullptr});
      continue;
    }
    NDArray a;
    if (!NDArray::zeros(in.shape.dtype, in.shape.dims, 'c', a).is_ok()) return 0;
    for (int64_t i = 0; i < a.length(); ++i) a.set_double(i, static_cast<double>(i % 5) - 2.0);
    if (in.kind == ValueKind::kTensor) {
      inputs.push_back(a);
      feeds.push_back({in.name, &inputs.back(), nullptr});
    } else {
      lists.push_back(TensorList{a.dtype(), {a, a}});
      feeds.push_back({in.name, nullptr, &lists.back()});
    }
  }
  Session session(g);
  (void)session.run(feeds);
  return 0;
}
