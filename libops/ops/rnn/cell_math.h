// The arithmetic of one recurrent cell, shared by the CPU loops
// (recurrent.cpp) and the CUDA kernels (recurrent.cu), so both devices
// compute the same formulas in the same order (Note [Recurrent layers]).
#pragma once

#include <math.h>

#include <cstdint>
#include <type_traits>

#include "libops/core/host_device.h"
#include "libops/ops/rnn/recurrent.h"

namespace libops::ops::rnn {

// The C library's functions, which CUDA also provides on the device.
template <typename C>
LIBOPS_HOST_DEVICE inline C exp_of(C x) {
  if constexpr (std::is_same_v<C, float>) return ::expf(x);
  else return ::exp(x);
}
template <typename C>
LIBOPS_HOST_DEVICE inline C tanh_of(C x) {
  if constexpr (std::is_same_v<C, float>) return ::tanhf(x);
  else return ::tanh(x);
}
template <typename C>
LIBOPS_HOST_DEVICE inline C log1p_of(C x) {
  if constexpr (std::is_same_v<C, float>) return ::log1pf(x);
  else return ::log1p(x);
}

// libnd4j's activations (ONNX's names where they differ): alpha and beta as
// ONNX's activation_alpha / activation_beta give them.
template <typename C>
LIBOPS_HOST_DEVICE inline C activate(Activation kind, C alpha, C beta, C x) {
  switch (kind) {
    case Activation::kTanh: return tanh_of(x);
    case Activation::kRelu: return x > C(0) ? x : (x != x ? x : C(0));
    case Activation::kSigmoid: return C(1) / (C(1) + exp_of(-x));
    case Activation::kAffine: return alpha * x + beta;
    case Activation::kLeakyRelu: return x < C(0) ? alpha * x : x;
    case Activation::kThresholdedRelu: return x > alpha ? x : (x != x ? x : C(0));
    case Activation::kScaledTanh: return alpha * tanh_of(beta * x);
    case Activation::kHardSigmoid: {
      const C v = alpha * x + beta;
      return v != v ? v : (v < C(0) ? C(0) : (v > C(1) ? C(1) : v));
    }
    case Activation::kElu: return x < C(0) ? alpha * (exp_of(x) - C(1)) : x;
    case Activation::kSoftsign: return x / (C(1) + (x < C(0) ? -x : x));
    case Activation::kSoftplus: return (x > C(0) ? x : C(0)) + log1p_of(exp_of(x < C(0) ? x : -x));  // no overflow
  }
  return x;
}

template <typename C>
LIBOPS_HOST_DEVICE inline C activate(const ActivationFn& a, C x) {
  return activate<C>(a.kind, static_cast<C>(a.alpha), static_cast<C>(a.beta), x);
}

// The time index of batch row b at step s, or -1 when the row's sequence
// has ended (s >= its length).
LIBOPS_HOST_DEVICE inline int64_t step_time(int64_t T, bool reverse, const int64_t* lengths, int64_t b, int64_t s) {
  const int64_t len = lengths != nullptr ? lengths[b] : T;
  if (s >= len) return -1;
  return reverse ? len - 1 - s : s;
}

LIBOPS_HOST_DEVICE inline bool step_reversed(const RnnDesc& d, int direction) {
  return d.directions == 2 ? direction == 1 : d.reverse;
}

// One unit j of batch row b at step.s: the whole cell of phase 0 or 2, or
// GRU's phase 1. C is float or double; every pointer is in C.
template <typename C>
LIBOPS_HOST_DEVICE inline void cell_unit(const RnnDesc& d, const CellStep& st, int64_t b, int64_t j) {
  const int64_t H = d.H, GH = d.gate_count() * H;
  const int64_t t = step_time(d.T, step_reversed(d, st.direction), st.lengths, b, st.s);
  const C* gx = static_cast<const C*>(st.gx);
  C* gh = static_cast<C*>(st.gh);
  const C* bx = static_cast<const C*>(st.bx);
  const C* bh = static_cast<const C*>(st.bh);
  C* h = static_cast<C*>(st.h) + b * H;
  C* y = st.y != nullptr ? static_cast<C*>(st.y) + st.direction * d.y_d + b * d.y_n + j * d.y_h : nullptr;
  if (t < 0) {  // the row's sequence is over: the state stays, y gets 0
    if (st.phase == 1) static_cast<C*>(st.rh)[b * H + j] = C(0);
    else if (y != nullptr && !st.accumulate) y[st.s * d.y_t] = C(0);
    return;
  }
  const C* gxr = gx + (t * d.N + b) * GH;
  const C* ghr = gh + b * GH;
  // Gate k's pre-activation: x and h projections plus both biases.
  auto pre = [&](int block) {
    const int64_t col = block * H + j;
    C v = gxr[col] + ghr[col];
    if (bx != nullptr) v += bx[col];
    if (bh != nullptr) v += bh[col];
    return v;
  };
  if (d.kind == CellKind::kLstm) {
    C* c = static_cast<C*>(st.c) + b * H;
    const C* p = static_cast<const C*>(st.peep);
    const C c_prev = c[j];
    C gi = pre(d.gates.block[0]), gf = pre(d.gates.block[1]), go = pre(d.gates.block[3]);
    if (p != nullptr) {
      gi += p[d.gates.peephole[0] * H + j] * c_prev;
      gf += p[d.gates.peephole[1] * H + j] * c_prev;
    }
    const C i = activate<C>(d.gate_act, gi), f = activate<C>(d.gate_act, gf);
    const C g = activate<C>(d.cell_act, pre(d.gates.block[2]));
    C c_new = f * c_prev + i * g;
    if (d.cell_clip > 0) {
      const C clip = static_cast<C>(d.cell_clip);
      c_new = c_new < -clip ? -clip : (c_new > clip ? clip : c_new);
    }
    if (p != nullptr) go += p[d.gates.peephole[2] * H + j] * c_new;
    const C o = activate<C>(d.gate_act, go);
    const C h_new = o * activate<C>(d.out_act, c_new);
    c[j] = c_new;
    h[j] = h_new;
    if (y != nullptr) {
      if (st.accumulate) y[t * d.y_t] += h_new;
      else y[t * d.y_t] = h_new;
    }
    return;
  }
  if (d.kind == CellKind::kRnn) {
    const C h_new = activate<C>(d.cell_act, pre(0));
    h[j] = h_new;
    if (y != nullptr) {
      if (st.accumulate) y[t * d.y_t] += h_new;
      else y[t * d.y_t] = h_new;
    }
    return;
  }
  // GRU: z block 0 or 1, r the other, n block 2 (GateLayout).
  const int64_t zcol = d.gates.block[0] * H + j, ncol = 2 * H + j;
  if (st.phase == 1) {
    const C z = activate<C>(d.gate_act, pre(d.gates.block[0]));
    const C r = activate<C>(d.gate_act, pre(d.gates.block[1]));
    gh[b * GH + zcol] = z;  // read back by phase 2
    static_cast<C*>(st.rh)[b * H + j] = r * h[j];
    return;
  }
  C z, n;
  if (st.phase == 2) {  // gh's n block holds (r * h) * Rn
    z = gh[b * GH + zcol];
    n = activate<C>(d.cell_act, pre(2));
  } else {              // linear_before_reset: n = g(xn + bxn + r * (h * Rn + bhn))
    z = activate<C>(d.gate_act, pre(d.gates.block[0]));
    const C r = activate<C>(d.gate_act, pre(d.gates.block[1]));
    C xn = gxr[ncol], hn = ghr[ncol];
    if (bx != nullptr) xn += bx[ncol];
    if (bh != nullptr) hn += bh[ncol];
    n = activate<C>(d.cell_act, xn + r * hn);
  }
  const C h_new = z * h[j] + (C(1) - z) * n;
  h[j] = h_new;
  if (y != nullptr) {
    if (st.accumulate) y[t * d.y_t] += h_new;
    else y[t * d.y_t] = h_new;
  }
}

}  // namespace libops::ops::rnn
