// What the cuSOLVER / cuBLAS wrappers of blas/ share (CUDA builds, .cu files
// only): dtype and extent checks worded alike, and the arrays of matrix
// pointers that the batched APIs take, built on the host and copied to the
// device on the launch context's stream.
#pragma once

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/core/dtype.h"
#include "libops/core/status.h"

namespace libops::blas::cuda_util {

// The batched APIs count in int; larger batches go in chunks of this many.
constexpr int64_t kMaxChunk = int64_t{1} << 20;

inline bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

inline Status dtype_supported(const char* what, int device_index, DataType dtype) {
  if (dtype == DataType::kFloat32 || dtype == DataType::kFloat64) return Status::ok();
  return Status::error(StatusCode::kNotImplemented, "%s on cuda:%d: dtype %s is not supported (float32, float64 are)",
                       what, device_index, dtype_name(dtype));
}

inline Status extents_supported(const char* what, int device_index, std::initializer_list<int64_t> extents) {
  for (int64_t v : extents)
    if (!fits_int(v))
      return Status::error(StatusCode::kNotImplemented, "%s on cuda:%d: extent %lld is above cuSOLVER's int limit %d",
                           what, device_index, static_cast<long long>(v), INT_MAX);
  return Status::ok();
}

// `count` pointers base + (first + i) * stride (elements of `item` bytes),
// copied to `dst` in device memory on the context's stream.
inline Status upload_pointers(cuda::LaunchContext* ctx, void* dst, const void* base, int64_t stride, size_t item,
                              int64_t first, int64_t count) {
  std::vector<const void*> host(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    host[static_cast<size_t>(i)] = static_cast<const char*>(base) + (first + i) * stride * static_cast<int64_t>(item);
  // From pageable memory the copy has read `host` when it returns.
  LIBOPS_CUDA_CHECK(cudaMemcpyAsync(dst, host.data(), host.size() * sizeof(void*), cudaMemcpyHostToDevice,
                                    ctx->stream()));
  return Status::ok();
}

// Carves one workspace into aligned pieces: add() the sizes, then take()
// them in the same order from the base the context gave.
class WorkspaceLayout {
 public:
  size_t add(size_t bytes) {
    const size_t at = total_;
    total_ += (bytes + kAlign - 1) / kAlign * kAlign;
    return at;
  }
  size_t total() const { return total_ == 0 ? kAlign : total_; }

 private:
  static constexpr size_t kAlign = 256;
  size_t total_ = 0;
};

}  // namespace libops::blas::cuda_util
