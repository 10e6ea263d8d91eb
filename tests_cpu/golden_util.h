// Golden files: small .npy arrays produced by numpy/PyTorch through the
// committed generator scripts in tools/ (gen_goldens_*.py), stored under
// tests_cpu/golden/. load_golden() turns one into an NDArray.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
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

// A computed array against its golden: same dtype and shape; floats within
// atol + rtol * |want| (NaN matches NaN), everything else exactly.
inline ::testing::AssertionResult matches_golden(const NDArray& got, const NDArray& want, double rtol, double atol) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure() << "dtype " << dtype_name(got.dtype()) << ", want " << dtype_name(want.dtype());
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << got.shape().str() << ", want " << want.shape().str();
  const bool is_float = dtype_is_float(want.dtype());
  for (int64_t i = 0; i < want.length(); ++i) {
    const double g = got.get_double(i), w = want.get_double(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    const bool ok = is_float ? (g == w || std::fabs(g - w) <= atol + rtol * std::fabs(w)) : g == w;
    if (!ok) return ::testing::AssertionFailure() << "element " << i << " is " << g << ", want " << w;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace libops::test
