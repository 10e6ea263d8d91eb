// Element-wise fusion (Note [Graph rewrites] in optimizer.h; the program
// the fused node runs: Note [Fused element-wise programs] in
// libops/ops/elementwise/fused_program.h).
//
// Note [Element-wise fusion]
// A node is element-wise here when what it computes is one or two legacy
// table rows with a float32 block kernel: the element-wise ops are rows of a
// table (ops/elementwise/elementwise.h: ElementwiseOp says its group and
// number, so no list of names is kept for them), the arithmetic ops name
// their binary row, and relu, relu6 and clip are written as theirs below.
// Starting from the last node of the body, a group takes a producer of one
// of its values when
//   - the producer is element-wise, its inputs and output of one dtype
//     (float32, float16 or bfloat16: the group's, since it makes a value a
//     member reads), placed as the group,
//   - every reader of its value is in the group and no graph output is it
//     (the value is never needed outside, so it is never written out),
//   - its value has the group's output shape (a producer of a smaller value
//     that broadcasts later would be computed once per output element
//     instead of once: x [1000] -> exp -> + [1000, 1000] keeps exp apart),
//   - the group stays within 8 inputs and 32 steps.
// A group of two nodes or more becomes one fused_elementwise node in the
// place of its last node, with that node's name and outputs, reading the
// values the group reads from outside; each step computes in float and is
// rounded to the group's dtype, as its node stored it, so it gives the
// nodes' values bit for bit (legacy/block_kernels.h says where a clang
// build may round one step otherwise). A reduction (reduce_sum, _mean,
// _max, _min with i-arg axes) whose input is made by such a group and read
// by it alone, and whose output has the input's dtype, takes the group in
// as its prologue: one fused_reduce node, whose sums add in double (within
// rounding of the reduction's own), max and min equal. Last, a fused node or lone element-wise node that reads a
// conv2d's, depthwise_conv2d's or matmul's output (and one-element
// constants) becomes that op's epilogue (Note [Epilogue programs] in
// libops/ops/elementwise/fused_program.h).
// This runs after the other rewrites, so that the patterns they know (gelu,
// layer and RMS norms, residual adds, matmul bias) are taken whole first,
// and after the layout rewrite, so that a fused node runs in the layout its
// neighbours use. LIBOPS_GRAPH_FUSION=0 in the environment (read at each
// load) or LoadOptions::fuse_elementwise = false turns it alone off.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "graph/fuse_elementwise.h"

#include "graph/optimizer.h"
#include "graph/planner.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/elementwise/elementwise.h"
#include "libops/ops/elementwise/fused_program.h"
#include "libops/ops/registry.h"

namespace libops::graph {
namespace {

using ops::FusedProgram;
using ops::FusedStep;
using ops::kFusedLiteral;
using ops::kFusedNone;

FusedStep unary_step(int group, int num, int x, const ExtraParams& extra = {}) {
  return FusedStep::unary(group, num, x, extra);
}
FusedStep binary_step(legacy::BinaryOp op, int x, int y, double literal = 0) {
  return FusedStep::binary(static_cast<int>(op), x, y, literal);
}
bool transform_group(int g) {
  return g == OPS_TRANSFORM_SAME || g == OPS_TRANSFORM_FLOAT || g == OPS_TRANSFORM_STRICT;
}

// The ops with files of their own whose computation is one binary row.
struct ArithRow {
  const char* op;
  legacy::BinaryOp row;
};
constexpr ArithRow kArithRows[] = {{"add", legacy::BinaryOp::add},
                                   {"subtract", legacy::BinaryOp::subtract},
                                   {"multiply", legacy::BinaryOp::multiply},
                                   {"divide", legacy::BinaryOp::divide},
                                   {"squared_difference", legacy::BinaryOp::squared_subtract}};

}  // namespace

bool elementwise_steps(const Node& n, const std::vector<int>& in, int next, std::vector<FusedStep>& steps) {
  if (n.num_outputs != 1 || n.inputs.empty() || n.inputs.size() != in.size()) return false;
  const size_t first = steps.size();
  if (n.kind == NodeKind::kLegacy) {
    if (!n.axes.empty()) return false;
    if (transform_group(n.group) && in.size() == 1) {
      steps.push_back(unary_step(n.group, n.num, in[0], n.extra));
    } else if ((n.group == OPS_PAIRWISE || n.group == OPS_SCALAR) && in.size() == 2) {
      steps.push_back(binary_step(static_cast<legacy::BinaryOp>(n.num), in[0], in[1]));
      steps.back().extra = n.extra;
    } else {
      return false;
    }
  } else if (n.kind == NodeKind::kCustom && n.op != nullptr) {
    const char* name = n.op->name();
    const auto* table_op = dynamic_cast<const ops::ElementwiseOp*>(n.op);
    if (table_op != nullptr) {
      const ops::ElementwiseDef& d = table_op->def();
      if (d.result == ops::ElementwiseResult::kBool || static_cast<int>(n.args.t.size()) < d.n_params) return false;
      if (d.arity == 1 && d.n_params > 0 && d.param_use == ops::ElementwiseParamUse::kScalarY)
        steps.push_back(binary_step(static_cast<legacy::BinaryOp>(d.num), in[0], kFusedLiteral, n.args.t[0]));
      else if (d.arity == 1 && transform_group(d.group))
        steps.push_back(unary_step(d.group, d.num, in[0], ExtraParams::from(n.args.t.data(), d.n_params)));
      else if (d.arity == 2 && d.group == OPS_PAIRWISE)
        steps.push_back(binary_step(static_cast<legacy::BinaryOp>(d.num), in[0], in[1]));
      else return false;
    } else if (std::strcmp(name, "relu") == 0 && in.size() == 1) {
      const double threshold = n.args.t.empty() ? 0.0 : n.args.t[0];
      if (threshold == 0.0)
        steps.push_back(unary_step(OPS_TRANSFORM_SAME, static_cast<int>(legacy::TransformSameOp::relu), in[0]));
      else
        steps.push_back(binary_step(legacy::BinaryOp::relu, in[0], kFusedLiteral, threshold));
    } else if (std::strcmp(name, "relu6") == 0 && in.size() == 1) {
      steps.push_back(unary_step(OPS_TRANSFORM_SAME, static_cast<int>(legacy::TransformSameOp::relu6), in[0]));
    } else if (std::strcmp(name, "clip") == 0) {
      // min(max(x, lo), hi), as the op computes it; bounds as inputs or t args.
      if (in.size() == 1 && n.args.t.size() < 2) return false;
      const int x = in[0];
      steps.push_back(in.size() > 1 ? binary_step(legacy::BinaryOp::max, x, in[1])
                                    : binary_step(legacy::BinaryOp::max, x, kFusedLiteral, n.args.t[0]));
      steps.push_back(in.size() > 2 ? binary_step(legacy::BinaryOp::min, next, in[2])
                                    : binary_step(legacy::BinaryOp::min, next, kFusedLiteral, n.args.t[1]));
    } else {
      bool found = false;
      for (const ArithRow& r : kArithRows)
        if (std::strcmp(name, r.op) == 0 && in.size() == 2) {
          steps.push_back(binary_step(r.row, in[0], in[1]));
          found = true;
        }
      if (!found) return false;
    }
  } else {
    return false;
  }
  // A row without a float32 kernel cannot fuse.
  for (size_t k = first; k < steps.size(); ++k)
    if (!steps[k].has_kernel()) {
      steps.resize(first);
      return false;
    }
  return true;
}

bool is_elementwise(const Node& n) {
  std::vector<FusedStep> steps;
  return elementwise_steps(n, std::vector<int>(n.inputs.size(), 0), 1, steps);
}

bool elementwise_value(const Node& n, const std::vector<double>& inputs, double& out) {
  FusedProgram program;
  program.n_inputs = static_cast<int>(inputs.size());
  std::vector<int> in(inputs.size());
  for (int k = 0; k < program.n_inputs; ++k) in[static_cast<size_t>(k)] = k;
  if (inputs.size() != n.inputs.size() || program.n_inputs > ops::kMaxFusedInputs ||
      !elementwise_steps(n, in, program.n_inputs, program.steps))
    return false;
  // The program over one value per input (stride 0), by its own kernels.
  float values[ops::kMaxFusedInputs];
  const char* at[ops::kMaxFusedInputs];
  const int64_t strides[ops::kMaxFusedInputs] = {};
  for (int k = 0; k < program.n_inputs; ++k) {
    values[k] = static_cast<float>(inputs[static_cast<size_t>(k)]);
    at[k] = reinterpret_cast<const char*>(&values[k]);
  }
  auto blocks = std::make_unique<ops::FusedBlocks>();
  bool one_value = false;
  out = ops::BlockProgram(program).evaluate(at, strides, 0, 1, *blocks, nullptr, one_value)[0];
  return true;
}

namespace {

bool same_placement(const Node& a, const Node& b) {
  if (a.placed != b.placed) return false;
  return !a.placed || a.placement == b.placement;
}

DataType dtype_of_slot(const Body& body, int32_t slot) { return body.static_shapes[static_cast<size_t>(slot)].dtype; }

bool same_shape(const ValueShape& a, const ValueShape& b) { return a.rank_known && b.rank_known && a.dims == b.dims; }

// A group's program: the values it reads from outside become inputs in the
// order first read; the nodes' steps follow in body order.
struct Built {
  std::vector<int32_t> inputs;  // slots
  FusedProgram program;
};

bool build(const Body& body, std::vector<size_t> members, Built& out) {
  std::sort(members.begin(), members.end());
  std::vector<std::pair<int32_t, int>> value_of;  // slot -> program value
  auto find = [&](int32_t slot) {
    for (const auto& [s, v] : value_of)
      if (s == slot) return v;
    return -1;
  };
  Built b;
  for (size_t p : members)
    for (int32_t s : body.nodes[p].inputs) {
      bool internal = false;
      for (size_t q : members) internal = internal || body.nodes[q].first_output == s;
      if (!internal && std::find(b.inputs.begin(), b.inputs.end(), s) == b.inputs.end()) b.inputs.push_back(s);
    }
  if (b.inputs.size() > static_cast<size_t>(ops::kMaxFusedInputs)) return false;
  for (size_t k = 0; k < b.inputs.size(); ++k) value_of.push_back({b.inputs[k], static_cast<int>(k)});
  b.program.n_inputs = static_cast<int>(b.inputs.size());
  for (size_t p : members) {
    const Node& n = body.nodes[p];
    std::vector<int> in;
    for (int32_t s : n.inputs) in.push_back(find(s));
    if (!elementwise_steps(n, in, b.program.n_inputs + static_cast<int>(b.program.steps.size()), b.program.steps))
      return false;
    value_of.push_back({n.first_output, b.program.n_inputs + static_cast<int>(b.program.steps.size()) - 1});
  }
  if (b.program.steps.size() > static_cast<size_t>(ops::kMaxFusedSteps)) return false;
  out = std::move(b);
  return true;
}

bool elementwise_fusion_enabled_by_environment() {
  const char* v = std::getenv("LIBOPS_GRAPH_FUSION");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// The reductions a fused_reduce node computes, by op; -1 for other nodes
// (and for reductions whose axes come as an input, or ONNX's
// noop_with_empty_axes, b arg 1).
int reduction_kind(const Node& n) {
  static const char* const kOps[] = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"};
  if (n.kind != NodeKind::kCustom || n.op == nullptr || n.inputs.size() != 1 || n.num_outputs != 1) return -1;
  if (n.args.b.size() > 1 && n.args.b[1]) return -1;
  for (int k = 0; k < 4; ++k)
    if (std::strcmp(n.op->name(), kOps[k]) == 0) return k;
  return -1;
}

// Who reads and makes each slot of a body.
struct SlotUses {
  std::vector<int32_t> reads;     // per slot: the reads by nodes
  std::vector<int32_t> producer;  // per slot: the node position making it, or -1
  std::vector<uint8_t> is_output; // per slot: a body output
};

SlotUses slot_uses(const Body& body) {
  SlotUses u;
  u.reads.assign(static_cast<size_t>(body.num_slots), 0);
  u.producer.assign(static_cast<size_t>(body.num_slots), -1);
  u.is_output.assign(static_cast<size_t>(body.num_slots), 0);
  for (size_t p = 0; p < body.nodes.size(); ++p) {
    for (int32_t s : body.nodes[p].inputs) u.reads[static_cast<size_t>(s)]++;
    u.producer[static_cast<size_t>(body.nodes[p].first_output)] = static_cast<int32_t>(p);
  }
  for (const GraphOutput& o : body.outputs) u.is_output[static_cast<size_t>(o.slot)] = 1;
  return u;
}

// Removes the nodes marked in `dropped` (the others keep their order).
void drop_nodes(Body& body, const std::vector<uint8_t>& dropped) {
  std::vector<Node> kept;
  kept.reserve(body.nodes.size());
  for (size_t p = 0; p < body.nodes.size(); ++p)
    if (!dropped[p]) kept.push_back(std::move(body.nodes[p]));
  body.nodes = std::move(kept);
}

// The one-element floating-point constant at `slot`, if it is one.
bool one_value_constant(const Body& body, int32_t slot, double& value) {
  for (size_t k = 0; k < body.constant_slots.size(); ++k)
    if (body.constant_slots[k] == slot) {
      const NDArray& a = body.constants[k];
      if (a.length() != 1 || !dtype_is_float(a.dtype()) || !a.has_data()) return false;
      value = a.get_double(0);
      return true;
    }
  return false;
}

// Note [Epilogue programs]: what node `n` (a fused_elementwise node or one
// element-wise node) computes, as a program of its input `z` alone: every
// other input must be a one-element constant read as a binary step's y
// (or as x of add and multiply, whose operands commute exactly), which
// becomes the step's literal (evaluated as the one-value input was: one
// float for the whole block). False where that cannot be.
bool program_of_one_input(const Body& body, const Node& n, int32_t z, const DeclarableOp* fused_op,
                          FusedProgram& out) {
  FusedProgram p;
  const int n_in = static_cast<int>(n.inputs.size());
  if (n_in < 1 || n_in > ops::kMaxFusedInputs) return false;
  if (n.op == fused_op && n.op != nullptr) {
    if (!FusedProgram::decode(n_in, n.args.i, n.args.t, p).is_ok()) return false;
  } else {
    p.n_inputs = n_in;
    std::vector<int> in;
    for (int k = 0; k < n_in; ++k) in.push_back(k);
    if (!elementwise_steps(n, in, n_in, p.steps)) return false;
  }
  // Per input: z (value 0 of the new program) or a constant's value.
  std::vector<double> literal(static_cast<size_t>(n_in), 0.0);
  std::vector<uint8_t> is_z(static_cast<size_t>(n_in), 0);
  for (int k = 0; k < n_in; ++k) {
    const int32_t s = n.inputs[static_cast<size_t>(k)];
    is_z[static_cast<size_t>(k)] = s == z;
    if (s != z && !one_value_constant(body, s, literal[static_cast<size_t>(k)])) return false;
  }
  auto constant = [&](int v) { return v >= 0 && v < n_in && !is_z[static_cast<size_t>(v)]; };
  auto renumber = [&](int v) { return v < n_in ? 0 : v - n_in + 1; };
  FusedProgram q;
  q.n_inputs = 1;
  for (FusedStep st : p.steps) {
    const bool commutes = st.group == OPS_PAIRWISE && (st.num == static_cast<int>(legacy::BinaryOp::add) ||
                                                       st.num == static_cast<int>(legacy::BinaryOp::multiply));
    if (constant(st.x) && st.binary() && st.y != kFusedLiteral && !constant(st.y) && commutes) std::swap(st.x, st.y);
    if (constant(st.x)) return false;
    st.x = renumber(st.x);
    if (constant(st.y)) {
      st.literal = literal[static_cast<size_t>(st.y)];
      st.y = kFusedLiteral;
    } else if (st.y >= 0) {
      st.y = renumber(st.y);
    }
    q.steps.push_back(st);
  }
  out = std::move(q);
  return true;
}

// The ops that take an epilogue program, and whether node `n` runs one of
// them without one yet (its args resolved: the list starts right after).
bool takes_epilogue(const Node& n) {
  if (n.kind != NodeKind::kCustom || n.op == nullptr || n.num_outputs != 1) return false;
  int i_first = 0, t_first = 0;
  if (!ops::epilogue_positions(n.op->descriptor().signature, i_first, t_first)) return false;
  return n.args.i.size() == static_cast<size_t>(i_first) && n.args.t.size() == static_cast<size_t>(t_first);
}

// Note [Epilogue programs]: folds each fused_elementwise node, or lone
// element-wise node, that reads the output of a conv2d, depthwise_conv2d
// or matmul (read by it alone, not a graph output, the same placement and
// dtype) and nothing else but one-element constants into that op as its
// epilogue. Readers of the node's value read the op's. True when it did.
bool fold_epilogues(Body& body, const DeclarableOp* fused_op, std::vector<std::string>& log) {
  const size_t count = body.nodes.size();
  SlotUses u = slot_uses(body);
  std::vector<uint8_t> dropped(count, 0);
  bool any = false;
  for (size_t q = 0; q < count; ++q) {
    const Node& n = body.nodes[q];
    if (n.num_outputs != 1 || n.inputs.empty()) continue;
    const DataType dtype = dtype_of_slot(body, n.first_output);
    if (!ops::kFusedDtypes.contains(dtype)) continue;
    // The one input that is not a constant: the op's output, read here
    // alone (`own` times).
    int32_t z = -1, own = 0;
    bool one = true;
    for (int32_t s : n.inputs) {
      double unused;
      one = one && dtype_of_slot(body, s) == dtype;
      if (one_value_constant(body, s, unused)) continue;
      one = one && (z < 0 || z == s);
      z = s;
      ++own;
    }
    if (!one || z < 0) continue;
    const int32_t p = u.producer[static_cast<size_t>(z)];
    if (p < 0 || dropped[static_cast<size_t>(p)] || u.reads[static_cast<size_t>(z)] != own ||
        u.is_output[static_cast<size_t>(z)])
      continue;
    Node& op = body.nodes[static_cast<size_t>(p)];
    if (!takes_epilogue(op) || !same_placement(op, n) ||
        !same_shape(body.static_shapes[static_cast<size_t>(z)], body.static_shapes[static_cast<size_t>(n.first_output)]))
      continue;
    FusedProgram program;
    if (!program_of_one_input(body, n, z, fused_op, program)) continue;
    std::vector<int64_t> i;
    std::vector<double> t;
    program.encode(i, t);
    op.args.i.insert(op.args.i.end(), i.begin(), i.end());
    op.args.t.insert(op.args.t.end(), t.begin(), t.end());
    log.push_back(str_format("%snode %u '%s' (%s) folded into node %u '%s' (%s) as its epilogue: %s", body.where.c_str(),
                             n.id, n.name.c_str(), n.op_label.c_str(), op.id, op.name.c_str(), op.op_label.c_str(),
                             program.str().c_str()));
    op.op_label += " + " + n.op_label;
    // Whatever read the node's value reads the op's, which now holds it.
    const int32_t y = n.first_output;
    for (Node& m : body.nodes)
      for (int32_t& in : m.inputs)
        if (in == y) in = z;
    for (GraphOutput& o : body.outputs)
      if (o.slot == y) {
        o.slot = z;
        u.is_output[static_cast<size_t>(z)] = 1;
      }
    u.reads[static_cast<size_t>(z)] = u.reads[static_cast<size_t>(y)];
    dropped[q] = 1;
    any = true;
  }
  if (any) drop_nodes(body, dropped);
  return any;
}

}  // namespace

Status fuse_elementwise_chains(Body& body, std::vector<std::string>& log, bool& changed) {
  changed = false;
  if (body.static_shapes.size() != static_cast<size_t>(body.num_slots) || !elementwise_fusion_enabled_by_environment())
    return Status::ok();
  DeclarableOp* fused_op = OpRegistry::instance().find("fused_elementwise");
  DeclarableOp* reduce_op = OpRegistry::instance().find("fused_reduce");
  if (fused_op == nullptr || reduce_op == nullptr)
    return Status::error(StatusCode::kInternal, "the fused_elementwise and fused_reduce ops are not registered");
  const size_t count = body.nodes.size();
  SlotUses uses = slot_uses(body);
  std::vector<int32_t>& reads = uses.reads;
  const std::vector<int32_t>& producer = uses.producer;
  std::vector<uint8_t>& is_output = uses.is_output;
  // Element-wise, in and out of one dtype a program computes.
  std::vector<uint8_t> candidate(count, 0);
  for (size_t p = 0; p < count; ++p) {
    const Node& n = body.nodes[p];
    const DataType dtype = dtype_of_slot(body, n.first_output);
    bool ok = is_elementwise(n) && ops::kFusedDtypes.contains(dtype);
    for (int32_t s : n.inputs) ok = ok && dtype_of_slot(body, s) == dtype;
    candidate[p] = ok;
  }
  std::vector<uint8_t> grouped(count, 0), dropped(count, 0);
  // Whether producer p of slot s may join `members` (Note [Element-wise
  // fusion]): every reader of s is a member, and s has the group's shape.
  auto may_join = [&](const std::vector<size_t>& members, int32_t s, const Node& anchor, const ValueShape& shape) {
    const int32_t p = producer[static_cast<size_t>(s)];
    if (p < 0 || !candidate[p] || grouped[p] || is_output[static_cast<size_t>(s)] ||
        std::find(members.begin(), members.end(), static_cast<size_t>(p)) != members.end())
      return false;
    if (!same_placement(body.nodes[p], anchor) || !same_shape(body.static_shapes[static_cast<size_t>(s)], shape))
      return false;
    int32_t inside = 0;
    for (size_t m : members)
      for (int32_t t : body.nodes[m].inputs) inside += t == s;
    return inside == reads[static_cast<size_t>(s)];
  };
  // Grows `members` by producers while the program stays within its limits.
  auto grow = [&](std::vector<size_t>& members, const Node& anchor, const ValueShape& shape) {
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t i = 0; i < members.size() && !grew; ++i)
        for (int32_t s : body.nodes[members[i]].inputs) {
          if (!may_join(members, s, anchor, shape)) continue;
          std::vector<size_t> with = members;
          with.push_back(static_cast<size_t>(producer[static_cast<size_t>(s)]));
          Built trial;
          if (!build(body, with, trial)) continue;
          members = std::move(with);
          grew = true;
          break;
        }
    }
  };
  // Marks the members fused into node r (dropped unless r is one of them);
  // their labels and the dropped ones' names for the log.
  auto take = [&](std::vector<size_t> members, size_t r, std::string& held, std::string& names) {
    std::sort(members.begin(), members.end());
    for (size_t m : members) {
      grouped[m] = 1;
      if (m != r) {
        dropped[m] = 1;
        names += str_format("%s%u '%s'", names.empty() ? "" : ", ", body.nodes[m].id, body.nodes[m].name.c_str());
      }
      held += (held.empty() ? "" : ", ") + body.nodes[m].op_label;
    }
  };

  bool any = false;
  for (size_t r = count; r-- > 0;) {
    if (grouped[r]) continue;
    Node& n = body.nodes[r];
    const int reduction = reduction_kind(n);
    if (reduction >= 0) {
      // An element-wise prologue of a reduction: the chain that makes its
      // input, read by the reduction alone.
      const int32_t in = n.inputs[0];
      const int32_t p = producer[static_cast<size_t>(in)];
      if (p < 0 || !candidate[p] || grouped[p] || is_output[static_cast<size_t>(in)] ||
          reads[static_cast<size_t>(in)] != 1 || !same_placement(body.nodes[p], n) ||
          !ops::kFusedDtypes.contains(dtype_of_slot(body, in)) || dtype_of_slot(body, n.first_output) != dtype_of_slot(body, in))
        continue;
      std::vector<size_t> members = {static_cast<size_t>(p)};
      grow(members, n, body.static_shapes[static_cast<size_t>(in)]);
      Built built;
      if (!build(body, members, built)) continue;
      std::string held, names;
      take(members, r, held, names);
      held += ", " + n.op_label;
      const bool keep_dims = !n.args.b.empty() && n.args.b[0];
      const std::vector<int64_t> axes = n.args.i;
      std::string axes_text = axes.empty() ? "all" : "";
      for (int64_t a : axes) axes_text += str_format("%s%lld", axes_text.empty() ? "" : ", ", static_cast<long long>(a));
      log.push_back(str_format("%snodes %s fused into node %u '%s' (fused_reduce of %s: %s; %s over axes %s%s)",
                               body.where.c_str(), names.c_str(), n.id, n.name.c_str(), held.c_str(),
                               built.program.str().c_str(), n.op_label.c_str(), axes_text.c_str(),
                               keep_dims ? ", kept" : ""));
      n.op = reduce_op;
      n.op_label = "fused_reduce(" + held + ")";
      n.inputs = built.inputs;
      n.args.clear();
      built.program.encode(n.args.i, n.args.t);
      n.args.i.push_back(reduction);
      n.args.i.push_back(keep_dims ? 1 : 0);
      n.args.i.insert(n.args.i.end(), axes.begin(), axes.end());
      any = true;
      continue;
    }
    if (!candidate[r]) continue;
    std::vector<size_t> members = {r};
    grow(members, n, body.static_shapes[static_cast<size_t>(n.first_output)]);
    Built built;
    if (members.size() < 2 || !build(body, members, built)) continue;
    std::string held, names;
    take(members, r, held, names);
    log.push_back(str_format("%snodes %s fused into node %u '%s' (fused_elementwise of %s: %s)", body.where.c_str(),
                             names.c_str(), n.id, n.name.c_str(), held.c_str(), built.program.str().c_str()));
    n.kind = NodeKind::kCustom;
    n.op = fused_op;
    n.op_label = "fused_elementwise(" + held + ")";
    n.inputs = built.inputs;
    n.args.clear();
    built.program.encode(n.args.i, n.args.t);
    n.axes.clear();
    n.extra = {};
    any = true;
  }
  if (any) drop_nodes(body, dropped);
  const bool folded = fold_epilogues(body, fused_op, log);
  if (!any && !folded) return Status::ok();
  changed = true;
  return order_and_liveness(body, slot_producers(body));
}

}  // namespace libops::graph
