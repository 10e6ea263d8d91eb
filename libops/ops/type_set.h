// TypeSet: a set of dtypes as data (a bit per DataType). Ops declare what
// they accept with it (DECLARE_TYPES); the executor checks inputs against
// it, error messages and --list-ops print it, tests enumerate it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "libops/core/dtype.h"

#include "libops/core/api.h"

LIBOPS_API_BEGIN

namespace libops {

class TypeSet {
 public:
  constexpr TypeSet() = default;
  constexpr TypeSet(std::initializer_list<DataType> types) {
    for (DataType t : types) bits_ |= bit(t);
  }
  static constexpr TypeSet from_bits(uint32_t b) {
    TypeSet s;
    s.bits_ = b;
    return s;
  }

  constexpr bool contains(DataType t) const { return (bits_ & bit(t)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint32_t bits() const { return bits_; }
  constexpr TypeSet operator|(TypeSet o) const { return from_bits(bits_ | o.bits_); }
  std::string str() const;  // "float16, bfloat16, float32, float64" or "any"

 private:
  static constexpr uint32_t bit(DataType t) { return 1u << static_cast<int>(t); }
  uint32_t bits_ = 0;
};

namespace types {
inline constexpr TypeSet kFloat = {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32, DataType::kFloat64};
inline constexpr TypeSet kSignedInt = {DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64};
inline constexpr TypeSet kUnsignedInt = {DataType::kUInt8, DataType::kUInt16, DataType::kUInt32, DataType::kUInt64};
inline constexpr TypeSet kInt = kSignedInt | kUnsignedInt;
inline constexpr TypeSet kBool = {DataType::kBool};
inline constexpr TypeSet kNumeric = kFloat | kInt;
inline constexpr TypeSet kAny = kNumeric | kBool;
inline constexpr TypeSet kIndex = {DataType::kInt32, DataType::kInt64};
}  // namespace types

}  // namespace libops

LIBOPS_API_END
