// Golden files: small .npy arrays produced by numpy/PyTorch through the
// committed generator scripts in tools/ (gen_goldens_*.py), stored under
// tests_cpu/golden/. load_golden() turns one into an NDArray.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "graph/npy.h"
#include "libops/array/ndarray.h"

#ifndef LIBOPS_GOLDEN_DIR
#define LIBOPS_GOLDEN_DIR "tests_cpu/golden"
#endif

namespace libops::test {

// Loads tests_cpu/golden/<relative_path>; fails the test when missing or bad.
inline NDArray load_golden(const std::string& relative_path) {
  npy::NpyArray raw;
  std::string error;
  std::string path = LIBOPS_GOLDEN_DIR;  // appended in place: GCC -O1 warns (falsely) on a temporary's operator+
  path += "/";
  path += relative_path;
  NDArray a;
  if (!npy::npy_read_file(path, raw, error)) {
    ADD_FAILURE() << "cannot read golden " << path << ": " << error;
    return a;
  }
  Dims shape;
  for (int64_t d : raw.shape) shape.push_back(d);
  Status s = NDArray::create(static_cast<DataType>(raw.dtype), shape, raw.fortran_order ? 'f' : 'c', a);
  if (!s.is_ok()) {
    ADD_FAILURE() << s.message();
    return a;
  }
  if (!raw.data.empty()) std::memcpy(a.data(), raw.data.data(), raw.data.size());
  return a;
}

}  // namespace libops::test
