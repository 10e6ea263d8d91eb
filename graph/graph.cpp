#include "graph/graph.h"

namespace libops::graph {

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
