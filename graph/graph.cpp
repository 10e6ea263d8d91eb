#include "graph/graph.h"

namespace libops::graph {

const char* value_kind_name(ValueKind k) {
  switch (k) {
    case ValueKind::kTensor: return "tensor";
    case ValueKind::kSequence: return "sequence";
    case ValueKind::kOptionalTensor: return "optional tensor";
    case ValueKind::kOptionalSequence: return "optional sequence";
  }
  return "?";
}

const char* sequence_op_name(SequenceOpKind k) {
  static const char* const names[kNumSequenceOps] = {
      "sequence_empty", "sequence_construct", "sequence_insert", "sequence_erase",       "sequence_at",
      "sequence_length", "concat_from_sequence", "split_to_sequence", "optional", "optional_has_element",
      "optional_get_element"};
  const int i = static_cast<int>(k);
  return i >= 0 && i < kNumSequenceOps ? names[i] : "?";
}

std::string Body::node_prefix(const Node& n) const {
  return str_format("%snode %u '%s' (op %s): ", where.c_str(), n.id, n.name.c_str(), n.op_label.c_str());
}

int Graph::num_nodes() const {
  int n = 0;
  for (const Body& b : bodies_) n += static_cast<int>(b.nodes.size());
  return n;
}

int Graph::find_input(std::string_view name) const {
  const Body& b = main();
  for (size_t i = 0; i < b.inputs.size(); ++i)
    if (b.inputs[i].name == name) return static_cast<int>(i);
  return -1;
}

int Graph::find_output(std::string_view name) const {
  const Body& b = main();
  for (size_t i = 0; i < b.outputs.size(); ++i)
    if (b.outputs[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace libops::graph
