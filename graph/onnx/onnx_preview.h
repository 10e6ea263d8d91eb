// Operators of the ai.onnx.preview domain that are compositions of default
// ONNX operators, written as those when the model is read (as model-local
// functions are inlined: Note [Model-local functions] in onnx_model.cpp),
// so the importer maps what they are made of. Today: FlexAttention (Note
// [FlexAttention] in onnx_preview.cpp).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "graph/onnx/onnx_model.h"
#include "libops/core/status.h"

namespace libops::graph::onnx {

// Replaces each such node of `nodes` (and of the graphs of their attributes)
// by its expansion; value_info gives the declared dtypes and dims of values
// (graph inputs and outputs, value_info); opset is the model's of the
// default domain, which the expansions' nodes mean. An expansion that
// cannot be written is an error naming the node.
Status expand_preview_ops(std::vector<Node>& nodes, const std::unordered_map<std::string, ValueInfo>& value_info,
                          int64_t opset);

}  // namespace libops::graph::onnx
