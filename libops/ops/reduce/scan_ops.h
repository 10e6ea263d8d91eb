// The combine rules and identities of the cumulative scans, shared by the
// CPU kernel (cumulative.cpp) and the CUDA one (cumulative.cu). Max and min
// propagate NaN, as numpy's maximum.accumulate does.
#pragma once

#include <limits>
#include <type_traits>

#include "libops/core/host_device.h"
#include "libops/ops/reduce/cumulative.h"

namespace libops::ops::scan {

template <typename C>
LIBOPS_HOST_DEVICE inline bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) return v != v;
  else return false;
}

template <typename C>
LIBOPS_HOST_DEVICE inline C identity(const ScanDesc& d) {
  switch (d.op) {
    case ScanOp::kSum: return C(0);
    case ScanOp::kProd: return C(1);
    case ScanOp::kMax:
      if constexpr (std::is_floating_point_v<C>) return -std::numeric_limits<C>::infinity();
      else if constexpr (std::is_signed_v<C>) return C(d.int_lowest);
      else return C(0);
    case ScanOp::kMin:
      if constexpr (std::is_floating_point_v<C>) return std::numeric_limits<C>::infinity();
      else if constexpr (std::is_signed_v<C>) return C(static_cast<int64_t>(d.int_highest));
      else return C(d.int_highest);
  }
  return C(0);
}

// The type integers add in without overflow UB: their unsigned twin.
template <typename C, bool = std::is_integral_v<C>>
struct Wrapping {
  using type = C;
};
template <typename C>
struct Wrapping<C, true> {
  using type = std::make_unsigned_t<C>;
};

template <ScanOp kOp, typename C>
LIBOPS_HOST_DEVICE inline C combine(C a, C b) {
  // Signed integers wrap modulo 2^64 (in unsigned arithmetic: no UB), as
  // numpy's int64 cumsum does.
  using W = typename Wrapping<C>::type;
  if constexpr (kOp == ScanOp::kSum) return static_cast<C>(static_cast<W>(a) + static_cast<W>(b));
  else if constexpr (kOp == ScanOp::kProd) return static_cast<C>(static_cast<W>(a) * static_cast<W>(b));
  else if constexpr (kOp == ScanOp::kMax) return is_nan(a) ? a : (is_nan(b) || b > a) ? b : a;
  else return is_nan(a) ? a : (is_nan(b) || b < a) ? b : a;
}

}  // namespace libops::ops::scan
