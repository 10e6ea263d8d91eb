// random_multinomial's CUDA kernel (random_multinomial.h): a thread per
// (row, sample) in a grid-stride loop, each running categorical_sample as
// the CPU does.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/random/random_multinomial.h"

namespace libops::ops {
namespace {

template <typename C>
__global__ void multinomial_kernel(MultinomialDesc d, const C* __restrict__ logits, int64_t* __restrict__ z) {
  const int64_t total = d.rows * d.samples, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const int64_t b = t / d.samples, s = t % d.samples;
    z[t] = categorical_sample(d, logits + b * d.classes, b, s);
  }
}

Status multinomial_cuda(Device device, const MultinomialDesc& d, const NDArray& logits, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&logits}, z));
  const unsigned blocks = cuda::blocks_for(d.rows * d.samples);
  int64_t* out = static_cast<int64_t*>(z.device_data());
  if (logits.dtype() == DataType::kFloat64)
    multinomial_kernel<double><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const double*>(logits.device_data()), out);
  else
    multinomial_kernel<float><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const float*>(logits.device_data()), out);
  LIBOPS_CUDA_CHECK_LAUNCH("random_multinomial kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered =
    (multinomial_device_kernel.set(DeviceType::kCuda, multinomial_cuda), true);

}  // namespace
}  // namespace libops::ops
