// resize on CUDA devices (Note [Resize taps] in resize.h): a thread per
// output element gathers its K x K taps from the host's tables.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/image/resize.h"

namespace libops::ops::image {
namespace {

template <typename C>
__global__ void resize_kernel(ResizeDesc d, const C* x, const int64_t* iy, const C* wy, const int64_t* ix,
                              const C* wx, C* z) {
  const int64_t n = d.outer * d.oh * d.ow * d.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int K = d.taps;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step) {
    const int64_t c = e % d.inner, ox = (e / d.inner) % d.ow, oy = (e / (d.inner * d.ow)) % d.oh;
    const int64_t o = e / (d.inner * d.ow * d.oh);
    const C* xo = x + o * d.h * d.w * d.inner + c;
    if (K == 1) {  // nearest: a copy, as on the CPU
      z[e] = xo[(iy[oy] * d.w + ix[ox]) * d.inner];
      continue;
    }
    // The CPU's sums in its order (resize.cpp): the K rows blended at each
    // source column, then the K columns.
    C acc = 0;
    for (int b = 0; b < K; ++b) {
      const C* col = xo + ix[ox * K + b] * d.inner;
      C t = wy[oy * K] * col[iy[oy * K] * d.w * d.inner];
      for (int a = 1; a < K; ++a) t += wy[oy * K + a] * col[iy[oy * K + a] * d.w * d.inner];
      acc = b == 0 ? wx[ox * K] * t : acc + wx[ox * K + b] * t;
    }
    z[e] = acc;
  }
}

Status resize_cuda(Device device, DataType ct, const ResizeDesc& d, const NDArray& x, const NDArray& iy,
                   const NDArray& wy, const NDArray& ix, const NDArray& wx, NDArray& z) {
  const int64_t n = d.outer * d.oh * d.ow * d.inner;
  if (n == 0) return Status::ok();
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, &iy, &wy, &ix, &wx}, z));
  auto p = [](const NDArray& a) { return a.device_data(); };
  if (ct == DataType::kFloat64)
    resize_kernel<double><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const double*>(p(x)), static_cast<const int64_t*>(p(iy)), static_cast<const double*>(p(wy)),
        static_cast<const int64_t*>(p(ix)), static_cast<const double*>(p(wx)), static_cast<double*>(z.device_data()));
  else
    resize_kernel<float><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const float*>(p(x)), static_cast<const int64_t*>(p(iy)), static_cast<const float*>(p(wy)),
        static_cast<const int64_t*>(p(ix)), static_cast<const float*>(p(wx)), static_cast<float*>(z.device_data()));
  LIBOPS_CUDA_CHECK_LAUNCH("resize kernel launch");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool resize_cuda_registered = (resize_device_kernel.set(DeviceType::kCuda, resize_cuda), true);

}  // namespace
}  // namespace libops::ops::image
