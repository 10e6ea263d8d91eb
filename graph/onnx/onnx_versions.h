// Which version of an ONNX operator a node means.
//
// Note [Operator versions]
//  ONNX versions each operator of a domain on its own. A model imports an
//  opset of the default domain (a number, 1 to 27 today), and each of its
//  nodes means the newest version of its operator whose since_version is at
//  most that opset. Most opsets change few operators (opsets 23 to 25 only
//  widened the dtypes of about twenty), so the importer maps each node by its
//  operator version, never by the model's opset: a model declaring opset 25
//  runs Add as Add-14, which the importer has always known.
//  The versions come from onnx_versions.inc, a table generated from the
//  onnx package's schemas by tools/gen_onnx_versions.py, so the importer
//  carries what it needs and links no ONNX library. Opsets newer than the
//  table are refused by name: an operator may have changed in them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace libops::graph::onnx {

// The newest opset of the default domain the version table knows.
int newest_opset();

// The version of `op_type` (default domain) in effect at `opset`: its
// since_version, or 0 when the operator does not exist at that opset. Then
// `first` is the opset at which it appears (0: not an ONNX operator at all)
// and `removed` the opset at which it was removed (0: never), for messages.
struct OperatorVersion {
  int version = 0;
  int first = 0;
  int removed = 0;
};
OperatorVersion operator_version(std::string_view op_type, int64_t opset);

// Every operator of the default domain with the since_versions of its
// versions (ascending), sorted by name; removed operators included.
std::vector<std::pair<std::string, std::vector<int>>> default_domain_operators();

}  // namespace libops::graph::onnx
