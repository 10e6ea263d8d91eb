// non_max_suppression's CUDA kernel (Note [Greedy suppression]): one block
// walks the boxes in score order; for each, its threads compare it with the
// boxes kept so far, and thread 0 keeps it when none overlaps too much. The
// walk is sequential by nature; the comparisons are what runs in parallel.
// The op reads back the kept count (one wait, as gather's error check).
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/ops/image/non_max_suppression.h"

namespace libops::ops {
namespace {

constexpr int kNmsThreads = 256;

template <typename C>
__global__ void nms_kernel(NmsDesc d, const C* __restrict__ boxes, const C* __restrict__ scores,
                           const int64_t* __restrict__ order, int64_t* __restrict__ selected,
                           unsigned long long* __restrict__ count_out) {
  __shared__ int64_t kept;
  __shared__ int overlapped;
  if (threadIdx.x == 0) kept = 0;
  __syncthreads();
  for (int64_t r = 0; r < d.n; ++r) {
    if (d.max_out >= 0 && kept >= d.max_out) break;  // `kept` is read by all after the last barrier
    const int64_t i = order[r];
    if (d.filter && !(scores[i] > static_cast<C>(d.score_threshold))) break;  // the rest score no more
    if (threadIdx.x == 0) overlapped = 0;
    __syncthreads();
    for (int64_t k = threadIdx.x; k < kept; k += blockDim.x)
      if (box_iou(boxes, i, selected[k], d.center) > static_cast<C>(d.iou_threshold)) overlapped = 1;
    __syncthreads();
    if (threadIdx.x == 0 && !overlapped) selected[kept++] = i;
    __syncthreads();
  }
  if (threadIdx.x == 0) *count_out = static_cast<unsigned long long>(kept);
}

Status nms_cuda(Device device, const NmsDesc& d, const NDArray& boxes, const NDArray& scores, const NDArray& order,
                NDArray& selected, int64_t* count) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&boxes, &scores, &order}, selected));
  void* slot = nullptr;
  RETURN_IF_ERROR(ctx->workspace(sizeof(unsigned long long), &slot));
  auto* kept = static_cast<unsigned long long*>(slot);
  auto* sel = static_cast<int64_t*>(selected.device_data());
  const auto* ord = static_cast<const int64_t*>(order.device_data());
  if (boxes.dtype() == DataType::kFloat64)
    nms_kernel<double><<<1, kNmsThreads, 0, ctx->stream()>>>(d, static_cast<const double*>(boxes.device_data()),
                                                             static_cast<const double*>(scores.device_data()), ord,
                                                             sel, kept);
  else
    nms_kernel<float><<<1, kNmsThreads, 0, ctx->stream()>>>(d, static_cast<const float*>(boxes.device_data()),
                                                            static_cast<const float*>(scores.device_data()), ord,
                                                            sel, kept);
  LIBOPS_CUDA_CHECK_LAUNCH("non_max_suppression kernel");
  selected.buffer()->mark_device_written();
  unsigned long long n = 0;
  LIBOPS_CUDA_CHECK(cudaMemcpyAsync(&n, kept, sizeof(n), cudaMemcpyDeviceToHost, ctx->stream()));
  LIBOPS_CUDA_CHECK(cudaStreamSynchronize(ctx->stream()));
  *count = static_cast<int64_t>(n);
  return Status::ok();
}

[[maybe_unused]] const bool registered = (nms_device_kernel.set(DeviceType::kCuda, nms_cuda), true);

}  // namespace
}  // namespace libops::ops
