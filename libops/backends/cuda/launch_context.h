// LaunchContext: what a CUDA kernel or library call needs on one device: a
// stream, cuBLAS, cuDNN and cuSOLVER handles, and scratch memory.
//
// Each host thread gets its own context per device (made on first use), so
// graph runs on several threads never share a stream or a handle; all work
// of one op call, and of one graph run, goes to that one stream in order,
// with no host synchronisation in between. The stream is a blocking one:
// the runtime's synchronous copies (DataBuffer::sync_to_host) wait for it.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cusolverDn.h>

#include <cstddef>

#include "libops/core/status.h"

namespace libops::cuda {

class LaunchContext {
 public:
  // The calling thread's context for device `index`.
  static Status get(int index, LaunchContext** out);

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  // Handles bound to stream(); created on first use (cuDNN's and cuSOLVER's
  // creation is slow).
  Status cublas(cublasHandle_t* out);
  Status cudnn(cudnnHandle_t* out);
  Status cusolver(cusolverDnHandle_t* out);
  // Device scratch memory of at least `bytes`, owned by the context and valid
  // for work queued on stream() until the next workspace() call.
  Status workspace(size_t bytes, void** out);

  ~LaunchContext();
  LaunchContext(const LaunchContext&) = delete;
  LaunchContext& operator=(const LaunchContext&) = delete;

 private:
  LaunchContext() = default;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  cusolverDnHandle_t cusolver_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
};

}  // namespace libops::cuda
