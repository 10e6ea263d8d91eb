// libFuzzer target for the ONNX importer (graph/onnx/): any bytes, read as
// an .onnx model, give converted graph bytes or an error message, never a
// crash, leak or hang. What converts must also pass the graph loader's own
// checks or fail them with a message: the importer never writes a file the
// verifier would crash on. External data is refused here (no folder).
//
// Build and run: see README.md in this folder.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "libops/array/data_buffer.h"
#include "libops/c_api.h"
#include "libops/c_graph.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Constant folding runs ops at conversion: a model asking for a huge
  // constant fails at once instead of spending seconds allocating it.
  libops::fault_injection::fail_host_allocations_over(size_t{16} << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  void* converted = nullptr;
  size_t converted_size = 0;
  if (ops_onnx_convert_buffer(data, size, nullptr, &converted, &converted_size) != OPS_OK) {
    const char* why = ops_last_error();
    if (why == nullptr || why[0] == '\0') __builtin_trap();  // a failure always says why
    return 0;
  }
  if (converted == nullptr || converted_size == 0) __builtin_trap();
  ops_graph_t* g = nullptr;
  if (ops_graph_load_buffer(converted, converted_size, 0, &g) == OPS_OK) {
    ops_graph_free(g);
  } else {
    const char* why = ops_last_error();
    if (why == nullptr || why[0] == '\0') __builtin_trap();
  }
  ops_onnx_free(converted);
  return 0;
}
