// Reads an ONNX model (protobuf, parsed by the code protoc generates from
// onnx_ir.proto) into the plain structs of onnx_model.h. The only file of the
// importer that includes the protobuf headers; see onnx_model.h.
#include "graph/onnx/onnx_model.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

#include "graph/onnx/onnx_ir.pb.h"
#include "graph/onnx/onnx_preview.h"

namespace libops::graph::onnx {

namespace {

namespace pb = ::libops::onnx_ir;

// No tensor may claim more bytes than this (the graph format's own limit is
// 2 GiB for the whole file).
constexpr int64_t kMaxTensorBytes = int64_t{1} << 31;

int64_t checked_numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && n > kMaxTensorBytes / d) return -1;
    n *= d;
  }
  return n;
}

std::string tensor_label(const pb::Tensor& t) {
  return t.name().empty() ? std::string("tensor") : "tensor '" + t.name() + "'";
}

// A path named by external_data must stay inside the model's folder.
bool safe_relative_path(const std::string& p) {
  if (p.empty() || p[0] == '/') return false;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    if (p.compare(start, end - start, "..") == 0 && end - start == 2) return false;
    start = end + 1;
  }
  return true;
}

Status read_external(const pb::Tensor& t, const std::string& base_dir, size_t nbytes, std::vector<uint8_t>& out) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : t.external_data()) {
    char* end = nullptr;
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      errno = 0;
      long long v = std::strtoll(kv.value().c_str(), &end, 10);
      if (errno != 0 || end == kv.value().c_str() || *end != '\0' || v < 0)
        return Status::error(StatusCode::kInvalidGraph, "onnx: %s: external_data %s '%s' is not a byte count >= 0",
                             tensor_label(t).c_str(), kv.key().c_str(), kv.value().c_str());
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty())
    return Status::error(StatusCode::kInvalidGraph, "onnx: %s: external data without a location",
                         tensor_label(t).c_str());
  if (base_dir.empty())
    return Status::error(StatusCode::kInvalidArgument,
                         "onnx: %s: its data is in the external file '%s', but no model folder was given to find it "
                         "in (convert the file, or pass its folder)",
                         tensor_label(t).c_str(), location.c_str());
  if (!safe_relative_path(location))
    return Status::error(StatusCode::kInvalidGraph,
                         "onnx: %s: external data location '%s' must be a relative path inside the model's folder",
                         tensor_label(t).c_str(), location.c_str());
  if (length >= 0 && static_cast<uint64_t>(length) != nbytes)
    return Status::error(StatusCode::kInvalidGraph,
                         "onnx: %s: external data length %lld does not match its %zu bytes (dims and dtype)",
                         tensor_label(t).c_str(), static_cast<long long>(length), nbytes);
  const std::string path = base_dir + "/" + location;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    return Status::error(StatusCode::kIo, "onnx: %s: cannot open external data '%s': %s", tensor_label(t).c_str(),
                         path.c_str(), std::strerror(errno));
  struct stat st {};
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(f);
    return Status::error(StatusCode::kIo, "onnx: %s: external data '%s' is not a regular file", tensor_label(t).c_str(),
                         path.c_str());
  }
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (static_cast<uint64_t>(offset) > file_size || nbytes > file_size - static_cast<uint64_t>(offset)) {
    std::fclose(f);
    return Status::error(StatusCode::kInvalidGraph,
                         "onnx: %s: external data '%s' is %llu bytes; offset %lld + %zu bytes runs past its end",
                         tensor_label(t).c_str(), path.c_str(), static_cast<unsigned long long>(file_size),
                         static_cast<long long>(offset), nbytes);
  }
  out.resize(nbytes);
  bool ok = std::fseek(f, static_cast<long>(offset), SEEK_SET) == 0;
  if (ok && nbytes > 0) ok = std::fread(out.data(), 1, nbytes, f) == nbytes;
  std::fclose(f);
  if (!ok)
    return Status::error(StatusCode::kIo, "onnx: %s: reading %zu bytes of external data '%s' failed",
                         tensor_label(t).c_str(), nbytes, path.c_str());
  return Status::ok();
}

template <typename Src, typename Dst>
void copy_cast(const google::protobuf::RepeatedField<Src>& src, std::vector<uint8_t>& out) {
  out.resize(static_cast<size_t>(src.size()) * sizeof(Dst));
  auto* d = reinterpret_cast<Dst*>(out.data());
  for (int k = 0; k < src.size(); ++k) d[k] = static_cast<Dst>(src.Get(k));
}

// A low-precision tensor's elements, one a byte: 8-bit formats as they are,
// 4-bit ones two a byte and 2-bit ones four a byte, first element in the
// lowest bits (ONNX's packing); int4 and int2 sign-extended into int8.
Status lowp_tensor_from_proto(const pb::Tensor& t, const std::string& base_dir, Tensor& out) {
  const int bits = out.lowp >= 7 && out.lowp <= 8 ? 4 : out.lowp >= 9 ? 2 : out.lowp == 6 ? 4 : 8;
  const int64_t n = checked_numel(out.dims);
  if (n < 0 || n > kMaxTensorBytes)
    return Status::error(StatusCode::kInvalidGraph, "onnx: %s has invalid or too large dims (%d dims)",
                         tensor_label(t).c_str(), t.dims_size());
  const size_t packed = static_cast<size_t>((n * bits + 7) / 8);
  std::vector<uint8_t> bytes;
  if (t.data_location() == 1) {
    RETURN_IF_ERROR(read_external(t, base_dir, packed, bytes));
  } else if (t.has_raw_data()) {
    bytes.assign(t.raw_data().begin(), t.raw_data().end());
  } else {
    for (int32_t v : t.int32_data()) bytes.push_back(static_cast<uint8_t>(v));
  }
  if (bytes.size() != packed)
    return Status::error(StatusCode::kInvalidGraph, "onnx: %s holds %zu bytes; its %lld %s values take %zu",
                         tensor_label(t).c_str(), bytes.size(), static_cast<long long>(n), onnx_type_name(t.data_type()),
                         packed);
  out.data.resize(static_cast<size_t>(n));
  const bool is_signed = out.lowp == 7 || out.lowp == 9;
  const int per_byte = 8 / bits, mask = (1 << bits) - 1;
  for (int64_t k = 0; k < n; ++k) {
    int v = (bytes[static_cast<size_t>(k / per_byte)] >> (bits * (k % per_byte))) & mask;
    if (is_signed && v >= (1 << (bits - 1))) v -= 1 << bits;
    out.data[static_cast<size_t>(k)] = static_cast<uint8_t>(static_cast<int8_t>(v));
  }
  return Status::ok();
}

Status tensor_from_proto(const pb::Tensor& t, const std::string& base_dir, Tensor& out) {
  out.name = t.name();
  out.onnx_type = t.data_type();
  out.dtype = dtype_from_onnx(t.data_type());
  out.lowp = lowp_from_onnx(t.data_type());
  if (out.lowp != 0) {
    out.dtype = lowp_storage_dtype(out.lowp);
    out.dims.assign(t.dims().begin(), t.dims().end());
    return lowp_tensor_from_proto(t, base_dir, out);
  }
  if (out.dtype == DataType::kInvalid)
    return Status::error(StatusCode::kDtype, "onnx: %s has dtype %s, which libops does not support",
                         tensor_label(t).c_str(), onnx_type_name(t.data_type()));
  out.dims.assign(t.dims().begin(), t.dims().end());
  const int64_t n = checked_numel(out.dims);
  const int64_t item = static_cast<int64_t>(dtype_size(out.dtype));
  if (n < 0 || n > kMaxTensorBytes / item)
    return Status::error(StatusCode::kInvalidGraph, "onnx: %s has invalid or too large dims (%d dims)",
                         tensor_label(t).c_str(), t.dims_size());
  const size_t nbytes = static_cast<size_t>(n * item);
  if (t.data_location() == 1)  // EXTERNAL
    return read_external(t, base_dir, nbytes, out.data);
  if (t.has_raw_data()) {
    if (t.raw_data().size() != nbytes)
      return Status::error(StatusCode::kInvalidGraph, "onnx: %s: raw_data holds %zu bytes; dims and dtype %s need %zu",
                           tensor_label(t).c_str(), t.raw_data().size(), onnx_type_name(t.data_type()), nbytes);
    out.data.assign(t.raw_data().begin(), t.raw_data().end());
    return Status::ok();
  }
  int64_t have = 0;
  switch (out.dtype) {
    case DataType::kFloat32: have = t.float_data_size(); copy_cast<float, float>(t.float_data(), out.data); break;
    case DataType::kFloat64: have = t.double_data_size(); copy_cast<double, double>(t.double_data(), out.data); break;
    case DataType::kInt64: have = t.int64_data_size(); copy_cast<int64_t, int64_t>(t.int64_data(), out.data); break;
    case DataType::kInt32: have = t.int32_data_size(); copy_cast<int32_t, int32_t>(t.int32_data(), out.data); break;
    case DataType::kInt16: have = t.int32_data_size(); copy_cast<int32_t, int16_t>(t.int32_data(), out.data); break;
    case DataType::kInt8: have = t.int32_data_size(); copy_cast<int32_t, int8_t>(t.int32_data(), out.data); break;
    case DataType::kUInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16:  // bit patterns in int32_data
      have = t.int32_data_size();
      copy_cast<int32_t, uint16_t>(t.int32_data(), out.data);
      break;
    case DataType::kUInt8: have = t.int32_data_size(); copy_cast<int32_t, uint8_t>(t.int32_data(), out.data); break;
    case DataType::kBool: have = t.int32_data_size(); copy_cast<int32_t, uint8_t>(t.int32_data(), out.data); break;
    case DataType::kUInt32: have = t.uint64_data_size(); copy_cast<uint64_t, uint32_t>(t.uint64_data(), out.data); break;
    case DataType::kUInt64: have = t.uint64_data_size(); copy_cast<uint64_t, uint64_t>(t.uint64_data(), out.data); break;
    default: break;
  }
  if (have != n)
    return Status::error(StatusCode::kInvalidGraph, "onnx: %s holds %lld values; its %zu dims need %lld",
                         tensor_label(t).c_str(), static_cast<long long>(have), out.dims.size(),
                         static_cast<long long>(n));
  if (out.dtype == DataType::kBool)
    for (auto& b : out.data) b = b != 0;
  return Status::ok();
}

// "tensor(float)", "seq(tensor(int64))", "optional(...)", for messages.
std::string type_label(const pb::Type& t) {
  if (t.has_tensor_type()) return std::string("tensor(") + onnx_type_name(t.tensor_type().elem_type()) + ")";
  if (t.has_sequence_type()) return "seq(" + type_label(t.sequence_type().elem_type()) + ")";
  if (t.has_optional_type()) return "optional(" + type_label(t.optional_type().elem_type()) + ")";
  if (t.has_map_type()) return "map";
  if (t.has_sparse_tensor_type()) return "sparse_tensor";
  return "(no type)";
}

void value_info_from_proto(const pb::ValueInfo& v, ValueInfo& out) {
  out.name = v.name();
  if (!v.has_type()) return;
  out.type_label = type_label(v.type());
  // seq(tensor), optional(tensor) and optional(seq(tensor)): the kind, and
  // the tensors' type below.
  const pb::Type* t = &v.type();
  if (t->has_optional_type()) {
    out.value_kind = 2;
    t = &t->optional_type().elem_type();
  }
  if (t->has_sequence_type()) {
    out.value_kind = out.value_kind == 2 ? 3 : 1;
    t = &t->sequence_type().elem_type();
  }
  if (!t->has_tensor_type()) {
    out.value_kind = 0;
    return;
  }
  const auto& tt = t->tensor_type();
  out.onnx_type = tt.elem_type();
  out.dtype = dtype_from_onnx(tt.elem_type());
  out.lowp = lowp_from_onnx(tt.elem_type());
  if (out.lowp != 0) out.dtype = lowp_storage_dtype(out.lowp);
  if (!tt.has_shape()) return;
  out.rank_known = true;
  out.dims.clear();
  out.dim_params.clear();
  for (const auto& d : tt.shape().dim()) {
    out.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
    out.dim_params.push_back(d.has_dim_param() ? d.dim_param() : std::string());
  }
}

const char* attribute_type_name(int type) {
  switch (type) {
    case pb::Attribute::FLOAT: return "FLOAT";
    case pb::Attribute::INT: return "INT";
    case pb::Attribute::STRING: return "STRING";
    case pb::Attribute::TENSOR: return "TENSOR";
    case pb::Attribute::GRAPH: return "GRAPH";
    case pb::Attribute::SPARSE_TENSOR: return "SPARSE_TENSOR";
    case pb::Attribute::TYPE_PROTO: return "TYPE_PROTO";
    case pb::Attribute::FLOATS: return "FLOATS";
    case pb::Attribute::INTS: return "INTS";
    case pb::Attribute::STRINGS: return "STRINGS";
    case pb::Attribute::TENSORS: return "TENSORS";
    case pb::Attribute::GRAPHS: return "GRAPHS";
    default: return "UNDEFINED";
  }
}

Status subgraph_from_proto(const pb::Graph& g, const std::string& base_dir, int depth, SubGraph& out);

Status attribute_from_proto(const pb::Attribute& a, const std::string& base_dir, const std::string& where,
                            int depth, Attribute& out) {
  using T = Attribute::Type;
  out.name = a.name();
  out.ref_attr_name = a.ref_attr_name();
  out.type_name = attribute_type_name(a.type());
  switch (a.type()) {
    case pb::Attribute::FLOAT: out.type = T::kFloat; out.f = a.f(); break;
    case pb::Attribute::INT: out.type = T::kInt; out.i = a.i(); break;
    case pb::Attribute::STRING: out.type = T::kString; out.s = a.s(); break;
    case pb::Attribute::FLOATS: out.type = T::kFloats; out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case pb::Attribute::INTS: out.type = T::kInts; out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case pb::Attribute::STRINGS: out.type = T::kStrings; out.strings.assign(a.strings().begin(), a.strings().end()); break;
    case pb::Attribute::GRAPH: {
      out.type = T::kGraph;
      if (depth >= 16)
        return Status::error(StatusCode::kInvalidGraph, "onnx: %sattribute '%s': subgraphs nest more than 16 deep",
                             where.c_str(), a.name().c_str());
      out.g = std::make_shared<SubGraph>();
      Status s = subgraph_from_proto(a.g(), base_dir, depth + 1, *out.g);
      if (!s.is_ok()) return s;
      break;
    }
    case pb::Attribute::TENSOR: {
      out.type = T::kTensor;
      out.t = std::make_shared<Tensor>();
      Status s = tensor_from_proto(a.t(), base_dir, *out.t);
      if (!s.is_ok()) return s.with_prefix(where + "attribute '" + a.name() + "': ");
      break;
    }
    default: out.type = T::kOther; break;
  }
  return Status::ok();
}

// A graph's outputs, and what it declares of its values' types and shapes
// (the main graph and subgraphs alike).
template <typename ValueInfoMap>
void read_outputs_and_value_info(const pb::Graph& g, std::vector<ValueInfo>& outputs, ValueInfoMap& value_info) {
  for (const auto& v : g.output()) {
    ValueInfo vi;
    value_info_from_proto(v, vi);
    outputs.push_back(vi);
    if (vi.dtype != DataType::kInvalid || vi.rank_known) value_info[vi.name] = vi;
  }
  for (const auto& v : g.value_info()) {
    ValueInfo vi;
    value_info_from_proto(v, vi);
    value_info.emplace(vi.name, vi);
  }
}

template <typename Nodes>
Status nodes_from_proto(const Nodes& nodes, const std::string& base_dir, int depth, std::vector<Node>& out) {
  out.reserve(static_cast<size_t>(nodes.size()));
  for (int k = 0; k < nodes.size(); ++k) {
    const pb::Node& n = nodes.Get(k);
    Node node;
    node.index = k;
    node.name = n.name();
    node.op_type = n.op_type();
    node.domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    const std::string where = str_format("node %d '%s' (%s): ", k, n.name().c_str(), n.op_type().c_str());
    for (const auto& a : n.attribute()) {
      Attribute attr;
      RETURN_IF_ERROR(attribute_from_proto(a, base_dir, where, depth, attr));
      node.attributes.push_back(std::move(attr));
    }
    out.push_back(std::move(node));
  }
  return Status::ok();
}

Status subgraph_from_proto(const pb::Graph& g, const std::string& base_dir, int depth, SubGraph& out) {
  out.name = g.name();
  for (const auto& t : g.initializer()) {
    Tensor tensor;
    RETURN_IF_ERROR(tensor_from_proto(t, base_dir, tensor));
    out.initializers.push_back(std::move(tensor));
  }
  for (const auto& v : g.input()) {
    ValueInfo vi;
    value_info_from_proto(v, vi);
    out.inputs.push_back(vi);
    out.value_info[vi.name] = vi;
  }
  read_outputs_and_value_info(g, out.outputs, out.value_info);
  return nodes_from_proto(g.node(), base_dir, depth, out.nodes);
}

// Note [Model-local functions]
//  Exporters (onnxscript, PyTorch's dynamo exporter, spox) may write a
//  module as a function in the model (ModelProto.functions) and call it by
//  (domain, name) like an operator. The importer inlines each call before it
//  maps anything: the function's nodes, with its formal inputs and outputs
//  renamed to the call's values, its other values to names of their own
//  ("<call>/<function>/<value>"), and each attribute that refers to one of
//  the call's (ref_attr_name) given the call's value, else the function's
//  default, else left out. The nodes keep the function's opset of the
//  default domain, and messages name the call they came from. Functions
//  calling functions are inlined in turn, at most 16 deep.
struct LocalFunction {
  std::string domain, name;
  std::vector<std::string> inputs, outputs;
  std::vector<Attribute> defaults;  // attribute_proto: the defaults of its attributes
  std::vector<Node> nodes;
  int64_t opset = 0;
};
using Functions = std::map<std::pair<std::string, std::string>, LocalFunction>;

Status inline_functions(std::vector<Node>& nodes, const Functions& functions, int depth, int& calls) {
  std::vector<Node> out;
  out.reserve(nodes.size());
  for (Node& call : nodes) {
    for (Attribute& a : call.attributes)
      if (a.g) RETURN_IF_ERROR(inline_functions(a.g->nodes, functions, depth, calls));
    auto it = functions.find({call.domain, call.op_type});
    if (it == functions.end()) {
      out.push_back(std::move(call));
      continue;
    }
    const LocalFunction& f = it->second;
    const std::string label = str_format(" (inlined from node %d '%s', function %s%s%s)", call.index,
                                         call.name.c_str(), f.domain.c_str(), f.domain.empty() ? "" : ".",
                                         f.name.c_str());
    if (depth >= 16)
      return Status::error(StatusCode::kInvalidGraph, "onnx: node %d '%s': model-local functions nest more than 16 "
                                                      "deep (%s)", call.index, call.name.c_str(), f.name.c_str());
    if (call.inputs.size() > f.inputs.size() || call.outputs.size() > f.outputs.size())
      return Status::error(StatusCode::kInvalidGraph, "onnx: node %d '%s' calls function %s with %zu inputs and %zu "
                                                      "outputs; it has %zu and %zu", call.index, call.name.c_str(),
                           f.name.c_str(), call.inputs.size(), call.outputs.size(), f.inputs.size(), f.outputs.size());
    // Names: formal -> actual; every other value of the body -> its own.
    const std::string prefix = (call.name.empty() ? "call" + std::to_string(calls) : call.name) + "/" + f.name + "/";
    ++calls;
    std::unordered_map<std::string, std::string> names;
    for (size_t k = 0; k < f.inputs.size(); ++k) names[f.inputs[k]] = k < call.inputs.size() ? call.inputs[k] : "";
    for (size_t k = 0; k < f.outputs.size(); ++k)
      names[f.outputs[k]] = k < call.outputs.size() ? call.outputs[k] : prefix + f.outputs[k];
    std::vector<Node> body = f.nodes;
    for (const Node& b : body)
      for (const std::string& o : b.outputs)
        if (!o.empty() && !names.count(o)) names[o] = prefix + o;
    rename_values(body, names);
    for (Node& b : body) {
      std::vector<Attribute> attrs;
      for (Attribute& a : b.attributes) {
        if (a.ref_attr_name.empty()) {
          attrs.push_back(std::move(a));
          continue;
        }
        const Attribute* given = call.find(a.ref_attr_name);
        const Attribute* fallback = nullptr;
        for (const Attribute& d : f.defaults)
          if (d.name == a.ref_attr_name) fallback = &d;
        const Attribute* value = given != nullptr ? given : fallback;
        if (value == nullptr) continue;  // neither given nor defaulted: the attribute is absent
        Attribute resolved = *value;
        resolved.name = a.name;
        attrs.push_back(std::move(resolved));
      }
      b.attributes = std::move(attrs);
      b.opset = f.opset;
      b.inlined_from = label + b.inlined_from;
      b.index = call.index;
    }
    RETURN_IF_ERROR(inline_functions(body, functions, depth + 1, calls));
    for (Node& b : body) out.push_back(std::move(b));
  }
  nodes = std::move(out);
  return Status::ok();
}

Status model_from_proto(pb::Model& m, const std::string& base_dir, Model& out) {
  if (!m.has_graph())
    return Status::error(StatusCode::kInvalidGraph, "onnx: the model has no graph: it is empty, truncated or not an "
                                                    "ONNX model");
  out.ir_version = m.ir_version();
  out.producer = m.producer_name();
  out.opset = 0;
  bool have_default = false;
  for (const auto& o : m.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      out.opset = o.version();
      have_default = true;
    } else {
      out.other_opsets.emplace_back(o.domain(), o.version());
    }
  }
  // Before IR version 3 there was no opset_import: opset 1.
  if (!have_default) out.opset = m.ir_version() < 3 ? 1 : 0;

  const pb::Graph& g = m.graph();
  for (const auto& t : g.initializer()) {
    Tensor tensor;
    RETURN_IF_ERROR(tensor_from_proto(t, base_dir, tensor));
    out.initializers.push_back(std::move(tensor));
  }
  std::unordered_map<std::string, int> is_init;
  for (const auto& t : out.initializers) is_init[t.name] = 1;
  for (const auto& v : g.input()) {
    ValueInfo vi;
    value_info_from_proto(v, vi);
    out.value_info[vi.name] = vi;
    if (!is_init.count(vi.name)) out.inputs.push_back(vi);
  }
  read_outputs_and_value_info(g, out.outputs, out.value_info);
  RETURN_IF_ERROR(nodes_from_proto(g.node(), base_dir, 0, out.nodes));
  // Note [Model-local functions]
  if (m.functions_size() == 0) return expand_preview_ops(out.nodes, out.value_info, out.opset);
  Functions functions;
  for (const pb::Function& f : m.functions()) {
    LocalFunction lf;
    lf.name = f.name();
    lf.domain = f.domain() == "ai.onnx" ? std::string() : f.domain();
    lf.inputs.assign(f.input().begin(), f.input().end());
    lf.outputs.assign(f.output().begin(), f.output().end());
    lf.opset = out.opset;
    for (const auto& o : f.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") lf.opset = o.version();
    const std::string where = "function '" + f.domain() + "." + f.name() + "': ";
    for (const pb::Attribute& a : f.attribute_proto()) {
      Attribute attr;
      RETURN_IF_ERROR(attribute_from_proto(a, base_dir, where, 0, attr));
      lf.defaults.push_back(std::move(attr));
    }
    RETURN_IF_ERROR(nodes_from_proto(f.node(), base_dir, 0, lf.nodes).with_prefix("onnx: " + where));
    functions[{lf.domain, lf.name}] = std::move(lf);
  }
  int calls = 0;
  RETURN_IF_ERROR(inline_functions(out.nodes, functions, 0, calls));
  return expand_preview_ops(out.nodes, out.value_info, out.opset);
}

}  // namespace

void rename_values(std::vector<Node>& nodes, const std::unordered_map<std::string, std::string>& names) {
  for (Node& n : nodes) {
    for (std::vector<std::string>* v : {&n.inputs, &n.outputs})
      for (std::string& s : *v) {
        auto it = names.find(s);
        if (it != names.end()) s = it->second;
      }
    for (Attribute& a : n.attributes)
      if (a.g) {
        rename_values(a.g->nodes, names);
        for (std::vector<ValueInfo>* list : {&a.g->inputs, &a.g->outputs})
          for (ValueInfo& v : *list) {
            auto it = names.find(v.name);
            if (it != names.end()) v.name = it->second;
          }
      }
  }
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

template <typename T>
static T load_as(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

bool Tensor::to_int64s(std::vector<int64_t>& out) const {
  out.clear();
  const size_t n = static_cast<size_t>(numel());
  if (data.size() != n * dtype_size(dtype)) return false;
  const uint8_t* p = data.data();
  for (size_t k = 0; k < n; ++k) {
    switch (dtype) {
      case DataType::kInt64: out.push_back(load_as<int64_t>(p + 8 * k)); break;
      case DataType::kInt32: out.push_back(load_as<int32_t>(p + 4 * k)); break;
      case DataType::kInt16: out.push_back(load_as<int16_t>(p + 2 * k)); break;
      case DataType::kInt8: out.push_back(load_as<int8_t>(p + k)); break;
      case DataType::kUInt8:
      case DataType::kBool: out.push_back(p[k]); break;
      case DataType::kUInt16: out.push_back(load_as<uint16_t>(p + 2 * k)); break;
      case DataType::kUInt32: out.push_back(load_as<uint32_t>(p + 4 * k)); break;
      case DataType::kUInt64: {
        uint64_t v = load_as<uint64_t>(p + 8 * k);
        if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
        out.push_back(static_cast<int64_t>(v));
        break;
      }
      default: return false;
    }
  }
  return true;
}

bool Tensor::to_doubles(std::vector<double>& out) const {
  out.clear();
  if (dtype == DataType::kFloat32 || dtype == DataType::kFloat64) {
    const size_t n = static_cast<size_t>(numel());
    if (data.size() != n * dtype_size(dtype)) return false;
    for (size_t k = 0; k < n; ++k)
      out.push_back(dtype == DataType::kFloat32 ? load_as<float>(data.data() + 4 * k)
                                                : load_as<double>(data.data() + 8 * k));
    return true;
  }
  std::vector<int64_t> ints;
  if (!to_int64s(ints)) return false;
  out.assign(ints.begin(), ints.end());
  return true;
}

const Attribute* Node::find(const std::string& attr) const {
  for (const auto& a : attributes)
    if (a.name == attr) return &a;
  return nullptr;
}

DataType dtype_from_onnx(int t) {
  switch (t) {
    case pb::Tensor::FLOAT: return DataType::kFloat32;
    case pb::Tensor::UINT8: return DataType::kUInt8;
    case pb::Tensor::INT8: return DataType::kInt8;
    case pb::Tensor::UINT16: return DataType::kUInt16;
    case pb::Tensor::INT16: return DataType::kInt16;
    case pb::Tensor::INT32: return DataType::kInt32;
    case pb::Tensor::INT64: return DataType::kInt64;
    case pb::Tensor::BOOL: return DataType::kBool;
    case pb::Tensor::FLOAT16: return DataType::kFloat16;
    case pb::Tensor::DOUBLE: return DataType::kFloat64;
    case pb::Tensor::UINT32: return DataType::kUInt32;
    case pb::Tensor::UINT64: return DataType::kUInt64;
    case pb::Tensor::BFLOAT16: return DataType::kBFloat16;
    default: return DataType::kInvalid;
  }
}

int lowp_from_onnx(int t) {
  switch (t) {
    case pb::Tensor::FLOAT8E4M3FN: return 1;
    case pb::Tensor::FLOAT8E4M3FNUZ: return 2;
    case pb::Tensor::FLOAT8E5M2: return 3;
    case pb::Tensor::FLOAT8E5M2FNUZ: return 4;
    case pb::Tensor::FLOAT8E8M0: return 5;
    case pb::Tensor::FLOAT4E2M1: return 6;
    case pb::Tensor::INT4: return 7;
    case pb::Tensor::UINT4: return 8;
    case pb::Tensor::INT2: return 9;
    case pb::Tensor::UINT2: return 10;
    default: return 0;
  }
}

DataType lowp_storage_dtype(int lowp) {
  return lowp == 7 || lowp == 9 ? DataType::kInt8 : lowp != 0 ? DataType::kUInt8 : DataType::kInvalid;
}

int dtype_to_onnx(DataType t) {
  for (int k = 1; k <= 16; ++k)
    if (dtype_from_onnx(k) == t) return k;
  return 0;
}

const char* onnx_type_name(int t) {
  static const char* const kNames[] = {"UNDEFINED", "FLOAT",     "UINT8",      "INT8",         "UINT16",
                                       "INT16",     "INT32",     "INT64",      "STRING",       "BOOL",
                                       "FLOAT16",   "DOUBLE",    "UINT32",     "UINT64",       "COMPLEX64",
                                       "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
                                       "FLOAT8E5M2FNUZ", "UINT4", "INT4",      "FLOAT4E2M1",   "FLOAT8E8M0",
                                       "UINT2",     "INT2"};
  if (t < 0 || t >= static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) return "an unknown type";
  return kNames[t];
}

Status model_parse(const void* data, size_t size, const std::string& base_dir, Model& out) {
  try {
    if (data == nullptr && size > 0) return Status::error(StatusCode::kNullPointer, "onnx: the buffer is null");
    if (size > static_cast<size_t>(INT_MAX))
      return Status::error(StatusCode::kInvalidGraph, "onnx: the model is %zu bytes; protobuf reads at most %d "
                                                      "(store large weights as external data)",
                           size, INT_MAX);
    pb::Model m;
    if (!m.ParseFromArray(data, static_cast<int>(size)))
      return Status::error(StatusCode::kInvalidGraph,
                           "onnx: the buffer (%zu bytes) is not a valid ONNX model: protobuf parsing failed (the "
                           "file is truncated or corrupt)",
                           size);
    out = Model{};
    return model_from_proto(m, base_dir, out);
  } catch (const std::bad_alloc&) {
    return Status::error(StatusCode::kOutOfMemory, "onnx: out of memory while reading the model");
  } catch (const std::exception& e) {
    return Status::error(StatusCode::kInternal, "onnx: unexpected error while reading the model: %s", e.what());
  }
}

Status model_read_file(const std::string& path, Model& out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    return Status::error(StatusCode::kIo, "onnx: cannot open '%s': %s", path.c_str(), std::strerror(errno));
  struct stat st {};
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(f);
    return Status::error(StatusCode::kIo, "onnx: '%s' is not a regular file", path.c_str());
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string(".") : path.substr(0, slash == 0 ? 1 : slash);
  const size_t size = static_cast<size_t>(st.st_size);
  // The file mapped, not read into a buffer of our own: its pages come
  // from the page cache as protobuf reads them, where a buffer was one
  // more model-sized allocation to fault in and fill (ResNet-50: 100 MB).
  if (size > 0) {
    void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
    if (mapped != MAP_FAILED) {
      std::fclose(f);
      (void)madvise(mapped, size, MADV_SEQUENTIAL);
      const Status s = model_parse(mapped, size, dir, out);
      munmap(mapped, size);
      return s;
    }
  }
  std::vector<uint8_t> bytes(size);  // a file that cannot be mapped: read
  const size_t got = bytes.empty() ? 0 : std::fread(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  if (got != bytes.size())
    return Status::error(StatusCode::kIo, "onnx: reading '%s' failed after %zu of %zu bytes", path.c_str(), got,
                         bytes.size());
  return model_parse(bytes.data(), bytes.size(), dir, out);
}

}  // namespace libops::graph::onnx
