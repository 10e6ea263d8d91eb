// The RANDOM table on CUDA devices: the CUDA twin of table_random.cpp,
// registered with register_device_random when the library loads.
//
// Element i of z (its C-order index) gets F<C>::op(ElementStream(seed, i),
// i, x[i], y[i], params), exactly what the CPU computes for it: the same
// host+device functors and samplers, the same per-element Philox stream,
// the same conversions on load and store, and the same checks
// (legacy/random_checks.h). A seed therefore gives the CPU's numbers, bit
// for bit except where the device math library rounds its last bit
// differently (Note [Random numbers on CUDA] in libops/random/
// distributions.h lists which ops that can touch).
//
// One kernel per op and compute type: each thread takes elements with a
// grid-stride loop, turns i into byte offsets (the loop keeps C order, so i
// is the CPU's index), draws, and converts on store. choice also needs its
// weights summed in order first: a one-block kernel does that on the
// device, and only the summary (first bad weight, last positive one, sum)
// comes back to the host, to be checked as on the CPU.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/ops/random_ops.h"
#include "libops/legacy/random_checks.h"
#include "libops/loops/elementwise.cuh"

namespace libops::legacy {
namespace {

// Byte offsets of C-order element i; the common one-dim case (any dense z)
// needs no divisions.
template <int N>
__device__ __forceinline__ void random_offsets(const NdLoop<N>& loop, int64_t i, int64_t (&off)[N]) {
  if (loop.rank == 1) {
    for (int k = 0; k < N; ++k) off[k] = i * loop.strides[k][0];
  } else {
    cuda::offsets_of(loop, i, off);
  }
}

// z[i] = Op::op(stream(seed, i), i, x[i], y[i]); an input the op does not
// take is never loaded and reads as 0, as on the CPU.
template <typename Op, typename C>
__global__ void random_kernel(NdLoop<3> loop, int64_t n, uint64_t seed, DataType tz, DataType tx, DataType ty,
                              typename Op::Params params) {
  for (int64_t i = cuda::first_index(); i < n; i += cuda::grid_step()) {
    int64_t off[3];
    random_offsets(loop, i, off);
    C xv = C(0), yv = C(0);
    if constexpr (Op::kInputs >= 1) xv = cuda::load_as<C>(loop.base[1] + off[1], tx);
    if constexpr (Op::kInputs >= 2) yv = cuda::load_as<C>(loop.base[2] + off[2], ty);
    random::ElementStream stream(seed, static_cast<uint64_t>(i));
    cuda::store_as<C>(loop.base[0] + off[0], tz, Op::op(stream, i, xv, yv, params));
  }
}

// The CPU's random_run loop over device addresses: z in C order (coalesced,
// never reordered), inputs broadcast to it, absent ones with stride 0.
template <typename Op, typename C>
Status random_launch(uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z, const typename Op::Params& params,
                     cudaStream_t stream) {
  const int64_t n = z.length();
  if (n == 0) return Status::ok();
  NdLoop<3> loop;
  loop.init(z.shape());
  loop.set_operand(0, z.device_data(), z.strides(), static_cast<int64_t>(z.element_size()));
  Dims zero_strides;
  zero_strides.resize(z.rank(), 0);
  const NDArray* in[2] = {Op::kInputs >= 1 ? x : nullptr, Op::kInputs >= 2 ? y : nullptr};
  DataType types[2] = {dtype_of_v<C>, dtype_of_v<C>};
  for (int k = 0; k < 2; ++k) {
    if (in[k]) {
      loop.set_operand(k + 1, in[k]->device_data(), broadcast_strides(in[k]->shape(), in[k]->strides(), z.shape()),
                       static_cast<int64_t>(in[k]->element_size()));
      types[k] = in[k]->dtype();
    } else {
      loop.set_operand(k + 1, nullptr, zero_strides, 0);
    }
  }
  loop.coalesce();
  random_kernel<Op, C>
      <<<cuda::blocks_for(n), cuda::kThreads, 0, stream>>>(loop, n, seed, z.dtype(), types[0], types[1], params);
  LIBOPS_CUDA_CHECK_LAUNCH("random kernel launch");
  return Status::ok();
}

template <template <typename> class F, unsigned kSet>
Status random_cuda(const char* name, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                   const ExtraParams& e) {
  typename F<double>::Params params;
  RETURN_IF_ERROR(random_prepare<F>(name, x, y, z, e, params));
  Status launched;
  RETURN_IF_ERROR(with_compute_type<kSet>(name, compute_type_of(z.dtype()), z.dtype(), [&](auto tag) {
    using C = decltype(tag);
    cuda::LaunchContext* ctx = nullptr;
    static_cast<void>(launched = cuda::LaunchContext::get(z.buffer()->device().index, &ctx));
    if (launched.is_ok()) static_cast<void>(launched = random_launch<F<C>, C>(seed, x, y, z, params, ctx->stream()));
  }));
  return launched;
}

// ---- choice ----

// One block: copies the n weights of y (as double) into cdf and the n
// values of x (as C) into values, so z may share their memory as on the
// CPU; then one thread sums the weights in order, as the CPU does.
template <typename C>
__global__ void choice_prepare_kernel(const char* x, int64_t x_stride, DataType tx, const char* y, int64_t y_stride,
                                      DataType ty, int64_t n, double* cdf, C* values, fn::ChoiceWeights* weights) {
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    cdf[j] = cuda::load_as<double>(y + j * y_stride, ty);
    values[j] = cuda::load_as<C>(x + j * x_stride, tx);
  }
  __syncthreads();
  if (threadIdx.x == 0) *weights = fn::choice_cdf_in_place(cdf, n);
}

template <typename C>
__global__ void choice_kernel(NdLoop<1> loop, int64_t n, uint64_t seed, DataType tz, const double* cdf,
                              const C* values, int64_t count, int64_t last_positive) {
  for (int64_t i = cuda::first_index(); i < n; i += cuda::grid_step()) {
    int64_t off[1];
    random_offsets(loop, i, off);
    random::ElementStream stream(seed, static_cast<uint64_t>(i));
    const int64_t j = fn::RandomChoice<C>::pick(stream, cdf, count, last_positive);
    cuda::store_as<C>(loop.base[0] + off[0], tz, values[j]);
  }
}

// Workspace layout: the weights' summary, then n doubles (the CDF), then n
// values of C; every part stays 8-byte aligned.
template <typename C>
Status choice_launch(const char* name, uint64_t seed, const NDArray& x, const NDArray& y, NDArray& z) {
  const int64_t n = y.length();
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(z.buffer()->device().index, &ctx));
  void* space = nullptr;
  const size_t head = sizeof(fn::ChoiceWeights);
  RETURN_IF_ERROR(ctx->workspace(head + static_cast<size_t>(n) * (sizeof(double) + sizeof(C)), &space));
  auto* weights_d = static_cast<fn::ChoiceWeights*>(space);
  auto* cdf = reinterpret_cast<double*>(static_cast<char*>(space) + head);
  auto* values = reinterpret_cast<C*>(cdf + n);
  choice_prepare_kernel<C><<<1, cuda::kThreads, 0, ctx->stream()>>>(
      static_cast<const char*>(x.device_data()), x.strides()[0] * static_cast<int64_t>(x.element_size()), x.dtype(),
      static_cast<const char*>(y.device_data()), y.strides()[0] * static_cast<int64_t>(y.element_size()), y.dtype(),
      n, cdf, values, weights_d);
  LIBOPS_CUDA_CHECK_LAUNCH("choice weights kernel launch");
  // The weights are runtime data: their check needs the summary here.
  fn::ChoiceWeights weights;
  LIBOPS_CUDA_CHECK(cudaMemcpyAsync(&weights, weights_d, sizeof weights, cudaMemcpyDeviceToHost, ctx->stream()));
  LIBOPS_CUDA_CHECK(cudaStreamSynchronize(ctx->stream()));
  RETURN_IF_ERROR(choice_check_weights(name, weights, n));

  const int64_t count = z.length();
  if (count == 0) return Status::ok();
  NdLoop<1> loop;
  loop.init(z.shape());
  loop.set_operand(0, z.device_data(), z.strides(), static_cast<int64_t>(z.element_size()));
  loop.coalesce();
  choice_kernel<C><<<cuda::blocks_for(count), cuda::kThreads, 0, ctx->stream()>>>(loop, count, seed, z.dtype(), cdf,
                                                                                    values, n, weights.last_positive);
  LIBOPS_CUDA_CHECK_LAUNCH("choice kernel launch");
  return Status::ok();
}

template <unsigned kSet>
Status choice_cuda(const char* name, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                   const ExtraParams& e) {
  RETURN_IF_ERROR(choice_prepare(name, x, y, z, e));
  // No weights at all: the CPU's "all 0 weights" error, with no launch.
  if (y->length() == 0) return choice_check_weights(name, fn::ChoiceWeights{}, 0);
  Status launched;
  RETURN_IF_ERROR(with_compute_type<kSet>(name, compute_type_of(z.dtype()), z.dtype(), [&](auto tag) {
    using C = decltype(tag);
    static_cast<void>(launched = choice_launch<C>(name, seed, *x, *y, z));
  }));
  return launched;
}

template <template <typename> class F, unsigned kSet>
Status random_row_cuda(const char* name, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                       const ExtraParams& e) {
  if constexpr (kIsRandomChoice<F>) {
    return choice_cuda<kSet>(name, seed, x, y, z, e);
  } else {
    return random_cuda<F, kSet>(name, seed, x, y, z, e);
  }
}

#define LIBOPS_RANDOM_CUDA_CASE(NUM, NAME, F, SET) \
  case NUM: return random_row_cuda<F, SET>(#NAME, seed, x, y, z, e);

Status random_run_cuda(int num, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z, const ExtraParams& e) {
  switch (num) { LIBOPS_RANDOM_OPS(LIBOPS_RANDOM_CUDA_CASE) }
  return Status::error(StatusCode::kUnknownOp, "random: no op number %d", num);
}

[[maybe_unused]] const bool random_cuda_registered =
    (register_device_random(DeviceType::kCuda, random_run_cuda), true);

}  // namespace
}  // namespace libops::legacy
