// Helpers for tests_cpu: build arrays from values, read them back, compare.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "libops/array/ndarray.h"

namespace libops::test {

// A dense array of `dtype` holding `values` (converted) in C order.
inline NDArray make(DataType dtype, const Dims& shape, const std::vector<double>& values, char order = 'c') {
  NDArray a;
  Status s = NDArray::create(dtype, shape, order, a);
  EXPECT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(static_cast<size_t>(a.length()), values.size()) << "test bug: value count";
  for (int64_t i = 0; i < a.length() && i < static_cast<int64_t>(values.size()); ++i) a.set_double(i, values[i]);
  return a;
}

inline NDArray zeros(DataType dtype, const Dims& shape) {
  NDArray a;
  Status s = NDArray::zeros(dtype, shape, 'c', a);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return a;
}

// 0, 1, 2, ... scaled and shifted: inputs that are not all one value.
inline std::vector<double> iota(int64_t n, double scale = 1.0, double shift = 0.0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = shift + scale * static_cast<double>(i);
  return v;
}

// The mean and the (population) variance of samples, for tests of random
// draws.
inline double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
inline double variance_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}

inline std::vector<double> values(const NDArray& a) {
  std::vector<double> v(static_cast<size_t>(a.length()));
  for (int64_t i = 0; i < a.length(); ++i) v[static_cast<size_t>(i)] = a.get_double(i);
  return v;
}

// Element-wise comparison with an absolute + relative tolerance; NaN
// matches NaN, infinities must match exactly.
inline ::testing::AssertionResult all_close(const std::vector<double>& got, const std::vector<double>& want,
                                            double rtol = 1e-6, double atol = 1e-6) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != expected " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i];
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) || std::isinf(g)) {
      if (g == w) continue;
    } else if (std::fabs(g - w) <= atol + rtol * std::fabs(w)) {
      continue;
    }
    return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", expected " << w;
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult all_close(const NDArray& a, const std::vector<double>& want, double rtol = 1e-6,
                                            double atol = 1e-6) {
  return all_close(values(a), want, rtol, atol);
}

}  // namespace libops::test

#define ASSERT_OK(expr)                                     \
  do {                                                      \
    ::libops::Status s_ = (expr);                           \
    ASSERT_TRUE(s_.is_ok()) << s_.message();                \
  } while (0)
#define EXPECT_OK(expr)                                     \
  do {                                                      \
    ::libops::Status s_ = (expr);                           \
    EXPECT_TRUE(s_.is_ok()) << s_.message();                \
  } while (0)
