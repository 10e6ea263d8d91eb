// Value conversion between storage dtypes and compute types (Note [Compute
// types] in core/dtype.h). Conversions are defined for every value: a float
// converted to an integer truncates toward zero and saturates at the
// integer's range, NaN becomes 0; anything converted to bool is `v != 0`;
// integer narrowing wraps (two's complement), as in C++20.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "libops/core/api.h"
#include "libops/core/dtype.h"
#include "libops/core/half.h"

namespace libops {

template <typename To, typename From>
LIBOPS_HOST_DEVICE inline To convert_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, float16> || std::is_same_v<From, bfloat16>) {
    return convert_value<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, float16> || std::is_same_v<To, bfloat16>) {
    if constexpr (std::is_same_v<From, double>) return To(v);
    else return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(v)) return To(0);
    // Compare in From: the limits below are exactly representable or round
    // up to a power of two, so `>=` catches every value that would overflow.
    constexpr From lo = static_cast<From>(std::numeric_limits<To>::lowest());
    constexpr From hi = static_cast<From>(std::numeric_limits<To>::max());
    if (v <= lo) return std::numeric_limits<To>::lowest();
    if (v >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Block converters: strided storage <-> contiguous compute-type buffer.
// Chosen once per call, then called per block of elements.
template <typename C>
using LoadFn = void (*)(const char* src, int64_t stride_bytes, int64_t n, C* dst);
template <typename R>
using StoreFn = void (*)(const R* src, char* dst, int64_t stride_bytes, int64_t n);

// Exported (and the helpers below): expressions compiled outside the library
// load and store through them.
LIBOPS_API_BEGIN
// Defined in convert.cpp for C in {bool, int32_t, int64_t, uint64_t, float, double}.
template <typename C> LoadFn<C> load_fn(DataType src);
template <typename R> StoreFn<R> store_fn(DataType dst);

// One element through double (tools, tests, scalar arguments).
double load_double(const void* p, DataType t);
void store_double(void* p, DataType t, double v);
int64_t load_int64(const void* p, DataType t);

// Copies one element between two dtypes (used by cast and assign paths
// that are not hot); exact for every pair (no detour through double).
void convert_element(const void* src, DataType src_t, void* dst, DataType dst_t);
LIBOPS_API_END

}  // namespace libops
