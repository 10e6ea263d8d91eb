// The importer's working interface: what one mapping function (one entry of
// the table in onnx_ops.cpp) sees of the node it maps, and how it emits
// libops nodes. Internal to graph/onnx/.
//
// Note [Nothing ignored]
//  A mapping function reads the attributes and inputs it understands
//  through this class, which marks them as read. After it returns, any
//  attribute it did not read, any present input it did not take and any
//  used output it did not set is a problem naming the node: a new attribute
//  of a later opset can never be dropped silently, and neither can an
//  output such as MaxPool's Indices.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/onnx/onnx_model.h"
#include "libops/core/dtype.h"
#include "libops/core/status.h"

namespace libops::graph {
enum class ValueKind : uint8_t;       // graph/graph.h
enum class SequenceOpKind : uint8_t;  // graph/graph.h
}  // namespace libops::graph

namespace libops::graph::onnx {

// A libops value: output `output` of the variable or node `id`.
struct Value {
  int64_t id = -1;  // -1: none (an omitted optional input, or the output of a node that failed)
  uint32_t output = 0;
  bool valid() const { return id >= 0; }
};

// What is known of a value before running: dtype and dims (-1 unknown).
struct ValueType {
  DataType dtype = DataType::kInvalid;
  bool rank_known = false;
  std::vector<int64_t> dims;
  int rank() const { return rank_known ? static_cast<int>(dims.size()) : -1; }
  bool dims_known() const;  // rank and every dim known
};

class Converter;

// One libops custom-op call being built; args go by the names the op's
// signature declares (OpSignature), and are placed at their positions.
class OpCall {
 public:
  OpCall& in(Value v) { inputs_.push_back(v); return *this; }
  OpCall& arg(const char* name, int64_t v);
  OpCall& arg(const char* name, int v) { return arg(name, static_cast<int64_t>(v)); }
  OpCall& arg(const char* name, double v);
  OpCall& arg(const char* name, bool v);
  OpCall& arg(const char* name, DataType v);
  OpCall& arg(const char* name, const std::vector<int64_t>& list);
  OpCall& outputs(int n) { num_outputs_ = n; return *this; }
  // Emits the node; returns its outputs (none when the call was malformed:
  // an unknown op or arg name, which is a bug of the mapping, reported).
  std::vector<Value> emit();
  Value emit1();

 private:
  friend class Converter;
  OpCall(Converter& c, std::string op) : c_(c), op_(std::move(op)) {}
  struct NamedArg {
    std::string name;
    int kind = 0;  // 0 int, 1 float, 2 bool, 3 dtype, 4 int list
    int64_t i = 0;
    double f = 0;
    DataType d = DataType::kInvalid;
    std::vector<int64_t> list;
  };
  Converter& c_;
  std::string op_;
  std::vector<Value> inputs_;
  std::vector<NamedArg> args_;
  int num_outputs_ = 1;
};

class Converter {
 public:
  // ---- the node being mapped ----
  const Node& node() const { return *node_; }
  int64_t opset() const { return opset_; }  // the model's; a since_version compares the same way

  // Inputs. has_input: present and not omitted ("").
  int num_inputs() const { return static_cast<int>(node_->inputs.size()); }
  bool has_input(int k) const;
  Value input(int k);                       // marks it taken
  const Tensor* constant_input(int k);      // a constant (initializer or Constant output), else nullptr; marks it taken
  // A constant integer input, e.g. Reshape's shape: false (and a problem
  // recorded, naming `what`) when it is not a constant.
  bool constant_ints(int k, const char* what, std::vector<int64_t>& out);
  ValueType input_type(int k) const;  // Note [Import-time shapes] in onnx_convert.cpp
  int input_rank(int k) const { return input_type(k).rank(); }
  DataType input_dtype(int k) const;  // kInvalid when not known

  // Attributes; each read marks it handled (Note [Nothing ignored]).
  bool has_attr(const char* name);
  int64_t attr_int(const char* name, int64_t default_value);
  double attr_float(const char* name, double default_value);
  std::string attr_string(const char* name, const std::string& default_value);
  bool attr_ints(const char* name, std::vector<int64_t>& out);  // false when absent
  bool attr_floats(const char* name, std::vector<double>& out);
  bool attr_strings(const char* name, std::vector<std::string>& out);
  const Tensor* attr_tensor(const char* name);
  // Marks an attribute as read without reading it (it changes nothing here).
  void ignore_attr(const char* name);

  // Note [Import-time sequences]
  //  An ONNX sequence (or optional) value lives only in the importer: the
  //  list of libops values of its elements, known when the node that makes
  //  it is converted. Sequence ops rearrange the list, and the ops that read
  //  elements (SequenceAt, ConcatFromSequence) emit libops nodes on them. So
  //  a sequence whose length is known only at run time (a graph input, a
  //  list grown in a Loop, what an If gives) is a run-time list instead
  //  (Note [Run-time sequences] in onnx_convert.cpp).
  // input_sequence: false (and a problem recorded) when input k is not
  // such a sequence; marks it taken.
  bool input_sequence(int k, std::vector<Value>& elements);
  bool input_is_sequence(int k) const;
  // Note [Sequences grown in loops] (onnx_convert.cpp): input k as the one
  // value whose slices along axis 0 are its elements, and what is known of
  // that value's type; false when it is no such sequence (nothing recorded).
  bool input_stacked_sequence(int k, Value& stacked, ValueType& type);
  void set_output_stacked_sequence(int k, Value stacked);
  bool input_is_optional(int k) const;
  void set_output_sequence(int k, std::vector<Value> elements);
  // An optional input: a known Optional value (present or empty), else a
  // plain tensor (present). False when input k is a sequence.
  bool input_optional(int k, bool& present, Value& v);
  void set_output_optional(int k, bool present, Value v);

  // Note [Run-time sequences] (onnx_convert.cpp): a sequence or optional
  // held by a libops value of that kind (ValueKind in graph/graph.h).
  // input_run_list: input k when it is one (marks it taken), else false
  // (nothing recorded). input_as_run_list: input k, any sequence or
  // optional, as one, made here from an import-time or stacked sequence or
  // an import-time optional; false (a problem recorded) for a tensor.
  bool input_run_list(int k, Value& v, ValueKind& kind);
  bool input_as_run_list(int k, Value& v, ValueKind& kind);
  void set_output_run_list(int k, Value v, ValueKind kind);
  // A sequence node (SequenceOp in schemas/graph.fbs) with one output.
  Value sequence_node(SequenceOpKind op, const std::vector<Value>& inputs, const std::vector<int64_t>& i_args = {},
                      DataType element_dtype = DataType::kInvalid);
  // The declared type of output k (value_info or a graph output), if any.
  const ValueInfo* output_info(int k) const;
  // x, once the run has checked that `condition` holds (an assert_true
  // node, named "<node>/<what>", which the run's error then names).
  Value checked(Value condition, Value x, const std::string& what);

  // Note [Low-precision values] (onnx_convert.cpp): the LowPrecision format
  // input k holds (0: a libops dtype), and the one output k will hold.
  int input_lowp(int k) const;
  void set_output_lowp(int k, int lowp);

  // Outputs.
  int num_outputs() const { return static_cast<int>(node_->outputs.size()); }
  bool output_used(int k) const;  // present, and read by a node or a graph output
  void set_output(int k, Value v);
  void set_output_constant(int k, Tensor t);  // folded at conversion

  // ---- problems ----
  // Records a problem with the node (and returns a status carrying it):
  //   node 3 'conv1' (Conv, opset 13): attribute 'group' = 2 is not supported: ...
  Status fail(const std::string& what);
  Status fail_attr(const char* attr, const std::string& what);
  void report(const std::string& what) { (void)fail(what); }
  void report_attr(const char* attr, const std::string& what) { (void)fail_attr(attr, what); }

  // ---- emitting ----
  OpCall op(const char* name) { return OpCall(*this, name); }
  // A legacy op (group, number) with one output.
  Value legacy(int group, int num, std::initializer_list<Value> inputs);
  Value constant(Tensor t);
  Value constant_scalar(DataType dtype, double v);
  Value constant_ints(const std::vector<int64_t>& values, bool as_vector = true);

  // Internal: driven by convert().
  struct Impl;
  explicit Converter(Impl& impl) : impl_(impl) {}

 private:
  friend class OpCall;
  Impl& impl_;
  const Node* node_ = nullptr;
  int64_t opset_ = 0;
  std::vector<bool> attr_read_, input_taken_, output_set_;
  friend struct ConverterAccess;
};

// One entry of the mapping table: ONNX op `op_type` of the default domain,
// for the operator versions (since_versions, Note [Operator versions] in
// onnx_versions.h) from first_version to last_version. A node is mapped by
// the version its model's opset gives it, so a row written for Add-14 serves
// every model of opset 14 to 27.
using MapFn = Status (*)(Converter&);
struct OpMapping {
  const char* op_type;
  int first_version;
  int last_version;
  MapFn fn;
  const char* notes;  // what is not supported (docs/onnx.md); "" when everything is
};
const std::vector<OpMapping>& mapping_table();

// The control-flow mappings (onnx_convert.cpp): they convert their
// branches and bodies as subgraphs.
Status map_if(Converter& c);
Status map_loop(Converter& c);
Status map_scan(Converter& c);
Status map_sequence_map(Converter& c);
// Note [Axes given at run time] (onnx_convert.cpp): the node with its axis
// input `axis_input` computed at run time, as a chain of If nodes over the
// axes first_axis .. last_axis of an input of rank `rank`.
Status map_by_axis_branches(Converter& c, int axis_input, int rank, int64_t first_axis, int64_t last_axis);

// The transformer operators of opset 23 and later (onnx_ops_attention.cpp).
Status map_attention(Converter& c);
Status map_rotary_embedding(Converter& c);
Status map_causal_conv_with_state(Converter& c);
Status map_linear_attention(Converter& c);

// The newest opset of the default domain the importer reads: the newest
// the operator version table knows (a static_assert in onnx_versions.cpp
// keeps the two equal). Rows that map every version up to the newest end
// here.
constexpr int kMaxOpset = 27;

}  // namespace libops::graph::onnx
