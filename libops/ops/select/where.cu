// where's CUDA kernel (where.h): the op's NdLoop, with device addresses, one
// thread per element in a grid-stride loop; elements move by their size.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/select/where.h"

namespace libops::ops {
namespace {

template <typename T>
__global__ void select_kernel(NdLoop<4> loop, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[4];
    cuda::offsets_of(loop, i, off);
    const bool c = *reinterpret_cast<const bool*>(loop.base[1] + off[1]);
    *reinterpret_cast<T*>(loop.base[0] + off[0]) = *reinterpret_cast<const T*>(loop.base[c ? 2 : 3] + off[c ? 2 : 3]);
  }
}

Status select_cuda(Device device, const SelectLoop& l) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  const int64_t n = l.loop.count();
  const unsigned blocks = cuda::blocks_for(n);
  switch (l.elem_size) {
    case 1: select_kernel<uint8_t><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(l.loop, n); break;
    case 2: select_kernel<uint16_t><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(l.loop, n); break;
    case 4: select_kernel<uint32_t><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(l.loop, n); break;
    default: select_kernel<uint64_t><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(l.loop, n); break;
  }
  LIBOPS_CUDA_CHECK_LAUNCH("select kernel launch");
  return Status::ok();
}

[[maybe_unused]] const bool select_cuda_registered = (select_device_kernel.set(DeviceType::kCuda, select_cuda), true);

}  // namespace
}  // namespace libops::ops
