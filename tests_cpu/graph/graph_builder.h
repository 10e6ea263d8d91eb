// Test helper: builds graph files (schemas/graph.fbs) with the
// flatc-generated builders, for loader / executor tests.
//
//   GraphBuilder g;
//   auto& m = g.main();
//   Ref x = m.placeholder("x", DataType::kFloat32, {{2, 3}});
//   Ref c = m.constant("c", test::make(DataType::kFloat32, {2, 3}, test::iota(6)));
//   m.output("y", m.op("add", {x, c}));
//   std::vector<uint8_t> bytes = g.finish();
//
// Ids are handed out per body in creation order. The raw_* calls write
// exactly what they are given, to make malformed graphs.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "libops/array/ndarray.h"
#include "libops/ops/declarable_op.h"
#include "schemas/graph_generated.h"

namespace libops::graph::test {

using Ref = fb::ValueRef;

struct NodeArgs {
  std::vector<double> t;
  std::vector<int64_t> i;
  std::vector<bool> b;
  std::vector<int32_t> d;  // raw DType values, so tests can write invalid ones
  std::vector<int64_t> axes;
  std::optional<uint64_t> seed;
  uint32_t num_outputs = 1;
};

class GraphBuilder;

class BodyBuilder {
 public:
  BodyBuilder(flatbuffers::FlatBufferBuilder& fbb, std::string name) : fbb_(fbb), name_(std::move(name)) {}

  uint32_t next_id() const { return next_id_; }

  // shape: nullopt = unknown rank; -1 = unknown extent.
  Ref placeholder(const std::string& name, DataType dtype, std::optional<std::vector<int64_t>> shape,
                  bool list_as_input = true) {
    return raw_placeholder(next_id_++, name, static_cast<int32_t>(dtype), shape, list_as_input);
  }
  Ref raw_placeholder(uint32_t id, const std::string& name, int32_t raw_dtype,
                      std::optional<std::vector<int64_t>> shape, bool list_as_input = true) {
    auto s = shape ? fbb_.CreateVector(*shape) : 0;
    auto p = fb::CreatePlaceholder(fbb_, static_cast<fb::DType>(raw_dtype), s);
    vars_.push_back(fb::CreateVariable(fbb_, id, fbb_.CreateString(name), fb::VariableValue::Placeholder, p.Union()));
    if (list_as_input) inputs_.push_back(name);
    return Ref(id, 0);
  }

  // A placeholder of another kind (Note [Sequence values] in graph/executor.h):
  // for a sequence, dtype and shape declare each element.
  Ref placeholder_of(fb::ValueKind kind, const std::string& name, DataType dtype,
                     std::optional<std::vector<int64_t>> shape = std::nullopt) {
    auto s = shape ? fbb_.CreateVector(*shape) : 0;
    auto p = fb::CreatePlaceholder(fbb_, static_cast<fb::DType>(dtype), s, 0, kind);
    const uint32_t id = next_id_++;
    vars_.push_back(fb::CreateVariable(fbb_, id, fbb_.CreateString(name), fb::VariableValue::Placeholder, p.Union()));
    inputs_.push_back(name);
    return Ref(id, 0);
  }

  Ref constant(const std::string& name, const NDArray& a) {
    NDArray dense;
    EXPECT_TRUE(a.dup('c', dense).is_ok());
    std::vector<uint8_t> bytes(static_cast<size_t>(dense.length()) * dense.element_size());
    if (!bytes.empty()) std::memcpy(bytes.data(), dense.data(), bytes.size());
    std::vector<int64_t> shape(a.shape().begin(), a.shape().end());
    return raw_constant(next_id_++, name, static_cast<int32_t>(a.dtype()), shape, bytes);
  }
  Ref raw_constant(uint32_t id, const std::string& name, int32_t raw_dtype, const std::vector<int64_t>& shape,
                   const std::vector<uint8_t>& data, uint8_t order = 0) {
    auto s = fbb_.CreateVector(shape);
    // ForceVectorAlignment asserts alignments over 32 in debug builds; PreAlign
    // is what it does, for the 64 bytes of force_align in the schema.
    fbb_.PreAlign(data.size(), 64);
    auto d = fbb_.CreateVector(data);
    auto arr = fb::CreateArray(fbb_, static_cast<fb::DType>(raw_dtype), s, static_cast<fb::Order>(order), d);
    vars_.push_back(fb::CreateVariable(fbb_, id, fbb_.CreateString(name), fb::VariableValue::Array, arr.Union()));
    return Ref(id, 0);
  }

  // A custom op by registry name; returns output 0.
  Ref op(const std::string& op_name, const std::vector<Ref>& inputs, const NodeArgs& args = {},
         const std::string& name = "") {
    auto o = fb::CreateCustomOp(fbb_, fbb_.CreateString(op_name), op_name_hash(op_name));
    return raw_node(next_id_++, name.empty() ? op_name : name, fb::Op::CustomOp, o.Union(), inputs, args);
  }
  Ref custom_with_hash(const std::string& op_name, uint64_t hash, const std::vector<Ref>& inputs,
                       const NodeArgs& args = {}) {
    auto o = fb::CreateCustomOp(fbb_, fbb_.CreateString(op_name), hash);
    return raw_node(next_id_++, op_name, fb::Op::CustomOp, o.Union(), inputs, args);
  }
  Ref legacy(int32_t group, int32_t num, const std::vector<Ref>& inputs, const NodeArgs& args = {},
             const std::string& name = "") {
    auto o = fb::CreateLegacyOp(fbb_, static_cast<fb::LegacyGroup>(group), num);
    return raw_node(next_id_++, name.empty() ? "legacy" : name, fb::Op::LegacyOp, o.Union(), inputs, args);
  }
  // A sequence op (SequenceOp in the schema); returns its output.
  Ref seq(fb::SequenceOpKind kind, const std::vector<Ref>& inputs, const NodeArgs& args = {},
          const std::string& name = "") {
    auto o = fb::CreateSequenceOp(fbb_, kind);
    return raw_node(next_id_++, name.empty() ? fb::EnumNameSequenceOpKind(kind) : name, fb::Op::SequenceOp, o.Union(),
                    inputs, args);
  }
  // Subgraph indexes are GraphBuilder::subgraph's return values.
  std::vector<Ref> if_(Ref cond, int then_sub, int else_sub, const std::vector<Ref>& args, uint32_t num_outputs,
                       const std::string& name = "if") {
    auto o = fb::CreateIfOp(fbb_, static_cast<uint32_t>(then_sub), static_cast<uint32_t>(else_sub));
    std::vector<Ref> inputs{cond};
    inputs.insert(inputs.end(), args.begin(), args.end());
    NodeArgs na;
    na.num_outputs = num_outputs;
    Ref r = raw_node(next_id_++, name, fb::Op::IfOp, o.Union(), inputs, na);
    return outputs_of(r, num_outputs);
  }
  std::vector<Ref> while_(int cond_sub, int body_sub, const std::vector<Ref>& vars, const std::string& name = "while") {
    auto o = fb::CreateWhileOp(fbb_, static_cast<uint32_t>(cond_sub), static_cast<uint32_t>(body_sub));
    NodeArgs na;
    na.num_outputs = static_cast<uint32_t>(vars.size());
    Ref r = raw_node(next_id_++, name, fb::Op::WhileOp, o.Union(), vars, na);
    return outputs_of(r, na.num_outputs);
  }
  // A While whose body gives `scan_outputs` stacked values after the loop
  // values; returns the final loop values, then the stacked values.
  // num_outputs: as written (default: vars + scan_outputs).
  std::vector<Ref> while_scan(int cond_sub, int body_sub, const std::vector<Ref>& vars, uint32_t scan_outputs,
                              const std::string& name = "while", std::optional<uint32_t> num_outputs = std::nullopt) {
    auto o = fb::CreateWhileOp(fbb_, static_cast<uint32_t>(cond_sub), static_cast<uint32_t>(body_sub), scan_outputs);
    NodeArgs na;
    na.num_outputs = num_outputs ? *num_outputs : static_cast<uint32_t>(vars.size()) + scan_outputs;
    Ref r = raw_node(next_id_++, name, fb::Op::WhileOp, o.Union(), vars, na);
    return outputs_of(r, na.num_outputs);
  }

  Ref raw_node(uint32_t id, const std::string& name, fb::Op type, flatbuffers::Offset<void> op,
               const std::vector<Ref>& inputs, const NodeArgs& args) {
    auto in = fbb_.CreateVectorOfStructs(inputs);
    auto t = args.t.empty() ? 0 : fbb_.CreateVector(args.t);
    auto i = args.i.empty() ? 0 : fbb_.CreateVector(args.i);
    std::vector<uint8_t> b(args.b.begin(), args.b.end());
    auto bv = b.empty() ? 0 : fbb_.CreateVector(b);
    std::vector<fb::DType> d;
    for (int32_t v : args.d) d.push_back(static_cast<fb::DType>(v));
    auto dv = d.empty() ? 0 : fbb_.CreateVector(d);
    auto axes = args.axes.empty() ? 0 : fbb_.CreateVector(args.axes);
    nodes_.push_back(fb::CreateNode(fbb_, id, fbb_.CreateString(name), type, op, in, args.num_outputs, t, i, bv, dv,
                                    axes,
                                    args.seed ? flatbuffers::Optional<uint64_t>(*args.seed) : flatbuffers::nullopt));
    return Ref(id, 0);
  }

  void output(const std::string& name, Ref value) {
    outputs_.push_back(fb::CreateOutput(fbb_, fbb_.CreateString(name), &value));
  }
  void skip_input_list() { list_inputs_ = false; }
  void list_input(const std::string& name) { inputs_.push_back(name); }

  struct Parts {
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Variable>>> vars;
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Node>>> nodes;
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> inputs;
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Output>>> outputs;
  };
  Parts finish() {
    Parts p;
    p.vars = fbb_.CreateVector(vars_);
    p.nodes = fbb_.CreateVector(nodes_);
    p.inputs = list_inputs_ ? fbb_.CreateVectorOfStrings(inputs_) : 0;
    p.outputs = fbb_.CreateVector(outputs_);
    return p;
  }
  const std::string& name() const { return name_; }

 private:
  static std::vector<Ref> outputs_of(Ref r, uint32_t n) {
    std::vector<Ref> v;
    for (uint32_t k = 0; k < n; ++k) v.emplace_back(r.id(), k);
    return v;
  }

  flatbuffers::FlatBufferBuilder& fbb_;
  std::string name_;
  uint32_t next_id_ = 0;
  std::vector<flatbuffers::Offset<fb::Variable>> vars_;
  std::vector<flatbuffers::Offset<fb::Node>> nodes_;
  std::vector<std::string> inputs_;
  bool list_inputs_ = true;
  std::vector<flatbuffers::Offset<fb::Output>> outputs_;
};

class GraphBuilder {
 public:
  GraphBuilder() : main_(fbb_, "main") {}

  BodyBuilder& main() { return main_; }
  // A new subgraph; its index in Graph.subgraphs is subgraph_index(b).
  BodyBuilder& subgraph(const std::string& name) {
    subs_.push_back(std::make_unique<BodyBuilder>(fbb_, name));
    return *subs_.back();
  }
  int subgraph_index(const BodyBuilder& b) const {
    for (size_t i = 0; i < subs_.size(); ++i)
      if (subs_[i].get() == &b) return static_cast<int>(i);
    return -1;
  }

  struct FinishOptions {
    uint32_t version = 1;
    const char* identifier = "LOPS";
    bool profiling = false;
    int threads = 0;
  };
  std::vector<uint8_t> finish(const FinishOptions& o) {
    std::vector<flatbuffers::Offset<fb::Subgraph>> subs;
    for (auto& s : subs_) {
      auto p = s->finish();
      subs.push_back(fb::CreateSubgraph(fbb_, fbb_.CreateString(s->name()), p.vars, p.nodes, p.inputs, p.outputs));
    }
    auto sv = fbb_.CreateVector(subs);
    auto p = main_.finish();
    auto config = fb::CreateConfiguration(fbb_, fbb_.CreateString("cpu"), o.threads, o.profiling);
    auto root = fb::CreateGraph(fbb_, o.version, p.vars, p.nodes, p.inputs, p.outputs, sv, config);
    fbb_.Finish(root, o.identifier);
    return std::vector<uint8_t>(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
  }
  std::vector<uint8_t> finish() { return finish(FinishOptions{}); }

  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

 private:
  flatbuffers::FlatBufferBuilder fbb_{1024};
  BodyBuilder main_;
  std::vector<std::unique_ptr<BodyBuilder>> subs_;
};

// Loads bytes through Graph::load_buffer (copied into an aligned block).
inline Status load(const std::vector<uint8_t>& bytes, std::shared_ptr<const Graph>& out) {
  return Graph::load_buffer(bytes.data(), bytes.size(), LoadOptions{}, out);
}

// The graph `g` builds, which must load (a failure is a test failure, and
// the graph null).
inline std::shared_ptr<const Graph> must_load(GraphBuilder& g) {
  std::shared_ptr<const Graph> graph;
  Status s = load(g.finish(), graph);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return graph;
}

}  // namespace libops::graph::test
