// DataType: the element types libops stores, and the one place dtypes are
// mapped to the types kernels compute in.
//
// Note [Compute types]
// Kernels are instantiated per *compute type*, never per storage dtype and
// never per (input x output) combination:
//   float16, bfloat16, float32      -> float
//   float64                         -> double
//   bool, int8/16/32, uint8/16      -> int32_t
//   int64, uint32                   -> int64_t
//   uint64                          -> uint64_t
// Inputs of another storage dtype are converted on load into compute-type
// blocks, results are converted on store (see loops/convert.h), with the
// converter chosen once per call. When every operand already has the compute
// type, kernels take a direct path the compiler vectorizes.
//
// Note [Type promotion]
// For two inputs of different dtypes the common dtype is (promote_types):
//   * bool < integers < floating point;
//   * integer with floating point -> that floating type;
//   * two floats -> the wider; float16 with bfloat16 -> float32;
//   * two integers of the same signedness -> the wider;
//   * signed with unsigned -> the smallest signed type holding both
//     (uint8+int8 -> int16, uint32+int32 -> int64); uint64 with a signed
//     integer -> int64 (numpy would give float64; we keep integers exact for
//     every value below 2^63).
#pragma once

#include "libops/core/api.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "libops/c_types.h"
#include "libops/core/half.h"

LIBOPS_API_BEGIN

namespace libops {

enum class DataType : int32_t {
  kInvalid = OPS_DTYPE_INVALID,
  kBool = OPS_DTYPE_BOOL,
  kInt8 = OPS_DTYPE_INT8,
  kInt16 = OPS_DTYPE_INT16,
  kInt32 = OPS_DTYPE_INT32,
  kInt64 = OPS_DTYPE_INT64,
  kUInt8 = OPS_DTYPE_UINT8,
  kUInt16 = OPS_DTYPE_UINT16,
  kUInt32 = OPS_DTYPE_UINT32,
  kUInt64 = OPS_DTYPE_UINT64,
  kFloat16 = OPS_DTYPE_FLOAT16,
  kBFloat16 = OPS_DTYPE_BFLOAT16,
  kFloat32 = OPS_DTYPE_FLOAT32,
  kFloat64 = OPS_DTYPE_FLOAT64,
};
inline constexpr int kNumDataTypes = 14;  // including kInvalid

constexpr bool dtype_is_valid(DataType t) {
  return static_cast<int>(t) >= 1 && static_cast<int>(t) < kNumDataTypes;
}
constexpr bool dtype_is_float(DataType t) {
  return t == DataType::kFloat16 || t == DataType::kBFloat16 || t == DataType::kFloat32 ||
         t == DataType::kFloat64;
}
constexpr bool dtype_is_integer(DataType t) {  // bool is not an integer here
  return static_cast<int>(t) >= OPS_DTYPE_INT8 && static_cast<int>(t) <= OPS_DTYPE_UINT64;
}
constexpr bool dtype_is_signed_int(DataType t) {
  return static_cast<int>(t) >= OPS_DTYPE_INT8 && static_cast<int>(t) <= OPS_DTYPE_INT64;
}
constexpr bool dtype_is_unsigned_int(DataType t) {
  return static_cast<int>(t) >= OPS_DTYPE_UINT8 && static_cast<int>(t) <= OPS_DTYPE_UINT64;
}

// Bytes per element; 0 for kInvalid. Inline: every array access asks.
constexpr size_t dtype_size(DataType t) {
  switch (t) {
    case DataType::kBool: case DataType::kInt8: case DataType::kUInt8: return 1;
    case DataType::kInt16: case DataType::kUInt16: case DataType::kFloat16: case DataType::kBFloat16: return 2;
    case DataType::kInt32: case DataType::kUInt32: case DataType::kFloat32: return 4;
    case DataType::kInt64: case DataType::kUInt64: case DataType::kFloat64: return 8;
    case DataType::kInvalid: break;
  }
  return 0;
}
const char* dtype_name(DataType t);    // "float32", ...; "invalid" otherwise
DataType dtype_from_name(std::string_view name);  // kInvalid when unknown
DataType promote_types(DataType a, DataType b);   // Note [Type promotion]
// The float dtype an integer or bool input is computed in by float-valued ops
// (mean, sqrt, ...): float64 stays float64, other floats stay, the rest -> float32.
DataType float_result_type(DataType t);

// Compute types, Note [Compute types].
enum class ComputeType { kF32, kF64, kI32, kI64, kU64 };
ComputeType compute_type_of(DataType t);
const char* compute_type_name(ComputeType c);

// C++ storage type <-> DataType.
template <typename T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DataType value = DataType::kBool; };
template <> struct dtype_of<int8_t> { static constexpr DataType value = DataType::kInt8; };
template <> struct dtype_of<int16_t> { static constexpr DataType value = DataType::kInt16; };
template <> struct dtype_of<int32_t> { static constexpr DataType value = DataType::kInt32; };
template <> struct dtype_of<int64_t> { static constexpr DataType value = DataType::kInt64; };
template <> struct dtype_of<uint8_t> { static constexpr DataType value = DataType::kUInt8; };
template <> struct dtype_of<uint16_t> { static constexpr DataType value = DataType::kUInt16; };
template <> struct dtype_of<uint32_t> { static constexpr DataType value = DataType::kUInt32; };
template <> struct dtype_of<uint64_t> { static constexpr DataType value = DataType::kUInt64; };
template <> struct dtype_of<float16> { static constexpr DataType value = DataType::kFloat16; };
template <> struct dtype_of<bfloat16> { static constexpr DataType value = DataType::kBFloat16; };
template <> struct dtype_of<float> { static constexpr DataType value = DataType::kFloat32; };
template <> struct dtype_of<double> { static constexpr DataType value = DataType::kFloat64; };
template <typename T> inline constexpr DataType dtype_of_v = dtype_of<T>::value;

template <typename C> inline constexpr bool is_float_compute_v =
    std::is_same_v<C, float> || std::is_same_v<C, double>;

// The single dtype dispatch: calls f(C{}) with C the compute type of `t`.
// Every kernel family goes through here, so adding a compute type is one edit.
template <typename F>
decltype(auto) dispatch_compute(ComputeType c, F&& f) {
  switch (c) {
    case ComputeType::kF32: return f(float{});
    case ComputeType::kF64: return f(double{});
    case ComputeType::kI32: return f(int32_t{});
    case ComputeType::kI64: return f(int64_t{});
    case ComputeType::kU64: break;
  }
  return f(uint64_t{});
}

}  // namespace libops

LIBOPS_API_END
