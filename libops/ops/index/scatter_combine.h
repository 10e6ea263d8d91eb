// How a scatter combines an update u into the element a it lands on
// (Note [Indexed rows]), for the CPU and CUDA kernels.
#pragma once

#include <type_traits>

#include "libops/core/host_device.h"
#include "libops/ops/index/indexed_rows.h"

namespace libops::ops {

template <typename C>
LIBOPS_HOST_DEVICE inline C scatter_combine(ScatterMode m, C a, C u) {
  switch (m) {
    case ScatterMode::kSet: return u;
    case ScatterMode::kAdd: return a + u;
    case ScatterMode::kSubtract: return a - u;
    case ScatterMode::kMultiply: return a * u;
    case ScatterMode::kDivide:
      if constexpr (std::is_integral_v<C>) return u == C(0) ? C(0) : C(a / u);  // Note [Integer division]
      else return a / u;
    case ScatterMode::kMax:  // NaN wins, as numpy.maximum
      if (a != a) return a;
      return (u != u || u > a) ? u : a;
    case ScatterMode::kMin:
      if (a != a) return a;
      return (u != u || u < a) ? u : a;
  }
  return u;
}

}  // namespace libops::ops
