// libFuzzer target for the .npy reader (graph/npy.cpp): any bytes give an
// array or an error message, never a crash, leak or oversized allocation.
// What reads must also survive the round trip: written back and read again
// it is the same array (dtype, shape, order, bytes).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace libops::npy;
  NpyArray a;
  std::string error;
  if (!npy_read_buffer(data, size, a, error)) {
    if (error.empty()) __builtin_trap();  // a failure always says why
    return 0;
  }
  std::vector<uint8_t> bytes;
  if (!npy_write_buffer(a, bytes, error)) __builtin_trap();  // what reads can be written
  NpyArray b;
  if (!npy_read_buffer(bytes.data(), bytes.size(), b, error)) __builtin_trap();
  if (a.dtype != b.dtype || a.shape != b.shape || a.fortran_order != b.fortran_order || a.data != b.data)
    __builtin_trap();
  return 0;
}
