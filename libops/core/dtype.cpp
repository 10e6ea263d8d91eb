#include "libops/core/dtype.h"

namespace libops {

namespace {
constexpr const char* kNames[kNumDataTypes] = {
    "invalid", "bool",   "int8",    "int16",    "int32",   "int64",   "uint8",
    "uint16",  "uint32", "uint64",  "float16",  "bfloat16", "float32", "float64"};
}  // namespace

const char* dtype_name(DataType t) {
  int i = static_cast<int>(t);
  return (i >= 0 && i < kNumDataTypes) ? kNames[i] : "invalid";
}

DataType dtype_from_name(std::string_view name) {
  for (int i = 1; i < kNumDataTypes; ++i)
    if (name == kNames[i]) return static_cast<DataType>(i);
  if (name == "half") return DataType::kFloat16;
  if (name == "float") return DataType::kFloat32;
  if (name == "double") return DataType::kFloat64;
  return DataType::kInvalid;
}

namespace {
int int_bits(DataType t) { return static_cast<int>(dtype_size(t)) * 8; }
DataType signed_of_bits(int bits) {
  switch (bits) {
    case 8: return DataType::kInt8;
    case 16: return DataType::kInt16;
    case 32: return DataType::kInt32;
    default: return DataType::kInt64;
  }
}
}  // namespace

DataType promote_types(DataType a, DataType b) {
  if (a == b) return a;
  if (!dtype_is_valid(a) || !dtype_is_valid(b)) return DataType::kInvalid;
  if (a == DataType::kBool) return b;
  if (b == DataType::kBool) return a;
  bool fa = dtype_is_float(a), fb = dtype_is_float(b);
  if (fa && fb) {
    if (a == DataType::kFloat64 || b == DataType::kFloat64) return DataType::kFloat64;
    return DataType::kFloat32;  // any two distinct of f16/bf16/f32
  }
  if (fa) return a;
  if (fb) return b;
  // two integers
  bool sa = dtype_is_signed_int(a), sb = dtype_is_signed_int(b);
  if (sa == sb) return int_bits(a) >= int_bits(b) ? a : b;
  DataType s = sa ? a : b, u = sa ? b : a;
  int bits = int_bits(u) * 2 > int_bits(s) ? int_bits(u) * 2 : int_bits(s);
  return signed_of_bits(bits > 64 ? 64 : bits);
}

DataType float_result_type(DataType t) { return dtype_is_float(t) ? t : DataType::kFloat32; }

ComputeType compute_type_of(DataType t) {
  switch (t) {
    case DataType::kFloat16: case DataType::kBFloat16: case DataType::kFloat32: return ComputeType::kF32;
    case DataType::kFloat64: return ComputeType::kF64;
    case DataType::kInt64: case DataType::kUInt32: return ComputeType::kI64;
    case DataType::kUInt64: return ComputeType::kU64;
    default: return ComputeType::kI32;
  }
}

const char* compute_type_name(ComputeType c) {
  switch (c) {
    case ComputeType::kF32: return "float32";
    case ComputeType::kF64: return "float64";
    case ComputeType::kI32: return "int32";
    case ComputeType::kI64: return "int64";
    case ComputeType::kU64: return "uint64";
  }
  return "?";
}

}  // namespace libops
