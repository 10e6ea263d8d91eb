#include "libops/ops/op_reference.h"

#include <cmath>
#include <string>
#include <vector>

#include "libops/legacy/legacy.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"
#include "libops/ops/op_pattern.h"

namespace libops {
namespace {

const char* devices_of(const OpDescriptor& d) { return d.any_device ? "cpu, cuda" : "cpu"; }

std::string input_label(const InputSpec& in) {
  return in.name + (in.variadic ? "..." : in.optional ? "?" : "");
}

// "conv2d(x, weights, bias?) -> z"
std::string call_form(const DeclarableOp& op) {
  const OpSignature& sig = op.descriptor().signature;
  std::string s = std::string(op.name()) + "(";
  for (size_t k = 0; k < sig.inputs.size(); ++k) s += (k ? ", " : "") + input_label(sig.inputs[k]);
  s += ") -> ";
  for (size_t k = 0; k < sig.outputs.size(); ++k)
    s += (k ? ", " : "") + sig.outputs[k].name + (sig.outputs[k].variadic ? "..." : "");
  return s;
}

// "kH, data_format=0, axes=[]" for the args of one kind.
std::string args_of_kind(const OpSignature& sig, ArgKind kind) {
  std::string s;
  for (const ArgSpec& a : sig.args) {
    if (a.kind != kind) continue;
    s += (s.empty() ? "" : ", ") + a.name;
    if (a.list) s += "...";
    else if (!a.required) s += "=" + a.default_shown;
  }
  return s;
}

// ---- text: what `ops-run --list-ops` prints ----

std::string text_reference() {
  std::string s;
  const auto ops = OpRegistry::instance().list();
  s += str_format("custom ops (%zu): name(inputs) -> outputs  [devices]  args by kind, name=default\n", ops.size());
  for (const DeclarableOp* op : ops) {
    const OpDescriptor& d = op->descriptor();
    s += "  " + call_form(*op) + "  [" + devices_of(d) + "]";
    const auto aliases = OpRegistry::instance().aliases_of(op->name());
    for (size_t k = 0; k < aliases.size(); ++k) s += (k ? ", " : "  aliases: ") + aliases[k];
    s += "\n      " + d.signature.summary + "\n";
    if (op_pattern(op->name()) != OpPattern::kOpaque)
      s += str_format("      pattern: %s\n", op_pattern_name(op_pattern(op->name())));
    if (!d.signature.inputs.empty()) s += "      dtypes: " + d.signature.inputs[0].dtypes_shown + "\n";
    for (ArgKind kind : {ArgKind::kFloat, ArgKind::kInt, ArgKind::kBool, ArgKind::kDtype}) {
      std::string a = args_of_kind(d.signature, kind);
      if (!a.empty()) s += str_format("      %s args: %s\n", arg_kind_name(kind), a.c_str());
    }
  }
  for (const std::string& e : OpRegistry::instance().load_errors()) s += "  registry problem: " + e + "\n";
  s += "\nlegacy ops, by group (group number: op number name):\n";
  for (int g = 0; g < OPS_LEGACY_GROUP_COUNT; ++g) {
    const auto group = static_cast<ops_legacy_group_t>(g);
    const legacy::LegacyOpInfo* list = nullptr;
    const int n = legacy::list_ops(group, &list);
    s += str_format("  %2d %-16s", g, legacy::group_name(group));
    for (int k = 0; k < n; ++k) s += str_format("%s %d %s", k ? "," : "", list[k].num, list[k].name);
    s += "\n";
  }
  return s;
}

// ---- markdown: docs/ops.md ----

std::string md_cell(const std::string& v) {
  std::string out;
  for (char c : v) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out.empty() ? " " : out;
}

std::string markdown_reference() {
  const auto ops = OpRegistry::instance().list();
  std::string s =
      "# libops op reference\n\n"
      "Generated from the op registry by `ops-run --list-ops --format markdown`; do not edit by hand (tests_cpu\n"
      "checks that this file matches the registry). Each op's inputs, outputs and args come from its `DECLARE_ARGS`\n"
      "block, its dtypes from `DECLARE_TYPES`.\n\n"
      "Args are positional, in four lists as in libnd4j: `t` (float), `i` (integer), `b` (bool) and `d` (dtype).\n"
      "`i 9` is the integer arg at position 9; `i 0..` a list that takes every integer arg from position 0 on. An\n"
      "arg without a default is required; absent optional args take their defaults. An undeclared arg, a missing\n"
      "one or a value outside its range is an error naming the op and the arg. Names are what the Python builder's\n"
      "keyword arguments and the ONNX importer use.\n\n"
      "### libnd4j's conventions\n\n"
      "An op that libnd4j declares takes libnd4j's args under libnd4j's name, as its tests call it; where libops'\n"
      "own form differs, that form lives under another name:\n\n"
      "| libnd4j's call | libops' other form |\n|---|---|\n"
      "| `top_k`: i args k, needSort; the last axis, the largest | `topk`: i args k, axis; b arg largest (ONNX's "
      "TopK) |\n"
      "| `resize_bilinear`, `resize_nearest_neighbor`, `resize_bicubic`: NHWC, TensorFlow's coordinates | `resize`: "
      "NCHW or NHWC, ONNX's coordinate modes |\n"
      "| `clipbynorm`, `clipbyavgnorm` (aliases) | `clip_by_norm`, `clip_by_avg_norm` |\n"
      "| `Where`, `where_np` (aliases) | `where` |\n"
      "| `gather` with b arg checkIndices (indices are checked either way) | |\n"
      "| `tile` with reps as a [1, N] array (any integer list input may be [1, N] or [N, 1]) | |\n\n"
      "`conv2d`'s weights_format, when left out, follows the data format: libnd4j's and TensorFlow's [kH, kW, iC, oC]\n"
      "with NHWC, ONNX's and PyTorch's [oC, iC, kH, kW] with NCHW. (libnd4j's own default is [kH, kW, iC, oC] with\n"
      "NCHW too: an NCHW libnd4j call with those weights passes weights_format 0.)\n\n"
      "### Host reads on a device\n\n"
      "An op running on a GPU keeps its data there. Where it must read values on the host (values that size its\n"
      "output, indices it validates), its summary says what (\"On a device it reads back to the host: ...\"); those\n"
      "reads wait for the device. Besides them, args given as arrays instead of as args (an arg whose `where`\n"
      "names an input) are read on the host, and a caller-given output that partly overlaps an input in another\n"
      "layout is computed from a host copy of that input.\n\n";
  s += str_format("## Custom ops (%zu)\n\n", ops.size());
  s += "| op | what it computes | devices |\n|---|---|---|\n";
  for (const DeclarableOp* op : ops)
    s += str_format("| [%s](#%s) | %s | %s |\n", op->name(), op->name(), md_cell(op->descriptor().signature.summary).c_str(),
                    devices_of(op->descriptor()));
  for (const DeclarableOp* op : ops) {
    const OpDescriptor& d = op->descriptor();
    const OpSignature& sig = d.signature;
    s += str_format("\n### %s\n\n", op->name());
    s += sig.summary + "\n\n";
    s += str_format("`%s` · runs on %s%s", call_form(*op).c_str(), devices_of(d),
                    d.inplaceable ? " · may run in place" : "");
    if (op_pattern(op->name()) != OpPattern::kOpaque) s += str_format(" · %s", op_pattern_name(op_pattern(op->name())));
    const auto aliases = OpRegistry::instance().aliases_of(op->name());
    for (size_t k = 0; k < aliases.size(); ++k) s += (k ? ", `" : " · aliases: `") + aliases[k] + "`";
    s += "\n\n| input | dtypes | |\n|---|---|---|\n";
    for (const InputSpec& in : sig.inputs)
      s += "| " + md_cell(input_label(in)) + " | " + md_cell(in.dtypes_shown) + " | " + md_cell(in.doc) + " |\n";
    s += "\n| output | dtypes | |\n|---|---|---|\n";
    for (const OutputSpec& out : sig.outputs)
      s += "| " + md_cell(out.name + (out.variadic ? "..." : "")) + " | " + md_cell(out.dtypes_shown) + " | " +
           md_cell(out.doc) + " |\n";
    if (!sig.args.empty()) {
      s += "\n| arg | where | default | allowed | |\n|---|---|---|---|---|\n";
      for (const ArgSpec& a : sig.args)
        s += "| " + md_cell(a.name) + " | " + md_cell(a.where()) + " | " +
             md_cell(a.required ? "required" : a.default_shown) + " | " + md_cell(a.allowed_shown) + " | " +
             md_cell(a.doc) + " |\n";
    }
  }
  s += "\n## Legacy ops\n\nCalled by group and number (`ops_exec_legacy`, or a graph node's `LegacyOp`); numbers never "
       "change.\n\n| group | ops (number name) |\n|---|---|\n";
  for (int g = 0; g < OPS_LEGACY_GROUP_COUNT; ++g) {
    const auto group = static_cast<ops_legacy_group_t>(g);
    const legacy::LegacyOpInfo* list = nullptr;
    const int n = legacy::list_ops(group, &list);
    std::string names;
    for (int k = 0; k < n; ++k) names += str_format("%s%d %s", k ? ", " : "", list[k].num, list[k].name);
    s += str_format("| %d %s | %s |\n", g, legacy::group_name(group), names.c_str());
  }
  return s;
}

// ---- json: python/libops/op_signatures.json ----

std::string json_string(const std::string& v) {
  std::string out = "\"";
  for (unsigned char c : v) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c < 0x20) out += str_format("\\u%04x", c);
    else out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string json_default(const ArgSpec& a) {
  if (a.list) return "[]";
  if (a.required) return "null";
  switch (a.kind) {
    case ArgKind::kFloat:
      // JSON has no inf or NaN: those defaults are the strings "inf",
      // "-inf" and "nan", which Python's float() reads back.
      if (std::isnan(a.default_float)) return "\"nan\"";
      if (std::isinf(a.default_float)) return a.default_float > 0 ? "\"inf\"" : "\"-inf\"";
      return str_format("%.17g", a.default_float);
    case ArgKind::kInt: return std::to_string(a.default_int);
    case ArgKind::kBool: return a.default_int ? "true" : "false";
    case ArgKind::kDtype:
      return a.default_dtype == DataType::kInvalid ? "null" : json_string(dtype_name(a.default_dtype));
  }
  return "null";
}

std::string json_reference() {
  const auto ops = OpRegistry::instance().list();
  std::string s = "{\n";
  for (size_t i = 0; i < ops.size(); ++i) {
    const DeclarableOp& op = *ops[i];
    const OpSignature& sig = op.descriptor().signature;
    s += "  " + json_string(op.name()) + ": {\n    \"pattern\": " + json_string(op_pattern_name(op_pattern(op.name()))) +
         ",\n    \"aliases\": [";
    const auto aliases = OpRegistry::instance().aliases_of(op.name());
    for (size_t k = 0; k < aliases.size(); ++k) s += (k ? ", " : "") + json_string(aliases[k]);
    s += "],\n    \"inputs\": [";
    for (size_t k = 0; k < sig.inputs.size(); ++k)
      s += str_format("%s{\"name\": %s, \"optional\": %s, \"variadic\": %s}", k ? ", " : "",
                      json_string(sig.inputs[k].name).c_str(), sig.inputs[k].optional ? "true" : "false",
                      sig.inputs[k].variadic ? "true" : "false");
    s += "],\n    \"outputs\": [";
    for (size_t k = 0; k < sig.outputs.size(); ++k)
      s += str_format("%s{\"name\": %s, \"variadic\": %s}", k ? ", " : "", json_string(sig.outputs[k].name).c_str(),
                      sig.outputs[k].variadic ? "true" : "false");
    s += "],\n    \"args\": [";
    for (size_t k = 0; k < sig.args.size(); ++k) {
      const ArgSpec& a = sig.args[k];
      std::string choices;
      for (size_t c = 0; c < a.choices.size(); ++c)
        choices += str_format("%s%s: %lld", c ? ", " : "", json_string(a.choices[c].name).c_str(),
                              static_cast<long long>(a.choices[c].value));
      s += str_format(
          "%s\n      {\"name\": %s, \"kind\": \"%s\", \"position\": %d, \"list\": %s, \"required\": %s, "
          "\"default\": %s, \"choices\": {%s}, \"from_input\": %d}",
          k ? "," : "", json_string(a.name).c_str(), arg_kind_name(a.kind), a.position, a.list ? "true" : "false",
          a.required ? "true" : "false", json_default(a).c_str(), choices.c_str(), a.from_input);
    }
    s += sig.args.empty() ? "]\n  }" : "\n    ]\n  }";
    s += i + 1 < ops.size() ? ",\n" : "\n";
  }
  return s + "}\n";
}

}  // namespace

std::string op_reference(ReferenceFormat format) {
  switch (format) {
    case ReferenceFormat::kText: return text_reference();
    case ReferenceFormat::kMarkdown: return markdown_reference();
    case ReferenceFormat::kJson: return json_reference();
  }
  return "";
}

}  // namespace libops
