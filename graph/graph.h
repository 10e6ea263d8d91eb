// Graph: a loaded, verified, immutable graph (schemas/graph.fbs), ready to
// run with a Session (graph/executor.h).
//
// Data path: graph file -> Verifier + reference checks (loader.cpp) ->
// optimizer (optimizer.h: rewrites) ->
// planner (planner.h: topological order, liveness, shape inference) ->
// executor (executor.h) -> op registry / legacy::exec -> op.
// graph/ depends on libops/; ops know nothing of graphs.
//
// A Graph never changes after loading, so one Graph may be run from many
// threads at once, each thread with its own Session.
//
// Note [Graph values]
//  Every value of a body (the main graph or one subgraph) lives in a slot:
//  one slot per variable (constant or placeholder) and one per node output,
//  numbered 0..num_slots-1 at load. File ids (Note [Value addressing] in
//  schemas/graph.fbs) are resolved to slots once; the executor never sees an
//  id again, only dense indexes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libops/core/device.h"
#include "libops/array/data_buffer.h"
#include "libops/array/ndarray.h"
#include "libops/c_types.h"
#include "libops/core/status.h"
#include "libops/loops/extra_params.h"
#include "libops/ops/op_signature.h"

namespace libops {
class DeclarableOp;
}

namespace libops::graph {

// What a placeholder declares, or what load-time shape inference found:
// a dtype (kInvalid = unknown) and extents, where -1 is an extent only known
// at run time. rank_known is false when even the rank is unknown.
struct ValueShape {
  DataType dtype = DataType::kInvalid;
  bool rank_known = false;
  Dims dims;
  char order = 'c';  // the order an op's shape function asked for

  bool fully_known() const;
  // True when `s` is a concrete shape this declaration admits.
  bool admits(DataType dtype, const Dims& dims) const;
  std::string str() const;  // "float32[?,784]", "float32[...]" (rank unknown)
  static ValueShape of(const TensorShape& s);
};

enum class NodeKind : uint8_t { kCustom, kLegacy, kIf, kWhile, kSequence };

// What a slot holds (ValueKind in schemas/graph.fbs; Note [Sequence values]
// in executor.h): an array, a list of arrays, or either of them or nothing.
enum class ValueKind : uint8_t { kTensor = 0, kSequence = 1, kOptionalTensor = 2, kOptionalSequence = 3 };
inline bool kind_is_list(ValueKind k) { return k == ValueKind::kSequence || k == ValueKind::kOptionalSequence; }
inline bool kind_is_optional(ValueKind k) {
  return k == ValueKind::kOptionalTensor || k == ValueKind::kOptionalSequence;
}
const char* value_kind_name(ValueKind k);  // "tensor", "sequence", "optional tensor", "optional sequence"

// A kSequence node's operation (SequenceOp in schemas/graph.fbs).
enum class SequenceOpKind : uint8_t {
  kEmpty, kConstruct, kInsert, kErase, kAt, kLength, kConcat, kSplit, kOptional, kHasElement, kGetElement
};
constexpr int kNumSequenceOps = 11;
const char* sequence_op_name(SequenceOpKind k);  // "sequence_insert", ...

struct Node {
  uint32_t id = 0;
  std::string name;
  std::string op_label;  // "add", "pairwise/add", "if", "while": what messages and profiles print
  NodeKind kind = NodeKind::kCustom;

  DeclarableOp* op = nullptr;                     // kCustom
  ops_legacy_group_t group = OPS_TRANSFORM_SAME;  // kLegacy
  int num = 0;
  int branch_a = -1;  // kIf: then body; kWhile: cond body (indexes into Graph bodies)
  int branch_b = -1;  // kIf: else body; kWhile: loop body
  // kWhile: the body's outputs after the loop values, stacked over the
  // iterations into the node's last scan_outputs outputs (WhileOp in
  // schemas/graph.fbs).
  int32_t scan_outputs = 0;
  SequenceOpKind seq_op = SequenceOpKind::kEmpty;  // kSequence

  std::vector<int32_t> inputs;  // slots
  int32_t first_output = 0;     // outputs are slots first_output .. first_output + num_outputs - 1
  int32_t num_outputs = 1;

  OpArgs args;  // kCustom: resolved against the op's signature at load (Note [Argument resolution])
  std::vector<int64_t> axes;
  ExtraParams extra;  // kLegacy: args.t as the functor's parameters
  bool has_seed = false;
  uint64_t seed = 0;
  std::string device;  // placement as written; empty = the session's device
  bool placed = false;  // device was given (and parsed into `placement`)
  Device placement;
};

struct GraphInput {
  std::string name;
  int32_t slot = 0;
  ValueShape shape;   // as declared: a sequence's per element
  ValueKind kind = ValueKind::kTensor;
  // Per dim, the symbolic name of an extent known only at run time
  // (Placeholder.dim_names: "batch", "seq_len"); empty, or "" per dim, where
  // the file gives none.
  std::vector<std::string> dim_names;
  bool used = false;  // read by a node or an output; an unused one is checked, never bound
};

struct GraphOutput {
  std::string name;
  int32_t slot = 0;
  ValueShape shape;  // from load-time shape inference; may be partly unknown
  ValueKind kind = ValueKind::kTensor;
};

// The main graph or one subgraph: its values, nodes and run plan.
struct Body {
  std::string name;   // "main" for the root graph
  std::string where;  // "" for main, "subgraph 2 'body': " otherwise; prefixes messages
  int32_t num_slots = 0;
  std::vector<Node> nodes;         // in topological order
  std::vector<GraphInput> inputs;  // feed order (subgraphs: bound by position)
  std::vector<GraphOutput> outputs;
  std::vector<ValueKind> kinds;    // per slot (Note [Sequence values] in executor.h)
  bool has_lists = false;          // some slot holds a list (a sequence or optional sequence)
  std::vector<int32_t> constant_slots;
  std::vector<NDArray> constants;  // parallel to constant_slots
  std::vector<int32_t> producer;   // slot -> node position, or -1 for a variable
  // Liveness (planner.cpp): after node position p runs, the slots
  // release[release_begin[p] .. release_begin[p + 1]) hold no further use.
  std::vector<int32_t> release;
  std::vector<int32_t> release_begin;  // nodes.size() + 1 entries
  // Load-time shape inference: the declared input shapes give these slot
  // shapes. `static_plan` is set when every input shape was fully known and
  // every slot could be inferred; the executor then uses it without
  // re-inferring while the fed shapes match the declarations.
  std::vector<ValueShape> static_shapes;
  bool static_plan = false;
  // With static_plan: the values load-time inference computed (Note [Shape
  // values] in planner.cpp), per slot; empty arrays elsewhere.
  std::vector<NDArray> static_values;

  // "node 3 'fc1' (op matmul): " with the body's prefix.
  std::string node_prefix(const Node& n) const;
};

struct GraphConfig {
  std::string device;  // empty: default
  int threads = 0;     // 0: library default
  bool profiling = false;
};

// The layout the graph optimizer gives NCHW convolution and pooling nodes
// (Note [Graph rewrites] in graph/optimizer.h).
enum class GraphLayout {
  kAuto,   // NCHWc where oneDNN runs this CPU's blocked kernels and every window op takes it, else NHWC;
           // LIBOPS_GRAPH_LAYOUT=nhwc or nchwc in the environment decides instead
  kNhwc,   // channels-last
  kNchwc,  // channel-blocked (Note [Channel-blocked layout] in libops/ops/nn/conv_utils.h)
};

struct LoadOptions {
  // load_buffer only: the caller's buffer outlives the Graph, so constants
  // whose data is 64-byte aligned in it are used in place, without a copy.
  // Otherwise (and for a buffer that is not even 8-byte aligned) the buffer
  // is copied once into a 64-byte aligned block owned by the Graph
  // (load_file always reads into such a block).
  bool borrow_buffer = false;
  // Note [Graph rewrites] (graph/optimizer.h); false loads the graph as
  // written (so does LIBOPS_GRAPH_REWRITES=0).
  bool rewrites = true;
  // Note [Element-wise fusion] (graph/fuse_elementwise.cpp); false leaves
  // element-wise chains node by node (so does LIBOPS_GRAPH_FUSION=0).
  bool fuse_elementwise = true;
  GraphLayout layout = GraphLayout::kAuto;
};

class Graph {
 public:
  static Status load_file(const std::string& path, std::shared_ptr<const Graph>& out);
  static Status load_file(const std::string& path, const LoadOptions& options, std::shared_ptr<const Graph>& out);
  static Status load_buffer(const void* data, size_t size, const LoadOptions& options,
                            std::shared_ptr<const Graph>& out);

  const Body& main() const { return bodies_[0]; }
  // Body 0 is the main graph; body 1 + i is Graph.subgraphs[i] of the file.
  const Body& body(int index) const { return bodies_[static_cast<size_t>(index)]; }
  int num_bodies() const { return static_cast<int>(bodies_.size()); }
  const GraphConfig& config() const { return config_; }
  int num_nodes() const;  // over all bodies

  // Input / output of the main graph by name; -1 when there is none.
  int find_input(std::string_view name) const;
  int find_output(std::string_view name) const;

  // Constants used in place from the loaded bytes vs. copied (for tests
  // and diagnostics).
  int constants_in_place() const { return constants_in_place_; }
  int constants_copied() const { return constants_copied_; }
  // The rewrites the loader applied (Note [Graph rewrites]), one line each:
  //   "node 5 'bn1' (batchnorm) folded into node 4 'conv1' (conv2d)"
  const std::vector<std::string>& rewrites() const { return rewrites_; }

  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph() = default;

 private:
  friend class GraphLoader;
  std::vector<Body> bodies_;
  GraphConfig config_;
  std::shared_ptr<DataBuffer> bytes_;  // the file, when owned by the graph
  int constants_in_place_ = 0;
  int constants_copied_ = 0;
  std::vector<std::string> rewrites_;
};

}  // namespace libops::graph
