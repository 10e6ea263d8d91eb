// unfold's and fold's CUDA kernels (window.h), registered when the library
// loads. One thread per output element in a grid-stride loop, with the
// index arithmetic the CPU kernels use: unfold reads the element its tap
// and window name (or writes 0), fold gathers the entries that land on its
// element, taps in ascending order. No atomics: fold's sums come out in the
// CPU's order, bit for bit.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/window/window.h"

namespace libops::ops {
namespace {

// Elements move as unsigned integers of their size (a zero is all zero bits).
template <typename T>
__global__ void unfold_kernel(WindowGeometry g, const T* __restrict__ x, T* __restrict__ z, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t r = i / g.windows, w = i - r * g.windows;
    const int64_t b = r / g.taps, t = r - b * g.taps;
    const int64_t offset = window_tap_offset(g, t, w);
    z[i] = offset < 0 ? T(0) : x[b * g.volume + offset];
  }
}

template <typename C>
__global__ void fold_kernel(WindowGeometry g, const C* __restrict__ x, C* __restrict__ z, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    z[i] = fold_element(g, x, i);
}

template <typename T>
void launch_unfold(const WindowGeometry& g, const void* x, void* z, int64_t n, cudaStream_t stream) {
  unfold_kernel<T><<<cuda::blocks_for(n), cuda::kThreads, 0, stream>>>(g, static_cast<const T*>(x),
                                                                         static_cast<T*>(z), n);
}

template <typename C>
void launch_fold(const WindowGeometry& g, const void* x, void* z, int64_t n, cudaStream_t stream) {
  fold_kernel<C><<<cuda::blocks_for(n), cuda::kThreads, 0, stream>>>(g, static_cast<const C*>(x),
                                                                      static_cast<C*>(z), n);
}

Status unfold_cuda(Device device, const WindowGeometry& g, const NDArray& x, NDArray& z) {
  const int64_t n = z.length();
  if (n == 0) return Status::ok();
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, z));
  switch (z.element_size()) {
    case 1: launch_unfold<uint8_t>(g, x.device_data(), z.device_data(), n, ctx->stream()); break;
    case 2: launch_unfold<uint16_t>(g, x.device_data(), z.device_data(), n, ctx->stream()); break;
    case 4: launch_unfold<uint32_t>(g, x.device_data(), z.device_data(), n, ctx->stream()); break;
    default: launch_unfold<uint64_t>(g, x.device_data(), z.device_data(), n, ctx->stream()); break;
  }
  LIBOPS_CUDA_CHECK_LAUNCH("unfold kernel launch");
  z.buffer()->mark_device_written();
  return Status::ok();
}

Status fold_cuda(Device device, const WindowGeometry& g, const NDArray& x, NDArray& z) {
  const int64_t n = z.length();
  if (n == 0) return Status::ok();
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, z));
  switch (z.dtype()) {
    case DataType::kFloat32: launch_fold<float>(g, x.device_data(), z.device_data(), n, ctx->stream()); break;
    case DataType::kFloat64: launch_fold<double>(g, x.device_data(), z.device_data(), n, ctx->stream()); break;
    case DataType::kInt32: launch_fold<int32_t>(g, x.device_data(), z.device_data(), n, ctx->stream()); break;
    case DataType::kInt64: launch_fold<int64_t>(g, x.device_data(), z.device_data(), n, ctx->stream()); break;
    default: launch_fold<uint64_t>(g, x.device_data(), z.device_data(), n, ctx->stream()); break;
  }
  LIBOPS_CUDA_CHECK_LAUNCH("fold kernel launch");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool window_cuda_registered =
    (unfold_device_kernel.set(DeviceType::kCuda, unfold_cuda), fold_device_kernel.set(DeviceType::kCuda, fold_cuda),
     true);

}  // namespace
}  // namespace libops::ops
