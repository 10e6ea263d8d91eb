// The ONNX importer's driver: walks the model's nodes in order, maps each
// through its entry of the mapping table (onnx_ops.cpp), collects every
// problem (list mode), and writes the result as a libops graph file with
// the FlatBuffers builder of schemas/graph.fbs. See onnx_import.h.
#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <unordered_set>

#include "graph/executor.h"
#include "graph/onnx/onnx_convert.h"
#include "graph/planner.h"
#include "graph/onnx/onnx_import.h"
#include "graph/onnx/onnx_versions.h"
#include "libops/array/ndarray.h"
#include "libops/core/log.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"
#include "schemas/graph_generated.h"

namespace libops::graph::onnx {

bool ValueType::dims_known() const {
  if (!rank_known) return false;
  for (int64_t d : dims)
    if (d < 0) return false;
  return true;
}

namespace {

struct LVar {
  uint32_t id = 0;
  std::string name;
  bool is_constant = false;
  const Tensor* tensor = nullptr;  // constants
  ValueInfo placeholder;           // placeholders
};

struct LNode {
  uint32_t id = 0;
  std::string name;
  bool legacy = false;
  bool is_if = false;     // an IfOp: branch_a / branch_b index Graph.subgraphs
  bool is_while = false;  // a WhileOp: branch_a is the condition, branch_b the body
  bool is_seq = false;    // a SequenceOp (Note [Run-time sequences])
  SequenceOpKind seq_op = SequenceOpKind::kEmpty;
  int branch_a = 0, branch_b = 0;
  uint32_t scan_outputs = 0;  // a WhileOp's stacked outputs, after its loop values
  std::string op;  // custom op name
  int group = 0, num = 0;
  std::vector<Value> inputs;
  uint32_t num_outputs = 1;
  std::vector<double> t;
  std::vector<int64_t> i;
  std::vector<bool> b;
  std::vector<DataType> d;
};

// Note [Import-time shapes]
//  What a mapping knows of a value's dtype and dims (Converter::input_type)
//  comes from libops' own shape functions, run on every node as it is
//  emitted: the ones the loader and executor run, hardened by the op-call
//  fuzzing. ONNX's shape inference is not used: its functions trust the
//  model (a fuzzed Conv crashed libonnx), and a converter must not.
//  A graph input's unknown extents (a symbolic batch, height, sequence) are
//  probed: the shape functions run once per extent of kProbeExtents
//  (Note [Probing unknown extents] in graph/planner.h, as the loader does).
//  A probe that a shape function refuses (a 7x7 window over 2 pixels) says
//  only that the input cannot have that extent, and drops out for what
//  follows. A value's rank and dtype are known when the large probes
//  succeed and every probe that succeeds agrees on them; a dim is known when
//  every such probe gives it the same extent. So a dim that shrinks to 1
//  over small probes (a 32x downsampling of 2 or 3 pixels) is not taken for
//  a static 1, nor a slice of the first 3 rows for a static 3.
//  Small integer values are computed per probe (shape arithmetic: Shape,
//  Gather, Concat, Mul on a few elements): a shape computed at run time
//  then still gives its Reshape a known rank and its static dims. Constants
//  reach the shape functions with their data when they are small (a shape a
//  Reshape reads), shape-only when large. Declared value_info of the model
//  is the fallback.
struct Probed {
  DataType dtype = DataType::kInvalid;  // kInvalid: not known
  bool ok[kNumProbes] = {};             // the probe reached this value
  Dims dims[kNumProbes];
  std::shared_ptr<NDArray> data[kNumProbes];  // the value under this probe, when small and computed
};
constexpr int64_t kMaxProbeDataElements = int64_t{1} << 16;
// Values computed per probe stay this small (shape arithmetic).
constexpr int64_t kMaxProbeComputedElements = 4096;

}  // namespace

struct Converter::Impl {
  // The main graph (parent null) or a subgraph (an If branch), which has
  // its own ids and values, and shares the problem list and the list of
  // subgraphs of the main graph.
  Impl(const Model& m, Impl* parent, const std::unordered_map<std::string, ValueInfo>* value_info)
      : model(m), root(parent ? parent->root : this), problems(parent ? parent->problems : own_problems),
        info(value_info) {}
  const Model& model;
  Impl* root;
  std::vector<std::string> own_problems;
  std::vector<std::string>& problems;
  const std::unordered_map<std::string, ValueInfo>* info;  // declared and inferred types
  std::string where;  // "" for the main graph, " in then_branch of node 2 'if'" for a subgraph
  // Subgraphs (root only): Graph.subgraphs in order.
  std::vector<std::unique_ptr<Impl>> subgraphs;
  std::unordered_map<std::string, ValueInfo> own_info;  // subgraphs: the outer types and their own
  std::string body_name;
  std::vector<std::pair<std::string, Value>> body_outputs;
  uint32_t next_id = 0;
  std::vector<LVar> vars;
  std::vector<LNode> nodes;
  std::unordered_map<std::string, Value> values;            // ONNX value name -> libops value
  std::unordered_map<std::string, const Tensor*> constants;  // ONNX value name -> its data
  std::unordered_set<std::string> failed;                   // outputs of nodes that could not be mapped
  // Note [Import-time sequences] in onnx_convert.h: ONNX sequence and
  // optional values, as the libops values of their elements.
  std::unordered_map<std::string, std::vector<Value>> sequences;
  std::unordered_map<std::string, std::vector<Value>> optionals;  // none or one element
  // Note [Sequences grown in loops]: sequences whose elements are the
  // slices along axis 0 of one value.
  std::unordered_map<std::string, Value> stacked;
  std::deque<Tensor> owned;                                 // constants made here
  // ONNX nodes the importer writes itself (Note [Axes given at run time]),
  // with the subgraphs they hold: the values converted from them point
  // into them until the graph is written.
  std::deque<std::vector<Node>> synthetic;
  std::unordered_map<std::string, int> uses;                // ONNX value name -> readers
  std::unordered_set<std::string> names;                    // variable names in use
  std::string label;  // "node 3 'conv1' (Conv, opset 13)"
  // Note [Import-time shapes]: libops value id -> the probed types of its
  // outputs (absent: not known).
  std::unordered_map<int64_t, std::vector<Probed>> probed;
  // Values whose dtype is known but not their rank (an If whose branches
  // give different ranks, a placeholder of unknown rank): id -> per output.
  std::unordered_map<int64_t, std::vector<DataType>> dtype_only;
  // Note [Low-precision values]: ONNX value name -> its LowPrecision format.
  std::unordered_map<std::string, int> lowp_of;
  std::unordered_map<int64_t, const Tensor*> constant_of;  // variable id -> its data, for constants

  // What is known of an ONNX value's type: a constant's exactly, else what
  // the shape functions gave, else the model's declaration.
  ValueType type_of(const std::string& name) const;
  ValueType type_of(Value v) const;  // what the probes know of a libops value
  // A value a subgraph reads from this graph: a tensor, or a sequence
  // grown in a loop as its stacked value (Note [Sequences grown in loops]).
  // An import-time sequence a subgraph reads is passed in stacked too
  // (lists_stacked, made by stack_captured_lists).
  std::unordered_map<std::string, Value> lists_stacked;
  const Value* captured_sequence(const std::string& name) const {
    auto s = stacked.find(name);
    if (s != stacked.end()) return &s->second;
    auto l = lists_stacked.find(name);
    return l != lists_stacked.end() ? &l->second : nullptr;
  }
  bool capturable(const std::string& name) const {
    return values.count(name) > 0 || captured_sequence(name) || run_lists.count(name) > 0;
  }
  Value captured_value(const std::string& name) const {
    const Value* s = captured_sequence(name);
    if (s != nullptr) return *s;
    auto r = run_lists.find(name);
    return r != run_lists.end() ? r->second.value : values.at(name);
  }
  // A run-time list's placeholder declares its kind, and no element type
  // (Note [Run-time sequences]).
  ValueInfo captured_info(const std::string& name) const {
    const Value* s = captured_sequence(name);
    if (s != nullptr) return info_of(type_of(*s), name);
    auto r = run_lists.find(name);
    if (r == run_lists.end()) return info_of(name);
    ValueInfo v;
    v.name = name;
    v.value_kind = static_cast<int>(r->second.kind);
    return v;
  }
  // Binds a subgraph's placeholder `v` for the outer value `name` it receives.
  void bind_captured(const Impl& outer, const std::string& name, Value v) {
    if (outer.captured_sequence(name)) stacked[name] = v;
    else if (auto r = outer.run_lists.find(name); r != outer.run_lists.end()) run_lists[name] = RunList{v, r->second.kind};
    else values[name] = v;
  }
  ValueInfo info_of(const std::string& name) const { return info_of(type_of(name), name); }
  static ValueInfo info_of(const ValueType& t, const std::string& name) {
    ValueInfo v;
    v.name = name;
    v.dtype = t.dtype;
    v.onnx_type = dtype_to_onnx(t.dtype);
    v.rank_known = t.rank_known;
    v.dims = t.dims;
    return v;
  }
  void probe_placeholder(const LVar& v);
  void probe_node(const LNode& n, DeclarableOp* op);
  void infer_dtypes_only(const LNode& n, DeclarableOp* op);
  DataType dtype_of(Value v) const;

  std::string unique_name(const std::string& base) {
    std::string n = base;
    for (int k = 1; names.count(n); ++k) n = base + "_" + std::to_string(k);
    names.insert(n);
    return n;
  }
  Value add_constant(const Tensor* t, const std::string& name) {
    LVar v;
    v.id = next_id++;
    v.name = unique_name(name.empty() ? "const" : name);
    v.is_constant = true;
    v.tensor = t;
    constant_of[v.id] = t;
    if (static_cast<int64_t>(t->dims.size()) <= kMaxRank) {
      Probed p;
      p.dtype = t->dtype;
      for (int k = 0; k < kNumProbes; ++k) {
        p.dims[k] = Dims(t->dims.data(), static_cast<int>(t->dims.size()));
        p.ok[k] = true;
      }
      probed[v.id] = {p};
    }
    vars.push_back(std::move(v));
    return Value{vars.back().id, 0};
  }
  // The libops value of an ONNX value name; constants become variables on
  // first use.
  Value lookup(const std::string& name) {
    auto it = values.find(name);
    if (it != values.end()) return it->second;
    auto c = constants.find(name);
    if (c != constants.end()) {
      Value v = add_constant(c->second, name);
      values[name] = v;
      return v;
    }
    return Value{};
  }

  // Note [Run-time sequences]: ONNX value name -> the libops value holding
  // it and its kind (a sequence, or an optional tensor or sequence).
  struct RunList {
    Value value;
    ValueKind kind = ValueKind::kSequence;
  };
  std::unordered_map<std::string, RunList> run_lists;
  // The nodes and outputs of the ONNX graph being converted, for the
  // readers of a value (Note [Sequences grown in loops]).
  const std::vector<Node>* onnx_nodes = nullptr;
  const std::vector<ValueInfo>* onnx_outputs = nullptr;

  bool holds(const std::string& name) const {
    return values.count(name) || constants.count(name) || sequences.count(name) || optionals.count(name) ||
           stacked.count(name) || run_lists.count(name);
  }
  Value sequence_node(const std::string& name, SequenceOpKind op, const std::vector<Value>& inputs,
                      const std::vector<int64_t>& i_args = {}, DataType element_dtype = DataType::kInvalid) {
    for (const Value& v : inputs)
      if (!v.valid()) return Value{};
    LNode n;
    n.id = next_id++;
    n.name = name + "/" + sequence_op_name(op);
    n.is_seq = true;
    n.seq_op = op;
    n.inputs = inputs;
    n.i = i_args;
    if (element_dtype != DataType::kInvalid) n.d.push_back(element_dtype);
    nodes.push_back(std::move(n));
    return Value{nodes.back().id, 0};
  }
  // `name` (a tensor, or any sequence or optional) as one libops value and
  // its kind: an import-time sequence becomes a list here (SequenceConstruct,
  // or SequenceEmpty of `declared`'s element dtype), a stacked one a list of
  // its slices, an import-time optional a run-time one. False with `why`
  // when it cannot be made.
  bool run_value(const std::string& name, const ValueInfo* declared, RunList& out, std::string& why);
};

// ---------------------------------------------------------------- Converter

bool Converter::has_input(int k) const {
  return k >= 0 && k < num_inputs() && !node_->inputs[static_cast<size_t>(k)].empty();
}

Value Converter::input(int k) {
  if (!has_input(k)) return Value{};
  input_taken_[static_cast<size_t>(k)] = true;
  return impl_.lookup(node_->inputs[static_cast<size_t>(k)]);
}

const Tensor* Converter::constant_input(int k) {
  if (!has_input(k)) return nullptr;
  input_taken_[static_cast<size_t>(k)] = true;
  auto it = impl_.constants.find(node_->inputs[static_cast<size_t>(k)]);
  return it == impl_.constants.end() ? nullptr : it->second;
}

bool Converter::constant_ints(int k, const char* what, std::vector<int64_t>& out) {
  const Tensor* t = constant_input(k);
  if (t == nullptr) {
    report(str_format("input %d (%s, '%s') must be a constant (an initializer or a Constant node's output); libops "
                    "needs its values when the graph is built",
                    k, what, has_input(k) ? node_->inputs[static_cast<size_t>(k)].c_str() : ""));
    return false;
  }
  if (!t->to_int64s(out)) {
    report(str_format("input %d (%s) has dtype %s; an integer tensor is expected", k, what, onnx_type_name(t->onnx_type)));
    return false;
  }
  return true;
}

ValueType Converter::input_type(int k) const {
  if (!has_input(k)) return ValueType{};
  return impl_.type_of(node_->inputs[static_cast<size_t>(k)]);
}

DataType Converter::input_dtype(int k) const { return input_type(k).dtype; }

// ---------------------------------------------------------------- import-time shapes

ValueType Converter::Impl::type_of(const std::string& name) const {
  ValueType vt;
  auto c = constants.find(name);
  if (c != constants.end()) {
    vt.dtype = c->second->dtype;
    vt.rank_known = true;
    vt.dims = c->second->dims;
    return vt;
  }
  auto v = values.find(name);
  if (v != values.end()) {
    vt = type_of(v->second);
    if (vt.dtype != DataType::kInvalid) return vt;
  }
  if (info != nullptr) {
    auto it = info->find(name);
    if (it != info->end() && it->second.value_kind == 0) {
      vt.dtype = it->second.dtype;
      vt.rank_known = it->second.rank_known;
      vt.dims = it->second.dims;
    }
  }
  return vt;
}

ValueType Converter::Impl::type_of(Value v) const {
  ValueType vt;
  auto p = probed.find(v.id);
  if (p != probed.end() && v.output < p->second.size()) {
    const Probed& pr = p->second[v.output];
    if (pr.dtype != DataType::kInvalid) {
      vt.dtype = pr.dtype;
      vt.rank_known = true;
      int first = 0;
      while (!pr.ok[first]) ++first;  // a known value has its large probes at least
      for (int d = 0; d < pr.dims[first].size(); ++d) {
        int64_t e = pr.dims[first][d];
        for (int k = first + 1; k < kNumProbes; ++k)
          if (pr.ok[k] && pr.dims[k][d] != e) e = -1;
        vt.dims.push_back(e);
      }
      return vt;
    }
  }
  auto d = dtype_only.find(v.id);
  if (d != dtype_only.end() && v.output < d->second.size()) vt.dtype = d->second[v.output];
  return vt;
}

void Converter::Impl::probe_placeholder(const LVar& v) {
  const ValueInfo& t = v.placeholder;
  if (t.value_kind != 0) return;  // a list or optional: what is read from it is probed (Note [Run-time sequences])
  if (t.dtype != DataType::kInvalid && !t.rank_known) dtype_only[v.id] = {t.dtype};
  if (t.dtype == DataType::kInvalid || !t.rank_known || static_cast<int64_t>(t.dims.size()) > kMaxRank) return;
  Probed p;
  p.dtype = t.dtype;
  for (int k = 0; k < kNumProbes; ++k) {
    for (int64_t d : t.dims) p.dims[k].push_back(d < 0 ? kProbeExtents[k] : d);
    p.ok[k] = strides_fit(p.dims[k]);
  }
  if (probes_known(p.ok)) probed[v.id] = {p};
}

// An input's dtype when its rank is not known (Note [Import-time shapes]).
DataType Converter::Impl::dtype_of(Value v) const {
  auto p = probed.find(v.id);
  if (p != probed.end() && v.output < p->second.size() && p->second[v.output].dtype != DataType::kInvalid)
    return p->second[v.output].dtype;
  auto d = dtype_only.find(v.id);
  if (d != dtype_only.end() && v.output < d->second.size()) return d->second[v.output];
  return DataType::kInvalid;
}

// Where an input's rank is not known, or no probe could infer the node's
// shapes (a shape read from an input computed at run time), its output
// dtypes usually still follow from its inputs' alone: the shape function
// runs on inputs of each rank from 0 to 4 with extents of 1 (which broadcast
// with anything) or 12 (which splits evenly), until one is accepted, and
// only the dtypes it gives are kept.
void Converter::Impl::infer_dtypes_only(const LNode& n, DeclarableOp* op) {
  std::vector<DataType> in_types;
  for (const Value& v : n.inputs) {
    const DataType t = dtype_of(v);
    if (t == DataType::kInvalid) return;
    in_types.push_back(t);
  }
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int rank = attempt / 4;
    const double int_value = attempt % 2 == 0 ? 1.0 : 0.0;  // a shape's 1, an index's 0
    const int64_t extent = attempt % 4 < 2 ? 1 : 12;           // 12: splits into 2, 3, 4 or 6 parts
    std::vector<DataType> outs;
    Dims ones;
    for (int d = 0; d < rank; ++d) ones.push_back(extent);
    if (op != nullptr) {
      // Integer inputs (shapes, axes, counts, indices) hold a 1 or a 0,
      // which a shape function may read.
      std::vector<NDArray> arrays;
      for (size_t i = 0; i < in_types.size(); ++i) {
        NDArray a;
        if (dtype_is_integer(in_types[i]) && NDArray::create(in_types[i], ones, 'c', a).is_ok()) {
          for (int64_t k = 0; k < a.length(); ++k) a.set_double(k, int_value);
          arrays.push_back(a);
        } else {
          arrays.push_back(NDArray::shape_only(TensorShape{in_types[i], ones, 'c'}));
        }
      }
      Context ctx;
      for (NDArray& a : arrays) ctx.add_input(&a);
      ctx.t_args() = n.t;
      ctx.i_args() = n.i;
      ctx.b_args() = n.b;
      ctx.d_args() = n.d;
      ShapeList shapes;
      if (!op->infer_shapes(ctx, shapes).is_ok() || shapes.size() != n.num_outputs) continue;
      for (const TensorShape& sh : shapes) outs.push_back(sh.dtype);
    } else {
      ::libops::graph::Node legacy;
      legacy.kind = NodeKind::kLegacy;
      legacy.group = static_cast<ops_legacy_group_t>(n.group);
      legacy.num = n.num;
      std::vector<TensorShape> in;
      for (DataType t : in_types) in.push_back(TensorShape{t, ones, 'c'});
      TensorShape out;
      if (!legacy_output_shape(legacy, in.data(), static_cast<int>(in.size()), out).is_ok() || n.num_outputs != 1)
        continue;
      outs.push_back(out.dtype);
    }
    dtype_only[n.id] = outs;
    return;
  }
}

// Runs the node's shape function (or the legacy rule) once per probe that
// reached all its inputs, and computes small values per probe (Note
// [Import-time shapes]). An output is known when the large probes succeed
// and every probe that succeeds agrees on its rank and dtype.
void Converter::Impl::probe_node(const LNode& n, DeclarableOp* op) {
  std::vector<const Probed*> ins;
  for (const Value& v : n.inputs) {
    auto it = probed.find(v.id);
    if (it == probed.end() || v.output >= it->second.size() || it->second[v.output].dtype == DataType::kInvalid) {
      infer_dtypes_only(n, op);
      return;
    }
    ins.push_back(&it->second[v.output]);
  }
  std::vector<Probed> outs(n.num_outputs);
  std::vector<DataType> dtypes(static_cast<size_t>(n.num_outputs) * kNumProbes, DataType::kInvalid);
  for (int k = 0; k < kNumProbes; ++k) {
    bool reached = true;
    for (const Probed* p : ins) reached = reached && p->ok[k];
    if (!reached) continue;
    ShapeList shapes;
    std::vector<NDArray> computed;
    if (op != nullptr) {
      std::vector<NDArray> arrays(ins.size());
      Context ctx;
      bool all_data = true;
      for (size_t i = 0; i < ins.size(); ++i) {
        auto c = constant_of.find(n.inputs[i].id);
        const Tensor* t = c == constant_of.end() ? nullptr : c->second;
        bool has_data = false;
        if (ins[i]->data[k] != nullptr) {
          arrays[i] = *ins[i]->data[k];
          has_data = true;
        } else if (t != nullptr && t->numel() <= kMaxProbeDataElements && !t->data.empty()) {
          has_data = NDArray::wrap(const_cast<uint8_t*>(t->data.data()), t->data.size(), t->dtype,
                                   ins[i]->dims[k], nullptr, arrays[i])
                         .is_ok();  // shape functions and the small computations below only read
        }
        if (!has_data) arrays[i] = NDArray::shape_only(TensorShape{ins[i]->dtype, ins[i]->dims[k], 'c'});
        all_data = all_data && has_data && arrays[i].length() <= kMaxProbeComputedElements;
        ctx.add_input(&arrays[i]);
      }
      ctx.t_args() = n.t;
      ctx.i_args() = n.i;
      ctx.b_args() = n.b;
      ctx.d_args() = n.d;
      if (!op->infer_shapes(ctx, shapes).is_ok()) continue;
      bool small = true;
      for (const TensorShape& sh : shapes) small = small && strides_fit(sh.dims) && sh.dims.product() <= kMaxProbeComputedElements;
      if (small && op->name() == std::string_view("shape_of") && shapes.size() == 1) {
        // Shape reads only its input's extents, which the probe knows.
        std::vector<int64_t> all(ins[0]->dims[k].begin(), ins[0]->dims[k].end());
        // shape_of's i args: start, then end (OpCall places them by name).
        int64_t from = n.i.size() > 0 ? n.i[0] : 0;
        int64_t to = n.i.size() > 1 ? n.i[1] : static_cast<int64_t>(all.size());
        const int64_t r = static_cast<int64_t>(all.size());
        if (from < 0) from += r;
        if (to < 0) to += r;
        from = std::clamp<int64_t>(from, 0, r);
        to = std::clamp<int64_t>(to, from, r);
        NDArray a;
        if (NDArray::create(DataType::kInt64, Dims{to - from}, 'c', a).is_ok() && a.shape() == shapes[0].dims &&
            a.dtype() == shapes[0].dtype) {
          for (int64_t d = from; d < to; ++d) static_cast<int64_t*>(a.data())[d - from] = all[static_cast<size_t>(d)];
          computed.push_back(a);
        }
      } else if (small && all_data) {
        ctx.set_device(Device::cpu());
        if (op->execute(ctx).is_ok() && ctx.num_outputs() == static_cast<int>(shapes.size()))
          for (int o = 0; o < ctx.num_outputs(); ++o) computed.push_back(*ctx.output(o));
      }
    } else {
      ::libops::graph::Node legacy;
      legacy.kind = NodeKind::kLegacy;
      legacy.group = static_cast<ops_legacy_group_t>(n.group);
      legacy.num = n.num;
      legacy.op_label = n.name;
      std::vector<TensorShape> in;
      for (const Probed* p : ins) in.push_back(TensorShape{p->dtype, p->dims[k], 'c'});
      TensorShape out;
      if (!legacy_output_shape(legacy, in.data(), static_cast<int>(in.size()), out).is_ok()) continue;
      shapes.push_back(out);
    }
    if (shapes.size() != outs.size()) continue;
    bool fits = true;
    for (const TensorShape& sh : shapes) fits = fits && strides_fit(sh.dims);
    if (!fits) continue;
    for (size_t o = 0; o < outs.size(); ++o) {
      outs[o].ok[k] = true;
      outs[o].dims[k] = shapes[o].dims;
      dtypes[o * kNumProbes + static_cast<size_t>(k)] = shapes[o].dtype;
      if (computed.size() == outs.size()) outs[o].data[k] = std::make_shared<NDArray>(computed[o]);
    }
  }
  bool any = false;
  for (size_t o = 0; o < outs.size(); ++o) {
    Probed& p = outs[o];
    if (!probes_known(p.ok)) continue;
    int first = 0;
    while (!p.ok[first]) ++first;
    bool agree = true;
    for (int k = first; k < kNumProbes; ++k)
      agree = agree && (!p.ok[k] || (dtypes[o * kNumProbes + static_cast<size_t>(k)] ==
                                         dtypes[o * kNumProbes + static_cast<size_t>(first)] &&
                                     p.dims[k].size() == p.dims[first].size()));
    if (!agree) continue;
    p.dtype = dtypes[o * kNumProbes + static_cast<size_t>(first)];
    any = true;
  }
  if (any) probed[n.id] = std::move(outs);
  else infer_dtypes_only(n, op);
}

namespace {
const Attribute* mark(const Node& n, std::vector<bool>& read, const char* name) {
  for (size_t k = 0; k < n.attributes.size(); ++k)
    if (n.attributes[k].name == name) {
      read[k] = true;
      return &n.attributes[k];
    }
  return nullptr;
}
}  // namespace

bool Converter::has_attr(const char* name) { return mark(*node_, attr_read_, name) != nullptr; }
void Converter::ignore_attr(const char* name) { mark(*node_, attr_read_, name); }

int64_t Converter::attr_int(const char* name, int64_t default_value) {
  const Attribute* a = mark(*node_, attr_read_, name);
  if (a == nullptr) return default_value;
  if (a->type != Attribute::Type::kInt) {
    report_attr(name, "has type " + a->type_name + "; INT is expected");
    return default_value;
  }
  return a->i;
}

double Converter::attr_float(const char* name, double default_value) {
  const Attribute* a = mark(*node_, attr_read_, name);
  if (a == nullptr) return default_value;
  if (a->type != Attribute::Type::kFloat) {
    report_attr(name, "has type " + a->type_name + "; FLOAT is expected");
    return default_value;
  }
  return a->f;
}

std::string Converter::attr_string(const char* name, const std::string& default_value) {
  const Attribute* a = mark(*node_, attr_read_, name);
  if (a == nullptr) return default_value;
  if (a->type != Attribute::Type::kString) {
    report_attr(name, "has type " + a->type_name + "; STRING is expected");
    return default_value;
  }
  return a->s;
}

bool Converter::attr_ints(const char* name, std::vector<int64_t>& out) {
  const Attribute* a = mark(*node_, attr_read_, name);
  if (a == nullptr) return false;
  if (a->type != Attribute::Type::kInts) {
    report_attr(name, "has type " + a->type_name + "; INTS is expected");
    return false;
  }
  out = a->ints;
  return true;
}

bool Converter::attr_floats(const char* name, std::vector<double>& out) {
  const Attribute* a = mark(*node_, attr_read_, name);
  if (a == nullptr) return false;
  if (a->type != Attribute::Type::kFloats) {
    report_attr(name, "has type " + a->type_name + "; FLOATS is expected");
    return false;
  }
  out = a->floats;
  return true;
}

bool Converter::attr_strings(const char* name, std::vector<std::string>& out) {
  const Attribute* a = mark(*node_, attr_read_, name);
  if (a == nullptr) return false;
  if (a->type != Attribute::Type::kStrings) {
    report_attr(name, "has type " + a->type_name + "; STRINGS is expected");
    return false;
  }
  out = a->strings;
  return true;
}

const Tensor* Converter::attr_tensor(const char* name) {
  const Attribute* a = mark(*node_, attr_read_, name);
  if (a == nullptr) return nullptr;
  if (a->type != Attribute::Type::kTensor) {
    report_attr(name, "has type " + a->type_name + "; TENSOR is expected");
    return nullptr;
  }
  return a->t.get();
}

bool Converter::output_used(int k) const {
  if (k < 0 || k >= num_outputs()) return false;
  const std::string& name = node_->outputs[static_cast<size_t>(k)];
  if (name.empty()) return false;
  auto it = impl_.uses.find(name);
  return it != impl_.uses.end() && it->second > 0;
}

void Converter::set_output(int k, Value v) {
  if (k < 0 || k >= num_outputs() || node_->outputs[static_cast<size_t>(k)].empty()) return;
  output_set_[static_cast<size_t>(k)] = true;
  if (v.valid()) impl_.values[node_->outputs[static_cast<size_t>(k)]] = v;
}

bool Converter::input_sequence(int k, std::vector<Value>& elements) {
  if (!has_input(k)) {
    report(str_format("input %d (a sequence) is missing", k));
    return false;
  }
  input_taken_[static_cast<size_t>(k)] = true;
  const std::string& name = node_->inputs[static_cast<size_t>(k)];
  auto it = impl_.sequences.find(name);
  if (it == impl_.sequences.end()) {
    if (impl_.stacked.count(name)) {
      report(str_format("input %d ('%s') is a stacked sequence (grown in a Loop, split along an axis known only at "
                        "run time, or passed into a subgraph): only ConcatFromSequence, SequenceLength and SequenceAt "
                        "read one (Note [Sequences grown in loops])",
                        k, name.c_str()));
      return false;
    }
    if (!impl_.failed.count(name))
      report(str_format("input %d ('%s') is not a sequence whose elements are known at import, nor one grown in "
                        "a Loop (a sequence given as a graph input is not supported: docs/onnx.md)",
                        k, name.c_str()));
    return false;
  }
  elements = it->second;
  return true;
}

bool Converter::input_stacked_sequence(int k, Value& stacked, ValueType& type) {
  if (!has_input(k)) return false;
  auto it = impl_.stacked.find(node_->inputs[static_cast<size_t>(k)]);
  if (it == impl_.stacked.end()) return false;
  input_taken_[static_cast<size_t>(k)] = true;
  stacked = it->second;
  type = impl_.type_of(stacked);
  return true;
}

void Converter::set_output_stacked_sequence(int k, Value stacked) {
  if (k < 0 || k >= num_outputs() || node_->outputs[static_cast<size_t>(k)].empty()) return;
  output_set_[static_cast<size_t>(k)] = true;
  impl_.stacked[node_->outputs[static_cast<size_t>(k)]] = stacked;
}

bool Converter::input_is_sequence(int k) const {
  return has_input(k) && impl_.sequences.count(node_->inputs[static_cast<size_t>(k)]) > 0;
}

int Converter::input_lowp(int k) const {
  if (!has_input(k)) return 0;
  const std::string& name = node_->inputs[static_cast<size_t>(k)];
  auto c = impl_.constants.find(name);
  if (c != impl_.constants.end()) return c->second->lowp;
  auto it = impl_.lowp_of.find(name);
  return it == impl_.lowp_of.end() ? 0 : it->second;
}

void Converter::set_output_lowp(int k, int lowp) {
  if (k < num_outputs() && !node_->outputs[static_cast<size_t>(k)].empty() && lowp != 0)
    impl_.lowp_of[node_->outputs[static_cast<size_t>(k)]] = lowp;
}

bool Converter::input_is_optional(int k) const {
  return has_input(k) && impl_.optionals.count(node_->inputs[static_cast<size_t>(k)]) > 0;
}

void Converter::set_output_sequence(int k, std::vector<Value> elements) {
  if (k < 0 || k >= num_outputs() || node_->outputs[static_cast<size_t>(k)].empty()) return;
  output_set_[static_cast<size_t>(k)] = true;
  impl_.sequences[node_->outputs[static_cast<size_t>(k)]] = std::move(elements);
}

bool Converter::input_optional(int k, bool& present, Value& v) {
  present = false;
  v = Value{};
  if (!has_input(k)) return true;
  const std::string& name = node_->inputs[static_cast<size_t>(k)];
  auto it = impl_.optionals.find(name);
  if (it != impl_.optionals.end()) {
    input_taken_[static_cast<size_t>(k)] = true;
    present = !it->second.empty();
    if (present) v = it->second[0];
    return true;
  }
  if (impl_.sequences.count(name)) {
    input_taken_[static_cast<size_t>(k)] = true;
    report(str_format("input %d ('%s') is a sequence: optional sequences are not supported", k, name.c_str()));
    return false;
  }
  v = input(k);
  present = true;
  return true;
}

void Converter::set_output_optional(int k, bool present, Value v) {
  if (k < 0 || k >= num_outputs() || node_->outputs[static_cast<size_t>(k)].empty()) return;
  output_set_[static_cast<size_t>(k)] = true;
  impl_.optionals[node_->outputs[static_cast<size_t>(k)]] = present ? std::vector<Value>{v} : std::vector<Value>{};
}

void Converter::set_output_constant(int k, Tensor t) {
  if (k < 0 || k >= num_outputs() || node_->outputs[static_cast<size_t>(k)].empty()) return;
  output_set_[static_cast<size_t>(k)] = true;
  t.name = node_->outputs[static_cast<size_t>(k)];
  impl_.owned.push_back(std::move(t));
  impl_.constants[node_->outputs[static_cast<size_t>(k)]] = &impl_.owned.back();
}

// Note [Run-time sequences]
//  A sequence whose elements are not all known at import (a graph input, a
//  list a Loop carries and edits, what an If's branches give, a split at
//  sizes known only at run time) is a run-time list: a libops value of the
//  sequence kind, run by the executor's sequence nodes (Note [Sequence
//  values] in graph/executor.h), which move array handles and never copy
//  elements. So is an optional given as a graph input or made at run time.
//  The sequence ops map to those nodes where their sequence is one, and
//  where a position or split is computed at run time. Import-time lists
//  (Note [Import-time sequences]) and stacked sequences (Note [Sequences
//  grown in loops]) stay what they are, since their elements' shapes are
//  known to what reads them; one becomes a run-time list where it crosses
//  into one (a graph output, an If branch's output, a Loop-carried value,
//  an insert into a run-time list): SequenceConstruct of its elements, or a
//  split of the stacked value along axis 0.
bool Converter::Impl::run_value(const std::string& name, const ValueInfo* declared, RunList& out, std::string& why) {
  auto found = run_lists.find(name);
  if (found != run_lists.end()) {
    out = found->second;
    return true;
  }
  const std::string base = name.empty() ? "sequence" : name;
  if (auto it = sequences.find(name); it != sequences.end()) {
    if (it->second.empty()) {
      const DataType t = declared != nullptr ? declared->dtype : DataType::kInvalid;
      out.value = sequence_node(base, SequenceOpKind::kEmpty, {}, {}, t);
    } else {
      out.value = sequence_node(base, SequenceOpKind::kConstruct, it->second);
    }
    out.kind = ValueKind::kSequence;
  } else if (auto st = stacked.find(name); st != stacked.end()) {
    out.value = sequence_node(base, SequenceOpKind::kSplit, {st->second}, {0, 0});
    out.kind = ValueKind::kSequence;
  } else if (auto op = optionals.find(name); op != optionals.end()) {
    // An import-time optional holds a tensor, or nothing: of the kind the
    // model declares (an empty optional sequence, say).
    const bool of_list = op->second.empty() && declared != nullptr && declared->value_kind == 3;
    out.value = sequence_node(base, SequenceOpKind::kOptional, op->second, {of_list ? 1 : 0});
    out.kind = of_list ? ValueKind::kOptionalSequence : ValueKind::kOptionalTensor;
  } else {
    const Value v = lookup(name);
    if (!v.valid()) {
      why = "'" + name + "' is not computed by any node";
      return false;
    }
    out.value = v;
    out.kind = ValueKind::kTensor;
    return true;
  }
  if (!out.value.valid()) {
    why = "the sequence '" + name + "' could not be made a run-time list";
    return false;
  }
  run_lists[name] = out;
  return true;
}

bool Converter::input_run_list(int k, Value& v, ValueKind& kind) {
  if (!has_input(k)) return false;
  auto it = impl_.run_lists.find(node_->inputs[static_cast<size_t>(k)]);
  if (it == impl_.run_lists.end()) return false;
  input_taken_[static_cast<size_t>(k)] = true;
  v = it->second.value;
  kind = it->second.kind;
  return true;
}

bool Converter::input_as_run_list(int k, Value& v, ValueKind& kind) {
  if (!has_input(k)) {
    report(str_format("input %d (a sequence) is missing", k));
    return false;
  }
  const std::string& name = node_->inputs[static_cast<size_t>(k)];
  if (!impl_.sequences.count(name) && !impl_.stacked.count(name) && !impl_.optionals.count(name) &&
      !impl_.run_lists.count(name)) {
    if (!impl_.failed.count(name)) report(str_format("input %d ('%s') is not a sequence", k, name.c_str()));
    return false;
  }
  input_taken_[static_cast<size_t>(k)] = true;
  Converter::Impl::RunList r;
  std::string why;
  const ValueInfo* declared = nullptr;
  if (impl_.info != nullptr)
    if (auto it = impl_.info->find(name); it != impl_.info->end()) declared = &it->second;
  if (!impl_.run_value(name, declared, r, why)) {
    report(str_format("input %d: %s", k, why.c_str()));
    return false;
  }
  v = r.value;
  kind = r.kind;
  return true;
}

void Converter::set_output_run_list(int k, Value v, ValueKind kind) {
  if (k < 0 || k >= num_outputs() || node_->outputs[static_cast<size_t>(k)].empty()) return;
  output_set_[static_cast<size_t>(k)] = true;
  if (v.valid()) impl_.run_lists[node_->outputs[static_cast<size_t>(k)]] = Converter::Impl::RunList{v, kind};
}

Value Converter::sequence_node(SequenceOpKind op, const std::vector<Value>& inputs, const std::vector<int64_t>& i_args,
                               DataType element_dtype) {
  const std::string base = node_->name.empty() ? node_->op_type + "_" + std::to_string(node_->index) : node_->name;
  return impl_.sequence_node(base, op, inputs, i_args, element_dtype);
}

Value Converter::checked(Value condition, Value x, const std::string& what) {
  const std::vector<Value> out = op("assert_true").in(condition).in(x).emit();
  if (out.empty() || !out[0].valid()) return Value{};
  const std::string base = node_->name.empty() ? node_->op_type + "_" + std::to_string(node_->index) : node_->name;
  impl_.nodes.back().name = base + "/" + what;
  return out[0];
}

const ValueInfo* Converter::output_info(int k) const {
  if (k < 0 || k >= num_outputs() || impl_.info == nullptr) return nullptr;
  auto it = impl_.info->find(node_->outputs[static_cast<size_t>(k)]);
  return it == impl_.info->end() ? nullptr : &it->second;
}

Status Converter::fail(const std::string& what) {
  std::string msg = impl_.label + ": " + what;
  impl_.problems.push_back(msg);
  return Status::error(StatusCode::kNotImplemented, "%s", msg.c_str());
}

Status Converter::fail_attr(const char* attr, const std::string& what) {
  return fail(str_format("attribute '%s' %s", attr, what.c_str()));
}

Value Converter::legacy(int group, int num, std::initializer_list<Value> inputs) {
  LNode n;
  n.id = impl_.next_id++;
  n.name = (node_->name.empty() ? node_->op_type : node_->name) + "/legacy";
  n.legacy = true;
  n.group = group;
  n.num = num;
  n.inputs.assign(inputs.begin(), inputs.end());
  for (const Value& v : n.inputs)
    if (!v.valid()) return Value{};
  impl_.probe_node(n, nullptr);
  impl_.nodes.push_back(std::move(n));
  return Value{impl_.nodes.back().id, 0};
}

Value Converter::constant(Tensor t) {
  std::string base = (node_->name.empty() ? node_->op_type : node_->name) + "/const";
  impl_.owned.push_back(std::move(t));
  return impl_.add_constant(&impl_.owned.back(), base);
}

Value Converter::constant_scalar(DataType dtype, double v) {
  if (dtype == DataType::kInvalid) dtype = DataType::kFloat32;
  // A scalar of the dtype asked for (float16 and bfloat16 too), so that
  // binary ops do not promote the other operand.
  NDArray a;
  Tensor t;
  t.dtype = dtype;
  t.onnx_type = dtype_to_onnx(dtype);
  t.data.resize(dtype_size(dtype));
  if (NDArray::create(dtype, Dims{}, 'c', a).is_ok()) {
    a.set_double(0, v);
    std::memcpy(t.data.data(), a.data(), t.data.size());
  }
  return constant(std::move(t));
}

Value Converter::constant_ints(const std::vector<int64_t>& values, bool as_vector) {
  Tensor t;
  t.dtype = DataType::kInt64;
  t.onnx_type = 7;
  if (as_vector) t.dims = {static_cast<int64_t>(values.size())};
  t.data.resize(values.size() * 8);
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), values.size() * 8);
  return constant(std::move(t));
}

// ---------------------------------------------------------------- OpCall

// Each overload records one named arg (NamedArg: kind 0 int, 1 float,
// 2 bool, 3 dtype, 4 int list).
OpCall& OpCall::arg(const char* name, int64_t v) {
  args_.push_back(NamedArg{name, 0, v, 0, DataType::kInvalid, {}});
  return *this;
}
OpCall& OpCall::arg(const char* name, double v) {
  args_.push_back(NamedArg{name, 1, 0, v, DataType::kInvalid, {}});
  return *this;
}
OpCall& OpCall::arg(const char* name, bool v) {
  args_.push_back(NamedArg{name, 2, v ? 1 : 0, 0, DataType::kInvalid, {}});
  return *this;
}
OpCall& OpCall::arg(const char* name, DataType v) {
  args_.push_back(NamedArg{name, 3, 0, 0, v, {}});
  return *this;
}
OpCall& OpCall::arg(const char* name, const std::vector<int64_t>& list) {
  args_.push_back(NamedArg{name, 4, 0, 0, DataType::kInvalid, list});
  return *this;
}

Value OpCall::emit1() {
  std::vector<Value> v = emit();
  return v.empty() ? Value{} : v[0];
}

std::vector<Value> OpCall::emit() {
  Converter::Impl& impl = c_.impl_;
  DeclarableOp* op = OpRegistry::instance().find(op_);
  if (op == nullptr) {
    c_.report(str_format("the mapping uses op '%s', which this build does not register", op_.c_str()));
    return {};
  }
  for (const Value& v : inputs_)
    if (!v.valid()) return {};  // an input from a node that failed (already reported)
  const OpSignature& sig = op->descriptor().signature;
  LNode n;
  n.id = impl.next_id++;
  n.name = c_.node_->name.empty() ? c_.node_->op_type + "_" + std::to_string(c_.node_->index) : c_.node_->name;
  n.op = op->name();
  n.inputs = inputs_;
  n.num_outputs = static_cast<uint32_t>(num_outputs_);
  // Place the named args at their declared positions; positions before a
  // given one that are not given take their defaults (Note [Positional
  // arguments] in op_signature.h).
  struct Slot {
    bool set = false;
    int64_t i = 0;
    double f = 0;
    DataType d = DataType::kInvalid;
  };
  std::vector<Slot> slots[4];
  std::vector<int64_t> lists[4];
  bool has_list[4] = {false, false, false, false};
  for (const NamedArg& a : args_) {
    const ArgSpec* spec = sig.find(a.name.c_str());
    if (spec == nullptr) {
      c_.report(str_format("the mapping gives op '%s' an arg '%s' that it does not declare", op_.c_str(), a.name.c_str()));
      return {};
    }
    const int kind = static_cast<int>(spec->kind);
    if (spec->list) {
      has_list[kind] = true;
      if (a.kind == 4) {
        lists[kind] = a.list;
      } else {
        lists[kind] = {a.i};
      }
      if (slots[kind].size() < static_cast<size_t>(spec->position)) slots[kind].resize(static_cast<size_t>(spec->position));
      continue;
    }
    auto& s = slots[kind];
    if (s.size() <= static_cast<size_t>(spec->position)) s.resize(static_cast<size_t>(spec->position) + 1);
    Slot& slot = s[static_cast<size_t>(spec->position)];
    slot.set = true;
    slot.i = a.i;
    slot.f = a.kind == 1 ? a.f : static_cast<double>(a.i);
    slot.d = a.d;
  }
  for (int kind = 0; kind < 4; ++kind) {
    for (size_t pos = 0; pos < slots[kind].size(); ++pos) {
      Slot& s = slots[kind][pos];
      if (s.set) continue;
      const ArgSpec* spec = sig.at(static_cast<ArgKind>(kind), static_cast<int>(pos));
      if (spec == nullptr || spec->required || spec->list) {
        c_.report(str_format("the mapping leaves out arg %s %zu of op '%s', which is required before the args it gives",
                           arg_kind_name(static_cast<ArgKind>(kind)), pos, op_.c_str()));
        return {};
      }
      s.i = spec->default_int;
      s.f = spec->default_float;
      s.d = spec->default_dtype;
    }
  }
  for (const Slot& s : slots[static_cast<int>(ArgKind::kFloat)]) n.t.push_back(s.f);
  for (const Slot& s : slots[static_cast<int>(ArgKind::kInt)]) n.i.push_back(s.i);
  for (const Slot& s : slots[static_cast<int>(ArgKind::kBool)]) n.b.push_back(s.i != 0);
  for (const Slot& s : slots[static_cast<int>(ArgKind::kDtype)]) n.d.push_back(s.d);
  const int ki = static_cast<int>(ArgKind::kInt), kt = static_cast<int>(ArgKind::kFloat);
  if (has_list[ki]) n.i.insert(n.i.end(), lists[ki].begin(), lists[ki].end());
  if (has_list[kt]) for (int64_t v : lists[kt]) n.t.push_back(static_cast<double>(v));
  std::vector<Value> out;
  for (int k = 0; k < num_outputs_; ++k) out.push_back(Value{n.id, static_cast<uint32_t>(k)});
  impl.probe_node(n, op);
  impl.nodes.push_back(std::move(n));
  return out;
}

// ---------------------------------------------------------------- driver

struct ConverterAccess {
  static Converter::Impl& impl(Converter& c) { return c.impl_; }
  static const Attribute* read_attr(Converter& c, const char* name) { return mark(*c.node_, c.attr_read_, name); }
  static void begin(Converter& c, const Node& n, int64_t opset) {
    c.node_ = &n;
    c.opset_ = opset;
    c.attr_read_.assign(n.attributes.size(), false);
    c.input_taken_.assign(n.inputs.size(), false);
    c.output_set_.assign(n.outputs.size(), false);
  }
  // Note [Nothing ignored]: what the mapping left unread is a problem.
  static void check_all_read(Converter& c) {
    const Node& n = *c.node_;
    for (size_t k = 0; k < n.attributes.size(); ++k)
      if (!c.attr_read_[k])
        c.report(str_format("attribute '%s' is not supported by the importer", n.attributes[k].name.c_str()));
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (!n.inputs[k].empty() && !c.input_taken_[k])
        c.report(str_format("input %zu ('%s') is not supported by the importer", k, n.inputs[k].c_str()));
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (!c.output_set_[k] && c.output_used(static_cast<int>(k)))
        c.report(str_format("output %zu ('%s') is used, but the importer cannot compute it", k, n.outputs[k].c_str()));
  }
};

namespace {

// The row that maps version `version` of `op_type` (Note [Operator
// versions]); known_elsewhere: rows exist for other versions.
const OpMapping* find_mapping(const std::string& op_type, int version, bool& known_elsewhere) {
  known_elsewhere = false;
  for (const OpMapping& m : mapping_table()) {
    if (op_type != m.op_type) continue;
    if (version >= m.first_version && version <= m.last_version) return &m;
    known_elsewhere = true;
  }
  return nullptr;
}

std::string version_ranges(const std::string& op_type) {
  std::string s;
  for (const OpMapping& m : mapping_table()) {
    if (op_type != m.op_type) continue;
    if (!s.empty()) s += ", ";
    s += std::to_string(m.first_version) + "-" + std::to_string(m.last_version);
  }
  return s;
}

// The tables of one body (the main graph or a subgraph): `vars` and
// `nodes` from first_node on, with the named outputs. Constants no node or
// output reads (left by folding) are left out.
struct BodyTables {
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Variable>>> vars;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Node>>> nodes;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> inputs;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Output>>> outputs;
};

BodyTables write_body(flatbuffers::FlatBufferBuilder& fbb, const std::vector<LVar>& all_vars,
                      const std::vector<LNode>& all_nodes, size_t first_node,
                      const std::vector<std::pair<std::string, Value>>& named_outputs, bool with_placeholders) {
  std::unordered_set<int64_t> used;
  for (size_t k = first_node; k < all_nodes.size(); ++k)
    for (const Value& v : all_nodes[k].inputs) used.insert(v.id);
  for (const auto& o : named_outputs) used.insert(o.second.id);
  auto ref = [](Value v) { return fb::ValueRef(static_cast<uint32_t>(v.id), v.output); };
  std::vector<flatbuffers::Offset<fb::Variable>> vars;
  std::vector<std::string> input_names;
  for (const LVar& v : all_vars) {
    if (v.is_constant) {
      if (!used.count(v.id)) continue;
      const Tensor& t = *v.tensor;
      auto shape = fbb.CreateVector(t.dims);
      // force_align 64 in the schema; PreAlign is what ForceVectorAlignment does.
      fbb.PreAlign(t.data.size(), 64);
      auto data = fbb.CreateVector(t.data);
      auto arr = fb::CreateArray(fbb, static_cast<fb::DType>(t.dtype), shape, fb::Order::C, data);
      vars.push_back(fb::CreateVariable(fbb, v.id, fbb.CreateString(v.name), fb::VariableValue::Array, arr.Union()));
    } else if (with_placeholders) {
      auto shape = v.placeholder.rank_known ? fbb.CreateVector(v.placeholder.dims) : 0;
      const std::vector<std::string>& dp = v.placeholder.dim_params;
      const bool named = v.placeholder.rank_known && dp.size() == v.placeholder.dims.size() &&
                         std::any_of(dp.begin(), dp.end(), [](const std::string& d) { return !d.empty(); });
      auto names = named ? fbb.CreateVectorOfStrings(dp) : 0;
      auto p = fb::CreatePlaceholder(fbb, static_cast<fb::DType>(v.placeholder.dtype), shape, names,
                                     static_cast<fb::ValueKind>(v.placeholder.value_kind));
      vars.push_back(fb::CreateVariable(fbb, v.id, fbb.CreateString(v.name), fb::VariableValue::Placeholder, p.Union()));
      input_names.push_back(v.name);
    }
  }
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  for (size_t k = first_node; k < all_nodes.size(); ++k) {
    const LNode& n = all_nodes[k];
    std::vector<fb::ValueRef> ins;
    for (const Value& v : n.inputs) ins.push_back(ref(v));
    auto in = fbb.CreateVectorOfStructs(ins);
    flatbuffers::Offset<void> op;
    fb::Op type;
    if (n.is_if) {
      op = fb::CreateIfOp(fbb, static_cast<uint32_t>(n.branch_a), static_cast<uint32_t>(n.branch_b)).Union();
      type = fb::Op::IfOp;
    } else if (n.is_while) {
      op = fb::CreateWhileOp(fbb, static_cast<uint32_t>(n.branch_a), static_cast<uint32_t>(n.branch_b), n.scan_outputs)
               .Union();
      type = fb::Op::WhileOp;
    } else if (n.is_seq) {
      op = fb::CreateSequenceOp(fbb, static_cast<fb::SequenceOpKind>(n.seq_op)).Union();
      type = fb::Op::SequenceOp;
    } else if (n.legacy) {
      op = fb::CreateLegacyOp(fbb, static_cast<fb::LegacyGroup>(n.group), n.num).Union();
      type = fb::Op::LegacyOp;
    } else {
      op = fb::CreateCustomOp(fbb, fbb.CreateString(n.op), op_name_hash(n.op)).Union();
      type = fb::Op::CustomOp;
    }
    auto t = n.t.empty() ? 0 : fbb.CreateVector(n.t);
    auto i = n.i.empty() ? 0 : fbb.CreateVector(n.i);
    std::vector<uint8_t> b(n.b.begin(), n.b.end());
    auto bv = b.empty() ? 0 : fbb.CreateVector(b);
    std::vector<fb::DType> d;
    for (DataType x : n.d) d.push_back(static_cast<fb::DType>(x));
    auto dv = d.empty() ? 0 : fbb.CreateVector(d);
    nodes.push_back(fb::CreateNode(fbb, n.id, fbb.CreateString(n.name), type, op, in, n.num_outputs, t, i, bv, dv));
  }
  std::vector<flatbuffers::Offset<fb::Output>> outputs;
  for (const auto& [name, value] : named_outputs) {
    fb::ValueRef r = ref(value);
    outputs.push_back(fb::CreateOutput(fbb, fbb.CreateString(name), &r));
  }
  return BodyTables{fbb.CreateVector(vars), fbb.CreateVector(nodes), fbb.CreateVectorOfStrings(input_names),
                    fbb.CreateVector(outputs)};
}

// The builder's memory, 64-byte aligned: a finished buffer whose size and
// reserve are multiples of 64 starts on a 64-byte boundary, so the graph's
// aligned constants are aligned in memory too and load in place.
class AlignedAllocator : public flatbuffers::Allocator {
 public:
  uint8_t* allocate(size_t size) override {
    return static_cast<uint8_t*>(::operator new(size, std::align_val_t{64}));
  }
  void deallocate(uint8_t* p, size_t) override { ::operator delete(p, std::align_val_t{64}); }
};

AlignedAllocator& aligned_allocator() {
  static AlignedAllocator a;  // stateless
  return a;
}

// Writes a libops graph file: the main body and the subgraphs `subs`. The
// builder starts with room for every constant, so that it does not grow
// (a copy of all written so far each time) while the weights go in.
flatbuffers::DetachedBuffer write_graph(const std::vector<LVar>& all_vars, const std::vector<LNode>& all_nodes,
                                        size_t first_node, const std::vector<std::pair<std::string, Value>>& named_outputs,
                                        bool with_placeholders,
                                        const std::vector<std::unique_ptr<Converter::Impl>>* subs = nullptr) {
  size_t constant_bytes = 0;
  auto count = [&](const std::vector<LVar>& vars) {
    for (const LVar& v : vars)
      if (v.is_constant && v.tensor != nullptr) constant_bytes += v.tensor->data.size() + 64;
  };
  count(all_vars);
  if (subs != nullptr)
    for (const auto& sub : *subs) count(sub->vars);
  const size_t reserve = (constant_bytes + 1024 * 64 + 63) / 64 * 64;
  flatbuffers::FlatBufferBuilder fbb(reserve, &aligned_allocator(), false, 64);
  std::vector<flatbuffers::Offset<fb::Subgraph>> subgraphs;
  if (subs != nullptr)
    for (const auto& sub : *subs) {
      BodyTables b = write_body(fbb, sub->vars, sub->nodes, 0, sub->body_outputs, true);
      subgraphs.push_back(fb::CreateSubgraph(fbb, fbb.CreateString(sub->body_name), b.vars, b.nodes, b.inputs,
                                             b.outputs));
    }
  BodyTables main = write_body(fbb, all_vars, all_nodes, first_node, named_outputs, with_placeholders);
  auto root = fb::CreateGraph(fbb, static_cast<uint32_t>(fb::SchemaVersion::V1), main.vars, main.nodes, main.inputs,
                              main.outputs, subgraphs.empty() ? 0 : fbb.CreateVector(subgraphs));
  fb::FinishGraphBuffer(fbb, root);
  return fbb.Release();
}

// Note [Constant folding]
//  A node whose inputs are all constants is computed while converting: the
//  libops nodes its mapping emitted run once (as a small graph of their
//  own), and its outputs become constants. Shapes computed from static
//  shapes (Shape -> Gather -> Concat -> Reshape, as exporters write them)
//  then reach the ops that need them as constants. When the run fails, or
//  an output is large, the nodes stay in the graph as they were.
constexpr int64_t kMaxFoldedElements = int64_t{1} << 16;

bool fold_constants(Converter::Impl& impl, const Node& n, size_t first_node) {
  std::vector<std::pair<std::string, Value>> outs;
  for (const std::string& o : n.outputs) {
    if (o.empty()) continue;
    auto it = impl.values.find(o);
    if (it == impl.values.end()) return false;
    outs.emplace_back(o, it->second);
  }
  for (size_t k = first_node; k < impl.nodes.size(); ++k)
    for (const Value& v : impl.nodes[k].inputs)
      for (const LVar& var : impl.vars)
        if (var.id == static_cast<uint32_t>(v.id) && !var.is_constant) return false;
  const flatbuffers::DetachedBuffer bytes = write_graph(impl.vars, impl.nodes, first_node, outs, false);
  std::shared_ptr<const Graph> g;
  if (!Graph::load_buffer(bytes.data(), bytes.size(), LoadOptions{}, g).is_ok()) return false;
  Session session(g);
  if (!session.run(nullptr, 0).is_ok()) return false;
  std::vector<Tensor> folded;
  for (size_t k = 0; k < outs.size(); ++k) {
    const NDArray& a = session.output(static_cast<int>(k));
    if (a.length() > kMaxFoldedElements) return false;
    NDArray dense;
    if (!a.dup('c', dense).is_ok()) return false;
    Tensor t;
    t.name = outs[k].first;
    t.dtype = dense.dtype();
    t.onnx_type = dtype_to_onnx(dense.dtype());
    t.dims.assign(dense.shape().begin(), dense.shape().end());
    t.data.resize(static_cast<size_t>(dense.length()) * dense.element_size());
    if (!t.data.empty()) std::memcpy(t.data.data(), dense.data(), t.data.size());
    folded.push_back(std::move(t));
  }
  impl.nodes.resize(first_node);
  for (Tensor& t : folded) {
    impl.values.erase(t.name);
    const std::string name = t.name;
    impl.owned.push_back(std::move(t));
    impl.constants[name] = &impl.owned.back();
  }
  return true;
}

// Note [Low-precision values]
//  ONNX's float8, float4, int4 and int2 types have no libops dtype. The
//  importer holds such values one element a byte (uint8; int8 for int4 and
//  int2: the bytes of cast_low_precision, libops/ops/arith/low_precision.h),
//  graph inputs and outputs included, and remembers each value's format.
//  Cast, CastLike, QuantizeLinear and DequantizeLinear convert with
//  cast_low_precision; ops that only move elements (Reshape, Transpose,
//  Concat, Gather, ...) pass them on with their format; any other op on
//  such a value is refused by name, so bytes are never computed on as
//  numbers. A graph input or output of such a type is fed and read as its
//  bytes.
bool lowp_converts(const std::string& op) {
  return op == "Cast" || op == "CastLike" || op == "QuantizeLinear" || op == "DequantizeLinear" || op == "Shape" ||
         op == "Size";
}
bool lowp_moves(const std::string& op) {
  static const char* const kMoves[] = {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose",
                                       "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND",
                                       "Expand", "Tile", "DepthToSpace", "SpaceToDepth"};
  for (const char* m : kMoves)
    if (op == m) return true;
  return false;
}
int lowp_onnx_type(int lowp) {
  static const int kTypes[] = {0, 17, 18, 19, 20, 24, 23, 22, 21, 26, 25};
  return lowp > 0 && lowp < 11 ? kTypes[lowp] : 0;
}

// Note [Custom domains]
//  A node of a domain other than ONNX's own (ai.onnx.*) runs the registered
//  op its op type names, as ONNX Runtime's custom-op libraries work: one of
//  libops' ops, or one an op library registered (ops_load_op_library). Its
//  inputs go to the op in order (an omitted one may only trail), each
//  attribute sets the op's arg of that name (INT and INTS an integer or
//  bool arg, FLOAT a float arg), and its outputs come out in order. An
//  attribute the op does not declare, or of another type, is refused by
//  name.
Status map_custom_domain_node(Converter& c) {
  const Node& n = c.node();
  const DeclarableOp* op = OpRegistry::instance().find(n.op_type);
  const OpSignature& sig = op->descriptor().signature;
  OpCall call = c.op(op->name());
  int last = -1;
  for (int k = 0; k < c.num_inputs(); ++k)
    if (c.has_input(k)) last = k;
  for (int k = 0; k <= last; ++k) {
    if (!c.has_input(k))
      return c.fail(str_format("input %d is omitted and input %d is given; an op of a custom domain takes its inputs "
                               "in order", k, last));
    call.in(c.input(k));
  }
  for (const Attribute& a : n.attributes) {
    const char* name = a.name.c_str();
    const ArgSpec* spec = sig.find(name);
    if (spec == nullptr) {
      std::string declared;
      for (const ArgSpec& s : sig.args) declared += (declared.empty() ? "" : ", ") + s.name;
      return c.fail_attr(name, str_format("is not an arg of op '%s' (it declares: %s)", op->name(),
                                          declared.empty() ? "none" : declared.c_str()));
    }
    const bool integer = spec->kind == ArgKind::kInt || spec->kind == ArgKind::kBool;
    if (a.type == Attribute::Type::kInt && (integer || spec->kind == ArgKind::kFloat) && !spec->list) {
      call.arg(name, c.attr_int(name, 0));
    } else if (a.type == Attribute::Type::kInts && spec->kind == ArgKind::kInt && spec->list) {
      std::vector<int64_t> v;
      c.attr_ints(name, v);
      call.arg(name, v);
    } else if (a.type == Attribute::Type::kFloat && spec->kind == ArgKind::kFloat && !spec->list) {
      call.arg(name, c.attr_float(name, 0.0));
    } else {
      return c.fail_attr(name, str_format("is %s, and op '%s' declares it as %s%s", a.type_name.c_str(), op->name(),
                                          spec->list ? "a list of " : "", arg_kind_label(spec->kind)));
    }
  }
  const int n_out = c.num_outputs();
  const std::vector<Value> outs = call.outputs(n_out).emit();
  if (static_cast<int>(outs.size()) != n_out) return Status::error(StatusCode::kNotImplemented, "not emitted");
  for (int k = 1; k < n_out; ++k) c.set_output(k, outs[static_cast<size_t>(k)]);
  if (n_out > 0) c.set_output(0, outs[0]);
  return Status::ok();
}

// Maps `nodes` into `impl` in order (Note [Nothing ignored]), collecting
// every problem.
void convert_nodes(Converter::Impl& impl, const std::vector<Node>& nodes, int64_t graph_opset) {
  auto problem = [&](const std::string& msg) { impl.problems.push_back(msg); };
  impl.onnx_nodes = &nodes;
  Converter c(impl);
  for (const Node& n : nodes) {
    const int64_t opset = n.opset > 0 ? n.opset : graph_opset;  // a function's nodes mean its own opset
    impl.label = n.domain.empty()
                     ? str_format("node %d '%s' (%s, opset %lld)%s%s", n.index, n.name.c_str(), n.op_type.c_str(),
                                  static_cast<long long>(opset), n.inlined_from.c_str(), impl.where.c_str())
                     : str_format("node %d '%s' (%s, domain %s)%s%s", n.index, n.name.c_str(), n.op_type.c_str(),
                                  n.domain.c_str(), n.inlined_from.c_str(), impl.where.c_str());
    auto mark_failed = [&] {
      for (const std::string& o : n.outputs)
        if (!o.empty() && !impl.holds(o)) impl.failed.insert(o);
    };
    // An input from a node that failed is not a new problem; one that
    // nothing produces is (the model is malformed or not in order).
    bool upstream_failed = false, missing = false;
    for (const std::string& i : n.inputs) {
      if (i.empty() || impl.holds(i)) continue;
      if (impl.failed.count(i)) {
        upstream_failed = true;
      } else {
        problem(impl.label + ": input '" + i + "' is not a graph input, an initializer or an output of an earlier node");
        missing = true;
      }
    }
    const bool custom = !n.domain.empty() && n.domain.rfind("ai.onnx", 0) != 0;
    if (!n.domain.empty() && !custom) {
      problem(impl.label + ": domain '" + n.domain + "' is not supported (only the default ONNX domain is)");
      mark_failed();
      continue;
    }
    if (custom && OpRegistry::instance().find(n.op_type) == nullptr) {
      problem(impl.label + ": op type '" + n.op_type + "' of domain '" + n.domain +
              "' names no registered op (load the library that defines it: ops_load_op_library, ops-run "
              "--op-library, libops.load_op_library)");
      mark_failed();
      continue;
    }
    static const OpMapping kCustomDomain{"", 1, kMaxOpset, map_custom_domain_node, ""};
    bool elsewhere = false;
    const OperatorVersion v = custom ? OperatorVersion{} : operator_version(n.op_type, opset);
    const OpMapping* mapping = custom           ? &kCustomDomain
                               : v.version > 0 ? find_mapping(n.op_type, v.version, elsewhere)
                                               : nullptr;
    if (mapping == nullptr) {
      if (elsewhere)
        problem(impl.label + str_format(": %s-%d (the version at opset %lld) is not supported; the importer maps "
                                        "versions ",
                                        n.op_type.c_str(), v.version, static_cast<long long>(opset)) +
                version_ranges(n.op_type));
      else if (v.removed > 0)
        problem(impl.label + str_format(": op %s was removed from ONNX at opset %d", n.op_type.c_str(), v.removed));
      else if (v.first > opset)
        problem(impl.label + str_format(": op %s exists from opset %d on; the model imports opset %lld",
                                        n.op_type.c_str(), v.first, static_cast<long long>(opset)));
      else if (v.first == 0)
        problem(impl.label + str_format(": op type '%s' is not an operator of the default ONNX domain (opsets 1 to "
                                        "%d)",
                                        n.op_type.c_str(), kMaxOpset));
      else
        problem(impl.label + ": op type '" + n.op_type + "' is not supported by the importer (docs/onnx.md lists "
                             "what is)");
      mark_failed();
      continue;
    }
    if (missing) {
      mark_failed();
      continue;
    }
    const size_t before = impl.problems.size(), first_node = impl.nodes.size();
    bool all_constant = !n.inputs.empty() && n.op_type != "If" && n.op_type != "Loop" &&
                        n.op_type != "Scan";
    for (const std::string& i : n.inputs)
      if (!i.empty() && !impl.constants.count(i)) all_constant = false;
    ConverterAccess::begin(c, n, opset);
    // Note [Low-precision values]
    int lowp_in = 0;
    for (int k = 0; k < c.num_inputs(); ++k) lowp_in = lowp_in != 0 ? lowp_in : c.input_lowp(k);
    const bool takes_lowp = lowp_converts(n.op_type) || lowp_moves(n.op_type);
    if (lowp_in != 0 && !takes_lowp) {
      problem(impl.label + str_format(": an input holds %s, which libops keeps as its bytes: only Cast, CastLike, "
                                      "QuantizeLinear, DequantizeLinear and data movement (Reshape, Transpose, "
                                      "Concat, ...) take it",
                                      onnx_type_name(lowp_onnx_type(lowp_in))));
      mark_failed();
      continue;
    }
    Status s = mapping->fn(c);
    if (s.is_ok() && lowp_in != 0 && lowp_moves(n.op_type))
      for (int k = 0; k < c.num_outputs(); ++k) c.set_output_lowp(k, lowp_in);
    if (s.is_ok() && impl.problems.size() == before) ConverterAccess::check_all_read(c);
    // A mapping that gave up without saying why (an omitted input where it
    // needs one, say) is still a problem of this node.
    if (!s.is_ok() && impl.problems.size() == before && !upstream_failed)
      problem(impl.label + ": cannot be mapped: " + s.message());
    if (upstream_failed) {
      // Problems that only follow from an input that could not be made
      // (a shape not constant because its producer failed) are dropped.
      impl.problems.resize(before);
    }
    if (!s.is_ok() || impl.problems.size() != before || upstream_failed) {
      mark_failed();
    } else if (all_constant && impl.nodes.size() > first_node) {
      fold_constants(impl, n, first_node);  // Note [Constant folding]
    }
    if (log_enabled(LogLevel::kDebug)) {  // what the importer knows of each output (Note [Import-time shapes])
      std::string types;
      for (const std::string& o : n.outputs) {
        if (o.empty()) continue;
        const ValueType t = impl.type_of(o);
        std::string dims = t.rank_known ? "[" : "[...]";
        for (size_t d = 0; t.rank_known && d < t.dims.size(); ++d)
          dims += (d ? "," : "") + (t.dims[d] < 0 ? std::string("?") : std::to_string(t.dims[d]));
        if (t.rank_known) dims += "]";
        types += " " + o + ": " + (t.dtype == DataType::kInvalid ? "?" : dtype_name(t.dtype)) + dims;
      }
      log_debug("onnx: %s ->%s%s", impl.label.c_str(), types.c_str(), impl.failed.count(n.outputs.empty() ? "" : n.outputs[0]) ? " (not imported)" : "");
    }
  }
}

// Counts the readers of each value name, subgraphs' nodes included (a
// branch reads outer values by name).
void count_uses(const std::vector<Node>& nodes, std::unordered_map<std::string, int>& uses) {
  for (const Node& n : nodes) {
    for (const std::string& i : n.inputs)
      if (!i.empty()) uses[i]++;
    for (const Attribute& a : n.attributes)
      if (a.g) {
        count_uses(a.g->nodes, uses);
        for (const ValueInfo& o : a.g->outputs) uses[o.name]++;
      }
  }
}

Status convert_model(const Model& m, ConvertResult& result) {
  Converter::Impl impl(m, nullptr, &m.value_info);
  auto problem = [&](const std::string& msg) { impl.problems.push_back(msg); };
  if (m.opset < 1 || m.opset > kMaxOpset) {
    problem(m.opset < 1
                ? std::string("model: it imports no opset of the default ONNX domain")
                : str_format("model: opset %lld of the default ONNX domain is newer than the importer knows (it reads "
                             "opsets 1 to %d; an operator may have changed since: convert the model with "
                             "onnx.version_converter)",
                             static_cast<long long>(m.opset), kMaxOpset));
  } else {
    for (const Tensor& t : m.initializers) impl.constants[t.name] = &t;
    for (const ValueInfo& in : m.inputs) {
      if (in.dtype == DataType::kInvalid) {
        problem(str_format("graph input '%s': its type %s is not a tensor type libops supports", in.name.c_str(),
                           in.onnx_type ? onnx_type_name(in.onnx_type) : "(not a tensor)"));
        impl.failed.insert(in.name);
        continue;
      }
      LVar v;
      v.id = impl.next_id++;
      v.name = in.name;
      impl.names.insert(in.name);
      v.placeholder = in;
      impl.probe_placeholder(v);
      impl.vars.push_back(v);
      if (in.value_kind != 0)  // Note [Run-time sequences]
        impl.run_lists[in.name] = Converter::Impl::RunList{Value{v.id, 0}, static_cast<ValueKind>(in.value_kind)};
      else
        impl.values[in.name] = Value{v.id, 0};
      if (in.lowp != 0) impl.lowp_of[in.name] = in.lowp;  // Note [Low-precision values]
      impl.constants.erase(in.name);
    }
    count_uses(m.nodes, impl.uses);
    for (const ValueInfo& o : m.outputs) impl.uses[o.name]++;
    impl.onnx_outputs = &m.outputs;
    convert_nodes(impl, m.nodes, m.opset);
    for (const ValueInfo& o : m.outputs)
      if (!impl.values.count(o.name) && !impl.failed.count(o.name)) {
        if (impl.sequences.count(o.name) || impl.optionals.count(o.name) || impl.stacked.count(o.name) ||
            impl.run_lists.count(o.name)) {
          Converter::Impl::RunList r;  // Note [Run-time sequences]
          std::string why;
          if (impl.run_value(o.name, &o, r, why))
            impl.values[o.name] = r.value;
          else
            problem(str_format("graph output '%s': %s", o.name.c_str(), why.c_str()));
        } else if (impl.constants.count(o.name)) {
          impl.values[o.name] = impl.lookup(o.name);
        } else {
          problem(str_format("graph output '%s' is not computed by any node", o.name.c_str()));
        }
      }
  }
  result.problems = impl.problems;
  if (!impl.problems.empty()) {
    if (impl.problems.size() == 1)
      return Status::error(StatusCode::kNotImplemented, "onnx: %s", impl.problems[0].c_str());
    return Status::error(StatusCode::kNotImplemented,
                         "onnx: %s (and %zu more problems; ops-run --list-unsupported lists them all)",
                         impl.problems[0].c_str(), impl.problems.size() - 1);
  }
  std::vector<std::pair<std::string, Value>> outputs;
  for (const ValueInfo& o : m.outputs) {
    auto it = impl.values.find(o.name);
    if (it != impl.values.end()) outputs.emplace_back(o.name, it->second);
  }
  return result.lops.adopt(write_graph(impl.vars, impl.nodes, 0, outputs, true, &impl.subgraphs));
}

}  // namespace

namespace {

// The names a subgraph reads from the graphs around it, in order of first
// use, nested subgraphs included; `seen` collects them over both branches.
void free_names(const SubGraph& g, std::vector<std::string>& out, std::unordered_set<std::string>& seen) {
  std::unordered_set<std::string> defined;
  for (const Tensor& t : g.initializers) defined.insert(t.name);
  for (const ValueInfo& i : g.inputs) defined.insert(i.name);
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) out.push_back(name);
  };
  for (const Node& n : g.nodes) {
    for (const std::string& i : n.inputs) use(i);
    for (const Attribute& a : n.attributes)
      if (a.g) {
        std::vector<std::string> inner;
        std::unordered_set<std::string> inner_seen;
        free_names(*a.g, inner, inner_seen);
        for (const std::string& x : inner) use(x);
      }
    for (const std::string& o : n.outputs)
      if (!o.empty()) defined.insert(o);
  }
  for (const ValueInfo& o : g.outputs) use(o.name);
}

}  // namespace

namespace {

// Note [Import-time shapes] for an If's outputs: known as far as both
// branches agree. Same dtype and rank: an extent both give alike under every
// probe is known, one they give differently is a new unknown extent (probed
// like a placeholder's). Same dtype, other ranks (PyTorch's exporter writes
// a Squeeze in one branch and an Identity in the other): the dtype alone.
void merge_branch_types(Converter::Impl& host, int64_t id, const Converter::Impl& then_b,
                        const Converter::Impl& else_b) {
  const size_t n = then_b.body_outputs.size();
  if (else_b.body_outputs.size() != n) return;
  std::vector<Probed> merged(n);
  std::vector<DataType> dtypes(n, DataType::kInvalid);
  bool any_probed = false, any_dtype = false;
  auto probed_of = [](const Converter::Impl& b, Value v) -> const Probed* {
    auto it = b.probed.find(v.id);
    if (it == b.probed.end() || v.output >= it->second.size() || it->second[v.output].dtype == DataType::kInvalid)
      return nullptr;
    return &it->second[v.output];
  };
  for (size_t k = 0; k < n; ++k) {
    const Value tv = then_b.body_outputs[k].second, ev = else_b.body_outputs[k].second;
    const std::string& tn = then_b.body_outputs[k].first;
    const std::string& en = else_b.body_outputs[k].first;
    const ValueType tt = then_b.type_of(tn), et = else_b.type_of(en);
    if (tt.dtype == DataType::kInvalid || tt.dtype != et.dtype) continue;
    dtypes[k] = tt.dtype;
    any_dtype = true;
    const Probed* a = probed_of(then_b, tv);
    const Probed* b = probed_of(else_b, ev);
    if (a == nullptr || b == nullptr) continue;
    Probed m;
    m.dtype = a->dtype;
    for (int p = 0; p < kNumProbes; ++p) {
      if (!a->ok[p] || !b->ok[p] || a->dims[p].size() != b->dims[p].size()) continue;
      m.ok[p] = true;
      m.dims[p] = a->dims[p];
      for (int d = 0; d < m.dims[p].size(); ++d)
        if (a->dims[p][d] != b->dims[p][d]) m.dims[p][d] = kProbeExtents[p];
    }
    // Both branches must agree on the rank under every probe that reached both.
    bool same_rank = probes_known(m.ok);
    int first = -1;
    for (int p = 0; p < kNumProbes && same_rank; ++p) {
      if (!m.ok[p]) continue;
      if (first < 0) first = p;
      same_rank = m.dims[p].size() == m.dims[first].size();
    }
    if (!same_rank) continue;
    merged[k] = m;
    any_probed = true;
  }
  if (any_probed) host.probed[id] = merged;
  if (any_dtype) host.dtype_only[id] = dtypes;
}

}  // namespace

namespace {

// Note [Low-precision values]: a loop's results carry no format, so a body
// that gives one (a Cast to float8 inside it) is refused rather than its
// bytes read as numbers after the loop.
Status refuse_low_precision_output(Converter& c, const Converter::Impl& body, const std::string& name) {
  auto it = body.lowp_of.find(name);
  if (it == body.lowp_of.end() || it->second == 0) return Status::ok();
  return c.fail(str_format("body output '%s' is %s; loops over float8, float4, int4 and int2 values are not "
                           "supported", name.c_str(), onnx_type_name(lowp_onnx_type(it->second))));
}

}  // namespace

// If: both branches become libops subgraphs of their own (Note [Subgraphs]
// in schemas/graph.fbs). ONNX branches read outer values by name; libops
// subgraphs see only what is passed in, so every outer value a branch reads
// that is not a constant becomes an argument of the If node, in the same
// order for both branches (constants are copied into the branch).
namespace {

// Note [Sequences grown in loops]: an import-time sequence that a subgraph
// reads goes in as one value, its elements stacked along a new axis 0
// (once per sequence, whichever subgraphs read it), and the subgraph reads
// it as a stacked sequence. Its elements must share one shape (the stack
// fails at run time, naming the node, where they do not).
Status stack_captured_lists(Converter& c, Converter::Impl& outer, const std::vector<std::string>& captured) {
  for (const std::string& name : captured) {
    auto it = outer.sequences.find(name);
    if (it == outer.sequences.end() || outer.lists_stacked.count(name)) continue;
    if (it->second.empty())
      return c.fail("a subgraph reads the empty sequence '" + name + "', whose element type is not known here");
    OpCall stack = c.op("stack");
    for (Value v : it->second) stack.in(v);
    const Value stacked = stack.arg("axis", int64_t{0}).emit1();
    if (!stacked.valid()) return c.fail("the sequence '" + name + "' could not be stacked for the subgraph reading it");
    outer.lists_stacked[name] = stacked;
  }
  return Status::ok();
}

}  // namespace

Status map_if(Converter& c) {
  Converter::Impl& outer = ConverterAccess::impl(c);
  const Node& node = c.node();
  const Attribute* then_a = ConverterAccess::read_attr(c, "then_branch");
  const Attribute* else_a = ConverterAccess::read_attr(c, "else_branch");
  if (then_a == nullptr || !then_a->g || else_a == nullptr || !else_a->g)
    return c.fail("then_branch and else_branch must both be graphs");
  std::vector<std::string> captured;
  std::unordered_set<std::string> seen;
  free_names(*then_a->g, captured, seen);
  free_names(*else_a->g, captured, seen);
  RETURN_IF_ERROR(stack_captured_lists(c, outer, captured));
  std::vector<std::string> args;
  for (const std::string& name : captured) {
    if (outer.capturable(name)) {
      args.push_back(name);
    } else if (!outer.constants.count(name)) {
      return c.fail("a branch reads '" + name + "', which " +
                    (outer.failed.count(name) ? "could not be imported" : "nothing before it defines"));
    }
  }
  if (then_a->g->outputs.size() != else_a->g->outputs.size())
    return c.fail(str_format("the branches give %zu and %zu outputs", then_a->g->outputs.size(),
                             else_a->g->outputs.size()));
  // ONNX's condition is any one-element bool tensor; libops' a scalar.
  Value cond = c.op("reshape").in(c.input(0)).arg("shape", std::vector<int64_t>{}).emit1();
  if (!cond.valid()) return c.fail("the condition could not be made a scalar");
  int index[2] = {0, 0};
  bool failed = false;
  std::vector<ValueKind> out_kinds[2];  // what each branch's outputs are
  for (int b = 0; b < 2; ++b) {
    const SubGraph& g = *(b == 0 ? then_a : else_a)->g;
    const char* which = b == 0 ? "then_branch" : "else_branch";
    auto sub = std::make_unique<Converter::Impl>(outer.model, &outer, nullptr);
    sub->own_info = *outer.info;
    sub->lowp_of = outer.lowp_of;  // captured values keep their format
    for (const auto& kv : g.value_info) sub->own_info[kv.first] = kv.second;
    for (const ValueInfo& o : g.outputs) sub->own_info[o.name] = o;
    sub->info = &sub->own_info;
    sub->where = str_format(" in %s of node %d '%s'%s", which, node.index, node.name.c_str(), outer.where.c_str());
    sub->body_name = (node.name.empty() ? std::string("if") : node.name) + "/" + which;
    if (!g.inputs.empty()) return c.fail(std::string(which) + " has inputs; an If branch takes none");
    for (const Tensor& t : g.initializers) sub->constants[t.name] = &t;
    for (const std::string& name : captured)
      if (!outer.capturable(name)) sub->constants[name] = outer.constants.at(name);
    for (const std::string& name : args) {
      LVar v;
      v.id = sub->next_id++;
      v.name = name;
      sub->names.insert(name);
      v.placeholder = outer.captured_info(name);
      if (v.placeholder.dtype == DataType::kInvalid && v.placeholder.value_kind == 0)
        return c.fail("the dtype of '" + name + "', which a branch reads, is not known");
      sub->probe_placeholder(v);
      sub->vars.push_back(v);
      sub->bind_captured(outer, name, Value{v.id, 0});
    }
    count_uses(g.nodes, sub->uses);
    for (const ValueInfo& o : g.outputs) sub->uses[o.name]++;
    sub->onnx_outputs = &g.outputs;
    const size_t before = outer.problems.size();
    convert_nodes(*sub, g.nodes, c.opset());
    for (const ValueInfo& o : g.outputs) {
      // Note [Run-time sequences]: a sequence or optional leaves the branch
      // as a run-time list.
      Converter::Impl::RunList r;
      std::string why;
      const bool ok = !sub->failed.count(o.name) && sub->run_value(o.name, &o, r, why);
      if (ok) {
        sub->body_outputs.emplace_back(o.name, r.value);
        out_kinds[b].push_back(r.kind);
      } else if (!sub->failed.count(o.name)) {
        outer.problems.push_back(outer.label + ": " + which + " output '" + o.name + "': " + why);
      }
    }
    if (outer.problems.size() != before || sub->body_outputs.size() != g.outputs.size()) failed = true;
    outer.root->subgraphs.push_back(std::move(sub));
    index[b] = static_cast<int>(outer.root->subgraphs.size()) - 1;
  }
  if (failed) return Status::error(StatusCode::kNotImplemented, "a branch could not be imported");
  // Note [Low-precision values]: an output holds a format when both
  // branches give it; bytes from one branch and numbers from the other
  // would be read alike.
  std::vector<int> out_lowp;
  for (size_t k = 0; k < then_a->g->outputs.size(); ++k) {
    int lowp[2];
    for (int b = 0; b < 2; ++b) {
      const Converter::Impl& br = *outer.root->subgraphs[static_cast<size_t>(index[b])];
      const std::string& name = (b == 0 ? then_a : else_a)->g->outputs[k].name;
      auto it = br.lowp_of.find(name);
      lowp[b] = it == br.lowp_of.end() ? (br.constants.count(name) ? br.constants.at(name)->lowp : 0) : it->second;
    }
    if (lowp[0] != lowp[1])
      return c.fail(str_format("output %zu is %s in then_branch and %s in else_branch", k,
                               lowp[0] ? onnx_type_name(lowp_onnx_type(lowp[0])) : "not low-precision",
                               lowp[1] ? onnx_type_name(lowp_onnx_type(lowp[1])) : "not low-precision"));
    out_lowp.push_back(lowp[0]);
  }
  LNode n;
  n.id = outer.next_id++;
  n.name = node.name.empty() ? "If_" + std::to_string(node.index) : node.name;
  n.is_if = true;
  n.branch_a = index[0];
  n.branch_b = index[1];
  n.inputs.push_back(cond);
  for (const std::string& name : args) n.inputs.push_back(outer.captured_value(name));
  n.num_outputs = static_cast<uint32_t>(then_a->g->outputs.size());
  const int64_t id = n.id;
  outer.nodes.push_back(std::move(n));
  merge_branch_types(outer, id, *outer.root->subgraphs[static_cast<size_t>(index[0])],
                     *outer.root->subgraphs[static_cast<size_t>(index[1])]);
  for (int k = 0; k < c.num_outputs(); ++k) {
    const ValueKind a = out_kinds[0][static_cast<size_t>(k)], b = out_kinds[1][static_cast<size_t>(k)];
    if (a != ValueKind::kTensor || b != ValueKind::kTensor) {  // Note [Run-time sequences]
      if (kind_is_list(a) != kind_is_list(b))
        return c.fail(str_format("output %d is a %s in then_branch and a %s in else_branch", k, value_kind_name(a),
                                 value_kind_name(b)));
      const bool optional = kind_is_optional(a) || kind_is_optional(b);
      c.set_output_run_list(k, Value{id, static_cast<uint32_t>(k)},
                            kind_is_list(a) ? (optional ? ValueKind::kOptionalSequence : ValueKind::kSequence)
                                            : ValueKind::kOptionalTensor);
      continue;
    }
    c.set_output(k, Value{id, static_cast<uint32_t>(k)});
    if (static_cast<size_t>(k) < out_lowp.size()) c.set_output_lowp(k, out_lowp[static_cast<size_t>(k)]);
  }
  return Status::ok();
}

namespace {

// A placeholder of a subgraph body.
Value add_placeholder(Converter::Impl& sub, const std::string& name, const ValueInfo& type) {
  LVar v;
  v.id = sub.next_id++;
  v.name = sub.unique_name(name);
  v.placeholder = type;
  v.placeholder.name = v.name;
  sub.probe_placeholder(v);
  sub.vars.push_back(v);
  return Value{v.id, 0};
}

// A loop's condition or body subgraph (Loop, SequenceMap): the outer
// graph's types and those the ONNX body `g` declares (its value_info, and
// `declared`), named "<base>/<which>".
std::unique_ptr<Converter::Impl> loop_subgraph(Converter::Impl& outer, const Node& node, const SubGraph& g,
                                               const std::vector<ValueInfo>& declared, const std::string& base,
                                               const char* which) {
  auto sub = std::make_unique<Converter::Impl>(outer.model, &outer, nullptr);
  sub->own_info = *outer.info;
  sub->lowp_of = outer.lowp_of;  // captured values keep their format
  for (const auto& kv : g.value_info) sub->own_info[kv.first] = kv.second;
  for (const ValueInfo& v : declared) sub->own_info[v.name] = v;
  sub->info = &sub->own_info;
  sub->where = str_format(" in the body of node %d '%s'%s", node.index, node.name.c_str(), outer.where.c_str());
  sub->body_name = base + "/" + which;
  return sub;
}

// What `build` emits into `sub`, as part of mapping `node`.
Value emit_in(Converter::Impl& sub, const Node& node, int64_t opset, const std::function<Value(Converter&)>& build) {
  Converter c(sub);
  ConverterAccess::begin(c, node, opset);
  return build(c);
}

// A While node over `init`: `cond` and `body` join the root's subgraphs.
// Returns its id.
int64_t emit_while(Converter::Impl& outer, std::unique_ptr<Converter::Impl> cond,
                   std::unique_ptr<Converter::Impl> body, const std::vector<Value>& init, uint32_t scan_outputs,
                   const std::string& name) {
  outer.root->subgraphs.push_back(std::move(cond));
  const int cond_index = static_cast<int>(outer.root->subgraphs.size()) - 1;
  outer.root->subgraphs.push_back(std::move(body));
  LNode n;
  n.id = outer.next_id++;
  n.name = name;
  n.is_while = true;
  n.branch_a = cond_index;
  n.branch_b = cond_index + 1;
  n.inputs = init;
  n.scan_outputs = scan_outputs;
  n.num_outputs = static_cast<uint32_t>(init.size()) + scan_outputs;
  const int64_t id = n.id;
  outer.nodes.push_back(std::move(n));
  return id;
}

ValueInfo scalar_type(DataType t) {
  ValueInfo v;
  v.dtype = t;
  v.rank_known = true;
  return v;
}

// Note [Import-time shapes] for a While's scan outputs: a body value's
// probed type with the iteration axis in front, probed like any extent only
// known at run time. Unknown (kInvalid) where the body's value is.
std::vector<Probed> stacked_types(const Converter::Impl& body, const std::vector<Value>& values) {
  std::vector<Probed> out(values.size());
  for (size_t k = 0; k < values.size(); ++k) {
    auto it = body.probed.find(values[k].id);
    if (it == body.probed.end() || values[k].output >= it->second.size()) continue;
    const Probed& piece = it->second[values[k].output];
    if (piece.dtype == DataType::kInvalid) continue;
    Probed p;
    p.dtype = piece.dtype;
    for (int probe = 0; probe < kNumProbes; ++probe) {
      if (!piece.ok[probe] || piece.dims[probe].size() >= kMaxRank) continue;
      p.dims[probe].push_back(kProbeExtents[probe]);
      for (int d = 0; d < piece.dims[probe].size(); ++d) p.dims[probe].push_back(piece.dims[probe][d]);
      p.ok[probe] = strides_fit(p.dims[probe]);
    }
    if (probes_known(p.ok)) out[k] = p;
  }
  return out;
}

// Records `types` as the probed types of While node `id`'s outputs from
// `first` on (its scan outputs); its other outputs stay unknown.
void set_stacked_types(Converter::Impl& host, int64_t id, size_t first, const std::vector<Probed>& types) {
  std::vector<Probed> all(first + types.size());
  bool any = false;
  for (size_t k = 0; k < types.size(); ++k) {
    all[first + k] = types[k];
    any = any || types[k].dtype != DataType::kInvalid;
  }
  if (any) host.probed[id] = std::move(all);
}

// Note [Sequences grown in loops]
//  PyTorch's exporter writes a list appended to in a loop (then stacked or
//  concatenated: torch.stack, torch.cat) as a Loop-carried sequence:
//  SequenceEmpty before the Loop, SequenceInsert(seq, x) at the end in the
//  body, ConcatFromSequence after it. Its length is the trip count, known
//  only at run time, so it cannot be an import-time sequence (Note
//  [Import-time sequences] in onnx_convert.h). But its elements are the
//  body's x of every iteration, in order: a scan output. So a carried
//  value that the body only appends to (its body input read by one
//  SequenceInsert without a position, whose result nothing but the body
//  output reads), and that is an import-time sequence before the loop,
//  becomes a scan output of the While, stacked by the executor along a new
//  axis 0; the Loop's final sequence is then a stacked sequence: its
//  elements are that value's slices along axis 0 (after the elements it
//  held before the loop, stacked in front). SplitToSequence into pieces of
//  one along an axis whose extent is known only at run time (`for x_t in
//  x.unbind(0)`) makes one too: x with that axis moved to the front.
//  ConcatFromSequence (a transpose, and a reshape where it concatenates),
//  SequenceLength (the first extent) and SequenceAt (a gather along axis 0,
//  the position known at run time) read one, in the graph that made it or
//  in an If branch or Loop body that reads it (passed in as its stacked
//  value, as an import-time sequence such a subgraph reads is: its elements
//  stacked); any other reader and a graph output refuse it by name. Its
//  elements must share one shape, which the executor checks as it stacks
//  (ONNX lets them differ: such a model fails at run time, naming the
//  output); after zero iterations the stack is empty where the body's
//  shapes tell its element shape, and the run fails naming it where they
//  do not.
struct AppendedSequence {
  int carried = 0;               // index among the loop-carried values
  std::string element;           // the body value appended each iteration
  const Node* insert = nullptr;  // the body's SequenceInsert
};

// Whether what reads the Loop's final sequence `name` in the graph around it
// takes a stacked sequence: ConcatFromSequence, SequenceLength, SequenceAt
// (not a graph output, an insert, ...).
bool stacked_readers_only(const Converter::Impl& outer, const std::string& name) {
  if (name.empty()) return true;
  if (outer.onnx_outputs != nullptr)
    for (const ValueInfo& o : *outer.onnx_outputs)
      if (o.name == name) return false;
  if (outer.onnx_nodes != nullptr)
    for (const Node& n : *outer.onnx_nodes)
      if (std::find(n.inputs.begin(), n.inputs.end(), name) != n.inputs.end() && n.op_type != "ConcatFromSequence" &&
          n.op_type != "SequenceLength" && n.op_type != "SequenceAt")
        return false;
  return true;
}

std::vector<AppendedSequence> appended_sequences(Converter& c, const Converter::Impl& outer, const SubGraph& g,
                                                 int n_carried) {
  std::vector<AppendedSequence> out;
  std::unordered_map<std::string, int> uses;
  count_uses(g.nodes, uses);
  for (int k = 0; k < n_carried; ++k) {
    if (!c.has_input(2 + k)) continue;
    if (!outer.sequences.count(c.node().inputs[static_cast<size_t>(2 + k)])) continue;
    const std::string& in = g.inputs[static_cast<size_t>(2 + k)].name;
    const std::string& next = g.outputs[static_cast<size_t>(1 + k)].name;
    if (in.empty() || next.empty()) continue;
    const Node* insert = nullptr;
    for (const Node& n : g.nodes)
      if (std::find(n.outputs.begin(), n.outputs.end(), next) != n.outputs.end()) insert = &n;
    if (insert == nullptr || insert->op_type != "SequenceInsert" ||
        (!insert->domain.empty() && insert->domain != "ai.onnx") || insert->inputs.size() < 2 ||
        insert->inputs[0] != in || insert->inputs[1].empty() ||
        (insert->inputs.size() > 2 && !insert->inputs[2].empty()))
      continue;
    int as_output = 0;  // body outputs naming either value
    for (const ValueInfo& o : g.outputs) as_output += o.name == next || o.name == in;
    auto count = [&](const std::string& name) {
      auto it = uses.find(name);
      return it == uses.end() ? 0 : it->second;
    };
    if (count(in) != 1 || count(next) != 0 || as_output != 1) continue;
    if (!stacked_readers_only(outer, c.node().outputs.size() > static_cast<size_t>(k)
                                         ? c.node().outputs[static_cast<size_t>(k)] : std::string()))
      continue;  // a run-time list serves it (Note [Run-time sequences])
    out.push_back({k, insert->inputs[1], insert});
  }
  return out;
}

}  // namespace

// Loop: a libops While node over the loop-carried values [iteration, trip
// limit, condition, v..., outer values read...]. The condition subgraph is
// iteration < limit && condition; the body subgraph is the ONNX body, plus
// iteration + 1 and the limit and the outer values passed through
// unchanged. The body's scan outputs become the While's scan outputs
// (WhileOp.scan_outputs), which the executor stacks along a new axis 0 as
// ONNX does.
Status map_loop(Converter& c) {
  Converter::Impl& outer = ConverterAccess::impl(c);
  const Node& node = c.node();
  const Attribute* body_a = ConverterAccess::read_attr(c, "body");
  if (body_a == nullptr || !body_a->g) return c.fail("attribute 'body' must be a graph");
  const SubGraph& g = *body_a->g;
  const int n_carried = c.num_inputs() - 2;
  if (n_carried < 0 || static_cast<int>(g.inputs.size()) != n_carried + 2 ||
      static_cast<int>(g.outputs.size()) < n_carried + 1)
    return c.fail(str_format("the body takes %zu inputs and gives %zu outputs for %d loop-carried values",
                             g.inputs.size(), g.outputs.size(), n_carried));
  const int n_scan = static_cast<int>(g.outputs.size()) - n_carried - 1;
  // Note [Sequences grown in loops]: carried sequences the body only
  // appends to become scan outputs; `kept` are the other carried values.
  const std::vector<AppendedSequence> appended = appended_sequences(c, outer, g, n_carried);
  std::vector<int> kept;
  for (int k = 0; k < n_carried; ++k)
    if (std::none_of(appended.begin(), appended.end(), [&](const AppendedSequence& a) { return a.carried == k; }))
      kept.push_back(k);
  const int n_kept = static_cast<int>(kept.size());
  std::vector<Node> body_nodes;  // the body without the appending nodes, where there are any
  if (!appended.empty())
    for (const Node& n : g.nodes)
      if (std::none_of(appended.begin(), appended.end(), [&](const AppendedSequence& a) { return a.insert == &n; }))
        body_nodes.push_back(n);
  const std::vector<Node>& nodes = appended.empty() ? g.nodes : body_nodes;
  std::vector<std::string> captured, args;
  std::unordered_set<std::string> seen;
  free_names(g, captured, seen);
  RETURN_IF_ERROR(stack_captured_lists(c, outer, captured));
  for (const std::string& name : captured) {
    if (outer.capturable(name)) args.push_back(name);
    else if (!outer.constants.count(name))
      return c.fail("the body reads '" + name + "', which " +
                    (outer.failed.count(name) ? "could not be imported" : "nothing before it defines"));
  }
  // Initial values.
  std::vector<Value> init;
  init.push_back(c.constant_ints({0}, false));
  init.push_back(c.has_input(0) ? c.op("reshape").in(c.input(0)).arg("shape", std::vector<int64_t>{}).emit1()
                                : c.constant_ints({std::numeric_limits<int64_t>::max()}, false));
  if (c.has_input(1)) {
    init.push_back(c.op("reshape").in(c.input(1)).arg("shape", std::vector<int64_t>{}).emit1());
  } else {
    Tensor t;
    t.dtype = DataType::kBool;
    t.onnx_type = 9;
    t.data = {1};
    init.push_back(c.constant(std::move(t)));
  }
  std::vector<ValueInfo> carried_types;
  std::vector<std::vector<Value>> appended_before;  // each appended sequence's elements before the loop
  for (const AppendedSequence& a : appended) {
    appended_before.emplace_back();
    c.input_sequence(2 + a.carried, appended_before.back());
  }
  for (int k : kept) {
    ValueInfo t = g.inputs[static_cast<size_t>(2 + k)];
    const std::string& in = node.inputs[static_cast<size_t>(2 + k)];
    if (!in.empty() && (outer.sequences.count(in) || outer.stacked.count(in) || outer.optionals.count(in) ||
                        outer.run_lists.count(in))) {
      // Note [Run-time sequences]: a carried sequence or optional (not only
      // appended to) is a run-time list, of the kind the body declares.
      Value v;
      ValueKind kind;
      if (!c.input_as_run_list(2 + k, v, kind))
        return Status::error(StatusCode::kNotImplemented, "a carried sequence could not be made a run-time list");
      init.push_back(v);
      if (t.value_kind == 0 || (kind_is_list(kind) != (t.value_kind == 1 || t.value_kind == 3))) {
        t = ValueInfo{};
        t.value_kind = static_cast<int>(kind);
      } else if (kind_is_optional(kind) && !kind_is_optional(static_cast<ValueKind>(t.value_kind))) {
        t.value_kind = static_cast<int>(kind);
      }
      // The elements' shapes may change between iterations, whatever the
      // body declares: only their dtype is checked.
      t.rank_known = false;
      t.dims.clear();
      t.dim_params.clear();
      carried_types.push_back(t);
      continue;
    }
    init.push_back(c.input(2 + k));
    if (t.dtype == DataType::kInvalid) t = outer.info_of(in);
    if (t.dtype == DataType::kInvalid)
      return c.fail(str_format("the dtype of loop-carried value %d is not known", k));
    carried_types.push_back(t);
  }
  std::vector<ValueInfo> captured_types;
  for (const std::string& name : args) {
    ValueInfo t = outer.captured_info(name);
    if (t.dtype == DataType::kInvalid && t.value_kind == 0)
      return c.fail("the dtype of '" + name + "', which the body reads, is not known");
    captured_types.push_back(t);
    init.push_back(outer.captured_value(name));
  }
  for (const Value& v : init)
    if (!v.valid()) return c.fail("the loop's initial values could not be made");
  const std::string base = node.name.empty() ? "loop" : node.name;
  auto make_sub = [&](const char* which) { return loop_subgraph(outer, node, g, g.outputs, base, which); };
  // Both subgraphs take every loop variable, in order.
  auto add_vars = [&](Converter::Impl& sub, std::vector<Value>& vars, bool body) {
    const auto name_or = [&](size_t k, const char* fallback) {
      return body && !g.inputs[k].name.empty() ? g.inputs[k].name : std::string(fallback);
    };
    vars.push_back(add_placeholder(sub, name_or(0, "iteration"), scalar_type(DataType::kInt64)));
    vars.push_back(add_placeholder(sub, "trip_limit", scalar_type(DataType::kInt64)));
    vars.push_back(add_placeholder(sub, name_or(1, "condition"), scalar_type(DataType::kBool)));
    for (int j = 0; j < n_kept; ++j) {
      const int k = kept[static_cast<size_t>(j)];
      const std::string name = body ? g.inputs[static_cast<size_t>(2 + k)].name : str_format("v%d", k);
      vars.push_back(add_placeholder(sub, name, carried_types[static_cast<size_t>(j)]));
    }
    for (size_t k = 0; k < args.size(); ++k) vars.push_back(add_placeholder(sub, args[k], captured_types[k]));
  };
  // The condition.
  auto cond_sub = make_sub("cond");
  std::vector<Value> cvars;
  add_vars(*cond_sub, cvars, false);
  const Value go = emit_in(*cond_sub, node, c.opset(), [&](Converter& cc) {
    return cc.op("logical_and").in(cc.op("less").in(cvars[0]).in(cvars[1]).emit1()).in(cvars[2]).emit1();
  });
  if (!go.valid()) return c.fail("the loop condition could not be built");
  cond_sub->body_outputs.emplace_back("go", go);
  // The body.
  auto body_sub = make_sub("body");
  std::vector<Value> bvars;
  add_vars(*body_sub, bvars, true);
  auto bind = [&](size_t input, size_t var, int kind) {
    const std::string& name = g.inputs[input].name;
    if (name.empty()) return;
    if (kind != 0)  // Note [Run-time sequences]
      body_sub->run_lists[name] = Converter::Impl::RunList{bvars[var], static_cast<ValueKind>(kind)};
    else
      body_sub->values[name] = bvars[var];
  };
  bind(0, 0, 0);
  bind(1, 2, 0);
  for (int j = 0; j < n_kept; ++j)
    bind(static_cast<size_t>(2 + kept[static_cast<size_t>(j)]), static_cast<size_t>(3 + j),
         carried_types[static_cast<size_t>(j)].value_kind);
  for (size_t k = 0; k < args.size(); ++k)
    body_sub->bind_captured(outer, args[k], bvars[static_cast<size_t>(3 + n_kept) + k]);
  body_sub->onnx_outputs = &g.outputs;
  for (const Tensor& t : g.initializers) body_sub->constants[t.name] = &t;
  for (const std::string& name : captured)
    if (!outer.capturable(name)) body_sub->constants[name] = outer.constants.at(name);
  count_uses(nodes, body_sub->uses);
  for (const ValueInfo& o : g.outputs) body_sub->uses[o.name]++;
  for (const AppendedSequence& a : appended) body_sub->uses[a.element]++;
  const size_t before = outer.problems.size();
  convert_nodes(*body_sub, nodes, c.opset());
  if (outer.problems.size() != before) return Status::error(StatusCode::kNotImplemented, "the body could not be imported");
  std::vector<Value> outs{emit_in(*body_sub, node, c.opset(), [&](Converter& bc) {
    return bc.op("add").in(bvars[0]).in(bc.constant_ints({1}, false)).emit1();  // the next iteration
  })};
  outs.push_back(bvars[1]);
  std::vector<int> next_outputs{0};  // the condition, then each kept value's next value
  for (int k : kept) next_outputs.push_back(1 + k);
  for (int k : next_outputs) {
    const std::string& name = g.outputs[static_cast<size_t>(k)].name;
    Converter::Impl::RunList r;  // a carried sequence leaves as a run-time list
    std::string why;
    if (body_sub->failed.count(name) || !body_sub->run_value(name, &g.outputs[static_cast<size_t>(k)], r, why))
      return c.fail("body output '" + name + "': " + (why.empty() ? "could not be imported" : why));
    const Value v = r.value;
    RETURN_IF_ERROR(refuse_low_precision_output(c, *body_sub, name));
    outs.push_back(v);
  }
  for (size_t k = 0; k < args.size(); ++k) outs.push_back(bvars[static_cast<size_t>(3 + n_kept) + k]);
  std::vector<Value> scan_values;
  std::vector<std::string> scan_names;
  for (int k = 0; k < n_scan; ++k) scan_names.push_back(g.outputs[static_cast<size_t>(1 + n_carried + k)].name);
  for (const AppendedSequence& a : appended) scan_names.push_back(a.element);
  for (const std::string& name : scan_names) {
    Value v = body_sub->failed.count(name) ? Value{} : body_sub->lookup(name);
    if (!v.valid()) return c.fail("body scan output '" + name + "' is not computed by any node");
    scan_values.push_back(v);
  }
  for (size_t k = 0; k < outs.size(); ++k)
    body_sub->body_outputs.emplace_back(k < bvars.size() ? body_sub->vars[k].name + "_next" : "out", outs[k]);
  for (size_t k = 0; k < scan_values.size(); ++k)
    body_sub->body_outputs.emplace_back(
        str_format(k < static_cast<size_t>(n_scan) ? "%s (scan %zu)" : "%s (appended, scan %zu)", scan_names[k].c_str(), k),
        scan_values[k]);
  const std::vector<Probed> scan_types = stacked_types(*body_sub, scan_values);
  const int64_t id = emit_while(outer, std::move(cond_sub), std::move(body_sub), init,
                                static_cast<uint32_t>(scan_values.size()), base);
  set_stacked_types(outer, id, init.size(), scan_types);
  for (int j = 0; j < n_kept; ++j) {
    const Value out{id, static_cast<uint32_t>(3 + j)};
    const int kind = carried_types[static_cast<size_t>(j)].value_kind;
    if (kind != 0)
      c.set_output_run_list(kept[static_cast<size_t>(j)], out, static_cast<ValueKind>(kind));
    else
      c.set_output(kept[static_cast<size_t>(j)], out);
  }
  for (int k = 0; k < n_scan; ++k)
    c.set_output(n_carried + k, Value{id, static_cast<uint32_t>(init.size()) + static_cast<uint32_t>(k)});
  for (size_t q = 0; q < appended.size(); ++q) {
    Value stacked{id, static_cast<uint32_t>(init.size() + static_cast<size_t>(n_scan) + q)};
    const std::vector<Value>& before = appended_before[q];
    if (!before.empty()) {  // the elements it held before the loop come first
      OpCall stack = c.op("stack");
      for (Value v : before) stack.in(v);
      Value first = stack.arg("axis", int64_t{0}).emit1();
      stacked = c.op("concat").in(first).in(stacked).arg("axis", int64_t{0}).emit1();
      if (!stacked.valid()) return c.fail("the sequence's elements before the loop could not be stacked");
    }
    c.set_output_stacked_sequence(appended[q].carried, stacked);
  }
  return Status::ok();
}

// Note [Axes given at run time]
//  ONNX's DFT takes its axis as an input, which exporters write as a
//  constant but may compute. libops' transforms take their axes as args, and
//  the input's rank is known here, so such a node becomes a chain of If
//  nodes over the axes it may name, each branch the same node with that
//  axis as a constant (mapped as any other). The axis is first checked with
//  assert_true, so that one outside them fails the run naming the node
//  rather than transforming another axis. The chain is written as ONNX If
//  nodes and converted as the model's are.
Status map_by_axis_branches(Converter& c, int axis_input, int rank, int64_t first_axis, int64_t last_axis) {
  Converter::Impl& impl = ConverterAccess::impl(c);
  Converter::Impl& root = *impl.root;
  const Node& node = c.node();
  const std::string base = (node.name.empty() ? node.op_type + "_" + std::to_string(node.index) : node.name) + "/axis";
  for (const Attribute& a : node.attributes) c.ignore_attr(a.name.c_str());  // copied into each branch
  for (int k = 0; k < c.num_inputs(); ++k)
    if (c.has_input(k) && k != axis_input) (void)c.input(k);
  // norm = axis < 0 ? axis + rank : axis, checked to be in first .. last.
  const Value axis = c.op("reshape").in(c.input(axis_input)).arg("shape", std::vector<int64_t>{}).emit1();
  const Value as64 = c.op("cast").in(axis).arg("dtype", DataType::kInt64).emit1();
  const Value negative = c.op("less").in(as64).in(c.constant_ints({0}, false)).emit1();
  const Value norm = c.op("where").in(negative).in(c.op("add").in(as64).in(c.constant_ints({rank}, false)).emit1())
                         .in(as64).emit1();
  const Value ok = c.op("logical_and")
                       .in(c.op("greater_equal").in(norm).in(c.constant_ints({first_axis}, false)).emit1())
                       .in(c.op("less_equal").in(norm).in(c.constant_ints({last_axis}, false)).emit1())
                       .emit1();
  const Value axis_ok = c.checked(ok, norm, str_format("axis must be a signal axis, %lld .. %lld or %lld .. %lld",
                                                       static_cast<long long>(first_axis - rank),
                                                       static_cast<long long>(last_axis - rank),
                                                       static_cast<long long>(first_axis),
                                                       static_cast<long long>(last_axis)));
  if (!axis_ok.valid()) return Status::error(StatusCode::kNotImplemented, "the axis check");
  const std::vector<Value> checked{axis_ok};
  // The branch for axis a: the node with that axis as a constant.
  auto branch_for = [&](int64_t a, const std::string& out) {
    auto g = std::make_shared<SubGraph>();
    g->name = base + std::to_string(a);
    Tensor t;
    t.name = base + std::to_string(a) + "/value";
    t.dtype = DataType::kInt64;
    t.onnx_type = dtype_to_onnx(DataType::kInt64);
    t.data.resize(sizeof(int64_t));
    std::memcpy(t.data.data(), &a, sizeof(int64_t));
    Node n = node;
    n.inputs[static_cast<size_t>(axis_input)] = t.name;
    n.outputs = {out};
    g->initializers.push_back(std::move(t));
    g->nodes.push_back(std::move(n));
    ValueInfo o;
    o.name = out;
    g->outputs.push_back(o);
    return g;
  };
  // From the last axis up: the else branch of axis a is the chain of the
  // axes after it (with one axis, both branches are its own; the If still
  // reads the checked axis, so the check runs first).
  std::shared_ptr<SubGraph> chain = branch_for(last_axis, base + "/out" + std::to_string(last_axis));
  Node top;
  for (int64_t a = std::max(first_axis, last_axis - 1); a >= first_axis; --a) {
    const std::string cond = base + "/is" + std::to_string(a);
    impl.values[cond] = c.op("equal").in(checked[0]).in(c.constant_ints({a}, false)).emit1();
    impl.uses[cond]++;
    Node n;
    n.index = node.index;
    n.name = base + "/if" + std::to_string(a);
    n.op_type = "If";
    n.opset = node.opset;
    n.inlined_from = node.inlined_from;
    n.inputs = {cond};
    n.outputs = {a == first_axis ? node.outputs[0] : base + "/out" + std::to_string(a)};
    Attribute then_a, else_a;
    then_a.name = "then_branch";
    else_a.name = "else_branch";
    then_a.type = else_a.type = Attribute::Type::kGraph;
    then_a.type_name = else_a.type_name = "GRAPH";
    then_a.g = branch_for(a, base + "/then" + std::to_string(a));
    else_a.g = chain;
    n.attributes = {then_a, else_a};
    if (a == first_axis) {
      top = std::move(n);
      break;
    }
    chain = std::make_shared<SubGraph>();
    chain->name = base + "/else" + std::to_string(a);
    ValueInfo o;
    o.name = n.outputs[0];
    chain->outputs.push_back(o);
    chain->nodes.push_back(std::move(n));
  }
  // Converted as the model's nodes are; the outer node's label and node
  // list are this call's caller's, restored after.
  const std::string label = impl.label;
  const std::vector<Node>* nodes = impl.onnx_nodes;
  root.synthetic.push_back({std::move(top)});
  const size_t before = impl.problems.size();
  convert_nodes(impl, root.synthetic.back(), c.opset());
  impl.label = label;
  impl.onnx_nodes = nodes;
  if (impl.problems.size() != before) return Status::error(StatusCode::kNotImplemented, "a branch could not be mapped");
  auto it = impl.values.find(node.outputs[0]);
  if (it == impl.values.end()) return c.fail("the axis branches gave no output");
  c.set_output(0, it->second);
  return Status::ok();
}

// SequenceMap: a While over the positions of input 0 (Note [Run-time
// sequences]). Its loop values are [i, n, one list per output, the inputs,
// outer values the body reads]; the condition is i < n; the body reads
// element i of each sequence input (SequenceAt) and each tensor input
// whole, runs the ONNX body, and appends each of its outputs to its list.
Status map_sequence_map(Converter& c) {
  Converter::Impl& outer = ConverterAccess::impl(c);
  const Node& node = c.node();
  const Attribute* body_a = ConverterAccess::read_attr(c, "body");
  if (body_a == nullptr || !body_a->g) return c.fail("attribute 'body' must be a graph");
  const SubGraph& g = *body_a->g;
  const int n_in = c.num_inputs(), n_out = c.num_outputs();
  if (static_cast<int>(g.inputs.size()) != n_in || static_cast<int>(g.outputs.size()) != n_out)
    return c.fail(str_format("the body takes %zu inputs and gives %zu outputs; the node has %d and %d", g.inputs.size(),
                             g.outputs.size(), n_in, n_out));
  std::vector<Value> init;
  init.push_back(c.constant_ints({0}, false));
  init.push_back(Value{});  // n, below
  for (const ValueInfo& o : g.outputs)
    init.push_back(c.sequence_node(SequenceOpKind::kEmpty, {}, {}, o.dtype));
  std::vector<ValueInfo> in_types;
  std::vector<uint8_t> in_list;
  for (int k = 0; k < n_in; ++k) {
    const std::string& name = node.inputs[static_cast<size_t>(k)];
    Value v;
    ValueKind kind = ValueKind::kTensor;
    const bool list = outer.sequences.count(name) || outer.stacked.count(name) || outer.run_lists.count(name);
    if (list ? !c.input_as_run_list(k, v, kind) : !(v = c.input(k)).valid())
      return Status::error(StatusCode::kNotImplemented, "input could not be made");
    if (kind != ValueKind::kTensor && kind != ValueKind::kSequence)
      return c.fail(str_format("input %d is an optional; SequenceMap takes sequences and tensors", k));
    if (k == 0 && !list) return c.fail("input 0 must be a sequence");
    ValueInfo t;
    if (list) t.value_kind = 1;
    else t = outer.info_of(name);
    if (!list && t.dtype == DataType::kInvalid) return c.fail(str_format("the dtype of input %d is not known", k));
    in_types.push_back(t);
    in_list.push_back(list);
    init.push_back(v);
  }
  init[1] = c.sequence_node(SequenceOpKind::kLength, {init[2 + static_cast<size_t>(n_out)]});
  std::vector<std::string> captured, args;
  std::unordered_set<std::string> seen;
  free_names(g, captured, seen);
  RETURN_IF_ERROR(stack_captured_lists(c, outer, captured));
  std::vector<ValueInfo> captured_types;
  for (const std::string& name : captured) {
    if (!outer.capturable(name)) {
      if (!outer.constants.count(name))
        return c.fail("the body reads '" + name + "', which " +
                      (outer.failed.count(name) ? "could not be imported" : "nothing before it defines"));
      continue;
    }
    ValueInfo t = outer.captured_info(name);
    if (t.dtype == DataType::kInvalid && t.value_kind == 0)
      return c.fail("the dtype of '" + name + "', which the body reads, is not known");
    args.push_back(name);
    captured_types.push_back(t);
    init.push_back(outer.captured_value(name));
  }
  for (const Value& v : init)
    if (!v.valid()) return c.fail("the map's initial values could not be made");
  const std::string base = node.name.empty() ? "sequence_map" : node.name;
  // The body inputs' declared types are the elements'.
  auto make_sub = [&](const char* which) { return loop_subgraph(outer, node, g, g.inputs, base, which); };
  ValueInfo list_type;
  list_type.value_kind = 1;
  auto add_vars = [&](Converter::Impl& sub, std::vector<Value>& vars) {
    vars.push_back(add_placeholder(sub, "position", scalar_type(DataType::kInt64)));
    vars.push_back(add_placeholder(sub, "length", scalar_type(DataType::kInt64)));
    for (int k = 0; k < n_out; ++k) vars.push_back(add_placeholder(sub, "out" + std::to_string(k), list_type));
    for (int k = 0; k < n_in; ++k)
      vars.push_back(add_placeholder(sub, "in" + std::to_string(k), in_types[static_cast<size_t>(k)]));
    for (size_t k = 0; k < args.size(); ++k) vars.push_back(add_placeholder(sub, args[k], captured_types[k]));
  };
  auto cond_sub = make_sub("cond");
  std::vector<Value> cvars;
  add_vars(*cond_sub, cvars);
  const Value go = emit_in(*cond_sub, node, c.opset(),
                           [&](Converter& cc) { return cc.op("less").in(cvars[0]).in(cvars[1]).emit1(); });
  if (!go.valid()) return c.fail("the map's condition could not be built");
  cond_sub->body_outputs.emplace_back("go", go);
  auto body_sub = make_sub("body");
  std::vector<Value> bvars;
  add_vars(*body_sub, bvars);
  const size_t first_in = 2 + static_cast<size_t>(n_out), first_arg = first_in + static_cast<size_t>(n_in);
  for (int k = 0; k < n_in; ++k) {
    const std::string& name = g.inputs[static_cast<size_t>(k)].name;
    Value v = bvars[first_in + static_cast<size_t>(k)];
    if (in_list[static_cast<size_t>(k)]) v = body_sub->sequence_node(base, SequenceOpKind::kAt, {v, bvars[0]});
    if (!name.empty()) body_sub->values[name] = v;
  }
  for (size_t k = 0; k < args.size(); ++k) body_sub->bind_captured(outer, args[k], bvars[first_arg + k]);
  for (const Tensor& t : g.initializers) body_sub->constants[t.name] = &t;
  for (const std::string& name : captured)
    if (!outer.capturable(name)) body_sub->constants[name] = outer.constants.at(name);
  count_uses(g.nodes, body_sub->uses);
  for (const ValueInfo& o : g.outputs) body_sub->uses[o.name]++;
  body_sub->onnx_outputs = &g.outputs;
  const size_t before = outer.problems.size();
  convert_nodes(*body_sub, g.nodes, c.opset());
  if (outer.problems.size() != before) return Status::error(StatusCode::kNotImplemented, "the body could not be imported");
  std::vector<Value> outs{emit_in(*body_sub, node, c.opset(), [&](Converter& bc) {
    return bc.op("add").in(bvars[0]).in(bc.constant_ints({1}, false)).emit1();  // the next iteration
  })};
  outs.push_back(bvars[1]);
  for (int k = 0; k < n_out; ++k) {
    const std::string& name = g.outputs[static_cast<size_t>(k)].name;
    const Value v = body_sub->failed.count(name) ? Value{} : body_sub->lookup(name);
    if (!v.valid()) return c.fail("body output '" + name + "' is not a tensor computed by the body");
    outs.push_back(body_sub->sequence_node(base, SequenceOpKind::kInsert, {bvars[2 + static_cast<size_t>(k)], v}));
  }
  for (size_t k = first_in; k < bvars.size(); ++k) outs.push_back(bvars[k]);
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!outs[k].valid()) return c.fail("the map's body could not be built");
    body_sub->body_outputs.emplace_back(body_sub->vars[k].name + "_next", outs[k]);
  }
  const int64_t id = emit_while(outer, std::move(cond_sub), std::move(body_sub), init, 0, base);
  for (int k = 0; k < n_out; ++k)
    c.set_output_run_list(k, Value{id, static_cast<uint32_t>(2 + k)}, ValueKind::kSequence);
  return Status::ok();
}

// Note [Scan]
//  ONNX Scan becomes a While over [iteration, length, states..., scan
//  inputs..., outer values read...]: the condition is iteration < length;
//  the body takes iteration i of each scan input (gather at i, or at
//  length - 1 - i for a reverse one, along the input's axis), runs the ONNX
//  body and gives the new states, passing the rest through; the ONNX
//  body's scan outputs are the While's scan outputs, stacked by the
//  executor along axis 0, then reversed and moved to their axis as
//  scan_output_directions and scan_output_axes say. length is the scan
//  axis extent of scan input 0; every other scan input is checked against
//  it (at import when both are known, else when the graph runs).
//  Opset 8's Scan has a batch axis 0 ahead of the scan axis and runs the
//  body per batch entry: it becomes a scan over the batch (no states; the
//  batch entries of its states and scan inputs are its scan inputs) whose
//  body is the scan over the sequence, stacking the final states and scan
//  outputs of each batch entry.
namespace {

struct ScanLoop {
  std::string base;  // names the subgraphs: <base>/cond, <base>/body
  std::vector<Value> states;
  std::vector<ValueInfo> state_types;
  std::vector<Value> inputs;  // whole scan inputs
  std::vector<ValueInfo> input_types;
  std::vector<int64_t> axes;  // normalized, >= 0
  std::vector<bool> reverse;
  std::vector<std::string> captured;  // outer names the body reads
  int n_scan_outputs = 0;
  // Fills the body (bc converts into it), given the states and this
  // iteration's slices; gives the new states, the scan outputs' values and
  // their ranks (-1: not known).
  std::function<Status(Converter& bc, const std::vector<Value>& states, const std::vector<Value>& slices,
                       std::vector<Value>& next_states, std::vector<Value>& scan_values, std::vector<int>& ranks)>
      fill_body;
};

// The type of one entry of `t` along `axis` (its rank one less).
ValueInfo drop_axis(const ValueInfo& t, int64_t axis) {
  ValueInfo v = t;
  if (v.rank_known && axis >= 0 && axis < static_cast<int64_t>(v.dims.size()))
    v.dims.erase(v.dims.begin() + axis);
  else
    v.rank_known = false, v.dims.clear();
  return v;
}

// The iteration count of a scan, an int64 scalar: the extent of scan
// input 0 along its axis, which every other scan input must share (Note
// [Scan]).
Value scan_length(Converter& c, const ScanLoop& L, const std::vector<int64_t>& known_extents) {
  Converter::Impl& host = ConverterAccess::impl(c);
  Value len = c.op("shape_of").in(L.inputs[0]).arg("start", L.axes[0]).arg("end", L.axes[0] + 1).emit1();
  for (size_t j = 1; j < L.inputs.size(); ++j) {
    if (known_extents[0] >= 0 && known_extents[j] == known_extents[0]) continue;
    // Not known to agree: reshaping j's extent of elements to input 0's
    // fails at run time unless they do; the length is then read from the
    // result, so the check cannot be left out.
    Value lj = c.op("shape_of").in(L.inputs[j]).arg("start", L.axes[j]).arg("end", L.axes[j] + 1).emit1();
    Value ones = c.op("fill").in(lj).arg("dtype", DataType::kBool).emit1();
    Value checked = c.op("reshape").in(ones).in(len).emit1();
    if (!checked.valid()) return Value{};
    host.nodes.back().name = str_format("%s/scan input %zu must be as long as scan input 0", L.base.c_str(), j);
    len = c.op("shape_of").in(checked).emit1();
  }
  return c.op("reshape").in(len).arg("shape", std::vector<int64_t>{}).emit1();
}

// Emits the While of a scan into c's body (Note [Scan]); `stacked` gets
// the scan outputs as stacked along axis 0, `ranks` their per-iteration
// ranks.
Status build_scan_loop(Converter& c, const ScanLoop& L, Value length, std::vector<Value>& final_states,
                       std::vector<Value>& stacked, std::vector<int>& ranks) {
  Converter::Impl& host = ConverterAccess::impl(c);
  const Node& node = c.node();
  const size_t n_states = L.states.size(), n_in = L.inputs.size();
  std::vector<Value> init;
  init.push_back(c.constant_ints({0}, false));
  init.push_back(length);
  init.insert(init.end(), L.states.begin(), L.states.end());
  init.insert(init.end(), L.inputs.begin(), L.inputs.end());
  std::vector<std::string> passed;
  std::vector<ValueInfo> passed_types;
  for (const std::string& name : L.captured) {
    if (host.values.count(name)) {
      ValueInfo t = host.info_of(name);
      if (t.dtype == DataType::kInvalid) return c.fail("the dtype of '" + name + "', which the body reads, is not known");
      passed.push_back(name);
      passed_types.push_back(t);
      init.push_back(host.values.at(name));
    } else if (!host.constants.count(name)) {
      return c.fail("the body reads '" + name + "', which " +
                    (host.failed.count(name) ? "could not be imported" : "nothing before it defines"));
    }
  }
  for (const Value& v : init)
    if (!v.valid()) return c.fail("the scan's initial values could not be made");
  auto make_sub = [&](const char* which) {
    auto sub = std::make_unique<Converter::Impl>(host.model, &host, nullptr);
    sub->own_info = *host.info;
    sub->lowp_of = host.lowp_of;  // captured values keep their format
    sub->info = &sub->own_info;
    sub->where = str_format(" in the body of node %d '%s'%s", node.index, node.name.c_str(), host.where.c_str());
    sub->body_name = L.base + "/" + which;
    sub->label = host.label;
    return sub;
  };
  auto add_vars = [&](Converter::Impl& sub, std::vector<Value>& vars) {
    vars.push_back(add_placeholder(sub, "iteration", scalar_type(DataType::kInt64)));
    vars.push_back(add_placeholder(sub, "length", scalar_type(DataType::kInt64)));
    for (size_t k = 0; k < n_states; ++k)
      vars.push_back(add_placeholder(sub, "state" + std::to_string(k), L.state_types[k]));
    for (size_t j = 0; j < n_in; ++j)
      vars.push_back(add_placeholder(sub, "scan_input" + std::to_string(j), L.input_types[j]));
    for (size_t k = 0; k < passed.size(); ++k) vars.push_back(add_placeholder(sub, passed[k], passed_types[k]));
  };
  auto cond_sub = make_sub("cond");
  std::vector<Value> cvars;
  add_vars(*cond_sub, cvars);
  {
    Converter cc(*cond_sub);
    ConverterAccess::begin(cc, node, c.opset());
    Value go = cc.op("less").in(cvars[0]).in(cvars[1]).emit1();
    if (!go.valid()) return c.fail("the scan's condition could not be built");
    cond_sub->body_outputs.emplace_back("go", go);
  }
  auto body_sub = make_sub("body");
  std::vector<Value> bvars;
  add_vars(*body_sub, bvars);
  for (const std::string& name : L.captured)
    if (!host.values.count(name)) body_sub->constants[name] = host.constants.at(name);
  for (size_t k = 0; k < passed.size(); ++k) body_sub->values[passed[k]] = bvars[2 + n_states + n_in + k];
  Converter bc(*body_sub);
  ConverterAccess::begin(bc, node, c.opset());
  std::vector<Value> states(bvars.begin() + 2, bvars.begin() + 2 + static_cast<std::ptrdiff_t>(n_states));
  std::vector<Value> slices;
  Value last;  // length - 1, for the reverse scan inputs
  for (size_t j = 0; j < n_in; ++j) {
    Value at = bvars[0];
    if (L.reverse[j]) {
      if (!last.valid()) last = bc.op("subtract").in(bvars[1]).in(bc.constant_ints({1}, false)).emit1();
      at = bc.op("subtract").in(last).in(bvars[0]).emit1();
    }
    slices.push_back(bc.op("gather").in(bvars[2 + n_states + j]).in(at).arg("axis", L.axes[j]).emit1());
    if (!slices.back().valid()) return c.fail(str_format("iteration slices of scan input %zu could not be made", j));
  }
  std::vector<Value> next_states, scan_values;
  RETURN_IF_ERROR(L.fill_body(bc, states, slices, next_states, scan_values, ranks));
  if (next_states.size() != n_states || scan_values.size() != static_cast<size_t>(L.n_scan_outputs))
    return c.fail("the scan body gives the wrong number of values");  // a bug of the caller
  for (const Value& v : next_states)
    if (!v.valid()) return Status::error(StatusCode::kNotImplemented, "the body could not be imported");
  for (const Value& v : scan_values)
    if (!v.valid()) return Status::error(StatusCode::kNotImplemented, "the body could not be imported");
  std::vector<Value> outs;
  {
    Converter ic(*body_sub);  // `bc` may have been begun again by fill_body
    ConverterAccess::begin(ic, node, c.opset());
    outs.push_back(ic.op("add").in(bvars[0]).in(ic.constant_ints({1}, false)).emit1());
  }
  if (!outs[0].valid()) return c.fail("the scan's iteration count could not be built");
  outs.push_back(bvars[1]);
  outs.insert(outs.end(), next_states.begin(), next_states.end());
  for (size_t j = 0; j < n_in; ++j) outs.push_back(bvars[2 + n_states + j]);
  for (size_t k = 0; k < passed.size(); ++k) outs.push_back(bvars[2 + n_states + n_in + k]);
  for (size_t k = 0; k < outs.size(); ++k)
    body_sub->body_outputs.emplace_back(body_sub->vars[k].name + "_next", outs[k]);
  for (size_t k = 0; k < scan_values.size(); ++k)
    body_sub->body_outputs.emplace_back(str_format("scan output %zu", k), scan_values[k]);
  const std::vector<Probed> scan_types = stacked_types(*body_sub, scan_values);
  host.root->subgraphs.push_back(std::move(cond_sub));
  const int cond_index = static_cast<int>(host.root->subgraphs.size()) - 1;
  host.root->subgraphs.push_back(std::move(body_sub));
  const int body_index = static_cast<int>(host.root->subgraphs.size()) - 1;
  LNode n;
  n.id = host.next_id++;
  n.name = L.base;
  n.is_while = true;
  n.branch_a = cond_index;
  n.branch_b = body_index;
  n.inputs = init;
  n.scan_outputs = static_cast<uint32_t>(L.n_scan_outputs);
  n.num_outputs = static_cast<uint32_t>(init.size()) + n.scan_outputs;
  const int64_t id = n.id;
  host.nodes.push_back(std::move(n));
  set_stacked_types(host, id, init.size(), scan_types);
  final_states.clear();
  stacked.clear();
  for (size_t k = 0; k < n_states; ++k) final_states.push_back(Value{id, static_cast<uint32_t>(2 + k)});
  for (int k = 0; k < L.n_scan_outputs; ++k)
    stacked.push_back(Value{id, static_cast<uint32_t>(init.size()) + static_cast<uint32_t>(k)});
  return Status::ok();
}

// Reads a per-input (or per-output) INTS attribute of Scan: `n` values,
// default all 0; false (and a problem recorded) when it has another count.
bool scan_attr_ints(Converter& c, const char* name, size_t n, std::vector<int64_t>& out) {
  out.assign(n, 0);
  std::vector<int64_t> v;
  if (!c.attr_ints(name, v)) return true;
  if (v.size() != n) {
    c.report_attr(name, str_format("has %zu entries; the node has %zu %s", v.size(), n,
                                   std::strstr(name, "output") ? "scan outputs" : "scan inputs"));
    return false;
  }
  out = v;
  return true;
}

}  // namespace

// Scan, opsets 8 and 9+ (Note [Scan]).
Status map_scan(Converter& c) {
  Converter::Impl& outer = ConverterAccess::impl(c);
  const Node& node = c.node();
  const Attribute* body_a = ConverterAccess::read_attr(c, "body");
  if (body_a == nullptr || !body_a->g) return c.fail("attribute 'body' must be a graph");
  const SubGraph& g = *body_a->g;
  const int64_t opset = c.opset();
  const bool batched = opset < 9;  // opset 8: [sequence_lens, states..., scan inputs...], batch axis 0
  const int first = batched ? 1 : 0;
  const int64_t m = c.attr_int("num_scan_inputs", 0);
  const int n_total = c.num_inputs() - first;
  if (m < 1 || m > n_total)
    return c.fail_attr("num_scan_inputs", str_format("is %lld; it must be 1 to %d, the number of inputs%s",
                                                     static_cast<long long>(m), n_total,
                                                     batched ? " after sequence_lens" : ""));
  const int n_in = static_cast<int>(m), n_states = n_total - n_in;
  if (static_cast<int>(g.inputs.size()) != n_total || static_cast<int>(g.outputs.size()) < n_states)
    return c.fail(str_format("the body takes %zu inputs and gives %zu outputs for %d states and %d scan inputs",
                             g.inputs.size(), g.outputs.size(), n_states, n_in));
  const int n_out = static_cast<int>(g.outputs.size()) - n_states;
  if (c.num_outputs() > n_states + n_out)
    return c.fail(str_format("the node has %d outputs; its body gives %d", c.num_outputs(), n_states + n_out));
  const std::string base = node.name.empty() ? "scan_" + std::to_string(node.index) : node.name;

  std::vector<int64_t> in_dirs, in_axes, out_dirs, out_axes;
  if (batched) {
    if (!scan_attr_ints(c, "directions", static_cast<size_t>(n_in), in_dirs))
      return Status::error(StatusCode::kNotImplemented, "bad attribute");
    in_axes.assign(static_cast<size_t>(n_in), 0);
    out_dirs.assign(static_cast<size_t>(n_out), 0);
    out_axes.assign(static_cast<size_t>(n_out), 0);
  } else if (!scan_attr_ints(c, "scan_input_directions", static_cast<size_t>(n_in), in_dirs) ||
             !scan_attr_ints(c, "scan_input_axes", static_cast<size_t>(n_in), in_axes) ||
             !scan_attr_ints(c, "scan_output_directions", static_cast<size_t>(n_out), out_dirs) ||
             !scan_attr_ints(c, "scan_output_axes", static_cast<size_t>(n_out), out_axes)) {
    return Status::error(StatusCode::kNotImplemented, "bad attribute");
  }
  for (size_t k = 0; k < in_dirs.size(); ++k)
    if (in_dirs[k] != 0 && in_dirs[k] != 1)
      return c.fail_attr(batched ? "directions" : "scan_input_directions",
                         str_format("entry %zu is %lld; 0 (forward) or 1 (reverse) is expected", k,
                                    static_cast<long long>(in_dirs[k])));
  for (size_t k = 0; k < out_dirs.size(); ++k)
    if (out_dirs[k] != 0 && out_dirs[k] != 1)
      return c.fail_attr("scan_output_directions", str_format("entry %zu is %lld; 0 (append) or 1 (prepend) is "
                                                              "expected", k, static_cast<long long>(out_dirs[k])));

  if (batched && c.has_input(0)) {
    // Lengths shorter than the sequence would leave the rest of each
    // output to padding; only the full length is the same computation.
    std::vector<int64_t> lens;
    if (!c.constant_ints(0, "sequence_lens", lens)) return Status::error(StatusCode::kNotImplemented, "sequence_lens");
    const ValueType x = c.input_type(first + n_states);
    const int64_t full = x.rank_known && x.dims.size() >= 2 ? x.dims[1] : -1;
    for (int64_t len : lens)
      if (full < 0 || len != full)
        return c.fail(str_format("input 0 (sequence_lens) holds length %lld, but %s; only full-length sequences are "
                                 "supported (or omit sequence_lens)",
                                 static_cast<long long>(len),
                                 full < 0 ? "the sequence length of the scan inputs is not known at import"
                                          : str_format("the scan inputs' sequence length is %lld",
                                                       static_cast<long long>(full)).c_str()));
  }

  // Outer values the body reads.
  std::vector<std::string> captured;
  {
    std::unordered_set<std::string> seen;
    free_names(g, captured, seen);
    for (const std::string& name : captured)
      if (!outer.values.count(name) && !outer.constants.count(name))
        return c.fail("the body reads '" + name + "', which " +
                      (outer.failed.count(name) ? "could not be imported" : "nothing before it defines"));
  }

  // States and scan inputs, with their types.
  std::vector<Value> states, inputs;
  std::vector<ValueInfo> state_types, input_types;
  std::vector<int64_t> extents;  // of each scan input along its scan axis; -1 unknown
  for (int k = 0; k < n_states; ++k) {
    states.push_back(c.input(first + k));
    ValueInfo t = outer.info_of(node.inputs[static_cast<size_t>(first + k)]);
    if (t.dtype == DataType::kInvalid) {
      // The body's declaration; opset 8's lacks the batch axis, so only its dtype holds.
      t = batched ? ValueInfo{} : g.inputs[static_cast<size_t>(k)];
      if (batched) t.dtype = g.inputs[static_cast<size_t>(k)].dtype;
    }
    if (t.dtype == DataType::kInvalid) return c.fail(str_format("the dtype of state %d is not known", k));
    state_types.push_back(t);
  }
  for (int j = 0; j < n_in; ++j) {
    const int input = first + n_states + j;
    inputs.push_back(c.input(input));
    ValueInfo t = outer.info_of(node.inputs[static_cast<size_t>(input)]);
    if (t.dtype == DataType::kInvalid) {
      t = ValueInfo{};
      t.dtype = g.inputs[static_cast<size_t>(n_states + j)].dtype;  // an entry's dtype is the input's
    }
    if (t.dtype == DataType::kInvalid) return c.fail(str_format("the dtype of scan input %d is not known", j));
    int64_t& axis = in_axes[static_cast<size_t>(j)];
    const int rank = t.rank_known ? static_cast<int>(t.dims.size()) : -1;
    if (axis < 0 && rank < 0)
      return c.fail_attr("scan_input_axes", str_format("entry %d is %lld, but the rank of scan input %d is not known",
                                                       j, static_cast<long long>(axis), j));
    if (axis < 0) axis += rank;
    if (axis < 0 || (rank >= 0 && (batched ? 2 : axis + 1) > rank))
      return batched ? c.fail(str_format("scan input %d has rank %d; a batch and a sequence axis are needed", j, rank))
                     : c.fail_attr("scan_input_axes", str_format("entry %d is out of range for scan input %d of rank %d",
                                                                 j, j, rank));
    extents.push_back(rank >= 0 && t.dims[static_cast<size_t>(batched ? 1 : axis)] >= 0
                          ? t.dims[static_cast<size_t>(batched ? 1 : axis)]
                          : -1);
    if (extents[0] >= 0 && extents.back() >= 0 && extents.back() != extents[0])
      return c.fail(str_format("scan input %d has %lld entries along its scan axis, scan input 0 has %lld", j,
                               static_cast<long long>(extents.back()), static_cast<long long>(extents[0])));
    input_types.push_back(t);
  }
  for (const Value& v : states)
    if (!v.valid()) return Status::error(StatusCode::kNotImplemented, "an input could not be made");
  for (const Value& v : inputs)
    if (!v.valid()) return Status::error(StatusCode::kNotImplemented, "an input could not be made");

  // The ONNX body, converted into the innermost loop's body.
  auto onnx_body = [&](Converter& bc, const std::vector<Value>& st, const std::vector<Value>& slices,
                       std::vector<Value>& next, std::vector<Value>& scans, std::vector<int>& ranks) -> Status {
    Converter::Impl& body = ConverterAccess::impl(bc);
    for (const auto& kv : g.value_info) body.own_info[kv.first] = kv.second;
    for (const ValueInfo& o : g.outputs)
      if (o.dtype != DataType::kInvalid && !body.own_info.count(o.name)) body.own_info[o.name] = o;
    for (int k = 0; k < n_states; ++k) body.values[g.inputs[static_cast<size_t>(k)].name] = st[static_cast<size_t>(k)];
    for (int j = 0; j < n_in; ++j)
      body.values[g.inputs[static_cast<size_t>(n_states + j)].name] = slices[static_cast<size_t>(j)];
    for (const Tensor& t : g.initializers) body.constants[t.name] = &t;
    count_uses(g.nodes, body.uses);
    for (const ValueInfo& o : g.outputs) body.uses[o.name]++;
    const size_t before = outer.problems.size();
    convert_nodes(body, g.nodes, opset);
    if (outer.problems.size() != before)
      return Status::error(StatusCode::kNotImplemented, "the body could not be imported");
    for (size_t k = 0; k < g.outputs.size(); ++k) {
      const std::string& name = g.outputs[k].name;
      Value v = body.failed.count(name) ? Value{} : body.lookup(name);
      if (!v.valid()) return c.fail("body output '" + name + "' is not computed by any node");
      RETURN_IF_ERROR(refuse_low_precision_output(c, body, name));
      (static_cast<int>(k) < n_states ? next : scans).push_back(v);
      if (static_cast<int>(k) >= n_states) ranks.push_back(body.type_of(name).rank());
    }
    return Status::ok();
  };

  std::vector<Value> final_states, scan_outs;
  std::vector<int> ranks;
  if (!batched) {
    ScanLoop L;
    L.base = base;
    L.states = states;
    L.state_types = state_types;
    L.inputs = inputs;
    L.input_types = input_types;
    L.axes = in_axes;
    for (int64_t d : in_dirs) L.reverse.push_back(d != 0);
    L.captured = captured;
    L.n_scan_outputs = n_out;
    L.fill_body = onnx_body;
    Value length = scan_length(c, L, extents);
    if (!length.valid()) return c.fail("the scan's length could not be computed");
    RETURN_IF_ERROR(build_scan_loop(c, L, length, final_states, scan_outs, ranks));
  } else {
    // A scan over the batch whose body is the scan over the sequence.
    ScanLoop B;
    B.base = base + "/batch";
    B.inputs = states;
    B.inputs.insert(B.inputs.end(), inputs.begin(), inputs.end());
    B.input_types = state_types;
    B.input_types.insert(B.input_types.end(), input_types.begin(), input_types.end());
    B.axes.assign(B.inputs.size(), 0);
    B.reverse.assign(B.inputs.size(), false);
    B.captured = captured;
    B.n_scan_outputs = n_states + n_out;
    B.fill_body = [&](Converter& bc, const std::vector<Value>&, const std::vector<Value>& slices,
                      std::vector<Value>& next, std::vector<Value>& scans, std::vector<int>& out_ranks) -> Status {
      (void)next;
      ScanLoop S;
      S.base = base;
      S.states.assign(slices.begin(), slices.begin() + n_states);
      S.inputs.assign(slices.begin() + n_states, slices.end());
      for (int k = 0; k < n_states; ++k) {
        ValueInfo t = g.inputs[static_cast<size_t>(k)];
        if (t.dtype == DataType::kInvalid) t = drop_axis(state_types[static_cast<size_t>(k)], 0);
        S.state_types.push_back(t);
      }
      for (int j = 0; j < n_in; ++j) S.input_types.push_back(drop_axis(input_types[static_cast<size_t>(j)], 0));
      S.axes.assign(static_cast<size_t>(n_in), 0);
      for (int64_t d : in_dirs) S.reverse.push_back(d != 0);
      S.captured = captured;
      S.n_scan_outputs = n_out;
      S.fill_body = onnx_body;
      std::vector<int64_t> inner_extents;
      for (int64_t e : extents) inner_extents.push_back(e);
      Value length = scan_length(bc, S, inner_extents);
      if (!length.valid()) return c.fail("the scan's length could not be computed");
      std::vector<Value> inner_states, inner_scans;
      std::vector<int> inner_ranks;
      RETURN_IF_ERROR(build_scan_loop(bc, S, length, inner_states, inner_scans, inner_ranks));
      scans = inner_states;
      scans.insert(scans.end(), inner_scans.begin(), inner_scans.end());
      for (int k = 0; k < n_states; ++k) {
        const ValueInfo& t = S.state_types[static_cast<size_t>(k)];
        out_ranks.push_back(t.rank_known ? static_cast<int>(t.dims.size()) : -1);
      }
      for (int r : inner_ranks) out_ranks.push_back(r < 0 ? -1 : r + 1);
      return Status::ok();
    };
    std::vector<int64_t> batch_extents;
    for (const ValueInfo& t : B.input_types)
      batch_extents.push_back(t.rank_known && !t.dims.empty() ? t.dims[0] : -1);
    for (size_t j = 1; j < batch_extents.size(); ++j)
      if (batch_extents[0] >= 0 && batch_extents[j] >= 0 && batch_extents[j] != batch_extents[0])
        return c.fail(str_format("the inputs' batch sizes differ: %lld and %lld",
                                 static_cast<long long>(batch_extents[0]), static_cast<long long>(batch_extents[j])));
    Value batch = scan_length(c, B, batch_extents);
    if (!batch.valid()) return c.fail("the scan's batch size could not be computed");
    std::vector<Value> none, stacked;
    RETURN_IF_ERROR(build_scan_loop(c, B, batch, none, stacked, ranks));
    final_states.assign(stacked.begin(), stacked.begin() + n_states);
    scan_outs.assign(stacked.begin() + n_states, stacked.end());
    ranks.erase(ranks.begin(), ranks.begin() + n_states);
  }

  for (int k = 0; k < n_states; ++k) c.set_output(k, final_states[static_cast<size_t>(k)]);
  for (int k = 0; k < n_out; ++k) {
    Value v = scan_outs[static_cast<size_t>(k)];
    if (out_dirs[static_cast<size_t>(k)] != 0) v = c.op("reverse").in(v).arg("axes", std::vector<int64_t>{0}).emit1();
    int64_t axis = out_axes[static_cast<size_t>(k)];
    const int piece_rank = ranks[static_cast<size_t>(k)];
    if (axis != 0) {
      if (piece_rank < 0)
        return c.fail_attr("scan_output_axes", str_format("entry %d is %lld, but the rank of scan output %d is not "
                                                          "known at import", k, static_cast<long long>(axis), k));
      const int rank = piece_rank + 1;
      if (axis < -rank || axis >= rank)
        return c.fail_attr("scan_output_axes", str_format("entry %d is %lld, out of range for scan output %d of rank "
                                                          "%d", k, static_cast<long long>(axis), k, rank));
      if (axis < 0) axis += rank;
    }
    if (axis != 0) {
      // The iteration axis moves from 0 to `axis`.
      std::vector<int64_t> perm;
      for (int64_t d = 1; d <= axis; ++d) perm.push_back(d);
      perm.push_back(0);
      for (int64_t d = axis + 1; d < piece_rank + 1; ++d) perm.push_back(d);
      v = c.op("permute").in(v).arg("perm", perm).emit1();
    }
    c.set_output(n_states + k, v);
  }
  return Status::ok();
}

// convert_model with what a user debugging an import wants to see
// (LIBOPS_LOG_LEVEL=info; each node's lowering at debug).
Status convert_logged(const Model& m, ConvertResult& result) {
  log_info("onnx: converting a model from '%s', opset %lld, %zu nodes, %zu inputs", m.producer.c_str(),
           static_cast<long long>(m.opset), m.nodes.size(), m.inputs.size());
  const Status s = convert_model(m, result);
  if (s.is_ok()) log_info("onnx: converted to a %zu-byte graph", result.lops.size());
  else log_info("onnx: %zu problems, the first: %s", result.problems.size(), s.message().c_str());
  return s;
}

Status convert_buffer(const void* data, size_t size, const ConvertOptions& options, ConvertResult& result) {
  result = ConvertResult{};
  try {
    Model m;
    Status s = model_parse(data, size, options.base_dir, m);
    if (!s.is_ok()) {
      result.problems.push_back(s.message());
      return s;
    }
    return convert_logged(m, result);
  } catch (const std::bad_alloc&) {
    return Status::error(StatusCode::kOutOfMemory, "onnx: out of memory while converting the model");
  } catch (const std::exception& e) {
    return Status::error(StatusCode::kInternal, "onnx: unexpected error while converting the model: %s", e.what());
  }
}

Status convert_file(const std::string& path, ConvertResult& result) {
  result = ConvertResult{};
  try {
    Model m;
    Status s = model_read_file(path, m);
    if (!s.is_ok()) {
      result.problems.push_back(s.message());
      return s.with_prefix(path + ": ");
    }
    s = convert_logged(m, result);
    return s.is_ok() ? s : s.with_prefix(path + ": ");
  } catch (const std::bad_alloc&) {
    return Status::error(StatusCode::kOutOfMemory, "onnx: out of memory while converting '%s'", path.c_str());
  } catch (const std::exception& e) {
    return Status::error(StatusCode::kInternal, "onnx: unexpected error while converting '%s': %s", path.c_str(),
                         e.what());
  }
}

namespace {

// "float32[batch,3,?,224]": a declared value's type, symbolic dims by name.
std::string declared_type(const ValueInfo& v) {
  std::string s = v.dtype != DataType::kInvalid ? dtype_name(v.dtype)
                  : v.type_label.empty()        ? std::string("(no type)")
                                                : v.type_label;
  if (v.dtype == DataType::kInvalid) return s;
  static const char* const kinds[] = {"", "sequence of ", "optional ", "optional sequence of "};
  const std::string kind = v.value_kind >= 0 && v.value_kind <= 3 ? kinds[v.value_kind] : "";
  if (!v.rank_known) return kind + s + "[...]";
  s += '[';
  for (size_t d = 0; d < v.dims.size(); ++d) {
    if (d) s += ',';
    if (v.dims[d] >= 0) s += std::to_string(v.dims[d]);
    else s += d < v.dim_params.size() && !v.dim_params[d].empty() ? v.dim_params[d] : "?";
  }
  return kind + s + ']';
}

}  // namespace

Status describe_file(const std::string& path, std::string& text) {
  Model m;
  RETURN_IF_ERROR(model_read_file(path, m));
  text = str_format("ir_version %lld, producer '%s'\n", static_cast<long long>(m.ir_version), m.producer.c_str());
  text += str_format("opset %lld (default domain; the importer reads 1 to %d)\n", static_cast<long long>(m.opset),
                     kMaxOpset);
  for (const auto& [domain, version] : m.other_opsets)
    text += str_format("opset %lld of domain '%s'\n", static_cast<long long>(version), domain.c_str());
  for (const ValueInfo& in : m.inputs) text += "input " + in.name + ": " + declared_type(in) + "\n";
  for (const ValueInfo& out : m.outputs) text += "output " + out.name + ": " + declared_type(out) + "\n";
  return Status::ok();
}

bool looks_like_onnx(const std::string& path, const void* head, size_t head_size) {
  const std::string ext = ".onnx";
  if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return true;
  const auto* b = static_cast<const uint8_t*>(head);
  if (head_size >= 8 && std::memcmp(b + 4, "LOPS", 4) == 0) return false;
  // ModelProto field 1 (ir_version) as a varint: tag byte 0x08.
  return head_size >= 2 && b[0] == 0x08;
}

std::string coverage_markdown() {
  // Version lists as "1, 6, 13": removed operators end with "removed at N".
  auto list = [](const std::vector<int>& since) {
    std::string s;
    for (int v : since) {
      if (!s.empty()) s += ", ";
      s += v > 0 ? std::to_string(v) : "removed at " + std::to_string(-v);
    }
    return s;
  };
  std::map<std::string, std::vector<int>> known;
  for (auto& [name, since] : default_domain_operators()) known[name] = since;
  for (const OpMapping& m : mapping_table()) known.emplace(m.op_type, std::vector<int>{});
  int supported = 0;
  std::string rows;
  for (const auto& [name, since] : known) {
    std::string ranges, notes;
    for (const OpMapping& m : mapping_table()) {
      if (name != m.op_type) continue;
      if (!ranges.empty()) ranges += ", ";
      ranges += m.last_version == kMaxOpset ? std::to_string(m.first_version) + "+"
                                            : std::to_string(m.first_version) + "-" + std::to_string(m.last_version);
      if (m.notes[0] != '\0') {
        if (!notes.empty()) notes += ' ';
        notes += m.notes;
      }
    }
    if (!ranges.empty()) ++supported;
    rows += "| " + name + " | " + list(since) + " | " + (ranges.empty() ? "no" : ranges) + " | " + notes + " |\n";
  }
  std::string s;
  s += "# ONNX import coverage\n\n";
  s += "Generated from the importer's mapping table (`graph/onnx/onnx_ops.cpp`) by `ops-run --list-onnx`; do not edit\n";
  s += "by hand (tests_cpu checks that this file matches the table). One row per operator of the default ONNX domain,\n";
  s += "with the opsets at which its versions begin (from `graph/onnx/onnx_versions.inc`, generated from the onnx\n";
  s += "package's schemas by `tools/gen_onnx_versions.py`) and the versions the importer maps (`13+`: version 13 and\n";
  s += "every later one).\n\n";
  s += str_format("The importer reads models of opsets 1 to %d. Each node is mapped by the version of its operator in\n",
                  kMaxOpset);
  s += "effect at the model's opset (the newest version whose opset is at most the model's), so a model of a newer\n";
  s += "opset runs every operator that opset did not change. A node outside this table, or with an attribute value\n";
  s += "listed as not supported, fails the conversion with a message naming the node, its op type, the opset and the\n";
  s += "attribute (`ops-run --list-unsupported model.onnx` lists every such node at once); it is never imported as a\n";
  s += "different computation. Any attribute, input or used output that a mapping does not read is refused the same\n";
  s += "way. Of ONNX's domains only the default one (`\"\"` or `ai.onnx`) is read, and `ai.onnx.preview`'s\n";
  s += "FlexAttention, written as default-domain operators when the model is read (Note [FlexAttention] in\n";
  s += "graph/onnx/onnx_preview.cpp; opset 15 or newer): `ai.onnx.ml`, `ai.onnx.preview`'s other operators and\n";
  s += "`ai.onnx.preview.training` are not. A node of any other (custom) domain runs the\n";
  s += "registered op its op type names, libops' own or one an op library registered (`ops_load_op_library`,\n";
  s += "`ops-run --op-library`): inputs in order, INT, INTS and FLOAT attributes as the op's args of those names.\n\n";
  s += "Sequences and optionals are graph values like tensors: graph inputs and outputs, what If branches give,\n";
  s += "what a Loop carries, what SequenceMap maps over. One whose elements are all known at import (built and\n";
  s += "read in one graph, positions and splits constant) stays a list of the importer's, and its readers read\n";
  s += "those tensors directly. Any other is a run-time list, a value of the sequence (or optional) kind that the\n";
  s += "executor's sequence nodes edit without copying elements (Note [Run-time sequences] in\n";
  s += "graph/onnx/onnx_convert.cpp, Note [Sequence values] in graph/executor.h); its elements' shapes may differ.\n";
  s += "A list appended to in a Loop and read after it only by ConcatFromSequence, SequenceLength or SequenceAt\n";
  s += "(torch.stack / torch.cat of a list built in a loop) becomes a scan output of the loop instead, its elements\n";
  s += "stacked along a new axis 0 (they must then share one shape), as does SplitToSequence into pieces of one\n";
  s += "along an axis known only at run time (Note [Sequences grown in loops]). `ops-run` takes a sequence input\n";
  s += "as `--input name=a.npy,b.npy` (`name=[]` when empty) and an empty optional as `name=none`, and writes a\n";
  s += "sequence output as DIR/<name>/<i>.npy; the C API feeds them with `ops_graph_session_set_input_list`.\n\n";
  s += "float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0), float4 (E2M1), int4, uint4, int2 and uint2 values are held\n";
  s += "one element a byte: the float formats' bit patterns as uint8, the integers' values as int8 or uint8, graph\n";
  s += "inputs and outputs included. Cast, CastLike, QuantizeLinear and DequantizeLinear convert them, and the ops\n";
  s += "that only move elements (Reshape, Transpose, Concat, Gather, Slice, ...) pass them on; any other op given\n";
  s += "one is refused by name.\n\n";
  s += str_format("%d of %zu operators are supported.\n\n", supported, known.size());
  s += "| ONNX operator | versions (opsets) | mapped | not supported |\n|---|---|---|---|\n";
  s += rows;
  return s;
}

Status GraphBytes::adopt(flatbuffers::DetachedBuffer bytes) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 64 != 0) return assign(bytes.data(), bytes.size());
  auto owner = std::make_shared<flatbuffers::DetachedBuffer>(std::move(bytes));
  buffer_ = DataBuffer::wrap(owner->data(), owner->size(), [owner](void*) {});
  size_ = buffer_ ? owner->size() : 0;
  if (!buffer_) return Status::error(StatusCode::kOutOfMemory, "onnx: cannot wrap the converted graph");
  return Status::ok();
}

Status GraphBytes::assign(const uint8_t* bytes, size_t size) {
  buffer_ = DataBuffer::allocate(size > 0 ? size : 1);
  size_ = 0;
  if (!buffer_) return Status::error(StatusCode::kOutOfMemory, "onnx: cannot allocate %zu bytes for the graph", size);
  if (size > 0) std::memcpy(buffer_->host(), bytes, size);
  size_ = size;
  return Status::ok();
}

}  // namespace libops::graph::onnx
