// Preview-domain operators written as default ONNX operators (onnx_preview.h).
//
// Note [FlexAttention]
// ai.onnx.preview FlexAttention(Q, K, V) with optional score_mod and
// prob_mod graphs is, as ONNX's reference computes it,
//   s      = sqrt(float32(scale)) in Q's dtype (scale: the attribute, else
//            1 / sqrt(head size) in double)
//   K', V' = K and V with each of their heads repeated Hq / Hkv times
//            (grouped-query attention; left out where the declared head
//            counts are equal)
//   scores = (Q s) @ (K' s)^T, then cast to the softmax precision P (the
//            softmax_precision attribute, else float64 where Q is declared
//            float64, else float32)
//   probs  = prob_mod(softmax(score_mod(scores), axis -1))
//   Y      = probs @ cast(V', P), cast to V's dtype
// The modifier graphs are inlined with their input renamed to the value they
// modify and their other values (initializers become Constant nodes) to
// names of their own. The expansion's nodes mean the model's opset, which
// must be 15 or newer (CastLike).
#include "graph/onnx/onnx_preview.h"

#include <cmath>
#include <cstring>
#include <memory>

#include "libops/core/status.h"

namespace libops::graph::onnx {
namespace {

constexpr int kOnnxFloat = 1, kOnnxDouble = 11;

Attribute int_attr(const char* name, int64_t v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kInt;
  a.type_name = "INT";
  a.i = v;
  return a;
}

Attribute ints_attr(const char* name, std::vector<int64_t> v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kInts;
  a.type_name = "INTS";
  a.ints = std::move(v);
  return a;
}

// Writes the nodes of one expansion, each named and labelled after the node
// it replaces.
class Expansion {
 public:
  Expansion(const Node& at, std::vector<Node>& out, std::string prefix)
      : at_(at), out_(out), prefix_(std::move(prefix)),
        label_(str_format(" (expanded from node %d '%s', %s.%s)", at.index, at.name.c_str(), at.domain.c_str(),
                          at.op_type.c_str())) {}

  // One node; returns its output (`name`, or one of its own).
  std::string emit(const char* type, std::vector<std::string> inputs, std::vector<Attribute> attrs = {},
                   std::string name = "") {
    Node n;
    n.index = at_.index;
    n.name = prefix_ + type + "_" + std::to_string(count_);
    n.op_type = type;
    n.inputs = std::move(inputs);
    n.outputs = {name.empty() ? prefix_ + std::to_string(count_) : std::move(name)};
    n.attributes = std::move(attrs);
    n.inlined_from = label_ + at_.inlined_from;
    ++count_;
    out_.push_back(n);
    return out_.back().outputs[0];
  }

  std::string constant(Tensor t) {
    Attribute a;
    a.name = "value";
    a.type = Attribute::Type::kTensor;
    a.type_name = "TENSOR";
    a.t = std::make_shared<Tensor>(std::move(t));
    return emit("Constant", {}, {a});
  }
  std::string ints(const std::vector<int64_t>& v) {
    Tensor t;
    t.dtype = DataType::kInt64;
    t.onnx_type = 7;  // INT64
    t.dims = {static_cast<int64_t>(v.size())};
    t.data.resize(v.size() * 8);
    if (!v.empty()) std::memcpy(t.data.data(), v.data(), t.data.size());
    return constant(std::move(t));
  }
  std::string float_scalar(float v) {
    Tensor t;
    t.dtype = DataType::kFloat32;
    t.onnx_type = kOnnxFloat;
    t.data.resize(4);
    std::memcpy(t.data.data(), &v, 4);
    return constant(std::move(t));
  }

  // The nodes of modifier graph g applied to `input`; returns its output.
  Status inline_graph(const char* attr, const SubGraph& g, const std::string& input, std::string& output) {
    if (g.inputs.size() != 1 || g.outputs.size() != 1)
      return error(str_format("attribute '%s' must be a graph of one input and one output; it has %zu and %zu", attr,
                              g.inputs.size(), g.outputs.size()));
    const std::string own = prefix_ + attr + "/";
    std::unordered_map<std::string, std::string> names;
    names[g.inputs[0].name] = input;
    for (const Tensor& t : g.initializers) {
      Tensor c = t;
      names[t.name] = constant(std::move(c));
    }
    std::vector<Node> body = g.nodes;
    for (const Node& b : body)
      for (const std::string& o : b.outputs)
        if (!o.empty() && !names.count(o)) names[o] = own + o;
    rename_values(body, names);
    for (Node& b : body) {
      b.index = at_.index;
      b.inlined_from = label_ + at_.inlined_from;
      out_.push_back(std::move(b));
    }
    auto it = names.find(g.outputs[0].name);
    output = it != names.end() ? it->second : g.outputs[0].name;  // an outer-scope value
    return Status::ok();
  }

  Status error(const std::string& what) const {
    return Status::error(StatusCode::kInvalidGraph, "onnx: node %d '%s' (%s, domain %s)%s: %s", at_.index,
                         at_.name.c_str(), at_.op_type.c_str(), at_.domain.c_str(), at_.inlined_from.c_str(),
                         what.c_str());
  }

 private:
  const Node& at_;
  std::vector<Node>& out_;
  std::string prefix_, label_;
  int count_ = 0;
};

const ValueInfo* declared(const std::unordered_map<std::string, ValueInfo>& value_info, const std::string& name) {
  auto it = value_info.find(name);
  return it == value_info.end() ? nullptr : &it->second;
}

// Note [FlexAttention].
Status expand_flex_attention(const Node& n, const std::unordered_map<std::string, ValueInfo>& value_info,
                             int64_t opset, int serial, std::vector<Node>& out) {
  Expansion x(n, out, (n.name.empty() ? "flex_attention" + std::to_string(serial) : n.name) + "/");
  if (opset < 15) return x.error(str_format("needs the default domain's opset 15 or newer (the model's is %lld)",
                                            static_cast<long long>(opset)));
  if (n.inputs.size() != 3 || n.outputs.empty() || n.outputs[0].empty())
    return x.error(str_format("takes Q, K and V and gives Y; it has %zu inputs", n.inputs.size()));
  const std::string &q = n.inputs[0], &k = n.inputs[1], &v = n.inputs[2];
  const ValueInfo* qi = declared(value_info, q);
  const ValueInfo* ki = declared(value_info, k);
  const Attribute *scale = n.find("scale"), *precision = n.find("softmax_precision");
  const Attribute *score_mod = n.find("score_mod"), *prob_mod = n.find("prob_mod");
  for (const Attribute& a : n.attributes)
    if (a.name != "scale" && a.name != "softmax_precision" && a.name != "score_mod" && a.name != "prob_mod")
      return x.error("attribute '" + a.name + "' is not one of FlexAttention's");
  const int64_t p = precision != nullptr ? precision->i
                                         : (qi != nullptr && qi->dtype == DataType::kFloat64 ? kOnnxDouble : kOnnxFloat);
  // sqrt(scale), computed in float32 as the reference does, in Q's dtype.
  std::string root;
  if (scale != nullptr) {
    root = x.float_scalar(std::sqrt(static_cast<float>(scale->f)));
  } else {
    const std::string e = x.emit("Cast", {x.emit("Shape", {q}, {int_attr("start", -1)})}, {int_attr("to", kOnnxDouble)});
    const std::string inverse = x.emit("Reciprocal", {x.emit("Sqrt", {e})});
    root = x.emit("Sqrt", {x.emit("Cast", {inverse}, {int_attr("to", kOnnxFloat)})});
  }
  const std::string s = x.emit("CastLike", {root, q});
  // Grouped-query attention: K's and V's heads repeated to Q's count.
  std::string ka = k, va = v;
  const bool same_heads = qi != nullptr && ki != nullptr && qi->rank_known && ki->rank_known &&
                          qi->dims.size() == 4 && ki->dims.size() == 4 && qi->dims[1] >= 0 && qi->dims[1] == ki->dims[1];
  if (!same_heads) {
    const std::string q_heads = x.emit("Slice", {x.emit("Shape", {q}), x.ints({1}), x.ints({2})});
    auto repeat = [&](const std::string& a) {
      const std::string shape = x.emit("Shape", {a});
      const std::string groups = x.emit("Div", {q_heads, x.emit("Slice", {shape, x.ints({1}), x.ints({2})})});
      const std::string lead = x.emit("Slice", {shape, x.ints({0}), x.ints({2})});
      const std::string rest = x.emit("Slice", {shape, x.ints({2}), x.ints({4})});
      const std::string wide = x.emit("Expand", {x.emit("Unsqueeze", {a, x.ints({2})}),
                                                 x.emit("Concat", {lead, groups, rest}, {int_attr("axis", 0)})});
      const std::string batch = x.emit("Slice", {shape, x.ints({0}), x.ints({1})});
      return x.emit("Reshape", {wide, x.emit("Concat", {batch, q_heads, rest}, {int_attr("axis", 0)})});
    };
    ka = repeat(k);
    va = repeat(v);
  }
  const std::string kt = x.emit("Transpose", {x.emit("Mul", {ka, s})}, {ints_attr("perm", {0, 1, 3, 2})});
  std::string scores = x.emit("Cast", {x.emit("MatMul", {x.emit("Mul", {q, s}), kt})}, {int_attr("to", p)});
  if (score_mod != nullptr && score_mod->g) RETURN_IF_ERROR(x.inline_graph("score_mod", *score_mod->g, scores, scores));
  std::string probs = x.emit("Softmax", {scores}, {int_attr("axis", -1)});
  if (prob_mod != nullptr && prob_mod->g) RETURN_IF_ERROR(x.inline_graph("prob_mod", *prob_mod->g, probs, probs));
  const std::string y = x.emit("MatMul", {probs, x.emit("Cast", {va}, {int_attr("to", p)})});
  x.emit("CastLike", {y, v}, {}, n.outputs[0]);
  return Status::ok();
}

}  // namespace

Status expand_preview_ops(std::vector<Node>& nodes, const std::unordered_map<std::string, ValueInfo>& value_info,
                          int64_t opset) {
  bool any = false;
  for (Node& n : nodes) {
    for (Attribute& a : n.attributes)
      if (a.g) RETURN_IF_ERROR(expand_preview_ops(a.g->nodes, value_info, opset));
    any = any || (n.domain == "ai.onnx.preview" && n.op_type == "FlexAttention");
  }
  if (!any) return Status::ok();
  std::vector<Node> out;
  int serial = 0;
  for (Node& n : nodes) {
    if (n.domain == "ai.onnx.preview" && n.op_type == "FlexAttention") {
      RETURN_IF_ERROR(expand_flex_attention(n, value_info, n.opset > 0 ? n.opset : opset, serial++, out));
    } else {
      out.push_back(std::move(n));
    }
  }
  nodes = std::move(out);
  return Status::ok();
}

}  // namespace libops::graph::onnx
