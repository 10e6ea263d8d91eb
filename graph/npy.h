// libops::npy: read and write NumPy .npy files.
//
// Self-contained (it needs only the dtype enum of libops/c_types.h), so tools
// and tests can use it without the rest of libops.
//
// Reads format versions 1.0, 2.0 and 3.0. Writes 1.0, or 2.0 when the header
// does not fit version 1.0's 16-bit length. Supported descrs: '|b1', i1 i2 i4
// i8, u1 u2 u4 u8, f2, f4, f8, in either byte order; big-endian data is
// byte-swapped to little-endian on read. bfloat16, which numpy lacks, is
// 'V2' (raw 2-byte records): what np.save writes for ml_dtypes' bfloat16
// arrays, and what .view(ml_dtypes.bfloat16) reads back after np.load.
//
// Every function treats its input as untrusted: a malformed file gives false
// and a message in `error` ("npy: <what> with <values>"), never a crash.
// Allocations are bounded by the input: the data buffer is allocated only
// once its size, computed from the header, matches the bytes present.
//
// The format itself sets no rank limit and neither does this code (version
// 2.0 is only needed for a header over 64 KiB, i.e. thousands of dims);
// callers check rank against their own limit.
#ifndef LIBOPS_GRAPH_NPY_H
#define LIBOPS_GRAPH_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "libops/c_types.h"

namespace libops::npy {

struct NpyArray {
  ops_dtype_t dtype = OPS_DTYPE_INVALID;
  std::vector<int64_t> shape;  // empty = 0-d scalar; a 0 dim = empty array
  bool fortran_order = false;  // data is column-major when true
  std::vector<uint8_t> data;   // little-endian, in the order stored
};

// Size in bytes of one element of `dtype` (bfloat16 included), or 0 for a
// dtype that .npy cannot hold.
size_t npy_itemsize(ops_dtype_t dtype);

// Read a whole .npy file or buffer into `out`. On failure `out` is left in an
// unspecified state and `error` says what was wrong.
bool npy_read_file(const std::string& path, NpyArray& out, std::string& error);
bool npy_read_buffer(const uint8_t* data, size_t size, NpyArray& out,
                     std::string& error);

// Write `a` as .npy (bfloat16 as '<V2'). Fails (with a message) for negative
// dims, or data whose size is not product(shape) * itemsize.
bool npy_write_file(const std::string& path, const NpyArray& a,
                    std::string& error);
bool npy_write_buffer(const NpyArray& a, std::vector<uint8_t>& out,
                      std::string& error);

}  // namespace libops::npy

#endif  // LIBOPS_GRAPH_NPY_H
