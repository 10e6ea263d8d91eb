// reverse_sequence's CUDA kernel (reverse_sequence.h): a thread per element
// of z in a grid-stride loop, elements moved by their size.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/shape/reverse_sequence.h"

namespace libops::ops {
namespace {

template <typename T>
__global__ void reverse_sequence_kernel(ReverseSequenceDesc d, const T* __restrict__ x,
                                        const int64_t* __restrict__ len, T* __restrict__ z, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step)
    z[e] = x[reverse_sequence_source(d, len, e / d.post) * d.post + e % d.post];
}

Status reverse_sequence_cuda(Device device, const ReverseSequenceDesc& d, const NDArray& x, const NDArray& lengths,
                             NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &lengths}, z));
  const int64_t n = z.length();
  const unsigned blocks = cuda::blocks_for(n);
  const auto* len = static_cast<const int64_t*>(lengths.device_data());
  auto launch = [&](auto tag) {
    using T = decltype(tag);
    reverse_sequence_kernel<T><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const T*>(x.device_data()), len, static_cast<T*>(z.device_data()), n);
  };
  switch (d.elem_size) {
    case 1: launch(uint8_t{}); break;
    case 2: launch(uint16_t{}); break;
    case 4: launch(uint32_t{}); break;
    default: launch(uint64_t{}); break;
  }
  LIBOPS_CUDA_CHECK_LAUNCH("reverse_sequence kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered =
    (reverse_sequence_device_kernel.set(DeviceType::kCuda, reverse_sequence_cuda), true);

}  // namespace
}  // namespace libops::ops
