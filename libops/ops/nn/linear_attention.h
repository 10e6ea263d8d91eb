// linear_attention's kernel interface (linear_attention.cpp computes on the
// CPU; linear_attention.cu registers the CUDA kernel when the library
// loads).
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops::nn {

// Note [Linear attention]
//  ONNX's LinearAttention (opset 27): per batch entry and KV head a state S
//  [dk, dv] runs over the steps t of the sequence,
//    gated:  S *= exp(g_t)                      (g per head, or per key dim)
//    delta:  u = beta_t * (v_t - S^T k_t)       (else u = v_t)
//            S += k_t u^T
//    each query head of the KV head's group:    o_t = scale * S^T q_t
//  Column m of S depends on column m alone, so the columns run
//  independently: on the CPU a task per (batch, KV head), on a GPU a thread
//  per column. The arithmetic is in float (double for float64 inputs), S
//  held in present_state's staged buffer.
struct LinearAttentionDesc {
  int64_t batch = 0, steps = 0, q_heads = 1, kv_heads = 1, dk = 0, dv = 0;
  bool gated = false, delta = false;
  int64_t decay_width = 0;  // per step and KV head: 1 (a scalar) or dk; 0 when not gated
  int64_t beta_heads = 0;   // per step: kv_heads or 1; 0 when not delta
  double scale = 1.0;
};

// Dense arrays in the compute dtype: q [B, T, Hq * dk], k [B, T, Hkv * dk],
// v [B, T, Hkv * dv], decay [B, T, Hkv * decay_width] and beta
// [B, T, beta_heads] (null when not used); state holds the past state on
// entry and the present state on return ([B, Hkv, dk, dv]); out
// [B, T, Hq * dv].
struct LinearAttentionArgs {
  const NDArray* q = nullptr;
  const NDArray* k = nullptr;
  const NDArray* v = nullptr;
  const NDArray* decay = nullptr;
  const NDArray* beta = nullptr;
  NDArray* state = nullptr;
  NDArray* out = nullptr;
};

// Both run on arrays whose newest copy is where they compute (the caller
// syncs) and mark state and out written there.
void linear_attention_cpu(const LinearAttentionDesc& d, DataType ct, const LinearAttentionArgs& a);

// The same on a device.
using LinearAttentionDeviceFn = Status (*)(Device device, const LinearAttentionDesc& d, DataType ct,
                                           const LinearAttentionArgs& a);
extern DeviceKernel<LinearAttentionDeviceFn> linear_attention_device_kernel;

}  // namespace libops::ops::nn
