// softmax (and log_softmax, desc.log) on CUDA devices: one fused kernel, the
// CPU's arithmetic (Note [Softmax on CUDA]).
//
// Note [Softmax on CUDA]
//  Three passes over each row in one launch: the row maximum (NaN wins, as
//  the CPU's max_nan), the sum of exp(x - max), then exp(x - max) / sum. So a
//  row holding NaN or +inf (inf - inf), or of all -inf (-inf - -inf), is all
//  NaN, as on the CPU and in numpy or PyTorch; log mode's third pass writes
//  (x - max) - log(sum). cuDNN's softmax was used
//  before; on an H200 (cuDNN 9) it gave a row of all -inf finite values.
//  The axis innermost (inner == 1): a block per row, strided over the row,
//  with a block reduction. Otherwise a thread per (outer, inner) column,
//  stepping `inner` elements along the axis, so a warp reads neighbouring
//  columns together. float16 and bfloat16 compute in float.
#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/nn/softmax.h"

namespace libops::ops {
namespace {

template <typename C>
__device__ __forceinline__ C max_nan_dev(C a, C b) {
  return (b > a || b != b) ? b : a;  // a NaN in a stays: NaN > x and x != x are false for a number x
}

template <typename C>
__device__ __forceinline__ C exp_dev(C v) {
  if constexpr (std::is_same_v<C, float>) return expf(v);
  else return exp(v);
}

template <typename C>
__device__ __forceinline__ C log_dev(C v) {
  if constexpr (std::is_same_v<C, float>) return logf(v);
  else return log(v);
}

constexpr int kBlock = 256;

// Folds v over the block with `op`, whose identity is `none`; every thread
// gets the result.
template <typename C, typename Op>
__device__ C block_fold(C v, C none, C* shared, Op op) {
  for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // shared may still be read by the previous fold
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kBlock / 32 ? shared[lane] : none;
    for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  return shared[0];
}

template <typename C>
__global__ void softmax_rows_kernel(const char* x, char* z, DataType t, int64_t item, int64_t rows, int64_t n,
                                    bool log) {
  __shared__ C shared[kBlock / 32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const char* xr = x + row * n * item;
    char* zr = z + row * n * item;
    C m = -INFINITY;
    for (int64_t i = threadIdx.x; i < n; i += kBlock) m = max_nan_dev(m, cuda::load_as<C>(xr + i * item, t));
    m = block_fold(m, C(-INFINITY), shared, [](C a, C b) { return max_nan_dev(a, b); });
    C s = 0;
    for (int64_t i = threadIdx.x; i < n; i += kBlock) s += exp_dev(cuda::load_as<C>(xr + i * item, t) - m);
    s = block_fold(s, C(0), shared, [](C a, C b) { return a + b; });
    if (log) {
      const C log_s = log_dev(s);
      for (int64_t i = threadIdx.x; i < n; i += kBlock)
        cuda::store_as<C>(zr + i * item, t, (cuda::load_as<C>(xr + i * item, t) - m) - log_s);
      continue;
    }
    const C inv = C(1) / s;
    for (int64_t i = threadIdx.x; i < n; i += kBlock)
      cuda::store_as<C>(zr + i * item, t, exp_dev(cuda::load_as<C>(xr + i * item, t) - m) * inv);
  }
}

template <typename C>
__global__ void softmax_columns_kernel(const char* x, char* z, DataType t, int64_t item, int64_t outer, int64_t n,
                                       int64_t inner, bool log) {
  const int64_t columns = outer * inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < columns; c += step) {
    const int64_t o = c / inner, i = c % inner;
    const char* xc = x + (o * n * inner + i) * item;
    char* zc = z + (o * n * inner + i) * item;
    const int64_t stride = inner * item;
    C m = -INFINITY;
    for (int64_t k = 0; k < n; ++k) m = max_nan_dev(m, cuda::load_as<C>(xc + k * stride, t));
    C s = 0;
    for (int64_t k = 0; k < n; ++k) s += exp_dev(cuda::load_as<C>(xc + k * stride, t) - m);
    if (log) {
      const C log_s = log_dev(s);
      for (int64_t k = 0; k < n; ++k)
        cuda::store_as<C>(zc + k * stride, t, (cuda::load_as<C>(xc + k * stride, t) - m) - log_s);
      continue;
    }
    const C inv = C(1) / s;
    for (int64_t k = 0; k < n; ++k)
      cuda::store_as<C>(zc + k * stride, t, exp_dev(cuda::load_as<C>(xc + k * stride, t) - m) * inv);
  }
}

template <typename C>
Status launch(cudaStream_t stream, const SoftmaxDesc& d, const NDArray& x, NDArray& z) {
  const char* xp = static_cast<const char*>(x.device_data());
  char* zp = static_cast<char*>(z.device_data());
  const int64_t item = static_cast<int64_t>(dtype_size(d.dtype));
  if (d.inner == 1) {
    const int64_t rows = d.outer;
    const unsigned blocks = static_cast<unsigned>(rows < 65536 ? rows : 65536);
    softmax_rows_kernel<C><<<blocks, kBlock, 0, stream>>>(xp, zp, d.dtype, item, rows, d.n, d.log);
  } else {
    softmax_columns_kernel<C><<<cuda::blocks_for(d.outer * d.inner), cuda::kThreads, 0, stream>>>(
        xp, zp, d.dtype, item, d.outer, d.n, d.inner, d.log);
  }
  LIBOPS_CUDA_CHECK_LAUNCH("softmax kernel launch");
  return Status::ok();
}

Status softmax_cuda(Device device, const SoftmaxDesc& d, const NDArray& x, NDArray& z) {
  if (d.outer * d.n * d.inner == 0) return Status::ok();
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, z));
  RETURN_IF_ERROR(d.dtype == DataType::kFloat64 ? launch<double>(ctx->stream(), d, x, z)
                                                : launch<float>(ctx->stream(), d, x, z));
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (softmax_device_kernel.set(DeviceType::kCuda, softmax_cuda), true);

}  // namespace
}  // namespace libops::ops
