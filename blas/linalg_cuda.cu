// Cholesky and triangular solves on CUDA devices: cuSOLVER's potrfBatched
// and cuBLAS's trsmBatched (compiled in CUDA builds only; registers itself
// with register_device_linalg when the library loads).
//
// Both take arrays of matrix pointers in device memory: they are built on
// the host and copied into the launch context's workspace, with the info
// codes behind them. Row-major calls become column-major ones as Note
// [Row-major LAPACK] in linalg.h says. potrf's info codes are read back
// after each chunk of kMaxChunk matrices (once per call below that): the
// read waits for the stream, the price of naming the matrix that is not
// positive definite (as gather's index check, Note [gather on devices]).
// potrfBatched overwrites the triangle it does not factor (cuSOLVER uses
// it as workspace), which linalg.h allows; the cholesky op clears it.
// cuSOLVER does not promise to report a NaN pivot (its test, like
// OpenBLAS's, may be `<= 0`), so as on the CPU a kernel looks for the first
// NaN on the diagonal of each factor it called successful, and writes its
// order into the info codes that are read back anyway.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "blas/cuda_batch_util.h"
#include "blas/linalg.h"
#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"

namespace libops::blas {

namespace {

using cuda_util::dtype_supported;
using cuda_util::extents_supported;
using cuda_util::kMaxChunk;
using cuda_util::upload_pointers;

// Note [NaN pivots] in linalg_cpu.cpp, on the device: a block per matrix
// whose info is 0 finds the first NaN on its diagonal (lda + 1 apart in
// either layout) and stores its 1-based order there.
template <typename T>
__global__ void mark_nan_pivots_kernel(T* const* matrices, int n, int lda, int* infos) {
  __shared__ int first;
  if (infos[blockIdx.x] != 0) return;  // the whole block takes this branch
  if (threadIdx.x == 0) first = INT_MAX;
  __syncthreads();
  const T* m = matrices[blockIdx.x];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (isnan(m[static_cast<int64_t>(j) * (lda + 1)])) {
      atomicMin(&first, j);
      break;  // a later j of this thread cannot be the first
    }
  __syncthreads();
  if (threadIdx.x == 0 && first != INT_MAX) infos[blockIdx.x] = first + 1;
}

template <typename T>
Status mark_nan_pivots(cudaStream_t stream, void* const* pointers, int n, int lda, int* infos, int count) {
  constexpr int kThreads = 128;
  mark_nan_pivots_kernel<T><<<static_cast<unsigned>(count), kThreads, 0, stream>>>(
      reinterpret_cast<T* const*>(pointers), n, lda, infos);
  LIBOPS_CUDA_CHECK_LAUNCH("potrf: NaN pivot kernel launch");
  return Status::ok();
}

Status cuda_potrf_batched(int device_index, DataType dtype, bool lower, int64_t n, void* a, int64_t lda,
                          int64_t stride, int64_t batch, int64_t* bad_matrix, int64_t* bad_order) {
  *bad_matrix = -1;
  *bad_order = 0;
  RETURN_IF_ERROR(dtype_supported("potrf", device_index, dtype));
  if (n == 0 || batch == 0) return Status::ok();
  RETURN_IF_ERROR(extents_supported("potrf", device_index, {n, lda}));
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &ctx));
  cusolverDnHandle_t handle = nullptr;
  RETURN_IF_ERROR(ctx->cusolver(&handle));
  // Note [Row-major LAPACK]: the row-major lower triangle is cuSOLVER's upper.
  const cublasFillMode_t uplo = lower ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const int64_t chunk = std::min(batch, kMaxChunk);
  void* scratch = nullptr;
  RETURN_IF_ERROR(ctx->workspace(static_cast<size_t>(chunk) * (sizeof(void*) + sizeof(int)), &scratch));
  void** pointers = static_cast<void**>(scratch);
  int* infos = reinterpret_cast<int*>(pointers + chunk);
  std::vector<int> host_infos(static_cast<size_t>(chunk));
  for (int64_t first = 0; first < batch; first += chunk) {
    const int count = static_cast<int>(std::min(chunk, batch - first));
    RETURN_IF_ERROR(upload_pointers(ctx, pointers, a, stride, dtype_size(dtype), first, count));
    if (dtype == DataType::kFloat32)
      LIBOPS_CUSOLVER_CHECK(cusolverDnSpotrfBatched(handle, uplo, static_cast<int>(n), reinterpret_cast<float**>(pointers),
                                                    static_cast<int>(lda), infos, count));
    else
      LIBOPS_CUSOLVER_CHECK(cusolverDnDpotrfBatched(handle, uplo, static_cast<int>(n),
                                                    reinterpret_cast<double**>(pointers), static_cast<int>(lda), infos,
                                                    count));
    RETURN_IF_ERROR(dtype == DataType::kFloat32
                        ? mark_nan_pivots<float>(ctx->stream(), pointers, static_cast<int>(n), static_cast<int>(lda),
                                                 infos, count)
                        : mark_nan_pivots<double>(ctx->stream(), pointers, static_cast<int>(n), static_cast<int>(lda),
                                                  infos, count));
    // The infos and pointers are reused by the next chunk: read them now.
    LIBOPS_CUDA_CHECK(cudaMemcpyAsync(host_infos.data(), infos, static_cast<size_t>(count) * sizeof(int),
                                      cudaMemcpyDeviceToHost, ctx->stream()));
    LIBOPS_CUDA_CHECK(cudaStreamSynchronize(ctx->stream()));
    for (int i = 0; i < count; ++i) {
      const int info = host_infos[static_cast<size_t>(i)];
      if (info < 0)
        return Status::error(StatusCode::kInternal, "potrf on cuda:%d: cuSOLVER rejected argument %d", device_index,
                             -info);
      if (info > 0) {
        *bad_matrix = first + i;
        *bad_order = info;
        return Status::ok();
      }
    }
  }
  return Status::ok();
}

Status cuda_trsm_batched(int device_index, DataType dtype, bool lower, bool transpose, bool unit_diag, int64_t n,
                         int64_t k, const void* a, int64_t lda, int64_t stride_a, void* b, int64_t ldb,
                         int64_t stride_b, int64_t batch) {
  RETURN_IF_ERROR(dtype_supported("trsm", device_index, dtype));
  if (n == 0 || k == 0 || batch == 0) return Status::ok();
  RETURN_IF_ERROR(extents_supported("trsm", device_index, {n, k, lda, ldb}));
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &ctx));
  cublasHandle_t handle = nullptr;
  RETURN_IF_ERROR(ctx->cublas(&handle));
  // Note [Row-major LAPACK]: op(A) X = B row-major is X^T op(A)^T = B^T
  // column-major, with A^T (A's column-major view) upper where A is lower
  // and op(A)^T = (A^T)^op: a right-side solve, same transpose flag.
  const cublasFillMode_t uplo = lower ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const cublasOperation_t op = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasDiagType_t diag = unit_diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  const int64_t chunk = std::min(batch, kMaxChunk);
  void* scratch = nullptr;
  RETURN_IF_ERROR(ctx->workspace(static_cast<size_t>(chunk) * 2 * sizeof(void*), &scratch));
  void** a_pointers = static_cast<void**>(scratch);
  void** b_pointers = a_pointers + chunk;
  const size_t item = dtype_size(dtype);
  const float one_f = 1.0f;
  const double one_d = 1.0;
  for (int64_t first = 0; first < batch; first += chunk) {
    const int count = static_cast<int>(std::min(chunk, batch - first));
    RETURN_IF_ERROR(upload_pointers(ctx, a_pointers, a, stride_a, item, first, count));
    RETURN_IF_ERROR(upload_pointers(ctx, b_pointers, b, stride_b, item, first, count));
    if (dtype == DataType::kFloat32)
      LIBOPS_CUBLAS_CHECK(cublasStrsmBatched(handle, CUBLAS_SIDE_RIGHT, uplo, op, diag, static_cast<int>(k),
                                             static_cast<int>(n), &one_f, reinterpret_cast<const float* const*>(a_pointers),
                                             static_cast<int>(lda), reinterpret_cast<float* const*>(b_pointers),
                                             static_cast<int>(ldb), count));
    else
      LIBOPS_CUBLAS_CHECK(cublasDtrsmBatched(handle, CUBLAS_SIDE_RIGHT, uplo, op, diag, static_cast<int>(k),
                                             static_cast<int>(n), &one_d,
                                             reinterpret_cast<const double* const*>(a_pointers), static_cast<int>(lda),
                                             reinterpret_cast<double* const*>(b_pointers), static_cast<int>(ldb), count));
  }
  return Status::ok();
}

const DeviceLinalg kCudaLinalg{cuda_potrf_batched, cuda_trsm_batched};

[[maybe_unused]] const bool kRegistered = [] {
  register_device_linalg(DeviceType::kCuda, &kCudaLinalg);
  return true;
}();

}  // namespace

}  // namespace libops::blas
