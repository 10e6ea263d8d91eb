// cast_low_precision's CUDA kernel (cast_low_precision.h): a thread per
// element in a grid-stride loop, on low_precision.h's arithmetic.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/arith/cast_low_precision.h"

namespace libops::ops {
namespace {

template <typename In, typename Out>
__global__ void lowp_cast_kernel(LowpCastDesc d, const In* __restrict__ x, Out* __restrict__ z, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    double v = 0;
    int64_t iv = 0;
    if (d.from != LowPrecision::kNone) {
      v = lowp_decode(d.from, static_cast<int32_t>(x[i]));
    } else if (d.integer_source) {
      iv = static_cast<int64_t>(x[i]);
      v = static_cast<double>(iv);
    } else {
      v = static_cast<double>(x[i]);
    }
    if (d.to != LowPrecision::kNone) z[i] = static_cast<Out>(lowp_encode(d.to, v, d.integer_source, iv, d.saturate, d.round_mode));
    else z[i] = static_cast<Out>(v);
  }
}

Status lowp_cast_cuda(Device device, const LowpCastDesc& d, const NDArray& x, NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, z));
  const int64_t n = z.length();
  const unsigned blocks = cuda::blocks_for(n);
  auto launch = [&](auto in_tag, auto out_tag) {
    using In = decltype(in_tag);
    using Out = decltype(out_tag);
    lowp_cast_kernel<In, Out><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const In*>(x.device_data()), static_cast<Out*>(z.device_data()), n);
  };
  const bool to_bytes = d.to != LowPrecision::kNone;
  if (x.dtype() == DataType::kInt32) to_bytes ? launch(int32_t{}, int32_t{}) : launch(int32_t{}, double{});
  else if (x.dtype() == DataType::kInt64) to_bytes ? launch(int64_t{}, int32_t{}) : launch(int64_t{}, double{});
  else to_bytes ? launch(double{}, int32_t{}) : launch(double{}, double{});
  LIBOPS_CUDA_CHECK_LAUNCH("cast_low_precision kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (lowp_cast_device_kernel.set(DeviceType::kCuda, lowp_cast_cuda), true);

}  // namespace
}  // namespace libops::ops
