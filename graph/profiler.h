// Profile of one graph run: per-node wall time, call count, output shapes
// and bytes the executor allocated for the node's outputs, plus one timed
// event per node call for a Chrome trace (chrome://tracing, Perfetto).
//
// A Session fills it when profiling is on (Session::set_profiling, or the
// graph's configuration); memory figures (peak_bytes) are kept always.
// Nodes inside subgraphs count every call (a While body node runs once per
// iteration); control-flow nodes' times include their subgraphs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace libops::graph {

struct NodeProfile {
  int body = 0;  // Graph body index (0 = main)
  int node = 0;  // position in Body::nodes
  uint32_t id = 0;
  std::string name;
  std::string op;
  std::string graph_name;  // "main" or the subgraph's name
  int64_t calls = 0;
  int64_t total_ns = 0;
  int64_t bytes = 0;                       // allocated for outputs, over all calls
  std::vector<TensorShape> output_shapes;  // of the last call

  std::string shapes_str() const;  // "float32[1,10], int64[]"
};

struct ProfileEvent {
  int32_t index;     // into Profile::nodes
  int64_t start_ns;  // since the run started
  int64_t dur_ns;
};

class Profile {
 public:
  // The trace keeps the first kMaxEvents calls of a run (long loops can
  // make millions); the per-node table counts all of them.
  static constexpr size_t kMaxEvents = size_t{1} << 20;

  // Sizes the per-node records for `graph` (first call) and zeroes them.
  void reset(const Graph& graph);
  int index_of(int body, int node) const { return body_offset[static_cast<size_t>(body)] + node; }

  // Nodes that ran, slowest first (ties: in graph order).
  std::vector<const NodeProfile*> by_time() const;
  // A printable table sorted by time, with a header line giving the run
  // time and peak memory.
  std::string table() const;
  std::string chrome_trace() const;  // JSON
  Status write_chrome_trace(const std::string& path) const;

  bool enabled = false;
  int64_t run_ns = 0;
  int64_t peak_bytes = 0;  // most bytes the executor held at once in the run
  int64_t dropped_events = 0;
  std::vector<NodeProfile> nodes;  // every node of every body; see index_of
  std::vector<int32_t> body_offset;
  std::vector<ProfileEvent> events;
};

}  // namespace libops::graph
