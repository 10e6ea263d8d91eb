// Sorting along an axis: sort, argsort and top_k stage their input as dense
// rows [rows, n] of a key dtype and call sort_rows, on the CPU or through
// the kernel a backend registers.
//
// Note [Sort order]
// Ascending or descending by value, with NaN last in both directions (as
// Nx's and PyTorch's sort; numpy's places NaN last when ascending), except
// that top_k of the largest counts NaN as larger than every number, as
// PyTorch's topk does (so the smallest never include it). The
// order is stable: equal values keep their order, so argsort and top_k
// break ties by the lower index. -0.0 and +0.0 are equal for argsort and
// top_k (ties by index, as numpy's stable argsort); sort itself puts -0.0
// first, one of the orders numpy's unstable sort may give.
//
// Keys: every value maps to an unsigned integer whose order is that order
// (floats flip their bits by sign, signed integers their sign bit, NaN
// becomes the largest key, descending keys are complemented); an LSD radix
// sort of the keys is then a stable sort of the values. sort decodes its
// keys; argsort and top_k return indices (and gather values by them).
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct SortDesc {
  int64_t rows = 0, n = 0;
  int64_t k = 0;            // results per row: n for sort and argsort, k for top_k
  bool descending = false;
  bool zeros_equal = true;  // -0.0 == +0.0 (argsort, top_k); sort orders them
  bool nan_first = false;   // top_k's largest: NaN is larger than every number
};

// The dtype rows are sorted in: float32 (float16, bfloat16), float64,
// int32 (narrower signed), int64, uint32 (narrower unsigned, bool), uint64.
DataType sort_key_dtype(DataType t);

// Calls f(T{}) with T the C++ type of sort key dtype t, and returns what f
// returns: the one dtype dispatch of the sort family's kernels (sort,
// unique, searchsorted; CPU and CUDA).
template <typename F>
Status with_sort_key_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat32: return f(float{});
    case DataType::kFloat64: return f(double{});
    case DataType::kInt32: return f(int32_t{});
    case DataType::kInt64: return f(int64_t{});
    case DataType::kUInt32: return f(uint32_t{});
    case DataType::kUInt64: return f(uint64_t{});
    default: return Status::error(StatusCode::kInternal, "%s is not a sort key dtype", dtype_name(t));
  }
}

// x: dense [rows, n] of a sort_key_dtype. values: dense [rows, k] of x's
// dtype, the sorted values (or null); indices: dense [rows, k] int64, the
// positions in the row they came from (or null).
Status sort_rows_cpu(const SortDesc& desc, const NDArray& x, NDArray* values, NDArray* indices);

using SortDeviceFn = Status (*)(Device device, const SortDesc& desc, const NDArray& x, NDArray* values,
                                NDArray* indices);
extern DeviceKernel<SortDeviceFn> sort_device_kernel;

}  // namespace libops::ops
