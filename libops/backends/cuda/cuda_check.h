// Turning CUDA, cuBLAS, cuDNN, cuSOLVER and cuFFT error codes into Status (host
// code only).
// Messages name the call that failed and the library's own error text, and
// the op layer prefixes the op and node; out-of-memory maps to kOutOfMemory.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cufft.h>
#include <cusolverDn.h>

#include "libops/core/status.h"

namespace libops::cuda {

Status cuda_error(cudaError_t e, const char* what);
Status cublas_error(cublasStatus_t e, const char* what);
Status cudnn_error(cudnnStatus_t e, const char* what);
Status cusolver_error(cusolverStatus_t e, const char* what);
Status cufft_error(cufftResult e, const char* what);

}  // namespace libops::cuda

#define LIBOPS_CUDA_CHECK(expr)                                                  \
  do {                                                                           \
    const cudaError_t libops_cuda_err_ = (expr);                                 \
    if (libops_cuda_err_ != cudaSuccess) return ::libops::cuda::cuda_error(libops_cuda_err_, #expr); \
  } while (0)
// After a kernel launch: launch errors (bad configuration, no kernel image
// for this GPU) show up here, not at the <<<>>> itself.
#define LIBOPS_CUDA_CHECK_LAUNCH(what)                                                             \
  do {                                                                                             \
    const cudaError_t libops_cuda_err_ = cudaGetLastError();                                       \
    if (libops_cuda_err_ != cudaSuccess) return ::libops::cuda::cuda_error(libops_cuda_err_, what); \
  } while (0)
#define LIBOPS_CUBLAS_CHECK(expr)                                                \
  do {                                                                           \
    const cublasStatus_t libops_cublas_err_ = (expr);                            \
    if (libops_cublas_err_ != CUBLAS_STATUS_SUCCESS) return ::libops::cuda::cublas_error(libops_cublas_err_, #expr); \
  } while (0)
#define LIBOPS_CUDNN_CHECK(expr)                                                 \
  do {                                                                           \
    const cudnnStatus_t libops_cudnn_err_ = (expr);                              \
    if (libops_cudnn_err_ != CUDNN_STATUS_SUCCESS) return ::libops::cuda::cudnn_error(libops_cudnn_err_, #expr); \
  } while (0)
#define LIBOPS_CUSOLVER_CHECK(expr)                                              \
  do {                                                                           \
    const cusolverStatus_t libops_cusolver_err_ = (expr);                        \
    if (libops_cusolver_err_ != CUSOLVER_STATUS_SUCCESS) return ::libops::cuda::cusolver_error(libops_cusolver_err_, #expr); \
  } while (0)
#define LIBOPS_CUFFT_CHECK(expr)                                                 \
  do {                                                                           \
    const cufftResult libops_cufft_err_ = (expr);                                \
    if (libops_cufft_err_ != CUFFT_SUCCESS) return ::libops::cuda::cufft_error(libops_cufft_err_, #expr); \
  } while (0)
