// CUDA element-wise kernels: the device side of loops/elementwise.h, for the
// same functors (LIBOPS_HOST_DEVICE) and the same compute types. Included
// by .cu files only.
//
// The host prepares the same NdLoop as the CPU engine (broadcast strides,
// dims sorted by z's strides and coalesced), with device addresses. Two
// kernels per functor and compute type:
//   * dense: every operand already in its compute type and either dense
//     along the one coalesced dim or a scalar (stride 0): plain indexing, so
//     loads and stores coalesce across a warp;
//   * strided: any rank, strides and dtypes; each thread turns its linear
//     index into offsets and converts on load and store with the CPU's rules
//     (loops/convert.h).
// Both use grid-stride loops, so any length runs with a bounded grid.
// Arrays are synced to the device by the caller (legacy::exec).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/backends/cuda/cuda_check.h"
#include "libops/loops/convert.h"
#include "libops/loops/elementwise.h"
#include "libops/loops/extra_params.h"
#include "libops/loops/nd_loop.h"

namespace libops::cuda {

inline constexpr int kThreads = 256;

// Blocks for n elements of grid-stride work: enough to fill the GPU many
// times over, bounded so the launch stays cheap.
inline unsigned blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<int64_t>(b, 1, 65536));
}

// One element of dtype `t` at `p`, as compute type C (convert.h rules).
template <typename C>
__device__ __forceinline__ C load_as(const char* p, DataType t) {
  switch (t) {
    case DataType::kBool: return convert_value<C>(*reinterpret_cast<const bool*>(p));
    case DataType::kInt8: return convert_value<C>(*reinterpret_cast<const int8_t*>(p));
    case DataType::kInt16: return convert_value<C>(*reinterpret_cast<const int16_t*>(p));
    case DataType::kInt32: return convert_value<C>(*reinterpret_cast<const int32_t*>(p));
    case DataType::kInt64: return convert_value<C>(*reinterpret_cast<const int64_t*>(p));
    case DataType::kUInt8: return convert_value<C>(*reinterpret_cast<const uint8_t*>(p));
    case DataType::kUInt16: return convert_value<C>(*reinterpret_cast<const uint16_t*>(p));
    case DataType::kUInt32: return convert_value<C>(*reinterpret_cast<const uint32_t*>(p));
    case DataType::kUInt64: return convert_value<C>(*reinterpret_cast<const uint64_t*>(p));
    case DataType::kFloat16: return convert_value<C>(*reinterpret_cast<const float16*>(p));
    case DataType::kBFloat16: return convert_value<C>(*reinterpret_cast<const bfloat16*>(p));
    case DataType::kFloat32: return convert_value<C>(*reinterpret_cast<const float*>(p));
    case DataType::kFloat64: return convert_value<C>(*reinterpret_cast<const double*>(p));
    default: return C{};
  }
}

// Stores v (a compute type or bool) as dtype `t` at `p`.
template <typename R>
__device__ __forceinline__ void store_as(char* p, DataType t, R v) {
  switch (t) {
    case DataType::kBool: *reinterpret_cast<bool*>(p) = convert_value<bool>(v); break;
    case DataType::kInt8: *reinterpret_cast<int8_t*>(p) = convert_value<int8_t>(v); break;
    case DataType::kInt16: *reinterpret_cast<int16_t*>(p) = convert_value<int16_t>(v); break;
    case DataType::kInt32: *reinterpret_cast<int32_t*>(p) = convert_value<int32_t>(v); break;
    case DataType::kInt64: *reinterpret_cast<int64_t*>(p) = convert_value<int64_t>(v); break;
    case DataType::kUInt8: *reinterpret_cast<uint8_t*>(p) = convert_value<uint8_t>(v); break;
    case DataType::kUInt16: *reinterpret_cast<uint16_t*>(p) = convert_value<uint16_t>(v); break;
    case DataType::kUInt32: *reinterpret_cast<uint32_t*>(p) = convert_value<uint32_t>(v); break;
    case DataType::kUInt64: *reinterpret_cast<uint64_t*>(p) = convert_value<uint64_t>(v); break;
    case DataType::kFloat16: *reinterpret_cast<float16*>(p) = convert_value<float16>(v); break;
    case DataType::kBFloat16: *reinterpret_cast<bfloat16*>(p) = convert_value<bfloat16>(v); break;
    case DataType::kFloat32: *reinterpret_cast<float*>(p) = convert_value<float>(v); break;
    case DataType::kFloat64: *reinterpret_cast<double*>(p) = convert_value<double>(v); break;
    default: break;
  }
}

// Byte offsets of C-order element `i` (< loop.count()) of the loop, per
// operand. One dim (any dense array, a row of a reduction) needs no 64-bit
// division, which costs dozens of instructions per element on a GPU.
template <int N>
__device__ __forceinline__ void offsets_of(const NdLoop<N>& loop, int64_t i, int64_t (&off)[N]) {
  if (loop.rank == 1) {
    for (int k = 0; k < N; ++k) off[k] = i * loop.strides[k][0];
    return;
  }
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = loop.rank - 1; d >= 0; --d) {
    const int64_t extent = loop.shape[d];
    const int64_t c = i % extent;
    i /= extent;
    for (int k = 0; k < N; ++k) off[k] += c * loop.strides[k][d];
  }
}

__device__ __forceinline__ int64_t first_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_step() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// Dense kernels take kDenseUnroll elements a thread per grid step, loading
// all of them before storing any: with one element at a time the resident
// threads kept too few loads in flight to reach the memory's bandwidth (an
// H200 moved 0.88 of a device copy's bytes/s on a 256M-element add). Loads
// come before stores in program order, so in-place calls (z == x) stay right.
inline constexpr int kDenseUnroll = 4;

template <typename Op, typename C, typename R>
__global__ void unary_dense_kernel(R* z, const C* x, int64_t sx, int64_t n, ExtraParams e) {
  const int64_t step = grid_step();
  int64_t i = first_index();
  for (; i + (kDenseUnroll - 1) * step < n; i += kDenseUnroll * step) {
    C a[kDenseUnroll];
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) a[u] = x[(i + u * step) * sx];
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) z[i + u * step] = Op::op(a[u], e);
  }
  for (; i < n; i += step) z[i] = Op::op(x[i * sx], e);
}

template <typename Op, typename C, typename R>
__global__ void unary_strided_kernel(NdLoop<2> loop, int64_t n, DataType tz, DataType tx, ExtraParams e) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    int64_t off[2];
    offsets_of(loop, i, off);
    store_as<R>(loop.base[0] + off[0], tz, Op::op(load_as<C>(loop.base[1] + off[1], tx), e));
  }
}

template <typename Op, typename C, typename R>
__global__ void binary_dense_kernel(R* z, const C* x, int64_t sx, const C* y, int64_t sy, int64_t n, ExtraParams e) {
  const int64_t step = grid_step();
  int64_t i = first_index();
  for (; i + (kDenseUnroll - 1) * step < n; i += kDenseUnroll * step) {
    C a[kDenseUnroll], b[kDenseUnroll];
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) {
      a[u] = x[(i + u * step) * sx];
      b[u] = y[(i + u * step) * sy];
    }
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) z[i + u * step] = Op::op(a[u], b[u], e);
  }
  for (; i < n; i += step) z[i] = Op::op(x[i * sx], y[i * sy], e);
}

template <typename Op, typename C, typename R>
__global__ void binary_strided_kernel(NdLoop<3> loop, int64_t n, DataType tz, DataType tx, DataType ty,
                                      ExtraParams e) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    int64_t off[3];
    offsets_of(loop, i, off);
    const C a = load_as<C>(loop.base[1] + off[1], tx);
    const C b = load_as<C>(loop.base[2] + off[2], ty);
    store_as<R>(loop.base[0] + off[0], tz, Op::op(a, b, e));
  }
}

namespace detail {

// The CPU loop's setup (elementwise.h) over device addresses.
template <int N>
NdLoop<N> make_device_loop(NDArray& z, const NDArray* const* inputs) {
  NdLoop<N> loop;
  loop.init(z.shape());
  loop.set_operand(0, z.device_data(), z.strides(), static_cast<int64_t>(z.element_size()));
  for (int k = 1; k < N; ++k) {
    const NDArray& a = *inputs[k - 1];
    loop.set_operand(k, a.device_data(), broadcast_strides(a.shape(), a.strides(), z.shape()),
                     static_cast<int64_t>(a.element_size()));
  }
  loop.sort_dims_by_operand(0);
  loop.coalesce();
  return loop;
}

// Operand k runs densely along the one remaining dim (stride = its element
// size) or is a scalar (stride 0); `step` gets 1 or 0.
template <int N>
bool dense_operand(const NdLoop<N>& loop, int k, int64_t item, int64_t& step) {
  if (loop.rank == 0) {
    step = 0;
    return true;
  }
  if (loop.rank != 1) return false;
  if (loop.strides[k][0] == item) step = 1;
  else if (loop.strides[k][0] == 0) step = 0;
  else return false;
  return true;
}

}  // namespace detail

// z = op(x) on z's device; x broadcasts to z (checked by the caller).
template <typename Op, typename C>
Status cuda_elementwise_unary(const NDArray& x, NDArray& z, const ExtraParams& e, cudaStream_t stream) {
  using R = unary_result_t<Op, C>;
  const int64_t n = z.length();
  if (n == 0) return Status::ok();
  const NDArray* in[1] = {&x};
  NdLoop<2> loop = detail::make_device_loop<2>(z, in);
  int64_t sz = 0, sx = 0;
  const bool direct = x.dtype() == dtype_of_v<C> && z.dtype() == dtype_of_v<R>;
  if (direct && detail::dense_operand(loop, 0, sizeof(R), sz) && sz == 1 &&
      detail::dense_operand(loop, 1, sizeof(C), sx)) {
    unary_dense_kernel<Op, C, R><<<blocks_for(n), kThreads, 0, stream>>>(
        reinterpret_cast<R*>(loop.base[0]), reinterpret_cast<const C*>(loop.base[1]), sx, n, e);
  } else {
    unary_strided_kernel<Op, C, R><<<blocks_for(n), kThreads, 0, stream>>>(loop, n, z.dtype(), x.dtype(), e);
  }
  LIBOPS_CUDA_CHECK_LAUNCH("element-wise kernel launch");
  return Status::ok();
}

// z = op(x, y) on z's device; x and y broadcast to z (checked by the caller).
template <typename Op, typename C>
Status cuda_elementwise_binary(const NDArray& x, const NDArray& y, NDArray& z, const ExtraParams& e,
                               cudaStream_t stream) {
  using R = binary_result_t<Op, C>;
  const int64_t n = z.length();
  if (n == 0) return Status::ok();
  const NDArray* in[2] = {&x, &y};
  NdLoop<3> loop = detail::make_device_loop<3>(z, in);
  int64_t sz = 0, sx = 0, sy = 0;
  const bool direct = x.dtype() == dtype_of_v<C> && y.dtype() == dtype_of_v<C> && z.dtype() == dtype_of_v<R>;
  if (direct && detail::dense_operand(loop, 0, sizeof(R), sz) && sz == 1 &&
      detail::dense_operand(loop, 1, sizeof(C), sx) && detail::dense_operand(loop, 2, sizeof(C), sy)) {
    binary_dense_kernel<Op, C, R><<<blocks_for(n), kThreads, 0, stream>>>(
        reinterpret_cast<R*>(loop.base[0]), reinterpret_cast<const C*>(loop.base[1]), sx,
        reinterpret_cast<const C*>(loop.base[2]), sy, n, e);
  } else {
    binary_strided_kernel<Op, C, R>
        <<<blocks_for(n), kThreads, 0, stream>>>(loop, n, z.dtype(), x.dtype(), y.dtype(), e);
  }
  LIBOPS_CUDA_CHECK_LAUNCH("element-wise kernel launch");
  return Status::ok();
}

}  // namespace libops::cuda
