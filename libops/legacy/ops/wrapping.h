// Wrapping integer arithmetic, shared by the legacy functors.
//
// Note [Integer overflow]
// Integer add, subtract, multiply and negate wrap modulo 2^n of the compute
// type, and so does everything built from them (pow, squared_subtract, abs,
// neg, square, cube, the sum and product reductions): they run in unsigned
// arithmetic, where overflow is defined, so abs(INT32_MIN) = INT32_MIN and
// neg(INT64_MIN) = INT64_MIN, as in numpy. Storing to a narrower integer
// dtype wraps too (loops/convert.h), so int8 + int8 (computed in int32)
// wraps exactly like int8 would. For floats these are plain IEEE arithmetic.
#pragma once

#include <type_traits>

#include "libops/core/host_device.h"

namespace libops::legacy::fn {

template <typename C> LIBOPS_HOST_DEVICE inline C wrap_add(C x, C y) {
  if constexpr (std::is_integral_v<C>) return C(std::make_unsigned_t<C>(x) + std::make_unsigned_t<C>(y));
  else return x + y;
}
template <typename C> LIBOPS_HOST_DEVICE inline C wrap_sub(C x, C y) {
  if constexpr (std::is_integral_v<C>) return C(std::make_unsigned_t<C>(x) - std::make_unsigned_t<C>(y));
  else return x - y;
}
template <typename C> LIBOPS_HOST_DEVICE inline C wrap_mul(C x, C y) {
  if constexpr (std::is_integral_v<C>) return C(std::make_unsigned_t<C>(x) * std::make_unsigned_t<C>(y));
  else return x * y;
}
template <typename C> LIBOPS_HOST_DEVICE inline C wrap_neg(C x) {
  if constexpr (std::is_integral_v<C>) return C(std::make_unsigned_t<C>(0) - std::make_unsigned_t<C>(x));
  else return -x;
}

}  // namespace libops::legacy::fn
