// Integer-only binary ops (bitwise, shifts, rotations): the shared table of
// SCALAR_INT, PAIRWISE_INT and BROADCAST_INT. Inputs and z are integer or
// bool dtypes; values are computed in the integer compute type of the common
// dtype (int32 for int8/16/32, uint8/16 and bool; int64 for int64 and
// uint32; uint64), Note [Compute types].
//
// Note [Shift counts]
// shift_left(x, n) and shift_right(x, n) shift by y = n bits. A count outside
// [0, bits of the compute type) is defined, never UB: it shifts every bit
// out, so shift_left gives 0 and shift_right gives the sign fill (-1 for a
// negative x, else 0). shift_right is arithmetic for signed values. Because
// narrow dtypes are held sign- or zero-extended in the compute type and
// stores wrap, both shifts give the storage dtype's result when z has x's
// dtype (int8 1 << 7 = -128; int8 -128 >> 9 = -1).
//
// Note [Rotation width]
// Rotations cannot be width-correct by themselves: a kernel sees the compute
// type (int32 for int8), not the storage dtype. cyclic_shift_left/right
// therefore rotate the low w bits of x, with w = extra[0]. legacy::exec
// fills in the bit width of x's dtype when no width is given (so int8 data
// rotates in 8 bits) and refuses a width that is not a whole number in
// [1, bits of the compute type]; a kernel called directly falls back to the
// compute width.
// The count y is taken modulo w (a negative count rotates the other way);
// the result is the rotated w-bit pattern, which the store to a w-bit dtype
// turns back into that dtype's value.
#pragma once

#include "libops/core/host_device.h"

#include <cmath>
#include <type_traits>

#include "libops/legacy/dispatch.h"

namespace libops::legacy::fn::binary_int {

namespace detail {

template <typename C> inline constexpr int kBits = static_cast<int>(8 * sizeof(C));

template <typename C> LIBOPS_HOST_DEVICE inline bool count_out_of_range(C n) {
  if constexpr (std::is_signed_v<C>)
    if (n < 0) return true;
  return n >= C(kBits<C>);
}

// Note [Rotation width]: the w to rotate in.
template <typename C> LIBOPS_HOST_DEVICE inline int rotation_width(const ExtraParams& e) {
  const double w = e.get(0, kBits<C>);
  return (w >= 1 && w <= kBits<C> && w == std::floor(w)) ? static_cast<int>(w) : kBits<C>;
}

// Rotates the low w bits of x left by n (mod w).
template <typename C> LIBOPS_HOST_DEVICE inline C rotate_left(C x, C n, int w) {
  using U = std::make_unsigned_t<C>;
  const U mask = w == kBits<C> ? U(~U(0)) : U((U(1) << w) - 1);
  C k = C(n % C(w));
  if constexpr (std::is_signed_v<C>)
    if (k < 0) k = C(k + w);
  const U bits = U(U(x) & mask);
  if (k == 0) return C(bits);
  return C(U((U(bits << k) | U(bits >> (w - k))) & mask));
}

}  // namespace detail

template <typename C> struct BitwiseAnd {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return C(x & y); }
};
template <typename C> struct BitwiseOr {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return C(x | y); }
};
template <typename C> struct BitwiseXor {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) { return C(x ^ y); }
};
// x << y, Note [Shift counts].
template <typename C> struct ShiftLeft {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    using U = std::make_unsigned_t<C>;
    if (detail::count_out_of_range(y)) return C(0);
    return C(U(U(x) << y));
  }
};
// x >> y (arithmetic for signed x), Note [Shift counts].
template <typename C> struct ShiftRight {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams&) {
    if (detail::count_out_of_range(y)) {
      if constexpr (std::is_signed_v<C>) return x < 0 ? C(-1) : C(0);
      else return C(0);
    }
    return C(x >> y);
  }
};
// Note [Rotation width].
template <typename C> struct CyclicShiftLeft {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams& e) { return detail::rotate_left(x, y, detail::rotation_width<C>(e)); }
};
template <typename C> struct CyclicShiftRight {
  LIBOPS_HOST_DEVICE static C op(C x, C y, const ExtraParams& e) {
    const int w = detail::rotation_width<C>(e);
    // right by y == left by w - (y mod w); reduce first so nothing overflows
    C k = C(y % C(w));
    if constexpr (std::is_signed_v<C>)
      if (k < 0) k = C(k + w);
    return detail::rotate_left(x, C(C(w) - k), w);
  }
};

}  // namespace libops::legacy::fn::binary_int

// number, name, functor, compute types.
#define LIBOPS_BINARY_INT_OPS(X)                                             \
  X(0, bitwise_and, fn::binary_int::BitwiseAnd, kIntTypes)                   \
  X(1, bitwise_or, fn::binary_int::BitwiseOr, kIntTypes)                     \
  X(2, bitwise_xor, fn::binary_int::BitwiseXor, kIntTypes)                   \
  X(3, shift_left, fn::binary_int::ShiftLeft, kIntTypes)                     \
  X(4, shift_right, fn::binary_int::ShiftRight, kIntTypes)                   \
  X(5, cyclic_shift_left, fn::binary_int::CyclicShiftLeft, kIntTypes)        \
  X(6, cyclic_shift_right, fn::binary_int::CyclicShiftRight, kIntTypes)
#define LIBOPS_BINARY_INT_COUNT 7

namespace libops::legacy {
enum class BinaryIntOp : int { LIBOPS_BINARY_INT_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
