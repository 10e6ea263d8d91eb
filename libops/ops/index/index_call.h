// What the indexed-row ops share (Note [Indexed rows]): running the gather
// or scatter on the call's device, and the error for a bad index.
#pragma once

#include <string>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/index/indexed_rows.h"

namespace libops::ops {

// The compute dtype a scatter combines in: float32 (float16, bfloat16),
// float64, int64 (signed, bool) or uint64 (unsigned).
inline DataType scatter_compute_dtype(DataType t) {
  if (t == DataType::kFloat64) return DataType::kFloat64;
  if (dtype_is_float(t)) return DataType::kFloat32;
  if (t == DataType::kUInt8 || t == DataType::kUInt16 || t == DataType::kUInt32 || t == DataType::kUInt64)
    return DataType::kUInt64;
  return DataType::kInt64;
}

// "<op>: index 7 at position 3 of indices[2,2] is out of range: it must be
// in [-5, 5) for dim 0 of x[5,3]".
inline Status bad_index_error(const Context& block, const NDArray& indices, const IndexedRows& d, int64_t position,
                              const NDArray& x, int first_indexed_dim) {
  const int64_t k = d.k == 0 ? 0 : position % d.k;
  const int64_t n = d.dims[k];
  if (indices.buffer()->host_stale()) RETURN_IF_ERROR(indices.buffer()->sync_to_host());  // the error path only
  const int64_t value = indices.get_int64(position);
  return block.error(StatusCode::kInvalidArgument,
                     "index %lld at position %lld of indices%s is out of range: it must be in [%lld, %lld) for dim %d "
                     "of x%s",
                     static_cast<long long>(value), static_cast<long long>(position),
                     indices.shape().str().c_str(), static_cast<long long>(-n), static_cast<long long>(n),
                     first_indexed_dim + static_cast<int>(k), x.shape().str().c_str());
}

// The row kernels read indices as int32 or 64-bit integers; a caller that
// hands them another dtype gets an error, not a misread buffer.
inline Status check_index_dtype(const Context& block, const NDArray& indices) {
  const DataType t = indices.dtype();
  if (t == DataType::kInt32 || t == DataType::kInt64 || t == DataType::kUInt64) return Status::ok();
  return block.error(StatusCode::kInternal, "indices of dtype %s reached the row kernels (int32 or int64 expected)",
                     dtype_name(t));
}

// z = the gathered rows; x and z dense, of one dtype; indices dense.
inline Status run_gather_rows(const Context& block, const IndexedRows& d, const NDArray& x, const NDArray& indices,
                              NDArray& z, int64_t& bad) {
  RETURN_IF_ERROR(check_index_dtype(block, indices));
  if (block.device().is_cpu()) {
    RETURN_IF_ERROR(with_op_name(block, gather_rows_cpu(d, x, indices, z, &bad)));
    z.buffer()->mark_host_written();
    return Status::ok();
  }
  const GatherRowsDeviceFn fn = gather_rows_device_kernel.get(block.device().type);
  if (fn == nullptr) return no_device_implementation(block);
  return with_op_name(block, fn(block.device(), d, x, indices, z, &bad));
}

// z (dense, a scatter compute dtype) combined with updates (dense, z's dtype).
inline Status run_scatter_rows(const Context& block, const IndexedRows& d, ScatterMode mode, const NDArray& indices,
                               const NDArray& updates, NDArray& z, int64_t& bad) {
  RETURN_IF_ERROR(check_index_dtype(block, indices));
  if (block.device().is_cpu()) {
    RETURN_IF_ERROR(with_op_name(block, scatter_rows_cpu(d, mode, indices, updates, z, &bad)));
    z.buffer()->mark_host_written();
    return Status::ok();
  }
  const ScatterRowsDeviceFn fn = scatter_rows_device_kernel.get(block.device().type);
  if (fn == nullptr) return no_device_implementation(block);
  return with_op_name(block, fn(block.device(), d, mode, indices, updates, z, &bad));
}

}  // namespace libops::ops
