// Small helpers the mapping functions share (onnx_ops.cpp and the files
// beside it that map one family of ops). Internal to graph/onnx/.
#pragma once

#include <string>
#include <vector>

#include "graph/onnx/onnx_convert.h"

namespace libops::graph::onnx::map_util {

using C = Converter;

inline std::string ints_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) {
    if (k) s += ',';
    s += std::to_string(v[k]);
  }
  return s + "]";
}

// Normalizes an axis of a rank-`rank` value; false when out of range or
// negative with an unknown rank.
inline bool norm_axis(int64_t axis, int rank, int64_t& out) {
  if (axis < 0) {
    if (rank < 0) return false;
    axis += rank;
  }
  if (axis < 0 || (rank >= 0 && axis >= rank)) return false;
  out = axis;
  return true;
}

// The status of a mapping whose problem the Converter has recorded already.
inline Status reported() { return Status::error(StatusCode::kNotImplemented, "an input it needs is missing or could not be made"); }

inline Status done(C& c, int k, Value v) {
  if (!v.valid()) return reported();
  c.set_output(k, v);
  return Status::ok();
}

// The float dtype the arithmetic runs in: float64 stays, others go to float32.
inline DataType compute_dtype(DataType t) { return t == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32; }

inline Value cast_to(C& c, Value v, DataType from, DataType to) {
  return from == to ? v : c.op("cast").in(v).arg("dtype", to).emit1();
}

// A bool scalar constant.
inline Tensor bool_scalar(bool v) {
  Tensor t;
  t.dtype = DataType::kBool;
  t.onnx_type = dtype_to_onnx(DataType::kBool);
  t.data.assign(1, v ? 1 : 0);
  return t;
}

}  // namespace libops::graph::onnx::map_util
