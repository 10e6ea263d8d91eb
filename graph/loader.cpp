// Loader: graph bytes -> a verified, immutable Graph.
//
// The file is untrusted input (Note [Value addressing] in schemas/graph.fbs).
// In every build type:
//   1. the size and file identifier are checked, then the FlatBuffers
//      Verifier proves every offset, vector and string lies inside the
//      buffer;
//   2. every reference is checked before use: enum values (dtype, legacy
//      group, union kind) before they are cast, ids, output indexes, op
//      names and hashes, arg counts against the op's declaration, constant
//      data sizes against shape x dtype, subgraph indexes, arities of
//      control flow and cycles (among nodes, and among subgraphs);
//   3. the planner orders the nodes, plans liveness and infers shapes.
// Each failure is a Status naming the graph element, for nodes
// "node <id> '<name>' (op <op>): <message>".
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <limits>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "graph/graph.h"
#include "graph/optimizer.h"
#include "graph/planner.h"
#include "graph/onnx/onnx_import.h"
#include "libops/core/log.h"
#include "libops/legacy/legacy.h"
#include "libops/ops/declarable_op.h"
#include "schemas/graph_generated.h"

static_assert(std::endian::native == std::endian::little, "graph constants are stored little-endian and used in place");

namespace libops::graph {

namespace {

constexpr uint32_t kMaxNodeOutputs = 4096;
constexpr int64_t kMaxValues = 1 << 20;  // slots over all bodies
constexpr int kMaxNesting = 32;          // control flow inside control flow
constexpr size_t kMinFileSize = 8;       // root offset + file identifier

std::string printable(const uint8_t* p, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\'' && p[i] != '\\')
      s += static_cast<char>(p[i]);
    else
      s += str_format("\\x%02x", p[i]);
  }
  return s;
}

std::string fb_string(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

bool dtype_value_ok(int32_t v) { return dtype_is_valid(static_cast<DataType>(v)); }

// Note [Arity numbers] in libops/ops/declarable_op.h.
bool count_ok(int declared, int64_t got, bool exact) {
  if (declared == -2) return true;
  if (declared == -1) return got >= 1;
  return exact ? got == declared : got >= declared;
}

std::string arity_text(int declared, bool exact) {
  if (declared == -2) return "any number of";
  if (declared == -1) return "at least 1";
  return exact ? std::to_string(declared) : "at least " + std::to_string(declared);
}

// The Verifier checks a vector's length field, not that 8-byte elements
// are 8-byte aligned; a writer always aligns them, so a misaligned vector
// is a corrupt file (and reading it would be a misaligned load).
template <typename T>
bool aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || v->size() == 0 || reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

const char* kMisaligned = "a vector of 8-byte values is misaligned (a corrupt file)";

// Shape vector of the file: rank and extents checked; `allow_unknown`
// admits -1 (placeholders).
Status read_dims(const flatbuffers::Vector<int64_t>* v, bool allow_unknown, Dims& out, std::string& why) {
  out.clear();
  if (v == nullptr) return Status::ok();
  if (!aligned(v)) {
    why = kMisaligned;
    return Status(StatusCode::kInvalidGraph, why);
  }
  if (v->size() > static_cast<uint32_t>(kMaxRank)) {
    why = str_format("rank %u is over the maximum %d", v->size(), kMaxRank);
    return Status(StatusCode::kInvalidGraph, why);
  }
  for (uint32_t i = 0; i < v->size(); ++i) {
    int64_t d = v->Get(i);
    if (d < (allow_unknown ? -1 : 0)) {
      why = str_format("extent %lld at dim %u is invalid (must be >= %d)", static_cast<long long>(d), i,
                       allow_unknown ? -1 : 0);
      return Status(StatusCode::kInvalidGraph, why);
    }
    out.push_back(d);
  }
  if (!strides_fit(out)) {
    why = str_format("extents %s are too large: their product is over 2^63", out.str().c_str());
    return Status(StatusCode::kInvalidGraph, why);
  }
  return Status::ok();
}

// Placeholder count of a subgraph as seen by the node that calls it: its
// input list, or every placeholder when the list is absent.
uint32_t declared_inputs(const fb::Subgraph* sg) {
  if (sg->inputs()) return sg->inputs()->size();
  uint32_t n = 0;
  if (sg->variables())
    for (const fb::Variable* v : *sg->variables())
      if (v->value_type() == fb::VariableValue::Placeholder) ++n;
  return n;
}

uint32_t declared_outputs(const fb::Subgraph* sg) { return sg->outputs() ? sg->outputs()->size() : 0; }

// Views one body of the file (the root Graph or a Subgraph) uniformly.
struct BodyView {
  const flatbuffers::Vector<flatbuffers::Offset<fb::Variable>>* variables;
  const flatbuffers::Vector<flatbuffers::Offset<fb::Node>>* nodes;
  const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* inputs;
  const flatbuffers::Vector<flatbuffers::Offset<fb::Output>>* outputs;
};

}  // namespace

class GraphLoader {
 public:
  GraphLoader(Graph& g, const uint8_t* bytes, size_t size, std::shared_ptr<DataBuffer> keep,
              const LoadOptions& options)
      : g_(g), bytes_(bytes), size_(size), keep_(std::move(keep)), options_(options) {}

  Status load();

 private:
  Status verify();
  Status read_body(int index, const BodyView& view);
  Status read_variable(Body& body, const fb::Variable* v, int32_t slot, std::string& prefix);
  Status read_constant(const fb::Array* a, NDArray& out, std::string& why);
  Status read_node(Body& body, const fb::Node* n, Node& node);
  Status resolve(const Body& body, const std::string& what, const fb::ValueRef* ref, int32_t& slot);
  Status check_subgraph_calls();
  Status check_sequence_node(const Body& body, const Node& node, uint32_t n_inputs);
  Status assign_kinds(int index, std::vector<uint8_t>& done);
  Status plan_body(int index);
  std::vector<uint8_t> if_branch_;  // per body: an If node runs it (Note [Shape inference strictness])

  Graph& g_;
  const uint8_t* bytes_;
  size_t size_;
  std::shared_ptr<DataBuffer> keep_;  // holds the bytes when the graph owns them
  LoadOptions options_;
  const fb::Graph* root_ = nullptr;
  int64_t total_slots_ = 0;

  // Per body being read.
  struct IdEntry {
    bool is_node;
    int32_t index;  // variable slot, or node position in file order
  };
  std::unordered_map<uint32_t, IdEntry> ids_;
  std::vector<const fb::Node*> file_nodes_;
  std::vector<int32_t> slot_producer_;
};

Status GraphLoader::verify() {
  if (size_ < kMinFileSize)
    return Status::error(StatusCode::kInvalidGraph,
                         "graph: the buffer is %zu bytes, too short for a graph file (a file starts with an "
                         "8-byte header holding the identifier 'LOPS')",
                         size_);
  if (!fb::GraphBufferHasIdentifier(bytes_))
    return Status::error(StatusCode::kInvalidGraph,
                         "graph: wrong file identifier '%s' (expected 'LOPS'): not a libops graph file",
                         printable(bytes_ + 4, 4).c_str());
  if (size_ >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return Status::error(StatusCode::kInvalidGraph, "graph: the file is %zu bytes; at most %llu are supported", size_,
                         static_cast<unsigned long long>(FLATBUFFERS_MAX_BUFFER_SIZE) - 1);
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 64;
  opts.max_tables = 1u << 24;
  opts.check_alignment = true;
  flatbuffers::Verifier verifier(bytes_, size_, opts);
  if (!fb::VerifyGraphBuffer(verifier))
    return Status::error(StatusCode::kInvalidGraph,
                         "graph: the file (%zu bytes) failed FlatBuffers verification: it is truncated or "
                         "corrupt",
                         size_);
  root_ = fb::GetGraph(bytes_);
  const uint32_t version = root_->version();
  if (version != static_cast<uint32_t>(fb::SchemaVersion::V1)) {
    if (version == 0)
      return Status::error(StatusCode::kInvalidGraph,
                           "graph: schema version 0 is invalid (the writer did not set Graph.version); this "
                           "build reads version 1");
    return Status::error(StatusCode::kInvalidGraph,
                         "graph: schema version %u is not supported; this build reads version 1", version);
  }
  return Status::ok();
}

Status GraphLoader::read_constant(const fb::Array* a, NDArray& out, std::string& why) {
  const int32_t raw_dtype = static_cast<int32_t>(a->dtype());
  if (!dtype_value_ok(raw_dtype)) {
    why = str_format("constant dtype value %d is not a dtype", raw_dtype);
    return Status(StatusCode::kInvalidGraph, why);
  }
  const DataType dtype = static_cast<DataType>(raw_dtype);
  const uint8_t raw_order = static_cast<uint8_t>(a->order());
  if (raw_order > static_cast<uint8_t>(fb::Order::F)) {
    why = str_format("order value %u is neither C (0) nor F (1)", raw_order);
    return Status(StatusCode::kInvalidGraph, why);
  }
  Dims shape;
  RETURN_IF_ERROR(read_dims(a->shape(), false, shape, why));
  int64_t length = 0;
  const size_t item = dtype_size(dtype);
  if (!checked_length(shape, length) || static_cast<uint64_t>(length) > SIZE_MAX / item) {
    why = str_format("shape %s has too many elements", shape.str().c_str());
    return Status(StatusCode::kInvalidGraph, why);
  }
  const size_t bytes = static_cast<size_t>(length) * item;
  const size_t have = a->data() ? a->data()->size() : 0;
  if (have != bytes) {
    why = str_format("data holds %zu bytes but %s%s needs %zu (%lld elements x %zu bytes)", have, dtype_name(dtype),
                     shape.str().c_str(), bytes, static_cast<long long>(length), item);
    return Status(StatusCode::kInvalidGraph, why);
  }
  const uint8_t* data = a->data() ? a->data()->data() : nullptr;
  if (dtype == DataType::kBool) {
    for (size_t i = 0; i < bytes; ++i)
      if (data[i] > 1) {
        why = str_format("bool element %zu holds byte %u; bools are stored as 0 or 1", i, data[i]);
        return Status(StatusCode::kInvalidGraph, why);
      }
  }
  const char order = raw_order == static_cast<uint8_t>(fb::Order::F) ? 'f' : 'c';
  const Dims strides = dense_strides(shape, order);
  if (bytes > 0 && reinterpret_cast<uintptr_t>(data) % 64 == 0) {
    // In place: the array views the loaded bytes and keeps them alive.
    DataBuffer::Deleter keep;
    if (keep_) keep = [bytes_owner = keep_](void*) {};
    RETURN_IF_ERROR(NDArray::wrap(const_cast<uint8_t*>(data), bytes, dtype, shape, &strides, out, std::move(keep)));
    ++g_.constants_in_place_;
    return Status::ok();
  }
  RETURN_IF_ERROR(NDArray::create(dtype, shape, order, out));
  if (bytes > 0) std::memcpy(out.data(), data, bytes);
  ++g_.constants_copied_;
  return Status::ok();
}

Status GraphLoader::read_variable(Body& body, const fb::Variable* v, int32_t slot, std::string& prefix) {
  const std::string name = fb_string(v->name());
  prefix = str_format("%svariable %u '%s': ", body.where.c_str(), v->id(), name.c_str());
  if (name.empty())
    return Status(StatusCode::kInvalidGraph, prefix + "a variable needs a name (placeholders are fed by name)");
  std::string why;
  switch (v->value_type()) {
    case fb::VariableValue::Array: {
      NDArray a;
      Status s = read_constant(v->value_as_Array(), a, why);
      if (!s.is_ok()) return s.with_prefix(prefix);
      body.constant_slots.push_back(slot);
      body.constants.push_back(std::move(a));
      return Status::ok();
    }
    case fb::VariableValue::Placeholder: {
      const fb::Placeholder* p = v->value_as_Placeholder();
      const int32_t raw = static_cast<int32_t>(p->dtype());
      // A sequence's or optional's element dtype may be left unknown (INVALID).
      const bool any_dtype = p->kind() != fb::ValueKind::TENSOR && raw == 0;
      if (!any_dtype && !dtype_value_ok(raw))
        return Status::error(StatusCode::kInvalidGraph, "%splaceholder dtype value %d is not a dtype", prefix.c_str(),
                             raw);
      GraphInput in;
      in.name = name;
      in.slot = slot;
      in.shape.dtype = static_cast<DataType>(raw);
      in.shape.rank_known = p->shape() != nullptr;
      Status s = read_dims(p->shape(), true, in.shape.dims, why);
      if (!s.is_ok()) return s.with_prefix(prefix);
      if (const auto* names = p->dim_names()) {
        if (!in.shape.rank_known || static_cast<int>(names->size()) != in.shape.dims.size())
          return Status::error(StatusCode::kInvalidGraph, "%splaceholder has %u dim names for %s", prefix.c_str(),
                               names->size(), in.shape.str().c_str());
        for (const auto* n : *names) in.dim_names.push_back(n ? n->str() : std::string());
      }
      const auto kind = static_cast<uint8_t>(p->kind());
      if (kind > static_cast<uint8_t>(ValueKind::kOptionalSequence))
        return Status::error(StatusCode::kInvalidGraph, "%splaceholder kind %u is not a value kind (a newer file?)",
                             prefix.c_str(), kind);
      in.kind = static_cast<ValueKind>(kind);
      body.inputs.push_back(std::move(in));
      return Status::ok();
    }
    default:
      return Status::error(StatusCode::kInvalidGraph,
                           "%svalue kind %u is neither an Array nor a Placeholder (a newer file?)", prefix.c_str(),
                           static_cast<unsigned>(v->value_type()));
  }
}

Status GraphLoader::read_node(Body& body, const fb::Node* n, Node& node) {
  node.id = n->id();
  node.name = fb_string(n->name());
  node.device = fb_string(n->device());
  const uint32_t n_inputs = n->inputs() ? n->inputs()->size() : 0;
  const uint32_t n_subgraphs = root_->subgraphs() ? root_->subgraphs()->size() : 0;
  auto fail = [&](StatusCode code, const std::string& msg) { return Status(code, body.node_prefix(node) + msg); };
  if (!node.device.empty()) {
    Status s = Device::parse(node.device.c_str(), node.placement);
    if (!s.is_ok()) return fail(StatusCode::kInvalidGraph, s.message());
    node.placed = true;
  }

  switch (n->op_type()) {
    case fb::Op::LegacyOp: {
      const fb::LegacyOp* op = n->op_as_LegacyOp();
      const int32_t group = static_cast<int32_t>(op->group());
      node.kind = NodeKind::kLegacy;
      node.op_label = str_format("legacy %d/%d", group, op->num());
      if (!legacy::group_is_valid(group))
        return fail(StatusCode::kUnknownOp, str_format("legacy op group %d is not known (groups are 0..%d)", group,
                                                       OPS_LEGACY_GROUP_COUNT - 1));
      node.group = static_cast<ops_legacy_group_t>(group);
      node.num = op->num();
      const char* name = legacy::op_name(node.group, node.num);
      if (name == nullptr) {
        node.op_label = str_format("%s/%d", legacy::group_name(node.group), node.num);
        return fail(StatusCode::kUnknownOp,
                    str_format("legacy group %s has no op number %d (it has %d ops; see ops-run --list-ops)",
                               legacy::group_name(node.group), node.num, legacy::list_ops(node.group, nullptr)));
      }
      node.op_label = str_format("%s/%s", legacy::group_name(node.group), name);
      break;
    }
    case fb::Op::CustomOp: {
      const fb::CustomOp* op = n->op_as_CustomOp();
      const std::string name = fb_string(op->name());
      node.kind = NodeKind::kCustom;
      node.op_label = name;
      if (name.empty()) return fail(StatusCode::kUnknownOp, "a custom op needs a name");
      const uint64_t want = op_name_hash(name);
      if (op->hash() != 0 && op->hash() != want)
        return fail(StatusCode::kInvalidGraph,
                    str_format("op hash 0x%016llx does not match the name '%s' (its FNV-1a 64 hash is 0x%016llx)",
                               static_cast<unsigned long long>(op->hash()), name.c_str(),
                               static_cast<unsigned long long>(want)));
      node.op = OpRegistry::instance().find(name);
      if (node.op == nullptr)
        return fail(StatusCode::kUnknownOp,
                    str_format("unknown op '%s': not in the op registry (%d ops; see ops-run --list-ops)", name.c_str(),
                               OpRegistry::instance().size()));
      node.op_label = node.op->name();
      break;
    }
    case fb::Op::IfOp: {
      const fb::IfOp* op = n->op_as_IfOp();
      node.kind = NodeKind::kIf;
      node.op_label = "if";
      if (op->then_branch() >= n_subgraphs || op->else_branch() >= n_subgraphs)
        return fail(StatusCode::kInvalidGraph,
                    str_format("branches refer to subgraphs %u and %u; the graph has %u subgraphs", op->then_branch(),
                               op->else_branch(), n_subgraphs));
      node.branch_a = static_cast<int>(op->then_branch()) + 1;
      node.branch_b = static_cast<int>(op->else_branch()) + 1;
      break;
    }
    case fb::Op::WhileOp: {
      const fb::WhileOp* op = n->op_as_WhileOp();
      node.kind = NodeKind::kWhile;
      node.op_label = "while";
      if (op->cond() >= n_subgraphs || op->body() >= n_subgraphs)
        return fail(StatusCode::kInvalidGraph,
                    str_format("cond and body refer to subgraphs %u and %u; the graph has %u subgraphs", op->cond(),
                               op->body(), n_subgraphs));
      node.branch_a = static_cast<int>(op->cond()) + 1;
      node.branch_b = static_cast<int>(op->body()) + 1;
      // Bounded here so that the arity sums below cannot wrap.
      if (op->scan_outputs() > kMaxNodeOutputs)
        return fail(StatusCode::kInvalidGraph, str_format("%u scan outputs; a node has at most %u outputs",
                                                          op->scan_outputs(), kMaxNodeOutputs));
      node.scan_outputs = static_cast<int32_t>(op->scan_outputs());
      break;
    }
    case fb::Op::SequenceOp: {
      const auto kind = static_cast<int>(n->op_as_SequenceOp()->kind());
      node.kind = NodeKind::kSequence;
      node.op_label = "sequence";
      if (kind >= kNumSequenceOps)
        return fail(StatusCode::kInvalidGraph,
                    str_format("sequence op %d is not known to this build (a newer file?)", kind));
      node.seq_op = static_cast<SequenceOpKind>(kind);
      node.op_label = sequence_op_name(node.seq_op);
      break;
    }
    default:
      node.op_label = "?";
      return fail(StatusCode::kInvalidGraph, str_format("node kind %u is not known to this build (a newer file?)",
                                                        static_cast<unsigned>(n->op_type())));
  }

  if (n->num_outputs() > kMaxNodeOutputs)
    return fail(StatusCode::kInvalidGraph,
                str_format("%u outputs; a node has at most %u", n->num_outputs(), kMaxNodeOutputs));
  node.num_outputs = static_cast<int32_t>(n->num_outputs());

  if (!aligned(n->t_args()) || !aligned(n->i_args()) || !aligned(n->axes()))
    return fail(StatusCode::kInvalidGraph, kMisaligned);
  if (n->t_args()) node.args.t.assign(n->t_args()->begin(), n->t_args()->end());
  if (n->i_args()) node.args.i.assign(n->i_args()->begin(), n->i_args()->end());
  if (n->b_args())
    for (uint8_t b : *n->b_args()) node.args.b.push_back(b != 0);
  if (n->d_args()) {
    for (uint32_t i = 0; i < n->d_args()->size(); ++i) {
      const int32_t raw = static_cast<int32_t>(n->d_args()->Get(i));
      if (!dtype_value_ok(raw))
        return fail(StatusCode::kInvalidGraph, str_format("d_args[%u] = %d is not a dtype", i, raw));
      node.args.d.push_back(static_cast<DataType>(raw));
    }
  }
  if (n->axes()) node.axes.assign(n->axes()->begin(), n->axes()->end());
  if (n->seed()) {
    node.has_seed = true;
    node.seed = *n->seed();
  }

  const auto* subgraphs = root_->subgraphs();
  switch (node.kind) {
    case NodeKind::kLegacy: {
      int lo = 0, hi = 0;
      legacy_arity(node.group, lo, hi);
      if (n_inputs < static_cast<uint32_t>(lo) || n_inputs > static_cast<uint32_t>(hi))
        return fail(StatusCode::kInvalidGraph,
                    lo == hi ? str_format("takes %d inputs, the node gives %u", lo, n_inputs)
                             : str_format("takes %d to %d inputs, the node gives %u", lo, hi, n_inputs));
      if (node.num_outputs != 1)
        return fail(StatusCode::kInvalidGraph,
                    str_format("a legacy op has 1 output, the node declares %d", node.num_outputs));
      if (node.args.t.size() > static_cast<size_t>(ExtraParams::kMax))
        return fail(StatusCode::kInvalidGraph, str_format("%zu float params (t_args); a legacy op takes at most %d",
                                                          node.args.t.size(), ExtraParams::kMax));
      node.extra = ExtraParams::from(node.args.t.data(), static_cast<int>(node.args.t.size()));
      break;
    }
    case NodeKind::kCustom: {
      const OpDescriptor& d = node.op->descriptor();
      const OpSignature& sig = d.signature;
      if (!sig.declared) {
        if (!count_ok(d.num_inputs, n_inputs, true))
          return fail(StatusCode::kInvalidGraph, str_format("the op takes %s inputs, the node gives %u",
                                                            arity_text(d.num_inputs, true).c_str(), n_inputs));
        if (!count_ok(d.num_outputs, node.num_outputs, true))
          return fail(StatusCode::kInvalidGraph, str_format("the op gives %s outputs, the node declares %d",
                                                            arity_text(d.num_outputs, true).c_str(), node.num_outputs));
        break;
      }
      const int lo = sig.min_inputs(), hi = sig.max_inputs();
      if (static_cast<int64_t>(n_inputs) < lo || static_cast<int64_t>(n_inputs) > hi)
        return fail(StatusCode::kInvalidGraph,
                    hi == std::numeric_limits<int>::max()
                        ? str_format("the op takes at least %d inputs, the node gives %u", lo, n_inputs)
                    : lo == hi ? str_format("the op takes %d inputs, the node gives %u", lo, n_inputs)
                               : str_format("the op takes %d to %d inputs, the node gives %u", lo, hi, n_inputs));
      const bool variadic_out = !sig.outputs.empty() && sig.outputs.back().variadic;
      const int fixed_out = static_cast<int>(sig.outputs.size()) - (variadic_out ? 1 : 0);
      if (variadic_out ? node.num_outputs < fixed_out : node.num_outputs != fixed_out)
        return fail(StatusCode::kInvalidGraph, str_format("the op gives %s%d outputs, the node declares %d",
                                                          variadic_out ? "at least " : "", fixed_out, node.num_outputs));
      // Once here, for every run: defaults filled, ranges checked (Note [Argument resolution]).
      Status s = resolve_args(sig, d.name, node.args);
      if (!s.is_ok()) return fail(StatusCode::kInvalidGraph, s.message());
      break;
    }
    case NodeKind::kSequence: RETURN_IF_ERROR(check_sequence_node(body, node, n_inputs)); break;
    case NodeKind::kIf: {
      const fb::Subgraph* a = subgraphs->Get(static_cast<uint32_t>(node.branch_a - 1));
      const fb::Subgraph* b = subgraphs->Get(static_cast<uint32_t>(node.branch_b - 1));
      if (n_inputs < 1) return fail(StatusCode::kInvalidGraph, "an if node needs its condition as input 0");
      for (const fb::Subgraph* sg : {a, b}) {
        const uint32_t index = static_cast<uint32_t>((sg == a ? node.branch_a : node.branch_b) - 1);
        if (declared_inputs(sg) != n_inputs - 1 || declared_outputs(sg) != n->num_outputs())
          return fail(StatusCode::kInvalidGraph,
                      str_format("branch subgraph %u '%s' takes %u inputs and gives %u outputs; the node passes %u "
                                 "and expects %u",
                                 index, fb_string(sg->name()).c_str(), declared_inputs(sg), declared_outputs(sg),
                                 n_inputs - 1, n->num_outputs()));
      }
      break;
    }
    case NodeKind::kWhile: {
      const fb::Subgraph* c = subgraphs->Get(static_cast<uint32_t>(node.branch_a - 1));
      const fb::Subgraph* b = subgraphs->Get(static_cast<uint32_t>(node.branch_b - 1));
      if (declared_inputs(c) != n_inputs || declared_outputs(c) != 1)
        return fail(StatusCode::kInvalidGraph,
                    str_format("cond subgraph %d '%s' takes %u inputs and gives %u outputs; the node passes %u loop "
                               "values and expects 1 (the condition)",
                               node.branch_a - 1, fb_string(c->name()).c_str(), declared_inputs(c), declared_outputs(c),
                               n_inputs));
      const uint32_t n_scan = static_cast<uint32_t>(node.scan_outputs);
      if (n_scan == 0 &&
          (declared_inputs(b) != n_inputs || declared_outputs(b) != n_inputs || n->num_outputs() != n_inputs))
        return fail(StatusCode::kInvalidGraph,
                    str_format("body subgraph %d '%s' takes %u inputs and gives %u outputs; the node has %u loop "
                               "values and declares %u outputs (all four must agree)",
                               node.branch_b - 1, fb_string(b->name()).c_str(), declared_inputs(b), declared_outputs(b),
                               n_inputs, n->num_outputs()));
      if (n_scan > 0 && (declared_inputs(b) != n_inputs || declared_outputs(b) != n_inputs + n_scan ||
                         n->num_outputs() != n_inputs + n_scan))
        return fail(StatusCode::kInvalidGraph,
                    str_format("body subgraph %d '%s' takes %u inputs and gives %u outputs; the node has %u loop "
                               "values and %u scan outputs, so the body must take %u and give %u, and the node "
                               "must declare %u outputs (it declares %u)",
                               node.branch_b - 1, fb_string(b->name()).c_str(), declared_inputs(b), declared_outputs(b),
                               n_inputs, n_scan, n_inputs, n_inputs + n_scan, n_inputs + n_scan, n->num_outputs()));
      break;
    }
  }
  return Status::ok();
}

Status GraphLoader::resolve(const Body& body, const std::string& what, const fb::ValueRef* ref, int32_t& slot) {
  auto it = ids_.find(ref->id());
  if (it == ids_.end())
    return Status::error(StatusCode::kInvalidGraph, "%s refers to id %u, which is neither a variable nor a node of %s",
                         what.c_str(), ref->id(), body.where.empty() ? "the graph" : "this subgraph");
  const IdEntry& e = it->second;
  if (!e.is_node) {
    if (ref->output() != 0)
      return Status::error(StatusCode::kInvalidGraph,
                           "%s refers to output %u of variable %u; a variable has only output 0", what.c_str(),
                           ref->output(), ref->id());
    slot = e.index;
    return Status::ok();
  }
  const Node& producer = body.nodes[static_cast<size_t>(e.index)];
  if (ref->output() >= static_cast<uint32_t>(producer.num_outputs))
    return Status::error(StatusCode::kInvalidGraph, "%s refers to output %u of node %u '%s', which has %d outputs",
                         what.c_str(), ref->output(), producer.id, producer.name.c_str(), producer.num_outputs);
  slot = producer.first_output + static_cast<int32_t>(ref->output());
  return Status::ok();
}

Status GraphLoader::read_body(int index, const BodyView& view) {
  Body& body = g_.bodies_[static_cast<size_t>(index)];
  ids_.clear();
  file_nodes_.clear();
  const uint32_t n_vars = view.variables ? view.variables->size() : 0;
  const uint32_t n_nodes = view.nodes ? view.nodes->size() : 0;

  // Variables: slots 0 .. n_vars-1.
  std::unordered_set<std::string> var_names;
  int32_t slot = 0;
  for (uint32_t i = 0; i < n_vars; ++i, ++slot) {
    const fb::Variable* v = view.variables->Get(i);
    std::string prefix;
    RETURN_IF_ERROR(read_variable(body, v, slot, prefix));
    if (!var_names.insert(fb_string(v->name())).second)
      return Status(StatusCode::kInvalidGraph, prefix + "another variable has the same name");
    if (!ids_.emplace(v->id(), IdEntry{false, slot}).second)
      return Status(StatusCode::kInvalidGraph, prefix + "its id is used twice");
  }
  total_slots_ += n_vars;

  // Nodes: output slots follow in file order.
  body.nodes.resize(n_nodes);
  for (uint32_t i = 0; i < n_nodes; ++i) {
    const fb::Node* n = view.nodes->Get(i);
    Node& node = body.nodes[i];
    RETURN_IF_ERROR(read_node(body, n, node));
    if (!ids_.emplace(node.id, IdEntry{true, static_cast<int32_t>(i)}).second)
      return Status(StatusCode::kInvalidGraph,
                    body.node_prefix(node) + "its id is already used by another variable or node");
    total_slots_ += node.num_outputs;
    if (total_slots_ > kMaxValues)
      return Status::error(StatusCode::kInvalidGraph, "graph: more than %lld values in all; not supported",
                           static_cast<long long>(kMaxValues));
    node.first_output = slot;
    slot += node.num_outputs;
    file_nodes_.push_back(n);
  }
  body.num_slots = slot;
  slot_producer_.assign(static_cast<size_t>(slot), -1);
  for (uint32_t i = 0; i < n_nodes; ++i) {
    const Node& node = body.nodes[i];
    for (int32_t k = 0; k < node.num_outputs; ++k)
      slot_producer_[static_cast<size_t>(node.first_output + k)] = static_cast<int32_t>(i);
  }

  // Inputs of every node, now that all ids are known.
  for (uint32_t i = 0; i < n_nodes; ++i) {
    Node& node = body.nodes[i];
    const auto* refs = file_nodes_[i]->inputs();
    if (refs == nullptr) continue;
    node.inputs.resize(refs->size());
    for (uint32_t k = 0; k < refs->size(); ++k) {
      Status s = resolve(body, str_format("input %u", k), refs->Get(k), node.inputs[k]);
      if (!s.is_ok()) return s.with_prefix(body.node_prefix(node));
    }
  }

  // The input list: placeholder names, in feed order; absent = every
  // placeholder in variable order.
  if (view.inputs) {
    std::vector<GraphInput> ordered;
    std::vector<uint8_t> listed(body.inputs.size(), 0);
    for (uint32_t i = 0; i < view.inputs->size(); ++i) {
      const std::string name = view.inputs->Get(i)->str();
      size_t k = 0;
      while (k < body.inputs.size() && body.inputs[k].name != name) ++k;
      if (k == body.inputs.size())
        return Status::error(StatusCode::kInvalidGraph, "%sinput %u '%s' names no placeholder",
                             body.where.empty() ? "graph: " : body.where.c_str(), i, name.c_str());
      if (listed[k])
        return Status::error(StatusCode::kInvalidGraph, "%sinput '%s' is listed twice",
                             body.where.empty() ? "graph: " : body.where.c_str(), name.c_str());
      listed[k] = 1;
      ordered.push_back(body.inputs[k]);
    }
    for (size_t k = 0; k < body.inputs.size(); ++k)
      if (!listed[k])
        return Status::error(StatusCode::kInvalidGraph,
                             "%splaceholder '%s' is not in the input list, so it could never be fed",
                             body.where.empty() ? "graph: " : body.where.c_str(), body.inputs[k].name.c_str());
    body.inputs = std::move(ordered);
  }

  // Outputs.
  if (view.outputs) {
    std::unordered_set<std::string> names;
    for (uint32_t i = 0; i < view.outputs->size(); ++i) {
      const fb::Output* o = view.outputs->Get(i);
      GraphOutput out;
      out.name = fb_string(o->name());
      const std::string what =
          str_format("%soutput %u '%s'", body.where.empty() ? "graph: " : body.where.c_str(), i, out.name.c_str());
      if (out.name.empty()) return Status(StatusCode::kInvalidGraph, what + ": an output needs a name");
      if (!names.insert(out.name).second)
        return Status(StatusCode::kInvalidGraph, what + ": another output has the same name");
      RETURN_IF_ERROR(resolve(body, what, o->value(), out.slot));
      body.outputs.push_back(std::move(out));
    }
  }
  return order_and_liveness(body, slot_producer_);
}

// The arity and args of a sequence node (SequenceOp in the schema); the
// kinds of its inputs are checked with every slot's (assign_kinds).
Status GraphLoader::check_sequence_node(const Body& body, const Node& node, uint32_t n_inputs) {
  uint32_t lo = 0, hi = 0;
  size_t n_i_args = 0;
  switch (node.seq_op) {
    case SequenceOpKind::kEmpty: break;
    case SequenceOpKind::kConstruct: lo = 1, hi = kMaxNodeOutputs; break;
    case SequenceOpKind::kInsert: lo = 2, hi = 3; break;
    case SequenceOpKind::kErase: lo = 1, hi = 2; break;
    case SequenceOpKind::kAt: lo = hi = 2; break;
    case SequenceOpKind::kLength: lo = hi = 1; break;
    case SequenceOpKind::kConcat: lo = hi = 1, n_i_args = 2; break;
    case SequenceOpKind::kSplit: lo = 1, hi = 2, n_i_args = 2; break;
    case SequenceOpKind::kOptional: hi = 1; break;
    case SequenceOpKind::kHasElement: hi = 1; break;
    case SequenceOpKind::kGetElement: lo = hi = 1; break;
  }
  auto fail = [&](const std::string& msg) { return Status(StatusCode::kInvalidGraph, body.node_prefix(node) + msg); };
  if (n_inputs < lo || n_inputs > hi)
    return fail(lo == hi ? str_format("takes %u inputs, the node gives %u", lo, n_inputs)
                         : str_format("takes %u to %u inputs, the node gives %u", lo, hi, n_inputs));
  if (node.num_outputs != 1) return fail(str_format("gives 1 output, the node declares %d", node.num_outputs));
  if (n_i_args > 0 && node.args.i.size() != n_i_args)
    return fail(str_format("takes %zu int args, the node gives %zu", n_i_args, node.args.i.size()));
  if (node.seq_op == SequenceOpKind::kConcat && node.args.i[1] != 0 && node.args.i[1] != 1)
    return fail(str_format("new_axis (int arg 1) is %lld; it is 0 or 1", static_cast<long long>(node.args.i[1])));
  if (node.seq_op == SequenceOpKind::kSplit && node.args.i[1] != 0 && node.args.i[1] != 1)
    return fail(str_format("keepdims (int arg 1) is %lld; it is 0 or 1", static_cast<long long>(node.args.i[1])));
  if (node.seq_op == SequenceOpKind::kOptional && n_inputs == 0 && node.args.i.size() == 1 && node.args.i[0] != 0 &&
      node.args.i[0] != 1)
    return fail(str_format("int arg 0 is %lld; an empty optional holds a tensor (0) or a sequence (1)",
                           static_cast<long long>(node.args.i[0])));
  return Status::ok();
}

namespace {

// A value of kind `from` may be given where `to` is declared.
bool kind_fits(ValueKind from, ValueKind to) {
  return from == to || (from == ValueKind::kTensor && to == ValueKind::kOptionalTensor) ||
         (from == ValueKind::kSequence && to == ValueKind::kOptionalSequence);
}

// The kinds a sequence node reads at input k, and the kind it gives
// (Note [Sequence values] in executor.h); false when input k may not have
// kind `in`.
bool sequence_input_ok(const Node& node, size_t k, ValueKind in) {
  switch (node.seq_op) {
    case SequenceOpKind::kInsert:
    case SequenceOpKind::kErase:
    case SequenceOpKind::kAt:
    case SequenceOpKind::kLength:
    case SequenceOpKind::kConcat:
      return k == 0 ? in == ValueKind::kSequence : in == ValueKind::kTensor;
    case SequenceOpKind::kOptional: return in == ValueKind::kTensor || in == ValueKind::kSequence;
    case SequenceOpKind::kHasElement:
    case SequenceOpKind::kGetElement: return true;
    default: return in == ValueKind::kTensor;
  }
}

ValueKind sequence_output_kind(const Node& node, const std::vector<ValueKind>& kinds) {
  auto in = [&](size_t k) { return kinds[static_cast<size_t>(node.inputs[k])]; };
  switch (node.seq_op) {
    case SequenceOpKind::kEmpty:
    case SequenceOpKind::kConstruct:
    case SequenceOpKind::kInsert:
    case SequenceOpKind::kErase:
    case SequenceOpKind::kSplit: return ValueKind::kSequence;
    case SequenceOpKind::kOptional:
      if (!node.inputs.empty()) return kind_is_list(in(0)) ? ValueKind::kOptionalSequence : ValueKind::kOptionalTensor;
      return !node.args.i.empty() && node.args.i[0] == 1 ? ValueKind::kOptionalSequence : ValueKind::kOptionalTensor;
    case SequenceOpKind::kGetElement: return kind_is_list(in(0)) ? ValueKind::kSequence : ValueKind::kTensor;
    default: return ValueKind::kTensor;
  }
}

}  // namespace

// Note [Sequence values] (executor.h): every slot's kind, from the
// placeholders' declarations through each node, bodies called by control
// flow first (the call graph is acyclic: check_subgraph_calls). A node
// given a value of a kind it cannot take fails the load, naming it.
Status GraphLoader::assign_kinds(int index, std::vector<uint8_t>& done) {
  if (done[static_cast<size_t>(index)]) return Status::ok();
  Body& body = g_.bodies_[static_cast<size_t>(index)];
  for (const Node& node : body.nodes)
    if (node.kind == NodeKind::kIf || node.kind == NodeKind::kWhile) {
      RETURN_IF_ERROR(assign_kinds(node.branch_a, done));
      RETURN_IF_ERROR(assign_kinds(node.branch_b, done));
    }
  std::vector<ValueKind>& kinds = body.kinds;
  kinds.assign(static_cast<size_t>(body.num_slots), ValueKind::kTensor);
  for (const GraphInput& in : body.inputs) kinds[static_cast<size_t>(in.slot)] = in.kind;
  auto kind_of = [&](int32_t slot) { return kinds[static_cast<size_t>(slot)]; };
  for (const Node& node : body.nodes) {
    auto fail = [&](const std::string& msg) { return Status(StatusCode::kInvalidGraph, body.node_prefix(node) + msg); };
    auto wrong_input = [&](size_t k, const char* wanted) {
      return fail(str_format("input %zu is a %s; %s", k, value_kind_name(kind_of(node.inputs[k])), wanted));
    };
    switch (node.kind) {
      case NodeKind::kCustom:
      case NodeKind::kLegacy:
        for (size_t k = 0; k < node.inputs.size(); ++k)
          if (kind_of(node.inputs[k]) != ValueKind::kTensor)
            return wrong_input(k, "the op takes tensors (a sequence or optional is read by the sequence ops)");
        break;
      case NodeKind::kSequence: {
        for (size_t k = 0; k < node.inputs.size(); ++k)
          if (!sequence_input_ok(node, k, kind_of(node.inputs[k])))
            return wrong_input(k, k == 0 && node.seq_op != SequenceOpKind::kOptional &&
                                          node.seq_op != SequenceOpKind::kConstruct &&
                                          node.seq_op != SequenceOpKind::kSplit
                                      ? "this op reads a sequence there"
                                      : "this op reads a tensor there");
        kinds[static_cast<size_t>(node.first_output)] = sequence_output_kind(node, kinds);
        break;
      }
      case NodeKind::kIf:
      case NodeKind::kWhile: {
        const bool is_if = node.kind == NodeKind::kIf;
        const size_t first = is_if ? 1 : 0;
        if (is_if && kind_of(node.inputs[0]) != ValueKind::kTensor) return wrong_input(0, "the condition is a tensor");
        const Body& a = g_.body(node.branch_a);
        const Body& b = g_.body(node.branch_b);
        for (size_t k = first; k < node.inputs.size(); ++k)
          for (const Body* callee : {&a, &b})
            if (!kind_fits(kind_of(node.inputs[k]), callee->inputs[k - first].kind))
              return fail(str_format("passes a %s as input %zu of subgraph '%s', which declares a %s",
                                     value_kind_name(kind_of(node.inputs[k])), k - first, callee->name.c_str(),
                                     value_kind_name(callee->inputs[k - first].kind)));
        if (!is_if && a.outputs[0].kind != ValueKind::kTensor)
          return fail(str_format("its condition subgraph '%s' gives a %s; the condition is a tensor", a.name.c_str(),
                                 value_kind_name(a.outputs[0].kind)));
        for (int32_t k = 0; k < node.num_outputs; ++k) {
          const size_t kk = static_cast<size_t>(k);
          ValueKind out = b.outputs[kk].kind;
          if (is_if) {
            const ValueKind other = a.outputs[kk].kind;
            if (kind_fits(out, other)) out = other;
            else if (!kind_fits(other, out))
              return fail(str_format("its branches give output %d as a %s ('%s') and a %s ('%s')", k,
                                     value_kind_name(other), a.name.c_str(), value_kind_name(out), b.name.c_str()));
          } else if (kk < node.inputs.size()) {
            // A loop value: what the body gives is fed to it again.
            const ValueKind declared = b.inputs[kk].kind;
            if (!kind_fits(out, declared))
              return fail(str_format("its body '%s' gives loop value %d as a %s but takes it as a %s", b.name.c_str(),
                                     k, value_kind_name(out), value_kind_name(declared)));
            out = declared;
          } else if (out != ValueKind::kTensor) {
            return fail(str_format("scan output %zu of its body '%s' is a %s; scan outputs are stacked tensors",
                                   kk - node.inputs.size(), b.name.c_str(), value_kind_name(out)));
          }
          kinds[static_cast<size_t>(node.first_output + k)] = out;
        }
        break;
      }
    }
  }
  body.has_lists = false;
  for (ValueKind k : kinds) body.has_lists = body.has_lists || kind_is_list(k);
  for (GraphOutput& o : body.outputs) o.kind = kind_of(o.slot);
  done[static_cast<size_t>(index)] = 1;
  return Status::ok();
}

// Control flow may nest but never recurse: the subgraph call graph must be
// acyclic (Note [Subgraphs] in the schema), and its depth is bounded.
Status GraphLoader::check_subgraph_calls() {
  // Depth-first over the call graph; height[b] is how many subgraphs deep
  // body b nests (-1: not seen yet, -2: on the current path). Paths are
  // refused once longer than kMaxNesting, which also bounds this recursion.
  std::vector<int> height(static_cast<size_t>(g_.num_bodies()), -1);
  struct Walker {
    GraphLoader& self;
    std::vector<int>& height;
    Status too_deep() const {
      return Status::error(StatusCode::kInvalidGraph, "graph: control flow nests more than %d subgraphs deep",
                           kMaxNesting);
    }
    Status visit(int b, int level) {
      int& h = height[static_cast<size_t>(b)];
      if (h >= 0) return level + h > kMaxNesting ? too_deep() : Status::ok();
      if (level > kMaxNesting) return too_deep();
      h = -2;
      int deepest = 0;
      const Body& body = self.g_.body(b);
      for (const Node& node : body.nodes) {
        if (node.kind != NodeKind::kIf && node.kind != NodeKind::kWhile) continue;
        for (int callee : {node.branch_a, node.branch_b}) {
          if (height[static_cast<size_t>(callee)] == -2) {
            const Body& target = self.g_.body(callee);
            return Status::error(StatusCode::kInvalidGraph,
                                 "%suses subgraph %d '%s', which is already running around it: subgraphs may not "
                                 "call themselves (a recursion cycle)",
                                 body.node_prefix(node).c_str(), callee - 1, target.name.c_str());
          }
          RETURN_IF_ERROR(visit(callee, level + 1));
          deepest = std::max(deepest, 1 + height[static_cast<size_t>(callee)]);
        }
      }
      height[static_cast<size_t>(b)] = deepest;
      return Status::ok();
    }
  };
  Walker w{*this, height};
  for (int b = 0; b < g_.num_bodies(); ++b) RETURN_IF_ERROR(w.visit(b, 0));
  return Status::ok();
}

// Load-time shape inference (planner.h): exact and strict when every input
// shape is declared in full; otherwise a best effort that probes the
// unknown extents (Note [Probing unknown extents]) and keeps what the probes
// agree on, for the optimizer and for listing outputs. The executor
// re-infers at run time either way.
Status GraphLoader::plan_body(int index) {
  Body& body = g_.bodies_[static_cast<size_t>(index)];
  body.kinds.resize(static_cast<size_t>(body.num_slots), ValueKind::kTensor);  // a rewrite's new slots hold tensors
  std::vector<ValueShape> declared;
  bool all_known = true;
  for (const GraphInput& in : body.inputs) {
    // A sequence's or optional's shapes are only known when it is read.
    declared.push_back(in.kind == ValueKind::kTensor ? in.shape : ValueShape{});
    all_known = all_known && declared.back().fully_known();
  }
  if (all_known) {
    const bool strict = !if_branch_[static_cast<size_t>(index)];
    RETURN_IF_ERROR(infer_shapes(g_, index, declared, strict, body.static_shapes, &body.static_values));
    // Every slot that holds a value: constants, inputs, node outputs (a
    // rewrite may leave a slot that holds none, Note [Graph rewrites]).
    std::vector<uint8_t> holds(static_cast<size_t>(body.num_slots), 0);
    for (int32_t c : body.constant_slots) holds[static_cast<size_t>(c)] = 1;
    for (const GraphInput& in : body.inputs) holds[static_cast<size_t>(in.slot)] = 1;
    for (const Node& n : body.nodes)
      for (int32_t k = 0; k < n.num_outputs; ++k) holds[static_cast<size_t>(n.first_output + k)] = 1;
    body.static_plan = true;
    for (size_t s = 0; s < body.static_shapes.size(); ++s)
      if (holds[s]) body.static_plan = body.static_plan && body.static_shapes[s].fully_known();
  } else {
    // Note [Probing unknown extents] (planner.h). A probe whose inference
    // fails as a whole (extents multiplying past 2^63) drops out.
    std::vector<ValueShape> slots[kNumProbes];
    bool ran[kNumProbes] = {};
    for (int p = 0; p < kNumProbes; ++p) {
      std::vector<ValueShape> probe = declared;
      for (ValueShape& v : probe)
        for (int d = 0; d < v.dims.size(); ++d)
          if (v.dims[d] < 0) v.dims[d] = kProbeExtents[p];
      ran[p] = infer_shapes(g_, index, probe, false, slots[p]).is_ok();
    }
    body.static_shapes.assign(static_cast<size_t>(body.num_slots), ValueShape{});
    for (size_t s = 0; s < body.static_shapes.size(); ++s) {
      bool reached[kNumProbes] = {};
      int first = -1;
      for (int p = 0; p < kNumProbes; ++p) {
        reached[p] = ran[p] && slots[p][s].fully_known();
        if (reached[p] && first < 0) first = p;
      }
      if (!probes_known(reached)) continue;
      const ValueShape& a = slots[first][s];
      ValueShape merged = a;
      bool agree = true;
      for (int p = first + 1; p < kNumProbes && agree; ++p) {
        if (!reached[p]) continue;
        const ValueShape& b = slots[p][s];
        agree = a.dtype == b.dtype && a.dims.size() == b.dims.size();
        for (int d = 0; agree && d < a.dims.size(); ++d)
          if (a.dims[d] != b.dims[d]) merged.dims[d] = -1;
      }
      if (agree) body.static_shapes[s] = merged;
    }
    for (size_t i = 0; i < body.inputs.size(); ++i) body.static_shapes[static_cast<size_t>(body.inputs[i].slot)] = declared[i];
    body.static_plan = false;
  }
  for (GraphOutput& o : body.outputs) o.shape = body.static_shapes[static_cast<size_t>(o.slot)];
  return Status::ok();
}

Status GraphLoader::load() {
  RETURN_IF_ERROR(verify());
  const auto* subgraphs = root_->subgraphs();
  const uint32_t n_sub = subgraphs ? subgraphs->size() : 0;
  g_.bodies_.resize(static_cast<size_t>(n_sub) + 1);
  g_.bodies_[0].name = "main";
  for (uint32_t i = 0; i < n_sub; ++i) {
    Body& b = g_.bodies_[i + 1];
    b.name = fb_string(subgraphs->Get(i)->name());
    b.where = str_format("subgraph %u '%s': ", i, b.name.c_str());
  }
  RETURN_IF_ERROR(read_body(0, BodyView{root_->variables(), root_->nodes(), root_->inputs(), root_->outputs()}));
  for (uint32_t i = 0; i < n_sub; ++i) {
    const fb::Subgraph* sg = subgraphs->Get(i);
    RETURN_IF_ERROR(
        read_body(static_cast<int>(i) + 1, BodyView{sg->variables(), sg->nodes(), sg->inputs(), sg->outputs()}));
  }
  RETURN_IF_ERROR(check_subgraph_calls());
  std::vector<uint8_t> kinds_done(g_.bodies_.size(), 0);
  for (int b = 0; b < g_.num_bodies(); ++b) RETURN_IF_ERROR(assign_kinds(b, kinds_done));
  // Note [Graph rewrites].
  if (options_.rewrites && rewrites_enabled_by_environment()) {
    LayoutChoice choice;
    choice.layout = options_.layout;
    if (const fb::Configuration* c = root_->configuration()) {
      Device d;
      const std::string device = fb_string(c->device());
      choice.cpu_graph = device.empty() || (Device::parse(device.c_str(), d).is_ok() && d.is_cpu());
    }
    for (Body& body : g_.bodies_) RETURN_IF_ERROR(optimize_body(body, choice, g_.rewrites_));
  }
  // If branches are inferred leniently (Note [Shape inference strictness]).
  if_branch_.assign(static_cast<size_t>(g_.num_bodies()), 0);
  for (const Body& body : g_.bodies_)
    for (const Node& n : body.nodes)
      if (n.kind == NodeKind::kIf)
        if_branch_[static_cast<size_t>(n.branch_a)] = if_branch_[static_cast<size_t>(n.branch_b)] = 1;
  // Subgraphs first is not needed: inference of a control-flow node infers
  // the bodies it calls itself.
  for (int b = 0; b < g_.num_bodies(); ++b) {
    RETURN_IF_ERROR(plan_body(b));
    if (!options_.rewrites || !rewrites_enabled_by_environment()) continue;
    bool changed = false;
    Body& body = g_.bodies_[static_cast<size_t>(b)];
    RETURN_IF_ERROR(optimize_planned_body(body, g_.rewrites_, changed));
    if (changed) RETURN_IF_ERROR(plan_body(b));
    // Last: the rewrites above take the patterns they know whole first.
    if (!options_.fuse_elementwise) continue;
    RETURN_IF_ERROR(fuse_elementwise_chains(body, g_.rewrites_, changed));
    if (changed) RETURN_IF_ERROR(plan_body(b));
  }

  if (const fb::Configuration* c = root_->configuration()) {
    g_.config_.device = fb_string(c->device());
    Device d;
    if (!g_.config_.device.empty() && !Device::parse(g_.config_.device.c_str(), d).is_ok())
      return Status::error(StatusCode::kInvalidGraph, "graph configuration: unknown device '%s' (expected cpu, cuda or "
                           "cuda:N)", g_.config_.device.c_str());
    g_.config_.threads = c->threads();
    g_.config_.profiling = c->profiling();
  }
  return Status::ok();
}

// ---------------------------------------------------------------- entry points

namespace {

// What a user debugging a model wants to see first (LIBOPS_LOG_LEVEL=info):
// the graph's size, inputs and outputs; at debug also every rewrite.
void log_loaded(const Graph& g, size_t size) {
  int nodes = 0;
  for (int b = 0; b < g.num_bodies(); ++b) nodes += static_cast<int>(g.body(b).nodes.size());
  const Body& main = g.main();
  std::string inputs, outputs;
  for (const GraphInput& in : main.inputs) inputs += (inputs.empty() ? "" : ", ") + in.name + " " + in.shape.str();
  for (const GraphOutput& o : main.outputs) outputs += (outputs.empty() ? "" : ", ") + o.name + " " + o.shape.str();
  log_info("graph: loaded %zu bytes: %d nodes in %d bodies, %zu rewrites; inputs %s; outputs %s", size, nodes,
           g.num_bodies(), g.rewrites().size(), inputs.c_str(), outputs.c_str());
  for (const std::string& r : g.rewrites()) log_debug("graph rewrite: %s", r.c_str());
}

Status load_bytes(const uint8_t* bytes, size_t size, std::shared_ptr<DataBuffer> keep, const LoadOptions& options,
                  std::shared_ptr<const Graph>& out) {
  try {
    auto g = std::make_shared<Graph>();
    GraphLoader loader(*g, bytes, size, std::move(keep), options);
    const Status loaded = loader.load();
    if (!loaded.is_ok()) {
      log_debug("graph: load of %zu bytes failed: %s", size, loaded.message().c_str());
      return loaded;
    }
    if (log_enabled(LogLevel::kInfo)) log_loaded(*g, size);
    out = std::move(g);
    return Status::ok();
  } catch (const std::bad_alloc&) {
    return Status::error(StatusCode::kOutOfMemory, "graph: out of memory while loading");
  } catch (const std::exception& e) {
    return Status::error(StatusCode::kInternal, "graph: unexpected error while loading: %s", e.what());
  }
}

}  // namespace

Status Graph::load_buffer(const void* data, size_t size, const LoadOptions& options,
                          std::shared_ptr<const Graph>& out) {
  if (data == nullptr && size > 0) return Status::error(StatusCode::kNullPointer, "graph: the buffer is null");
  // A borrowed buffer must be 8-byte aligned for the 8-byte scalars in it
  // to be read in place; any other is copied (its constants could not be
  // used in place anyway).
  if ((options.borrow_buffer && reinterpret_cast<uintptr_t>(data) % 8 == 0) || size == 0)
    return load_bytes(static_cast<const uint8_t*>(data), size, nullptr, options, out);
  // A 64-byte aligned copy, so that aligned constants are used in place.
  auto copy = DataBuffer::allocate(size);
  if (!copy) return Status::error(StatusCode::kOutOfMemory, "graph: cannot allocate %zu bytes for the graph", size);
  std::memcpy(copy->host(), data, size);
  return load_bytes(static_cast<const uint8_t*>(copy->host()), size, copy, options, out);
}

Status Graph::load_file(const std::string& path, std::shared_ptr<const Graph>& out) {
  return load_file(path, LoadOptions{}, out);
}

namespace {

// An ONNX model's bytes, read from `path`: converted, then loaded as the
// .lops bytes the importer wrote (graph/onnx/).
Status load_onnx(const std::string& path, const void* bytes, size_t size, const LoadOptions& load_options,
                 std::shared_ptr<const Graph>& out) {
  onnx::ConvertOptions options;
  const size_t slash = path.rfind('/');
  options.base_dir = slash == std::string::npos ? std::string(".") : path.substr(0, slash == 0 ? 1 : slash);
  onnx::ConvertResult converted;
  Status c = onnx::convert_buffer(bytes, size, options, converted);
  if (!c.is_ok()) return c.with_prefix(path + ": ");
  // The converted bytes are aligned and kept alive by the graph: their
  // constants are used in place.
  Status s = load_bytes(converted.lops.data(), converted.lops.size(), converted.lops.buffer(), load_options, out);
  return s.is_ok() ? s : s.with_prefix(path + " (converted from ONNX): ");
}

}  // namespace

Status Graph::load_file(const std::string& path, const LoadOptions& load_options, std::shared_ptr<const Graph>& out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    return Status::error(StatusCode::kIo, "graph: cannot open '%s': %s", path.c_str(), std::strerror(errno));
  struct stat st {};
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(f);
    return Status::error(StatusCode::kIo, "graph: '%s' is not a regular file", path.c_str());
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    std::fclose(f);
    return Status::error(StatusCode::kInvalidGraph, "graph: '%s' is %zu bytes; at most %llu are supported",
                         path.c_str(), size, static_cast<unsigned long long>(FLATBUFFERS_MAX_BUFFER_SIZE) - 1);
  }
  // An ONNX model is read through a mapping of the file, only while it is
  // converted: a buffer of our own was one more model-sized allocation to
  // fault in and fill (ResNet-50: 100 MB). A .lops file is read into the
  // graph's own block (its constants stay in use after loading: a mapping
  // kept that long would fault, not fail, if the file were rewritten).
  if (size > 0) {
    void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
    if (mapped != MAP_FAILED) {
      const bool onnx_model = onnx::looks_like_onnx(path, mapped, size);
      if (onnx_model) {
        std::fclose(f);
        (void)madvise(mapped, size, MADV_SEQUENTIAL);
        Status s = load_onnx(path, mapped, size, load_options, out);
        munmap(mapped, size);
        return s;
      }
      munmap(mapped, size);
    }
  }
  auto buffer = DataBuffer::allocate(size);
  if (!buffer) {
    std::fclose(f);
    return Status::error(StatusCode::kOutOfMemory, "graph: cannot allocate %zu bytes to read '%s'", size, path.c_str());
  }
  const size_t got = size > 0 ? std::fread(buffer->host(), 1, size, f) : 0;
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed || got != size)
    return Status::error(StatusCode::kIo, "graph: reading '%s' failed after %zu of %zu bytes", path.c_str(), got, size);
  // An ONNX model (by its name, or by its first bytes) is converted first,
  // then loaded as the .lops bytes the importer wrote (graph/onnx/).
  if (onnx::looks_like_onnx(path, buffer->host(), size)) return load_onnx(path, buffer->host(), size, load_options, out);
  Status s = load_bytes(static_cast<const uint8_t*>(buffer->host()), size, buffer, load_options, out);
  return s.is_ok() ? s : s.with_prefix(path + ": ");
}

}  // namespace libops::graph
