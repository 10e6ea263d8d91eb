// The recurrent engine behind lstm_layer and gru: the input projection of
// every time step in one GEMM, then per step one GEMM of the previous state
// and one fused cell kernel, on the call's device.
//
// Note [Recurrent layers]
// Every sequence is staged as x [T, N, I] (time-major) in the compute dtype
// (float32, or float64 for float64 inputs). For each direction d:
//   1. gx [T*N, G*H] = x [T*N, I] * W_d        one GEMM (G = 4 gates for
//                                              LSTM, 3 for GRU, 1 for RNN)
//   2. for s = 0 .. T-1:
//        gh [N, G*H] = h [N, H] * R_d          one GEMM (GRU without
//                                              linear_before_reset: two)
//        the cell kernel: per batch row b, the time index
//          t = s (forward) or len_b - 1 - s (reverse, len_b the row's
//          sequence length, T without seq_len);
//          a row with s >= len_b keeps its state and writes 0 to y[s, b];
//          else gates from gx[t, b] + bx + gh[b] + bh, the new state in
//          place in h (and c), and h written to y[t, b].
// The weight layouts differ only in where a gate's block of H columns sits
// and whether W is stored [I, G*H] (libnd4j: x * W) or [G*H, I] (ONNX:
// x * W^T), so no weight is copied or reordered: the GEMMs read them as
// they are, and RnnDesc's gate blocks name the columns.
//   LSTM  i = f(gi + pi * c), f = f(gf + pf * c), g = g(gg),
//         c' = clip(f * c + i * g), o = f(go + po * c'), h' = o * h(c')
//         (p the peepholes, clip by cell_clip when > 0)
//   GRU   z = f(gz), r = f(gr),
//         n = g(xn + bxn + (r * h) * Rn + bhn)     (linear_before_reset 0)
//         n = g(xn + bxn + r * (h * Rn + bhn))     (linear_before_reset 1)
//         h' = z * h + (1 - z) * n
//   RNN   h' = act(g)   (the cell activation)
// The output y is written straight into the op's output layout through
// four strides (time, batch, direction, unit), so the time-major, batch-
// major, feature-major and ONNX layouts need no transpose afterwards; a
// bidirectional sum adds the reverse pass into the forward one's y.
// The final states are the h and c state arrays themselves. On the CPU at
// two or more threads the two directions of a layer that writes them apart
// run at once, a thread each (Note [Directions side by side] in
// recurrent.cpp); otherwise an LSTM may run each direction's steps as a
// team (Note [LSTM steps in a team]).
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/context.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops::rnn {

enum class CellKind : int { kLstm, kGru, kRnn };

// libnd4j's activation codes (lstmLayer's gateAct, cellAct, outAct).
enum class Activation : int {
  kTanh = 0, kRelu = 1, kSigmoid = 2, kAffine = 3, kLeakyRelu = 4, kThresholdedRelu = 5,
  kScaledTanh = 6, kHardSigmoid = 7, kElu = 8, kSoftsign = 9, kSoftplus = 10,
};
constexpr int kNumActivations = 11;

struct ActivationFn {
  Activation kind = Activation::kTanh;
  double alpha = 1.0, beta = 0.0;  // affine, leaky/thresholded relu, scaled tanh, hard sigmoid, elu
};

// Gate blocks: the column block (0 .. G-1) of each gate in W, R and the
// biases, and the peephole block of i, f and o.
struct GateLayout {
  // LSTM: i, f, g, o. GRU: z (update), r (reset), n (candidate), unused.
  int block[4] = {0, 1, 2, 3};
  int peephole[3] = {0, 1, 2};  // LSTM: i, f, o
};

struct RnnDesc {
  CellKind kind = CellKind::kLstm;
  int64_t T = 0, N = 0, I = 0, H = 0;
  int directions = 1;      // 1 or 2 (direction d = 1 runs reversed)
  bool reverse = false;    // with directions == 1: the one pass runs reversed
  bool sum_directions = false;  // direction 1 adds into y rather than writing
  bool w_transposed = false;    // W [G*H, I] and R [G*H, H] (ONNX); else [I, G*H], [H, G*H]
  bool linear_before_reset = false;  // GRU
  double cell_clip = 0;   // LSTM, > 0: c' clipped to [-cell_clip, cell_clip]
  ActivationFn gate_act{Activation::kSigmoid}, cell_act{Activation::kTanh}, out_act{Activation::kTanh};
  GateLayout gates;
  // y's strides (elements) over time, batch, direction and unit.
  int64_t y_t = 0, y_n = 0, y_d = 0, y_h = 1;
  LIBOPS_HOST_DEVICE int gate_count() const {
    return kind == CellKind::kLstm ? 4 : (kind == CellKind::kGru ? 3 : 1);
  }
};

// What one cell kernel call sees: direction d, step s. Pointers are into
// the device's memory, in the compute dtype; nullptr where absent.
//   phase 0  LSTM, or GRU with linear_before_reset: the whole step
//   phase 1  GRU without it: z and r; z kept in gh's z block, r * h into rh
//   phase 2  GRU without it: the candidate and the new state
struct CellStep {
  int phase = 0;
  int direction = 0;
  int64_t s = 0;
  const void* gx = nullptr;   // [T, N, G*H]: this direction's x * W
  void* gh = nullptr;         // [N, G*H]: h * R (phase 1 rewrites its z block)
  const void* bx = nullptr;   // [G*H], added to gx
  const void* bh = nullptr;   // [G*H], added to gh (inside r * (...) for GRU's n)
  const void* peep = nullptr; // [3*H], LSTM
  const int64_t* lengths = nullptr;  // [N], each in [0, T]; nullptr: all T
  void* h = nullptr;          // [N, H] state, updated in place
  void* c = nullptr;          // [N, H] LSTM cell state
  void* rh = nullptr;         // [N, H] GRU phase 1 output: r * h
  void* y = nullptr;          // the output, desc's strides; nullptr: not wanted
  bool accumulate = false;    // y += h rather than y = h
};

using CellDeviceFn = Status (*)(Device device, DataType ct, const RnnDesc& desc, const CellStep& step);
extern DeviceKernel<CellDeviceFn> cell_device_kernel;

// The CPU's cell (also what a test's fake device runs); ct float32 or float64.
void cell_cpu(DataType ct, const RnnDesc& desc, const CellStep& step);

// What the engine reads, all on block.device() (any layout and float dtype:
// they are staged dense in the compute dtype here).
struct RnnOperands {
  const NDArray* x = nullptr;    // [T, N, I] view (the op permutes its layout into this)
  const NDArray* w = nullptr;    // [D, I, G*H] or [D, G*H, I] (w_transposed)
  const NDArray* r = nullptr;    // [D, H, G*H] or [D, G*H, H]
  const NDArray* bx = nullptr;   // [D, G*H] or nullptr
  const NDArray* bh = nullptr;   // [D, G*H] or nullptr
  const NDArray* peep = nullptr; // [D, 3*H] or nullptr
  const NDArray* lengths = nullptr;  // [N] integers or nullptr
  const NDArray* h0 = nullptr;   // [D, N, H] or nullptr (zeros)
  const NDArray* c0 = nullptr;   // [D, N, H] or nullptr (zeros)
};

// Outputs (nullptr when not wanted): y in desc's strides, dense, of the
// size those strides span; h_last and c_last [D, N, H]. Their dtype is the
// output's; the engine stages in the compute dtype and converts.
Status run_recurrent(Context& block, const RnnDesc& desc, const RnnOperands& in, NDArray* y, NDArray* h_last,
                     NDArray* c_last);

// The activation's name for errors and docs ("sigmoid", "hard_sigmoid", ...).
const char* activation_name(Activation a);

}  // namespace libops::ops::rnn
