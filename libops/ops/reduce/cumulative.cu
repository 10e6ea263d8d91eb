// The cumulative scans' CUDA kernel (cumulative.h), registered when the
// library loads. Rows with inner == 1 are contiguous: one thread block per
// row walks it in tiles of 256 threads x 4 items with CUB's BlockScan,
// carrying the tile total to the next tile (a long single row then uses
// one SM; rows share the GPU when there are many). Rows with inner > 1
// advance one position at a time with a thread per column, so a warp reads
// 32 neighbouring elements.
#include <cuda_runtime.h>

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/reduce/cumulative.h"
#include "libops/ops/reduce/scan_ops.h"

namespace libops::ops {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4;

template <ScanOp kOp>
struct Combine {
  template <typename C>
  __device__ C operator()(const C& a, const C& b) const {
    return scan::combine<kOp>(a, b);
  }
};

template <ScanOp kOp, typename C>
__global__ void scan_rows_kernel(const C* __restrict__ x, C* __restrict__ z, int64_t n, bool exclusive, C id) {
  using BlockScan = cub::BlockScan<C, kThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  __shared__ C carry_shared;
  const C* xr = x + static_cast<int64_t>(blockIdx.x) * n;
  C* zr = z + static_cast<int64_t>(blockIdx.x) * n;
  C carry = id;
  for (int64_t base = 0; base < n; base += kThreads * kItems) {
    C items[kItems];
    for (int k = 0; k < kItems; ++k) {
      const int64_t j = base + threadIdx.x * kItems + k;
      items[k] = j < n ? xr[j] : id;
    }
    C total;
    if (exclusive) BlockScan(temp).ExclusiveScan(items, items, id, Combine<kOp>(), total);
    else BlockScan(temp).InclusiveScan(items, items, Combine<kOp>(), total);
    for (int k = 0; k < kItems; ++k) {
      const int64_t j = base + threadIdx.x * kItems + k;
      if (j < n) zr[j] = scan::combine<kOp>(carry, items[k]);
    }
    if (threadIdx.x == 0) carry_shared = scan::combine<kOp>(carry, total);
    __syncthreads();
    carry = carry_shared;
    __syncthreads();
  }
}

template <ScanOp kOp, typename C>
__global__ void scan_columns_kernel(const C* __restrict__ x, C* __restrict__ z, int64_t outer, int64_t n,
                                    int64_t inner, bool exclusive, C id) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < outer * inner; t += step) {
    const int64_t o = t / inner, i = t - o * inner;
    const C* xc = x + o * n * inner + i;
    C* zc = z + o * n * inner + i;
    C acc = id;
    for (int64_t j = 0; j < n; ++j) {
      const C v = xc[j * inner];
      if (exclusive) {
        zc[j * inner] = acc;
        acc = scan::combine<kOp>(acc, v);
      } else {
        zc[j * inner] = acc = scan::combine<kOp>(acc, v);
      }
    }
  }
}

template <ScanOp kOp, typename C>
void launch(const ScanDesc& d, const void* x, void* z, cudaStream_t stream) {
  if (d.inner == 1) {
    // gridDim.x is at most 2^31 - 1 rows; the op's rows fit (outer * n elements exist in memory).
    scan_rows_kernel<kOp, C><<<static_cast<unsigned>(d.outer), kThreads, 0, stream>>>(
        static_cast<const C*>(x), static_cast<C*>(z), d.n, d.exclusive, scan::identity<C>(d));
  } else {
    scan_columns_kernel<kOp, C><<<cuda::blocks_for(d.outer * d.inner), cuda::kThreads, 0, stream>>>(
        static_cast<const C*>(x), static_cast<C*>(z), d.outer, d.n, d.inner, d.exclusive, scan::identity<C>(d));
  }
}

template <typename C>
void launch_op(const ScanDesc& d, const void* x, void* z, cudaStream_t stream) {
  switch (d.op) {
    case ScanOp::kSum: launch<ScanOp::kSum, C>(d, x, z, stream); break;
    case ScanOp::kProd: launch<ScanOp::kProd, C>(d, x, z, stream); break;
    case ScanOp::kMax: launch<ScanOp::kMax, C>(d, x, z, stream); break;
    case ScanOp::kMin: launch<ScanOp::kMin, C>(d, x, z, stream); break;
  }
}

Status scan_cuda(Device device, const ScanDesc& d, const NDArray& x, NDArray& z) {
  if (d.outer == 0 || d.n == 0 || d.inner == 0) return Status::ok();
  if (d.inner == 1 && d.outer > 0x7fffffff)
    return Status::error(StatusCode::kNotImplemented, "scan: %lld rows exceed one CUDA grid",
                         static_cast<long long>(d.outer));
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {&x}, z));
  switch (x.dtype()) {
    case DataType::kFloat32: launch_op<float>(d, x.device_data(), z.device_data(), ctx->stream()); break;
    case DataType::kFloat64: launch_op<double>(d, x.device_data(), z.device_data(), ctx->stream()); break;
    case DataType::kInt64: launch_op<int64_t>(d, x.device_data(), z.device_data(), ctx->stream()); break;
    default: launch_op<uint64_t>(d, x.device_data(), z.device_data(), ctx->stream()); break;
  }
  LIBOPS_CUDA_CHECK_LAUNCH("scan kernel launch");
  z.buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool scan_cuda_registered = (scan_device_kernel.set(DeviceType::kCuda, scan_cuda), true);

}  // namespace
}  // namespace libops::ops
