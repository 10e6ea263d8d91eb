// An ONNX model as plain C++ data: what the importer reads from the
// protobuf, with no protobuf type in sight. Only onnx_model.cpp includes the
// ONNX and protobuf headers (they are heavy to compile); everything else of
// the importer works on these structs.
//
// The protobuf is parsed by the protobuf library, with the code protoc
// generates from onnx_ir.proto at build time, never by hand.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "libops/core/dtype.h"
#include "libops/core/status.h"

namespace libops::graph::onnx {

// A tensor with its data: initializers, Constant values, attribute tensors.
// `data` holds numel() elements of `dtype`, little-endian, C order.
struct Tensor {
  std::string name;
  DataType dtype = DataType::kInvalid;
  int onnx_type = 0;  // TensorProto.DataType, for messages
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
  // A type narrower than libops' dtypes (float8, float4, int4, int2:
  // LowPrecision in libops/ops/arith/low_precision.h), held one element a
  // byte in `dtype` (Note [Low-precision values] in onnx_convert.cpp); 0:
  // none.
  int lowp = 0;

  int64_t numel() const;
  // The values converted to int64 / double (integer, bool or float tensors).
  bool to_int64s(std::vector<int64_t>& out) const;
  bool to_doubles(std::vector<double>& out) const;
};

struct SubGraph;

struct Attribute {
  enum class Type { kUndefined, kFloat, kInt, kString, kTensor, kGraph, kFloats, kInts, kStrings, kOther };
  std::string name;
  Type type = Type::kUndefined;
  double f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::shared_ptr<Tensor> t;
  std::shared_ptr<SubGraph> g;  // GRAPH: If's branches, Loop's body
  std::string type_name;  // "INT", "FLOATS", "GRAPH", ...
  // Inside a model-local function: the calling node's attribute of this
  // name gives the value (resolved when the function is inlined).
  std::string ref_attr_name;
};

struct Node {
  int index = 0;  // position in the graph's node list
  std::string name, op_type, domain;
  std::vector<std::string> inputs, outputs;  // "" = an omitted optional one
  std::vector<Attribute> attributes;
  // A node inlined from a model-local function (Note [Model-local
  // functions] in onnx_model.cpp): the function's opset of the default
  // domain, which its nodes mean (0: the model's); and the caller's label.
  int64_t opset = 0;
  std::string inlined_from;

  const Attribute* find(const std::string& attr) const;
};

// A value's type as the model declares it (graph inputs and outputs, and
// value_info): dtype and dims, -1 for a dim that is not known.
struct ValueInfo {
  std::string name;
  DataType dtype = DataType::kInvalid;
  int onnx_type = 0;  // 0: not a tensor (or no type given)
  bool rank_known = false;
  std::vector<int64_t> dims;
  // Per dim, the symbolic name the model gives an unknown extent ("batch",
  // "height"); empty where it gives none. Empty when the rank is unknown.
  std::vector<std::string> dim_params;
  std::string type_label;  // "tensor(FLOAT)", "seq(tensor(INT64))"; empty when no type is declared
  // What the value is (ValueKind in graph/graph.h): 0 a tensor, 1 a sequence,
  // 2 an optional tensor, 3 an optional sequence; for the others dtype and
  // dims describe the tensors they hold.
  int value_kind = 0;
  int lowp = 0;            // as Tensor::lowp; dtype is then the bytes' dtype
};

// The body of a control-flow node. Its nodes may read values of the
// graphs around it by name (outer-scope values).
struct SubGraph {
  std::string name;
  std::vector<ValueInfo> inputs, outputs;
  std::vector<Tensor> initializers;
  std::vector<Node> nodes;
  std::unordered_map<std::string, ValueInfo> value_info;
};

struct Model {
  int64_t ir_version = 0;
  int64_t opset = 0;  // of the default domain ("" / "ai.onnx")
  std::vector<std::pair<std::string, int64_t>> other_opsets;
  std::string producer;
  std::vector<ValueInfo> inputs;  // graph inputs that are not initializers, in order
  std::vector<ValueInfo> outputs;
  std::vector<Tensor> initializers;
  std::vector<Node> nodes;
  std::unordered_map<std::string, ValueInfo> value_info;  // as declared (inputs, outputs, value_info)
};

// Parses a serialized ModelProto. External tensor data are read from files
// relative to `base_dir` (an empty base_dir refuses external data). ONNX's
// shape inference is not run (Note [Import-time shapes] in onnx_convert.cpp).
Status model_parse(const void* data, size_t size, const std::string& base_dir, Model& out);
Status model_read_file(const std::string& path, Model& out);

// Renames the values the nodes (and the graphs of their attributes) read
// and write: names[old] = new; names not in `names` stay.
void rename_values(std::vector<Node>& nodes, const std::unordered_map<std::string, std::string>& names);

// libops dtype of an ONNX TensorProto.DataType (kInvalid: none) and its name.
DataType dtype_from_onnx(int onnx_type);
// The low-precision format of an ONNX type with no libops dtype (float8,
// float4, int4, int2; 0 for any other), and the dtype its elements are held
// in (uint8, or int8 for int4 and int2).
int lowp_from_onnx(int onnx_type);
DataType lowp_storage_dtype(int lowp);
int dtype_to_onnx(DataType t);
const char* onnx_type_name(int onnx_type);


}  // namespace libops::graph::onnx
