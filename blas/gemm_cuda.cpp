// GEMM on CUDA devices through cuBLAS (compiled in CUDA builds only; it
// registers itself with gemm_batched_on when the library loads), and
// square matrices of 2 to 4 through small_gemm_cuda.cu.
//
// libops matrices are row-major; cuBLAS is column-major. A row-major m x n
// matrix is the column-major n x m transpose, so C = op(A) op(B) is computed
// as C^T = op(B)^T op(A)^T: cuBLAS gets B first, A second, and m and n swap.
// float16 and bfloat16 accumulate in float (CUBLAS_COMPUTE_32F), as the CPU
// kernel does. The math mode is set on every call, since the handle is
// shared: CUBLAS_DEFAULT_MATH keeps float32 off TF32 tensor-core rounding
// (results match the CPU's to float rounding), and
// CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION keeps the partial sums
// of a split-K float16 / bfloat16 GEMM in float: without it cuBLAS may add
// them in the output type, a second rounding per partial sum that the
// CPU's float accumulation does not make.
#include <climits>

#include "blas/gemm.h"
#include "blas/small_gemm_cuda.h"
#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"

namespace libops::blas {

namespace {

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

Status cublas_gemm_batched(int device_index, DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n,
                           int64_t k, double alpha, const void* a, int64_t lda, int64_t stride_a, const void* b,
                           int64_t ldb, int64_t stride_b, double beta, void* c, int64_t ldc, int64_t stride_c,
                           int64_t batch) {
  cudaDataType_t type;
  cublasComputeType_t compute;
  switch (dtype) {
    case DataType::kFloat32: type = CUDA_R_32F; compute = CUBLAS_COMPUTE_32F; break;
    case DataType::kFloat64: type = CUDA_R_64F; compute = CUBLAS_COMPUTE_64F; break;
    case DataType::kFloat16: type = CUDA_R_16F; compute = CUBLAS_COMPUTE_32F; break;
    case DataType::kBFloat16: type = CUDA_R_16BF; compute = CUBLAS_COMPUTE_32F; break;
    default:
      return Status::error(StatusCode::kNotImplemented,
                           "gemm on cuda:%d: dtype %s is not supported (float16, bfloat16, float32, float64 are)",
                           device_index, dtype_name(dtype));
  }
  if (m == 0 || n == 0 || batch == 0) return Status::ok();
  for (int64_t v : {m, n, k, lda, ldb, ldc, batch})
    if (!fits_int(v))
      return Status::error(StatusCode::kShape, "gemm on cuda:%d: extent %lld exceeds cuBLAS's int range",
                           device_index, static_cast<long long>(v));
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &ctx));
  // Note [Small matrices]: square 2x2 to 4x4 products, a thread per matrix.
  if (alpha != 0.0 && is_small_gemm_cuda(dtype, m, n, k))
    return small_gemm_batched_cuda(ctx->stream(), dtype, trans_a, trans_b, m, alpha, a, lda, stride_a, b, ldb,
                                   stride_b, beta, c, ldc, stride_c, batch);
  cublasHandle_t handle = nullptr;
  RETURN_IF_ERROR(ctx->cublas(&handle));
  LIBOPS_CUBLAS_CHECK(cublasSetMathMode(
      handle, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  const cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  // Scale factors in the compute type's scalar type.
  const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  const void* pa = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha) : &alpha_f;
  const void* pb = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&beta) : &beta_f;
  LIBOPS_CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, op_b, op_a, static_cast<int>(n), static_cast<int>(m),
                                                 static_cast<int>(k), pa, b, type, static_cast<int>(ldb), stride_b, a,
                                                 type, static_cast<int>(lda), stride_a, pb, c, type,
                                                 static_cast<int>(ldc), stride_c, static_cast<int>(batch), compute,
                                                 CUBLAS_GEMM_DEFAULT));
  return Status::ok();
}

[[maybe_unused]] const bool kRegistered = [] {
  register_device_gemm(DeviceType::kCuda, cublas_gemm_batched);
  return true;
}();

}  // namespace
}  // namespace libops::blas
