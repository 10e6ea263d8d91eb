// The keys of Note [Sort order] (sort.h), for the CPU and CUDA kernels.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "libops/core/host_device.h"

namespace libops::ops::sort_keys {

template <typename T>
using Key = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

// A key whose unsigned order is Note [Sort order]'s order of the values.
// nan_first (top_k's largest): NaN is larger than every number, so first
// in descending order; otherwise NaN is last whichever the direction.
template <typename T>
LIBOPS_HOST_DEVICE inline Key<T> encode(T v, bool descending, bool zeros_equal, bool nan_first = false) {
  using U = Key<T>;
  constexpr U kSign = U(1) << (8 * sizeof(U) - 1);
  U key;
  if constexpr (std::is_floating_point_v<T>) {
    if (v != v) return nan_first ? U(0) : ~U(0);  // the smallest key or the largest
    if (zeros_equal && v == T(0)) v = T(0);
    U bits;
    memcpy(&bits, &v, sizeof bits);
    key = (bits & kSign) ? ~bits : (bits | kSign);  // never ~0: that is a NaN's bit pattern
  } else if constexpr (std::is_signed_v<T>) {
    key = static_cast<U>(v) ^ kSign;
  } else {
    key = static_cast<U>(v);
  }
  return descending ? ~key : key;
}

template <typename T>
LIBOPS_HOST_DEVICE inline T decode(Key<T> key, bool descending) {
  using U = Key<T>;
  constexpr U kSign = U(1) << (8 * sizeof(U) - 1);
  if constexpr (std::is_floating_point_v<T>) {
    if (key == ~U(0)) {  // the quiet NaN
      const U quiet = sizeof(T) == 8 ? U(0x7FF8000000000000ull) : U(0x7FC00000u);
      T nan;
      memcpy(&nan, &quiet, sizeof nan);
      return nan;
    }
    if (descending) key = ~key;
    const U bits = (key & kSign) ? (key & ~kSign) : ~key;
    T v;
    memcpy(&v, &bits, sizeof v);
    return v;
  } else {
    if (descending) key = ~key;
    if constexpr (std::is_signed_v<T>) return static_cast<T>(key ^ kSign);
    else return static_cast<T>(key);
  }
}

}  // namespace libops::ops::sort_keys
