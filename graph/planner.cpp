// Planner: topological order, liveness and shape inference (see planner.h).
#include "graph/planner.h"

#include <algorithm>
#include <string_view>

#include "libops/legacy/legacy.h"
#include "libops/ops/declarable_op.h"

namespace libops::graph {

// ---------------------------------------------------------------- ValueShape

bool ValueShape::fully_known() const {
  if (!dtype_is_valid(dtype) || !rank_known) return false;
  for (int64_t d : dims)
    if (d < 0) return false;
  return true;
}

bool ValueShape::admits(DataType t, const Dims& d) const {
  if (dtype_is_valid(dtype) && t != dtype) return false;
  if (!rank_known) return true;
  if (d.size() != dims.size()) return false;
  for (int i = 0; i < d.size(); ++i)
    if (dims[i] >= 0 && dims[i] != d[i]) return false;
  return true;
}

std::string ValueShape::str() const {
  std::string s = dtype_is_valid(dtype) ? dtype_name(dtype) : "?";
  if (!rank_known) return s + "[...]";
  s += '[';
  for (int i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    s += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return s + ']';
}

ValueShape ValueShape::of(const TensorShape& t) {
  ValueShape v;
  v.dtype = t.dtype;
  v.rank_known = true;
  v.dims = t.dims;
  v.order = t.order;
  return v;
}

namespace {

bool same_shape(const ValueShape& a, const ValueShape& b) {
  return a.dtype == b.dtype && a.rank_known == b.rank_known && a.dims == b.dims;
}

TensorShape tensor_shape(const ValueShape& v) { return TensorShape{v.dtype, v.dims, v.order}; }

}  // namespace

// ---------------------------------------------------------------- order

std::vector<int32_t> slot_producers(const Body& body) {
  std::vector<int32_t> producer(static_cast<size_t>(body.num_slots), -1);
  for (size_t p = 0; p < body.nodes.size(); ++p)
    for (int32_t k = 0; k < body.nodes[p].num_outputs; ++k)
      producer[static_cast<size_t>(body.nodes[p].first_output + k)] = static_cast<int32_t>(p);
  return producer;
}

Status order_and_liveness(Body& body, const std::vector<int32_t>& slot_producer) {
  const int n = static_cast<int>(body.nodes.size());
  // Iterative depth-first search in file order, inputs first: a file whose
  // nodes are already in topological order keeps its order. Gray nodes are
  // on the current path, so reaching one again closes a cycle.
  enum : uint8_t { kWhite, kGray, kBlack };
  std::vector<uint8_t> state(static_cast<size_t>(n), kWhite);
  std::vector<int32_t> order;
  order.reserve(static_cast<size_t>(n));
  struct Frame {
    int32_t node;
    size_t next_input;
  };
  std::vector<Frame> stack;
  for (int32_t start = 0; start < n; ++start) {
    if (state[static_cast<size_t>(start)] != kWhite) continue;
    state[static_cast<size_t>(start)] = kGray;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      const int32_t v = stack.back().node;
      const Node& node = body.nodes[static_cast<size_t>(v)];
      if (stack.back().next_input < node.inputs.size()) {
        const size_t k = stack.back().next_input++;
        const int32_t u = slot_producer[static_cast<size_t>(node.inputs[k])];
        if (u < 0 || state[static_cast<size_t>(u)] == kBlack) continue;
        if (state[static_cast<size_t>(u)] == kGray) {
          const Node& other = body.nodes[static_cast<size_t>(u)];
          if (u == v)
            return Status::error(StatusCode::kInvalidGraph, "%sinput %zu is the node's own output (a cycle)",
                                 body.node_prefix(node).c_str(), k);
          return Status::error(StatusCode::kInvalidGraph,
                               "%sinput %zu comes from node %u '%s', which depends on this node's output "
                               "(a cycle)",
                               body.node_prefix(node).c_str(), k, other.id, other.name.c_str());
        }
        state[static_cast<size_t>(u)] = kGray;
        stack.push_back({u, 0});
      } else {
        state[static_cast<size_t>(v)] = kBlack;
        order.push_back(v);
        stack.pop_back();
      }
    }
  }

  std::vector<Node> sorted;
  sorted.reserve(static_cast<size_t>(n));
  for (int32_t v : order) sorted.push_back(std::move(body.nodes[static_cast<size_t>(v)]));
  body.nodes = std::move(sorted);

  const size_t slots = static_cast<size_t>(body.num_slots);
  body.producer.assign(slots, -1);
  for (int32_t p = 0; p < n; ++p) {
    const Node& node = body.nodes[static_cast<size_t>(p)];
    for (int32_t k = 0; k < node.num_outputs; ++k) body.producer[static_cast<size_t>(node.first_output + k)] = p;
  }

  // Liveness: a slot is released right after its last reader. Constants
  // belong to the graph and outputs to the caller: never released in a run.
  // A node output nobody reads is released right after its node.
  std::vector<int32_t> last_use(slots, -1);
  for (int32_t p = 0; p < n; ++p)
    for (int32_t s : body.nodes[static_cast<size_t>(p)].inputs) last_use[static_cast<size_t>(s)] = p;
  std::vector<uint8_t> keep(slots, 0);
  for (int32_t s : body.constant_slots) keep[static_cast<size_t>(s)] = 1;
  for (const GraphOutput& o : body.outputs) keep[static_cast<size_t>(o.slot)] = 1;
  for (GraphInput& in : body.inputs)
    in.used = last_use[static_cast<size_t>(in.slot)] >= 0 || keep[static_cast<size_t>(in.slot)];

  std::vector<int32_t> release_pos(slots, -1);
  std::vector<int32_t> count(static_cast<size_t>(n) + 1, 0);
  for (size_t s = 0; s < slots; ++s) {
    if (keep[s]) continue;
    int32_t at = last_use[s] >= 0 ? last_use[s] : body.producer[s];
    if (at < 0) continue;  // an unused placeholder: never bound
    release_pos[s] = at;
    ++count[static_cast<size_t>(at)];
  }
  body.release_begin.assign(static_cast<size_t>(n) + 1, 0);
  for (int32_t p = 0; p < n; ++p)
    body.release_begin[static_cast<size_t>(p) + 1] =
        body.release_begin[static_cast<size_t>(p)] + count[static_cast<size_t>(p)];
  body.release.assign(static_cast<size_t>(body.release_begin[static_cast<size_t>(n)]), 0);
  std::vector<int32_t> fill(body.release_begin.begin(), body.release_begin.end() - 1);
  for (size_t s = 0; s < slots; ++s)
    if (release_pos[s] >= 0)
      body.release[static_cast<size_t>(fill[static_cast<size_t>(release_pos[s])]++)] = static_cast<int32_t>(s);
  return Status::ok();
}

// ---------------------------------------------------------------- legacy shapes

void legacy_arity(ops_legacy_group_t group, int& min_inputs, int& max_inputs) {
  switch (group) {
    case OPS_SCALAR:
    case OPS_SCALAR_BOOL:
    case OPS_SCALAR_INT:
    case OPS_PAIRWISE:
    case OPS_PAIRWISE_BOOL:
    case OPS_PAIRWISE_INT:
    case OPS_BROADCAST:
    case OPS_BROADCAST_BOOL:
    case OPS_BROADCAST_INT:
    case OPS_REDUCE3: min_inputs = max_inputs = 2; return;
    case OPS_RANDOM:
      min_inputs = 0;
      max_inputs = 2;
      return;
    default:  // transforms and one-input reductions
      min_inputs = max_inputs = 1;
      return;
  }
}

Status legacy_output_shape(const Node& node, const TensorShape* in, int n, TensorShape& out) {
  const char* op = node.op_label.c_str();
  out.order = 'c';
  const ops_legacy_group_t g = node.group;
  if (g == OPS_RANDOM) {
    if (n > 0) {
      out.dims = in[0].dims;
    } else {
      if (node.args.i.size() > static_cast<size_t>(kMaxRank))
        return Status::error(StatusCode::kShape, "%s: a shape of %zu dims in i_args; at most %d allowed", op,
                             node.args.i.size(), kMaxRank);
      out.dims = Dims(node.args.i.data(), static_cast<int>(node.args.i.size()));
      int64_t length = 0;
      if (!checked_length(out.dims, length))
        return Status::error(StatusCode::kShape, "%s: invalid output shape %s in i_args", op, out.dims.str().c_str());
    }
    if (!node.args.d.empty())
      out.dtype = node.args.d[0];
    else
      out.dtype = n > 0 && dtype_is_float(in[0].dtype) ? in[0].dtype : DataType::kFloat32;
    return Status::ok();
  }
  const TensorShape& x = in[0];
  switch (g) {
    case OPS_TRANSFORM_FLOAT: out = TensorShape{float_result_type(x.dtype), x.dims, 'c'}; return Status::ok();
    case OPS_TRANSFORM_SAME:
    case OPS_TRANSFORM_STRICT: out = TensorShape{x.dtype, x.dims, 'c'}; return Status::ok();
    case OPS_TRANSFORM_BOOL: out = TensorShape{DataType::kBool, x.dims, 'c'}; return Status::ok();
    case OPS_TRANSFORM_ANY:
      out = TensorShape{node.args.d.empty() ? x.dtype : node.args.d[0], x.dims, 'c'};
      return Status::ok();
    default: break;
  }
  const bool binary = g >= OPS_SCALAR && g <= OPS_BROADCAST_INT;
  if (binary) {
    const TensorShape& y = in[1];
    const bool to_bool = g == OPS_SCALAR_BOOL || g == OPS_PAIRWISE_BOOL || g == OPS_BROADCAST_BOOL;
    out.dtype = to_bool ? DataType::kBool : promote_types(x.dtype, y.dtype);
    const bool scalar = g == OPS_SCALAR || g == OPS_SCALAR_BOOL || g == OPS_SCALAR_INT;
    const bool along_axes =
        (g == OPS_BROADCAST || g == OPS_BROADCAST_BOOL || g == OPS_BROADCAST_INT) && !node.axes.empty();
    if (scalar || along_axes) {
      out.dims = x.dims;
      return Status::ok();
    }
    return broadcast_shapes(op, x.dims, y.dims, out.dims);
  }
  // Reductions (REDUCE3 over x and y broadcast together).
  Dims axes, in_dims = x.dims;
  if (g == OPS_REDUCE3 && n > 1) RETURN_IF_ERROR(broadcast_shapes(op, x.dims, in[1].dims, in_dims));
  if (node.axes.size() > static_cast<size_t>(kMaxRank))
    return Status::error(StatusCode::kShape, "%s: %zu reduction axes for x%s", op, node.axes.size(),
                         x.dims.str().c_str());
  RETURN_IF_ERROR(normalize_axes(op, node.axes.data(), static_cast<int>(node.axes.size()), in_dims.size(), true, axes));
  const bool keep = !node.args.b.empty() && node.args.b[0];
  out.dims = reduced_shape(in_dims, axes, keep);
  switch (g) {
    case OPS_REDUCE_SAME: out.dtype = x.dtype; break;
    case OPS_REDUCE_BOOL: out.dtype = DataType::kBool; break;
    case OPS_REDUCE_LONG:
    case OPS_INDEX_REDUCE: out.dtype = DataType::kInt64; break;
    case OPS_REDUCE3: out.dtype = float_result_type(promote_types(x.dtype, in[1].dtype)); break;
    default: out.dtype = float_result_type(x.dtype); break;  // reduce_float, summary_stats
  }
  return Status::ok();
}

// ---------------------------------------------------------------- shape inference

namespace {

bool counts_at_load(StatusCode c) { return c == StatusCode::kShape || c == StatusCode::kDtype; }

Status infer_body(const Graph& graph, int b, const std::vector<ValueShape>& inputs, bool strict,
                  std::vector<ValueShape>& slots, int depth, std::vector<NDArray>* values = nullptr);

// If / While outputs (Note [Shape inference strictness]).
Status infer_control_flow(const Graph& graph, const Body& body, const Node& node, bool strict,
                          std::vector<ValueShape>& slots, int depth) {
  std::vector<ValueShape> args;
  const size_t first = node.kind == NodeKind::kIf ? 1 : 0;
  for (size_t i = first; i < node.inputs.size(); ++i) args.push_back(slots[static_cast<size_t>(node.inputs[i])]);
  std::vector<ValueShape> a_slots, b_slots;
  auto outputs_of = [&](int sub, const std::vector<ValueShape>& sub_slots) {
    std::vector<ValueShape> out;
    for (const GraphOutput& o : graph.body(sub).outputs) out.push_back(sub_slots[static_cast<size_t>(o.slot)]);
    return out;
  };
  // An If branch may be one that cannot run on these shapes and is never
  // taken for them (exporters guard shape-dependent code so): its errors
  // only leave the outputs unknown, and are reported if it runs.
  const bool strict_bodies = strict && node.kind != NodeKind::kIf;
  Status s = infer_body(graph, node.branch_a, args, strict_bodies, a_slots, depth + 1);
  if (s.is_ok()) s = infer_body(graph, node.branch_b, args, strict_bodies, b_slots, depth + 1);
  if (!s.is_ok()) return s.with_prefix(body.node_prefix(node));
  std::vector<ValueShape> out_a = outputs_of(node.branch_a, a_slots);
  std::vector<ValueShape> out_b = outputs_of(node.branch_b, b_slots);
  std::vector<ValueShape> result;
  if (node.kind == NodeKind::kIf) {
    for (size_t i = 0; i < out_a.size() && i < out_b.size(); ++i)
      result.push_back(same_shape(out_a[i], out_b[i]) ? out_a[i] : ValueShape{});
  } else {
    // The loop's values keep their shapes when the body gives back what it
    // was given (a fixed point); otherwise they are only known at run time.
    const size_t n_scan = static_cast<size_t>(node.scan_outputs);
    bool fixed = out_b.size() == args.size() + n_scan;
    for (size_t i = 0; fixed && i < args.size(); ++i) fixed = same_shape(out_b[i], args[i]) && args[i].fully_known();
    if (fixed) {
      result = args;
      // A scan output stacks one value per iteration; the count is only
      // known at run time.
      for (size_t k = 0; k < n_scan; ++k) {
        const ValueShape& piece = out_b[args.size() + k];
        ValueShape stacked;
        if (piece.fully_known() && piece.dims.size() < kMaxRank) {
          stacked = piece;
          stacked.dims.clear();
          stacked.dims.push_back(-1);
          for (int d = 0; d < piece.dims.size(); ++d) stacked.dims.push_back(piece.dims[d]);
          stacked.order = 'c';
        }
        result.push_back(stacked);
      }
    }
  }
  for (int32_t k = 0; k < node.num_outputs && static_cast<size_t>(k) < result.size(); ++k)
    slots[static_cast<size_t>(node.first_output + k)] = result[static_cast<size_t>(k)];
  return Status::ok();
}

// Note [Shape values]
//  Exporters compute shapes from shapes: Shape -> Gather -> Concat ->
//  Reshape, Range over a Shape's extent, Expand to a computed shape. When
//  the input shapes are known, those values are too, so inference computes
//  them: a node whose inputs all hold values (constants, or values computed
//  here), or a shape_of, runs on the CPU when its outputs are small
//  (kMaxShapeValueElements), and its outputs hold their values for the
//  shape functions after it. Then a Reshape to a computed shape has a known
//  output, the plan covers the graph as if its shapes were static, and the
//  executor binds the computed values instead of running those nodes again
//  (Plan::values in executor.cpp). The values depend on the input shapes
//  alone (no graph input's data reaches them), so they hold for every run
//  with those shapes. Random ops and control flow are not run.
constexpr int64_t kMaxShapeValueElements = 4096;

// The outputs of `node` computed from `in` (every input holding data), or
// false.
bool compute_values(const Node& node, Context& ctx, const std::vector<const NDArray*>& in,
                    std::vector<NDArray>& out) {
  out.clear();
  if (node.kind == NodeKind::kCustom && std::string_view(node.op->name()) == "shape_of") {
    // Its input has no data to read, only the shape the value is made of.
    const Dims& dims = in[0]->shape();
    const int64_t r = dims.size();
    int64_t from = node.args.i.size() > 0 ? node.args.i[0] : 0, to = node.args.i.size() > 1 ? node.args.i[1] : r;
    if (from < 0) from += r;
    if (to < 0) to += r;
    from = std::clamp<int64_t>(from, 0, r);
    to = std::clamp<int64_t>(to, from, r);
    NDArray v;
    if (!NDArray::create(DataType::kInt64, Dims{to - from}, 'c', v).is_ok()) return false;
    for (int64_t d = from; d < to; ++d) static_cast<int64_t*>(v.data())[d - from] = dims[static_cast<int>(d)];
    out.push_back(std::move(v));
    return true;
  }
  return run_node_on_cpu(node, in, kMaxShapeValueElements, ctx, out);
}

Status infer_body(const Graph& graph, int b, const std::vector<ValueShape>& inputs, bool strict,
                  std::vector<ValueShape>& slots, int depth, std::vector<NDArray>* values) {
  const Body& body = graph.body(b);
  if (depth > 64)  // the loader limits nesting; this only guards the recursion
    return Status::error(StatusCode::kInvalidGraph, "%ssubgraphs nest too deeply", body.where.c_str());
  const size_t n_slots = static_cast<size_t>(body.num_slots);
  slots.assign(n_slots, ValueShape{});
  // Arrays the shape functions see: constants with their data, every other
  // known value shape-only.
  std::vector<NDArray> shape_only(n_slots);
  std::vector<NDArray*> arrays(n_slots, nullptr);
  for (size_t i = 0; i < body.constant_slots.size(); ++i) {
    const size_t s = static_cast<size_t>(body.constant_slots[i]);
    slots[s] = ValueShape::of(body.constants[i].desc());
    arrays[s] = const_cast<NDArray*>(&body.constants[i]);  // shape functions only read
  }
  // A shape whose extents multiply past 2^63 has no strides: an error
  // (a placeholder's unknown dims probed as 2 or 3, or an op's or a
  // broadcast's output, can reach it).
  auto publish = [&](int32_t slot, const ValueShape& v) {
    if (v.fully_known() && !strides_fit(v.dims))
      return Status::error(StatusCode::kInvalidGraph, "a value of shape %s: its extents multiply past 2^63",
                           v.dims.str().c_str());
    const size_t s = static_cast<size_t>(slot);
    slots[s] = v;
    if (v.fully_known()) {
      shape_only[s] = NDArray::shape_only(tensor_shape(v));
      arrays[s] = &shape_only[s];
    }
    return Status::ok();
  };
  for (size_t i = 0; i < body.inputs.size() && i < inputs.size(); ++i)
    RETURN_IF_ERROR(publish(body.inputs[i].slot, inputs[i]).with_prefix(body.where));

  Context ctx, value_ctx;
  ShapeList shapes;
  std::vector<TensorShape> in_shapes;
  // Note [Shape values]: slot -> its value computed here (empty: none).
  std::vector<NDArray> computed(n_slots);
  std::vector<const NDArray*> value_in;
  std::vector<NDArray> value_out;
  auto compute = [&](const Node& node) {
    value_in.clear();
    const bool reads_shapes_only = node.kind == NodeKind::kCustom && std::string_view(node.op->name()) == "shape_of";
    for (int32_t s : node.inputs) {
      const NDArray* a = arrays[static_cast<size_t>(s)];
      if (a == nullptr) return;
      if (!reads_shapes_only && (!a->has_data() || a->length() > kMaxShapeValueElements)) return;
      value_in.push_back(a);
    }
    for (int32_t k = 0; k < node.num_outputs; ++k) {
      const ValueShape& o = slots[static_cast<size_t>(node.first_output + k)];
      if (!o.fully_known() || o.dims.product() > kMaxShapeValueElements) return;
    }
    if (!compute_values(node, value_ctx, value_in, value_out)) return;
    for (int32_t k = 0; k < node.num_outputs; ++k) {
      const size_t s = static_cast<size_t>(node.first_output + k);
      NDArray& v = value_out[static_cast<size_t>(k)];
      if (v.dtype() != slots[s].dtype || v.shape() != slots[s].dims) return;  // not what inference said: leave it
    }
    for (int32_t k = 0; k < node.num_outputs; ++k) {
      const size_t s = static_cast<size_t>(node.first_output + k);
      computed[s] = std::move(value_out[static_cast<size_t>(k)]);
      arrays[s] = &computed[s];
    }
  };
  for (const Node& node : body.nodes) {
    bool known = true;
    for (int32_t s : node.inputs) known = known && slots[static_cast<size_t>(s)].fully_known();
    if (!known) continue;
    switch (node.kind) {
      case NodeKind::kCustom: {
        ctx.clear();
        for (int32_t s : node.inputs) ctx.add_input(arrays[static_cast<size_t>(s)]);
        ctx.args() = node.args;
        Status s = node.op->infer_shapes(ctx, shapes);
        if (!s.is_ok()) {
          if (strict && counts_at_load(s.code())) return s.with_prefix(body.node_prefix(node));
          continue;
        }
        if (static_cast<int32_t>(shapes.size()) != node.num_outputs) {
          if (strict)
            return Status::error(StatusCode::kInvalidGraph, "%sthe op gives %zu outputs but the node declares %d",
                                 body.node_prefix(node).c_str(), shapes.size(), node.num_outputs);
          continue;
        }
        for (int32_t k = 0; k < node.num_outputs; ++k)
          RETURN_IF_ERROR(publish(node.first_output + k, ValueShape::of(shapes[static_cast<size_t>(k)]))
                              .with_prefix(body.node_prefix(node)));
        compute(node);
        break;
      }
      case NodeKind::kLegacy: {
        in_shapes.clear();
        for (int32_t s : node.inputs) in_shapes.push_back(tensor_shape(slots[static_cast<size_t>(s)]));
        TensorShape out;
        Status s = legacy_output_shape(node, in_shapes.data(), static_cast<int>(in_shapes.size()), out);
        if (!s.is_ok()) {
          if (strict && counts_at_load(s.code())) return s.with_prefix(body.node_prefix(node));
          continue;
        }
        RETURN_IF_ERROR(publish(node.first_output, ValueShape::of(out)).with_prefix(body.node_prefix(node)));
        compute(node);
        break;
      }
      case NodeKind::kSequence:
        break;  // lists and what is read from them are planned when they run (Note [Sequence values])
      case NodeKind::kIf:
      case NodeKind::kWhile: {
        RETURN_IF_ERROR(infer_control_flow(graph, body, node, strict, slots, depth));
        for (int32_t k = 0; k < node.num_outputs; ++k)
          RETURN_IF_ERROR(publish(node.first_output + k, slots[static_cast<size_t>(node.first_output + k)])
                              .with_prefix(body.node_prefix(node)));
        break;
      }
    }
  }
  if (values != nullptr) *values = std::move(computed);
  return Status::ok();
}

}  // namespace

Status infer_shapes(const Graph& graph, int b, const std::vector<ValueShape>& inputs, bool strict,
                    std::vector<ValueShape>& slots, std::vector<NDArray>* values) {
  return infer_body(graph, b, inputs, strict, slots, 0, values);
}

// The one place a node runs outside a session: shape values (Note [Shape
// values]) and constant folding (Note [Graph rewrites] in optimizer.h).
bool run_node_on_cpu(const Node& node, const std::vector<const NDArray*>& in, int64_t max_legacy_elements,
                     Context& ctx, std::vector<NDArray>& out) {
  out.clear();
  if (node.kind == NodeKind::kCustom) {
    if (node.op == nullptr || std::string_view(node.op->name()).rfind("random", 0) == 0) return false;
    ctx.clear();
    for (const NDArray* a : in) ctx.add_input(const_cast<NDArray*>(a));  // ops only read their inputs
    ctx.args() = node.args;
    ctx.set_device(Device::cpu());
    const bool ran = node.op->execute(ctx).is_ok() && ctx.num_outputs() == node.num_outputs;
    if (ran)
      for (int k = 0; k < ctx.num_outputs(); ++k) out.push_back(*ctx.output(k));
    ctx.clear();
    return ran;
  }
  if (node.kind != NodeKind::kLegacy || node.group == OPS_RANDOM || in.empty() || in.size() > 2) return false;
  TensorShape shapes[2];
  for (size_t k = 0; k < in.size(); ++k) shapes[k] = in[k]->desc();
  TensorShape z_shape;
  NDArray z;
  if (!legacy_output_shape(node, shapes, static_cast<int>(in.size()), z_shape).is_ok() ||
      z_shape.dims.product() > max_legacy_elements || !NDArray::create(z_shape.dtype, z_shape.dims, 'c', z).is_ok())
    return false;
  legacy::LegacyCall call;
  call.group = node.group;
  call.num = node.num;
  call.x = in[0];
  call.y = in.size() > 1 ? in[1] : nullptr;
  call.z = &z;
  call.axes = node.axes.data();
  call.n_axes = static_cast<int>(node.axes.size());
  call.extra = node.extra;
  call.device = Device::cpu();
  if (!legacy::exec(call).is_ok()) return false;
  out.push_back(z);
  return true;
}

}  // namespace libops::graph
