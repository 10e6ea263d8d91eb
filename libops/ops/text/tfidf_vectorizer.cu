// tfidf_vectorizer's CUDA kernels (tfidf_vectorizer.h): z cleared, a thread
// per start position counting the n-grams that begin there (atomic adds of
// 1 into z: whole numbers, so the order does not change the sums), then
// the weighting per element of z.
#include <cuda_runtime.h>


#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/text/tfidf_vectorizer.h"

namespace libops::ops {
namespace {

struct AtomicCount {
  float* row;
  __device__ void operator()(int64_t c) { atomicAdd(row + c, 1.f); }
};

__global__ void tfidf_count_kernel(TfIdfDesc t, const int64_t* __restrict__ x, const int64_t* __restrict__ keys,
                                   const int64_t* __restrict__ grams, const int64_t* __restrict__ slots,
                                   float* __restrict__ z) {
  const int64_t n_starts = t.rows * t.length;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n_starts; e += step) {
    const int64_t r = e / t.length, s = e % t.length;
    AtomicCount add{z + r * t.out};
    count_grams_at(t, keys, grams, slots, x + r * t.length, s, t.length, add);
  }
}

__global__ void tfidf_weight_kernel(TfIdfDesc t, const float* __restrict__ w, float* __restrict__ z) {
  const int64_t n = t.rows * t.out;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step)
    z[e] = tfidf_weighted(t, z[e], w, e % t.out);
}

Status tfidf_cuda(Device device, const TfIdfDesc& t, const NDArray& x, const NDArray& keys, const NDArray& grams,
                  const NDArray& slots, const NDArray& weights, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  const NDArray* w = weights.is_null() ? nullptr : &weights;
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &keys, &grams, &slots, w}, z));
  float* zd = static_cast<float*>(z.device_data());
  LIBOPS_CUDA_CHECK(cudaMemsetAsync(zd, 0, static_cast<size_t>(z.length()) * sizeof(float), ctx->stream()));
  const int64_t starts = t.rows * t.length;
  if (starts > 0) {
    tfidf_count_kernel<<<cuda::blocks_for(starts), cuda::kThreads, 0, ctx->stream()>>>(
        t, static_cast<const int64_t*>(x.device_data()), static_cast<const int64_t*>(keys.device_data()),
        static_cast<const int64_t*>(grams.device_data()), static_cast<const int64_t*>(slots.device_data()), zd);
    LIBOPS_CUDA_CHECK_LAUNCH("tfidf_vectorizer count kernel");
  }
  if (t.mode != TfIdfMode::kTf) {
    tfidf_weight_kernel<<<cuda::blocks_for(z.length()), cuda::kThreads, 0, ctx->stream()>>>(
        t, w != nullptr ? static_cast<const float*>(w->device_data()) : nullptr, zd);
    LIBOPS_CUDA_CHECK_LAUNCH("tfidf_vectorizer weight kernel");
  }
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (tfidf_vectorizer_device_kernel.set(DeviceType::kCuda, tfidf_cuda), true);

}  // namespace
}  // namespace libops::ops
