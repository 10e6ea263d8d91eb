// threefry2x32's CUDA kernel (threefry2x32.h): the op's NdLoop over the
// pairs with device addresses, a thread per pair in a grid-stride loop.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/random/threefry.h"
#include "libops/ops/random/threefry2x32.h"

namespace libops::ops {
namespace {

__global__ void threefry_kernel(ThreefryLoop l, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[3];
    cuda::offsets_of(l.loop, i, off);
    const char* k = l.loop.base[1] + off[1];
    const char* c = l.loop.base[2] + off[2];
    char* o = l.loop.base[0] + off[0];
    uint32_t o0, o1;
    rng::threefry2x32(*reinterpret_cast<const uint32_t*>(k), *reinterpret_cast<const uint32_t*>(k + l.last_stride[1]),
                      *reinterpret_cast<const uint32_t*>(c), *reinterpret_cast<const uint32_t*>(c + l.last_stride[2]),
                      &o0, &o1);
    *reinterpret_cast<uint32_t*>(o) = o0;
    *reinterpret_cast<uint32_t*>(o + l.last_stride[0]) = o1;
  }
}

Status threefry_cuda(Device device, const ThreefryLoop& l) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  const int64_t n = l.loop.count();
  threefry_kernel<<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(l, n);
  LIBOPS_CUDA_CHECK_LAUNCH("threefry2x32 kernel launch");
  return Status::ok();
}

[[maybe_unused]] const bool registered = (threefry_device_kernel.set(DeviceType::kCuda, threefry_cuda), true);

}  // namespace
}  // namespace libops::ops
