// Helpers of the expression tests (tests_cpu/expr/): test data, the legacy
// ops' results to compare with, and the comparison.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "libops/expr/expr.h"
#include "libops/legacy/legacy.h"
#include "op_test_util.h"

namespace libops::expr_test {

using test::make;

// A spread of values: both signs, zero, small and large, NaN and +-Inf.
inline NDArray spread(DataType dt, int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(std::sin(0.37 * double(i)) * (i % 7 == 0 ? 40.0 : 3.0));
  if (n > 4 && (dt == DataType::kFloat32 || dt == DataType::kFloat64 || dt == DataType::kFloat16)) {
    v[1] = std::numeric_limits<double>::quiet_NaN();
    v[2] = std::numeric_limits<double>::infinity();
    v[3] = -std::numeric_limits<double>::infinity();
    v[4] = 0.0;
  }
  return make(dt, {n}, v);
}

inline NDArray legacy_unary(int group, int num, const NDArray& x, DataType out_dt) {
  NDArray z = test::zeros(out_dt, x.shape());
  legacy::LegacyCall call;
  call.group = group;
  call.num = num;
  call.x = &x;
  call.z = &z;
  EXPECT_TRUE(legacy::exec(call).is_ok()) << "legacy " << group << "/" << num;
  return z;
}

inline NDArray legacy_binary(int group, int num, const NDArray& x, const NDArray& y, DataType out_dt, const Dims& shape) {
  NDArray z = test::zeros(out_dt, shape);
  legacy::LegacyCall call;
  call.group = group;
  call.num = num;
  call.x = &x;
  call.y = &y;
  call.z = &z;
  EXPECT_TRUE(legacy::exec(call).is_ok()) << "legacy " << group << "/" << num;
  return z;
}

// Equal bits, both NaN (the sign and payload of a NaN an operation makes
// are not specified, and differ between a scalar and a vector path), or
// within rounding of a multiply-add: where a functor multiplies and adds
// (hard_sigmoid's 0.2 x + 0.5), GCC may fuse the two into one FMA in one
// copy of the loop and not in another (one rounding against two, which
// near a cancellation is several ulp). Every other row, and every binary
// row, is equal bit for bit. Clang's builds (the sanitizers') inline less
// of an isa_dispatch copy, so a functor's scalar code may run unfused
// where the op's dense kernel fuses (CMakeLists.txt, LIBOPS_SANITIZE):
// tanh's quotient of two such polynomials then differs by up to 2 ulp.
#if defined(__clang__)
inline constexpr double kFloat32Rounding = 2.5e-7;
#else
inline constexpr double kFloat32Rounding = 1e-7;
#endif
inline bool same_values(const NDArray& a, const NDArray& b, std::string& where) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const size_t es = a.element_size();
  for (int64_t i = 0; i < a.length(); ++i) {
    const char* pa = static_cast<const char*>(a.data()) + i * es;
    const char* pb = static_cast<const char*>(b.data()) + i * es;
    const double va = a.get_double(i), vb = b.get_double(i);
    if (std::memcmp(pa, pb, es) == 0 || (std::isnan(va) && std::isnan(vb))) continue;
    const DataType dt = a.dtype();
    const double tol = dt == DataType::kFloat32 ? kFloat32Rounding : dt == DataType::kFloat64 ? 1e-15 : 0.0;
    if (std::fabs(va - vb) <= tol * std::max(1.0, std::fabs(vb))) continue;
    char buf[160];
    std::snprintf(buf, sizeof buf, "element %lld: %.17g against %.17g", static_cast<long long>(i), a.get_double(i),
                  b.get_double(i));
    where = buf;
    return false;
  }
  return true;
}


}  // namespace libops::expr_test
