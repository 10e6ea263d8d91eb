// linear_attention's CUDA kernel (Note [Linear attention] in
// linear_attention.h): a block per (batch, KV head), a thread per column m
// of the state S, which it carries through every step alone; the reads of
// k, q, the decay and beta at a step are the same address across the
// block (broadcast), and S is read and written a row at a time, coalesced.
#include <cuda_runtime.h>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/nn/linear_attention.h"

namespace libops::ops::nn {
namespace {

template <typename C>
__global__ void linear_attention_kernel(LinearAttentionDesc d, const C* __restrict__ q, const C* __restrict__ k,
                                        const C* __restrict__ v, const C* __restrict__ decay,
                                        const C* __restrict__ beta, C* __restrict__ state, C* __restrict__ out) {
  const int64_t bh = blockIdx.x, b = bh / d.kv_heads, h = bh % d.kv_heads;
  const int64_t group = d.q_heads / d.kv_heads, dk = d.dk, dv = d.dv;
  const C scale = static_cast<C>(d.scale);
  C* s = state + bh * dk * dv;
  for (int64_t m = threadIdx.x; m < dv; m += blockDim.x) {
    for (int64_t t = 0; t < d.steps; ++t) {
      const int64_t bt = b * d.steps + t;
      const C* kt = k + (bt * d.kv_heads + h) * dk;
      if (d.gated) {
        const C* g = decay + (bt * d.kv_heads + h) * d.decay_width;
        for (int64_t i = 0; i < dk; ++i) s[i * dv + m] *= exp(g[d.decay_width == 1 ? 0 : i]);
      }
      C u = v[(bt * d.kv_heads + h) * dv + m];
      if (d.delta) {
        C retrieved = 0;
        for (int64_t i = 0; i < dk; ++i) retrieved += s[i * dv + m] * kt[i];
        u = beta[bt * d.beta_heads + (d.beta_heads == 1 ? 0 : h)] * (u - retrieved);
      }
      for (int64_t i = 0; i < dk; ++i) s[i * dv + m] += kt[i] * u;
      for (int64_t j = 0; j < group; ++j) {
        const int64_t hq = h * group + j;
        const C* qt = q + (bt * d.q_heads + hq) * dk;
        C o = 0;
        for (int64_t i = 0; i < dk; ++i) o += qt[i] * s[i * dv + m];
        out[(bt * d.q_heads + hq) * dv + m] = scale * o;
      }
    }
  }
}

template <typename C>
void launch(const LinearAttentionDesc& d, const LinearAttentionArgs& a, cudaStream_t stream) {
  auto in = [](const NDArray* x) { return x != nullptr ? static_cast<const C*>(x->device_data()) : nullptr; };
  const unsigned threads = d.dv >= 256 ? 256u : static_cast<unsigned>((d.dv + 31) / 32 * 32);
  linear_attention_kernel<C><<<static_cast<unsigned>(d.batch * d.kv_heads), threads, 0, stream>>>(
      d, in(a.q), in(a.k), in(a.v), in(a.decay), in(a.beta), static_cast<C*>(a.state->device_data()),
      static_cast<C*>(a.out->device_data()));
}

Status linear_attention_cuda(Device device, const LinearAttentionDesc& d, DataType ct, const LinearAttentionArgs& a) {
  if (d.batch * d.kv_heads == 0 || d.dv == 0) return Status::ok();
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &ctx));
  RETURN_IF_ERROR(sync_for_kernel(device, {a.q, a.k, a.v, a.decay, a.beta, a.state}, *a.out));
  if (ct == DataType::kFloat64) launch<double>(d, a, ctx->stream());
  else launch<float>(d, a, ctx->stream());
  LIBOPS_CUDA_CHECK_LAUNCH("linear_attention kernel launch");
  a.state->buffer()->mark_device_written();
  a.out->buffer()->mark_device_written();
  return Status::ok();
}

[[maybe_unused]] const bool registered =
    (linear_attention_device_kernel.set(DeviceType::kCuda, linear_attention_cuda), true);

}  // namespace
}  // namespace libops::ops::nn
