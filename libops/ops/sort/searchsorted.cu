// searchsorted's CUDA kernel: a thread per value, a binary search over the
// keys of Note [Sort order] (sort_keys.h), as the CPU does.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/sort/searchsorted.h"
#include "libops/ops/sort/sort.h"
#include "libops/ops/sort/sort_keys.h"

namespace libops::ops {
namespace {

template <typename T>
__global__ void search_kernel(SearchSortedDesc d, const T* __restrict__ seq, const T* __restrict__ values,
                              int64_t* __restrict__ out) {
  const int64_t total = d.rows * d.m, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const T* s = seq + (d.shared ? 0 : t / d.m) * d.n;
    const auto key = sort_keys::encode(values[t], false, true);
    int64_t first = 0, count = d.n;
    while (count > 0) {
      const int64_t half = count / 2;
      const auto k = sort_keys::encode(s[first + half], false, true);
      if (d.right ? !(key < k) : k < key) {
        first += half + 1;
        count -= half + 1;
      } else {
        count = half;
      }
    }
    out[t] = first;
  }
}

Status searchsorted_cuda(Device device, const SearchSortedDesc& d, const NDArray& seq, const NDArray& values,
                         NDArray& z) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&seq, &values}, z));
  const unsigned blocks = cuda::blocks_for(d.rows * d.m);
  int64_t* out = static_cast<int64_t*>(z.device_data());
  RETURN_IF_ERROR(with_sort_key_type(seq.dtype(), [&](auto tag) {
    using T = decltype(tag);
    search_kernel<T><<<blocks, cuda::kThreads, 0, ctx->stream()>>>(
        d, static_cast<const T*>(seq.device_data()), static_cast<const T*>(values.device_data()), out);
    return Status::ok();
  }));
  LIBOPS_CUDA_CHECK_LAUNCH("searchsorted kernel");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered = (searchsorted_device_kernel.set(DeviceType::kCuda, searchsorted_cuda), true);

}  // namespace
}  // namespace libops::ops
