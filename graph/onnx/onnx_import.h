// ONNX import: an .onnx model becomes the bytes of a libops graph file
// (schemas/graph.fbs), which then loads through the ordinary verifier,
// loader and planner like any .lops file (Graph::load_file does this by
// itself for .onnx files).
//
//   .onnx --(onnx_model.cpp: libonnx protobuf)--> Model (plain structs)
//         --(onnx_convert.cpp + the mapping table of onnx_ops.cpp)--> .lops bytes
//         --> Graph::load_buffer --> planner --> executor
//
// Every ONNX node is mapped by one entry of one table (onnx_ops.cpp): one
// small function per ONNX op type and opset range. A node the table cannot
// map exactly (an unknown op, an attribute value libops has no op for, a
// shape that must be a constant and is not) fails the conversion with a
// message naming the node, its op type, the opset and the attribute; the
// importer never writes a graph that would compute something else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <memory>

#include <flatbuffers/flatbuffers.h>

#include "libops/array/data_buffer.h"
#include "libops/core/status.h"

namespace libops::graph::onnx {

struct ConvertOptions {
  // Folder that external tensor data paths are relative to (convert_file
  // uses the model's own folder). Empty: external data is refused.
  std::string base_dir;
};

// A converted graph's bytes, 64-byte aligned, so that the loader views the
// constants in them where they are rather than copying each (a ResNet-50's
// weights are 100 MB, and each copy of them is a page fault a page).
class GraphBytes {
 public:
  Status assign(const uint8_t* bytes, size_t size);  // copied once, into an aligned buffer
  // A builder's finished buffer, kept as it is when aligned (else copied).
  Status adopt(flatbuffers::DetachedBuffer bytes);
  const uint8_t* data() const { return buffer_ ? static_cast<const uint8_t*>(buffer_->host()) : nullptr; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::shared_ptr<DataBuffer>& buffer() const { return buffer_; }

 private:
  std::shared_ptr<DataBuffer> buffer_;
  size_t size_ = 0;
};

// The result: .lops bytes on success; every problem found (list mode) in
// `problems`, one message each, in node order.
struct ConvertResult {
  GraphBytes lops;
  std::vector<std::string> problems;
};

// Converts a model. On failure the Status carries the first problem (and,
// when there are more, how many); result.problems holds them all.
Status convert_file(const std::string& path, ConvertResult& result);
Status convert_buffer(const void* data, size_t size, const ConvertOptions& options, ConvertResult& result);

// True when a file should be read as ONNX: its name ends in ".onnx", or it
// lacks the libops identifier and starts the way ONNX files do (field 1,
// ir_version, as a varint).
bool looks_like_onnx(const std::string& path, const void* head, size_t head_size);

// What the model at `path` declares, without converting it: IR version,
// producer, opsets, and each graph input and output with its dtype and dims
// (symbolic ones by name), one per line (ops-run --info).
Status describe_file(const std::string& path, std::string& text);

// docs/onnx.md: every operator of the default domain, supported or not,
// with the opset range and the attributes that are not supported.
std::string coverage_markdown();

}  // namespace libops::graph::onnx
