// The ONNX part of the graph C API (include/libops/c_graph.h): a thin shell
// over graph/onnx/onnx_import.h. Exceptions never cross it.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "graph/onnx/onnx_import.h"
#include "libops/c_graph.h"
#include "libops/capi/c_api_internal.h"

using libops::Status;
using libops::StatusCode;
using namespace libops::capi;
namespace onnx = libops::graph::onnx;

namespace {

ops_status_t hand_out(onnx::ConvertResult& r, void** out_data, size_t* out_size) {
  void* block = std::malloc(r.lops.empty() ? 1 : r.lops.size());
  if (block == nullptr)
    return report_error(StatusCode::kOutOfMemory, "onnx: cannot allocate %zu bytes for the graph", r.lops.size());
  if (!r.lops.empty()) std::memcpy(block, r.lops.data(), r.lops.size());
  *out_data = block;
  *out_size = r.lops.size();
  return report(Status::ok());
}

}  // namespace

extern "C" ops_status_t ops_onnx_convert_file(const char* path, void** out_data, size_t* out_size) {
  try {
    if (out_data == nullptr || out_size == nullptr)
      return report_error(StatusCode::kNullPointer, "ops_onnx_convert_file: out_data or out_size is null");
    *out_data = nullptr;
    *out_size = 0;
    if (path == nullptr) return report_error(StatusCode::kNullPointer, "ops_onnx_convert_file: path is null");
    onnx::ConvertResult r;
    Status s = onnx::convert_file(path, r);
    if (!s.is_ok()) return report(s);
    return hand_out(r, out_data, out_size);
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_onnx_convert_buffer(const void* data, size_t size, const char* base_dir, void** out_data,
                                                size_t* out_size) {
  try {
    if (out_data == nullptr || out_size == nullptr)
      return report_error(StatusCode::kNullPointer, "ops_onnx_convert_buffer: out_data or out_size is null");
    *out_data = nullptr;
    *out_size = 0;
    if (data == nullptr && size > 0)
      return report_error(StatusCode::kNullPointer, "ops_onnx_convert_buffer: data is null");
    onnx::ConvertOptions options;
    if (base_dir != nullptr) options.base_dir = base_dir;
    onnx::ConvertResult r;
    Status s = onnx::convert_buffer(data, size, options, r);
    if (!s.is_ok()) return report(s);
    return hand_out(r, out_data, out_size);
  } catch (...) {
    return report_exception();
  }
}

extern "C" void ops_onnx_free(void* data) { std::free(data); }

extern "C" ops_status_t ops_onnx_list_unsupported(const char* path, const char** out_text) {
  try {
    if (out_text == nullptr) return report_error(StatusCode::kNullPointer, "ops_onnx_list_unsupported: out_text is null");
    *out_text = nullptr;
    if (path == nullptr) return report_error(StatusCode::kNullPointer, "ops_onnx_list_unsupported: path is null");
    thread_local std::string text;
    onnx::ConvertResult r;
    Status s = onnx::convert_file(path, r);
    text.clear();
    for (const std::string& p : r.problems) text += p + "\n";
    // A file that cannot be read or parsed has no list to give.
    if (!s.is_ok() && s.code() != StatusCode::kNotImplemented) return report(s);
    *out_text = text.c_str();
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_onnx_coverage(const char** out_markdown) {
  try {
    if (out_markdown == nullptr)
      return report_error(StatusCode::kNullPointer, "ops_onnx_coverage: out_markdown is null");
    static std::once_flag once;
    static std::string text;
    std::call_once(once, [] { text = onnx::coverage_markdown(); });
    *out_markdown = text.c_str();
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_onnx_describe(const char* path, const char** out_text) {
  try {
    if (out_text == nullptr) return report_error(StatusCode::kNullPointer, "ops_onnx_describe: out_text is null");
    *out_text = nullptr;
    if (path == nullptr) return report_error(StatusCode::kNullPointer, "ops_onnx_describe: path is null");
    thread_local std::string text;
    Status s = onnx::describe_file(path, text);
    if (!s.is_ok()) return report(s);
    *out_text = text.c_str();
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}
