// The row-normalization engine's CUDA kernel (Note [Row normalization] in
// row_norm.h), registered when the library loads.
//
// One thread block per row (a grid-stride loop over rows past the grid's
// size). The block reads its row three times: the sum for the mean, the
// sum of squared deviations, then the normalized write; the row is read
// from memory once and from L1/L2 after, so the kernel moves one read of x
// and one write of z. Each sum is a per-thread running sum, then a warp
// shuffle tree and one shared-memory step across the warps, in float for
// float rows and double for double rows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/ops/nn/row_norm.h"

namespace libops::ops::nn {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// The sum of v over the block, returned to every thread.
template <typename C>
__device__ C block_sum(C v, C* shared) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  C total = 0;
  for (int w = 0; w < kWarps; ++w) total += shared[w];
  __syncthreads();  // shared is reused by the next call
  return total;
}

template <typename C>
__global__ void row_norm_kernel(RowNormDesc d, const C* __restrict__ x, const C* __restrict__ scale,
                                const C* __restrict__ bias, C* __restrict__ z) {
  __shared__ C shared[kWarps];
  const int64_t n = d.n, params_per_row = n / d.spatial;
  for (int64_t r = blockIdx.x; r < d.rows; r += gridDim.x) {
    const C* xr = x + r * n;
    C* zr = z + r * n;
    C mean = 0;
    if (d.kind == RowNormKind::kStandardize) {
      C s = 0;
      for (int64_t i = threadIdx.x; i < n; i += kThreads) s += xr[i];
      mean = block_sum(s, shared) / static_cast<C>(n);
    }
    C ss = 0;
    for (int64_t i = threadIdx.x; i < n; i += kThreads) {
      const C dv = xr[i] - mean;
      ss += dv * dv;
    }
    const C var = block_sum(ss, shared) / static_cast<C>(n);
    const C inv = C(1) / sqrt(var + static_cast<C>(d.epsilon));
    const int64_t p0 = (r % d.groups) * params_per_row;
    for (int64_t i = threadIdx.x; i < n; i += kThreads) {
      const int64_t p = p0 + i / d.spatial;
      C v = (xr[i] - mean) * inv;
      if (scale != nullptr) v *= scale[p];
      if (bias != nullptr) v += bias[p];
      zr[i] = v;
    }
  }
}

template <typename C>
void launch(const RowNormDesc& d, const NDArray& x, const NDArray* scale, const NDArray* bias, NDArray& z,
            cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(d.rows, 1 << 20));
  row_norm_kernel<C><<<blocks, kThreads, 0, stream>>>(
      d, static_cast<const C*>(x.device_data()), scale ? static_cast<const C*>(scale->device_data()) : nullptr,
      bias ? static_cast<const C*>(bias->device_data()) : nullptr, static_cast<C*>(z.device_data()));
}

Status row_norm_cuda(Device device, const RowNormDesc& d, const NDArray& x, const NDArray* scale,
                     const NDArray* bias, NDArray& z) {
  if (d.rows == 0 || d.n == 0) return Status::ok();
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, scale, bias}, z));
  if (x.dtype() == DataType::kFloat64) launch<double>(d, x, scale, bias, z, ctx->stream());
  else launch<float>(d, x, scale, bias, z, ctx->stream());
  LIBOPS_CUDA_CHECK_LAUNCH("row_norm kernel launch");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool row_norm_cuda_registered =
    (row_norm_device_kernel.set(DeviceType::kCuda, row_norm_cuda), true);

}  // namespace
}  // namespace libops::ops::nn
