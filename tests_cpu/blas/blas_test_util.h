// Test values for the BLAS tests: a sine wave, so that products of them
// cancel partly, as real data does, and no two rows are alike.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace libops::test {

// v[i] = sin(i * scale + shift).
inline std::vector<float> wave(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * scale + shift);
  return v;
}

}  // namespace libops::test
