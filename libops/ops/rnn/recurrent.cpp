// The recurrent engine (Note [Recurrent layers] in recurrent.h).
#include "libops/ops/rnn/recurrent.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "blas/gemm.h"
#include "blas/packed_gemm.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/fast_math.h"
#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/linalg/matrix_staging.h"
#include "libops/ops/rnn/cell_math.h"

namespace libops::ops::rnn {

DeviceKernel<CellDeviceFn> cell_device_kernel;

const char* activation_name(Activation a) {
  static const char* const kNames[kNumActivations] = {"tanh",         "relu",     "sigmoid",     "affine",
                                                      "leaky_relu",   "thresholded_relu", "scaled_tanh",
                                                      "hard_sigmoid", "elu",      "softsign",    "softplus"};
  const int k = static_cast<int>(a);
  return k >= 0 && k < kNumActivations ? kNames[k] : "?";
}

namespace {

template <typename C>
void cell_rows(const RnnDesc& d, const CellStep& st) {
  const int64_t H = d.H;
  parallel_for(d.N * H, std::max<int64_t>(1, 4096), [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) cell_unit<C>(d, st, k / H, k % H);
  });
}

// Note [Fast LSTM rows]
// cell_unit calls the C library's expf and tanhf per unit, which keeps the
// loop scalar: at batch 16 and H = 512 they took 30% of an LSTM layer's
// time. For float32 with the usual activations (sigmoid gates, tanh cell
// and output) the CPU instead runs a row at a time, gate by gate over
// contiguous units, with exp_f32 (core/fast_math.h), so the compiler
// vectorizes every loop:
//   sigmoid(v) = 1 / (1 + exp(-v))
//   tanh(v)    = tanh_f32(v), the tanh op's own (Note [Tanh as one rational
//                function] in core/fast_math.h)
// Within a few float ulps of the libm forms (the goldens' 1e-4 relative
// tolerance for float32 holds them); NaN and +-inf come out as from libm.
// The same formulas as cell_unit, in the same order otherwise.
// Where cpu_isa() is avx512 a row instead goes 16 units at a time in one
// pass (lstm_row_f32_x16), the gates in registers, with the sigmoid and
// tanh ops' own 16-lane kernels and the next row's x * W prefetched: the
// cell's share of LSTM T64 N16 H512 at one thread fell from 6.2% to 3.9%
// of the samples, and the layer from 30.9 to 30.4 ms (ops-run medians).
// Where it is avx2, 8 units at a time the same way (lstm_units_f32_x8).
inline float sigmoid_f32(float v) { return 1.0f / (1.0f + exp_f32(-v)); }

bool fast_lstm_rows(const RnnDesc& d, const CellStep& st) {
  return d.kind == CellKind::kLstm && st.phase == 0 && d.gate_act.kind == Activation::kSigmoid &&
         d.cell_act.kind == Activation::kTanh && d.out_act.kind == Activation::kTanh;
}

// What one batch row of an LSTM step (float32) reads and writes.
struct LstmRow {
  const float *gx, *gh, *bx, *bh;  // gx and gh at the row; the biases [4H] or nullptr
  const float *pi, *pf, *po;       // the peepholes [H] or nullptr
  float *c, *h;                    // the row's state
  float* y;                        // y at (step's time, row), desc's strides; nullptr: not wanted
  int64_t col[4];                  // the i, f, g, o column blocks of gx and the biases
  int64_t gh_col[4];               // the same in gh: col, unless gh holds a slice of the units
};

// Row b's operands at step st; false (after cell_unit's bookkeeping) when
// the row's sequence has ended.
bool lstm_row(const RnnDesc& d, const CellStep& st, int64_t b, LstmRow& r) {
  const int64_t H = d.H, GH = 4 * H;
  const int64_t t = step_time(d.T, step_reversed(d, st.direction), st.lengths, b, st.s);
  if (t < 0) {
    for (int64_t j = 0; j < H; ++j) cell_unit<float>(d, st, b, j);
    return false;
  }
  const float* peep = static_cast<const float*>(st.peep);
  r.gx = static_cast<const float*>(st.gx) + (t * d.N + b) * GH;
  r.gh = static_cast<const float*>(st.gh) + b * GH;
  r.bx = static_cast<const float*>(st.bx);
  r.bh = static_cast<const float*>(st.bh);
  r.pi = peep != nullptr ? peep + d.gates.peephole[0] * H : nullptr;
  r.pf = peep != nullptr ? peep + d.gates.peephole[1] * H : nullptr;
  r.po = peep != nullptr ? peep + d.gates.peephole[2] * H : nullptr;
  r.c = static_cast<float*>(st.c) + b * H;
  r.h = static_cast<float*>(st.h) + b * H;
  r.y = st.y != nullptr ? static_cast<float*>(st.y) + st.direction * d.y_d + b * d.y_n + t * d.y_t : nullptr;
  for (int k = 0; k < 4; ++k) r.gh_col[k] = r.col[k] = d.gates.block[k] * H;
  return true;
}

// One batch row of the LSTM step; buf holds 4H floats.
void lstm_row_f32(const RnnDesc& d, const CellStep& st, int64_t b, float* buf) {
  LstmRow r;
  if (!lstm_row(d, st, b, r)) return;
  const int64_t H = d.H;
  const float *bx = r.bx, *bh = r.bh, *pi = r.pi, *pf = r.pf, *po = r.po;
  float *c = r.c, *h = r.h;
  float* pre[4];
  for (int k = 0; k < 4; ++k) {  // i, f, g, o pre-activations
    float* p = pre[k] = buf + k * H;
    const int64_t col = r.col[k];
    for (int64_t j = 0; j < H; ++j) p[j] = r.gx[col + j] + r.gh[col + j];
    if (bx != nullptr)
      for (int64_t j = 0; j < H; ++j) p[j] += bx[col + j];
    if (bh != nullptr)
      for (int64_t j = 0; j < H; ++j) p[j] += bh[col + j];
  }
  if (pi != nullptr)
    for (int64_t j = 0; j < H; ++j) pre[0][j] += pi[j] * c[j], pre[1][j] += pf[j] * c[j];
  const float clip = static_cast<float>(d.cell_clip);
  for (int64_t j = 0; j < H; ++j) {
    float cn = sigmoid_f32(pre[1][j]) * c[j] + sigmoid_f32(pre[0][j]) * tanh_f32(pre[2][j]);
    if (clip > 0) cn = cn < -clip ? -clip : (cn > clip ? clip : cn);
    c[j] = cn;
  }
  if (po != nullptr)
    for (int64_t j = 0; j < H; ++j) pre[3][j] += po[j] * c[j];
  for (int64_t j = 0; j < H; ++j) h[j] = sigmoid_f32(pre[3][j]) * tanh_f32(c[j]);
  float* y = r.y;
  if (y == nullptr) return;
  if (st.accumulate)
    for (int64_t j = 0; j < H; ++j) y[j * d.y_h] += h[j];
  else
    for (int64_t j = 0; j < H; ++j) y[j * d.y_h] = h[j];
}

#if LIBOPS_HAVE_EXP_F32_X8
// h's values of units j .. j + count - 1 (lanes) into y, desc's unit
// stride, added to what y holds where st.accumulate: the vector rows' y
// where its units are not adjacent.
inline void scatter_y(const RnnDesc& d, const CellStep& st, float* y, int64_t j, const float* lanes, int64_t count) {
  for (int64_t u = 0; u < count; ++u) {
    float& out = y[(j + u) * d.y_h];
    out = st.accumulate ? out + lanes[u] : lanes[u];
  }
}

// A gate's pre-activation at column col: x and h projections plus both
// biases (nullptr where absent), in cell_unit's order.
LIBOPS_TARGET_AVX512 inline __m512 gate_pre_x16(__mmask16 m, const float* gx, const float* gh, const float* bx,
                                                const float* bh, int64_t col) {
  __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, gx + col), _mm512_maskz_loadu_ps(m, gh + col));
  if (bx != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bx + col));
  if (bh != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bh + col));
  return v;
}

// h's 16 lanes (m of them) into y at units j.., desc's unit stride, added
// to what y holds where st.accumulate.
LIBOPS_TARGET_AVX512 inline void store_y_x16(const RnnDesc& d, const CellStep& st, float* y, int64_t j, __mmask16 m,
                                             __m512 hn) {
  if (d.y_h == 1) {
    _mm512_mask_storeu_ps(y + j, m, st.accumulate ? _mm512_add_ps(_mm512_maskz_loadu_ps(m, y + j), hn) : hn);
    return;
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, hn);
  scatter_y(d, st, y, j, lanes, std::countr_one(static_cast<unsigned>(m)));
}

// lstm_row_f32 on 16 units at a time where cpu_isa() is avx512: one pass
// over the row, the gates in registers, with the sigmoid and tanh ops' own
// 16-lane forms (core/fast_math.h), which the compiler's vectorization of
// sigmoid_f32 / tanh_f32 cannot match (Note [Fast LSTM rows]). Same
// operations in the same order as lstm_row_f32 otherwise. Units [u0, u1)
// of the row (u0 a multiple of 16).
LIBOPS_TARGET_AVX512 void lstm_units_f32_x16(const RnnDesc& d, const CellStep& st, const LstmRow& r, int64_t u0,
                                             int64_t u1) {
  const int64_t H = d.H;
  const float *gxr = r.gx, *ghr = r.gh, *bx = r.bx, *bh = r.bh, *pi = r.pi, *pf = r.pf, *po = r.po;
  const int64_t *col = r.col, *gh_col = r.gh_col;
  float *c = r.c, *h = r.h, *y = r.y;
  // x * W of the next row (the rows of a step are adjacent in gx): its
  // lines come from L3, and waiting on them took a third of this loop.
  const float* gx_next = gxr + 4 * H;
  const float clip = static_cast<float>(d.cell_clip);
  const __m512 hi = _mm512_set1_ps(clip), lo = _mm512_set1_ps(-clip);
  constexpr __mmask16 kAll = 0xffff;
  for (int64_t j = u0; j < u1; j += 16) {
    const __mmask16 m = u1 - j >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (u1 - j)) - 1);
    __m512 pre[4];
    for (int k = 0; k < 4; ++k) {  // i, f, g, o pre-activations
      _mm_prefetch(reinterpret_cast<const char*>(gx_next + col[k] + j), _MM_HINT_T0);
      pre[k] = _mm512_add_ps(_mm512_maskz_loadu_ps(m, gxr + col[k] + j), _mm512_maskz_loadu_ps(m, ghr + gh_col[k] + j));
      if (bx != nullptr) pre[k] = _mm512_add_ps(pre[k], _mm512_maskz_loadu_ps(m, bx + col[k] + j));
      if (bh != nullptr) pre[k] = _mm512_add_ps(pre[k], _mm512_maskz_loadu_ps(m, bh + col[k] + j));
    }
    const __m512 cp = _mm512_maskz_loadu_ps(m, c + j);
    if (pi != nullptr) {
      pre[0] = _mm512_add_ps(pre[0], _mm512_mul_ps(_mm512_maskz_loadu_ps(m, pi + j), cp));
      pre[1] = _mm512_add_ps(pre[1], _mm512_mul_ps(_mm512_maskz_loadu_ps(m, pf + j), cp));
    }
    __m512 cn = _mm512_add_ps(_mm512_mul_ps(sigmoid_f32_x16(pre[1]), cp),
                              _mm512_mul_ps(sigmoid_f32_x16(pre[0]), tanh_f32_x16(pre[2])));
    // NaN stays NaN (the second operand wins); the all-lanes masked forms as
    // in exp_f32_x16, where GCC 12 misreports the unmasked ones.
    if (clip > 0) cn = _mm512_mask_max_ps(cn, kAll, lo, _mm512_mask_min_ps(cn, kAll, hi, cn));
    _mm512_mask_storeu_ps(c + j, m, cn);
    if (po != nullptr) pre[3] = _mm512_add_ps(pre[3], _mm512_mul_ps(_mm512_maskz_loadu_ps(m, po + j), cn));
    const __m512 hn = _mm512_mul_ps(sigmoid_f32_x16(pre[3]), tanh_f32_x16(cn));
    _mm512_mask_storeu_ps(h + j, m, hn);
    if (y != nullptr) store_y_x16(d, st, y, j, m, hn);
  }
}

// The 8-lane forms of gate_pre_x16 and store_y_x16 for avx2: m masks the
// lanes [0, n) of units j.. that exist.
LIBOPS_TARGET_AVX2 inline __m256i units_mask_x8(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(n, 8))),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

LIBOPS_TARGET_AVX2 inline __m256 gate_pre_x8(__m256i m, const float* gx, const float* gh, const float* bx,
                                             const float* bh, int64_t col) {
  __m256 v = _mm256_add_ps(_mm256_maskload_ps(gx + col, m), _mm256_maskload_ps(gh + col, m));
  if (bx != nullptr) v = _mm256_add_ps(v, _mm256_maskload_ps(bx + col, m));
  if (bh != nullptr) v = _mm256_add_ps(v, _mm256_maskload_ps(bh + col, m));
  return v;
}

LIBOPS_TARGET_AVX2 inline void store_y_x8(const RnnDesc& d, const CellStep& st, float* y, int64_t j, int64_t n,
                                          __m256i m, __m256 hn) {
  if (d.y_h == 1) {
    _mm256_maskstore_ps(y + j, m, st.accumulate ? _mm256_add_ps(_mm256_maskload_ps(y + j, m), hn) : hn);
    return;
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, hn);
  scatter_y(d, st, y, j, lanes, std::min<int64_t>(n, 8));
}

// lstm_units_f32_x16 on 8 units at a time where cpu_isa() is avx2: the same
// operations in the same order, with the sigmoid and tanh ops' 8-lane forms
// (the compiler's vectorization of lstm_row_f32 took 8 ns a cell, 8% of
// LSTM T64 N16 H512 at one thread). Units [u0, u1) of the row.
LIBOPS_TARGET_AVX2 void lstm_units_f32_x8(const RnnDesc& d, const CellStep& st, const LstmRow& r, int64_t u0,
                                          int64_t u1) {
  const int64_t H = d.H;
  const float *gxr = r.gx, *ghr = r.gh, *bx = r.bx, *bh = r.bh, *pi = r.pi, *pf = r.pf, *po = r.po;
  const int64_t *col = r.col, *gh_col = r.gh_col;
  float *c = r.c, *h = r.h, *y = r.y;
  const float* gx_next = gxr + 4 * H;  // as in lstm_units_f32_x16
  const float clip = static_cast<float>(d.cell_clip);
  const __m256 hi = _mm256_set1_ps(clip), lo = _mm256_set1_ps(-clip);
  for (int64_t j = u0; j < u1; j += 8) {
    const __m256i m = units_mask_x8(u1 - j);
    __m256 pre[4];
    for (int k = 0; k < 4; ++k) {  // i, f, g, o pre-activations
      _mm_prefetch(reinterpret_cast<const char*>(gx_next + col[k] + j), _MM_HINT_T0);
      pre[k] = _mm256_add_ps(_mm256_maskload_ps(gxr + col[k] + j, m), _mm256_maskload_ps(ghr + gh_col[k] + j, m));
      if (bx != nullptr) pre[k] = _mm256_add_ps(pre[k], _mm256_maskload_ps(bx + col[k] + j, m));
      if (bh != nullptr) pre[k] = _mm256_add_ps(pre[k], _mm256_maskload_ps(bh + col[k] + j, m));
    }
    const __m256 cp = _mm256_maskload_ps(c + j, m);
    if (pi != nullptr) {
      pre[0] = _mm256_add_ps(pre[0], _mm256_mul_ps(_mm256_maskload_ps(pi + j, m), cp));
      pre[1] = _mm256_add_ps(pre[1], _mm256_mul_ps(_mm256_maskload_ps(pf + j, m), cp));
    }
    __m256 cn = _mm256_add_ps(_mm256_mul_ps(sigmoid_f32_x8(pre[1]), cp),
                              _mm256_mul_ps(sigmoid_f32_x8(pre[0]), tanh_f32_x8(pre[2])));
    // max / min return their second operand where either is NaN: NaN stays.
    if (clip > 0) cn = _mm256_max_ps(lo, _mm256_min_ps(hi, cn));
    _mm256_maskstore_ps(c + j, m, cn);
    if (po != nullptr) pre[3] = _mm256_add_ps(pre[3], _mm256_mul_ps(_mm256_maskload_ps(po + j, m), cn));
    const __m256 hn = _mm256_mul_ps(sigmoid_f32_x8(pre[3]), tanh_f32_x8(cn));
    _mm256_maskstore_ps(h + j, m, hn);
    if (y != nullptr) store_y_x8(d, st, y, j, u1 - j, m, hn);
  }
}

// Units [u0, u1) of an LSTM row by this CPU's widest lanes (avx2 or above).
void lstm_units_f32(const RnnDesc& d, const CellStep& st, const LstmRow& r, int64_t u0, int64_t u1) {
  if (cpu_isa() == CpuIsa::kAvx512) lstm_units_f32_x16(d, st, r, u0, u1);
  else lstm_units_f32_x8(d, st, r, u0, u1);
}
#endif

#if LIBOPS_HAVE_EXP_F32_X8
// What one batch row of a GRU or simple RNN step (float32) reads and writes,
// for the vector rows below.
struct GateRow {
  const float *gx, *bx, *bh;  // gx at the row; the biases [G H] or nullptr
  float *gh, *h;              // gh at the row (a GRU keeps z there); the row's state
  float* y;                   // y at (step's time, row), desc's strides; nullptr: not wanted
};

// Row b's operands at step st for G gate blocks; false (after cell_unit's
// bookkeeping) when the row's sequence has ended.
bool gate_row(const RnnDesc& d, const CellStep& st, int64_t b, int64_t gates, GateRow& r) {
  const int64_t H = d.H, GH = gates * H;
  const int64_t t = step_time(d.T, step_reversed(d, st.direction), st.lengths, b, st.s);
  if (t < 0) {
    for (int64_t j = 0; j < H; ++j) cell_unit<float>(d, st, b, j);
    return false;
  }
  r.gx = static_cast<const float*>(st.gx) + (t * d.N + b) * GH;
  r.gh = static_cast<float*>(st.gh) + b * GH;
  r.bx = static_cast<const float*>(st.bx);
  r.bh = static_cast<const float*>(st.bh);
  r.h = static_cast<float*>(st.h) + b * H;
  r.y = st.y != nullptr ? static_cast<float*>(st.y) + st.direction * d.y_d + b * d.y_n + t * d.y_t : nullptr;
  return true;
}

bool fast_gru_rows(const RnnDesc& d) {
  return d.kind == CellKind::kGru && d.gate_act.kind == Activation::kSigmoid && d.cell_act.kind == Activation::kTanh &&
         cpu_isa() >= CpuIsa::kAvx2;
}

// Note [Fast GRU rows]
// cell_unit's GRU took the C library's expf and tanhf a unit at a time,
// half of a GRU T64 N16 H512 layer's time. For float32 with sigmoid gates
// and a tanh candidate on AVX-512, a batch row runs 16 units at a time with
// the sigmoid and tanh ops' 16-lane kernels, the same formulas in the same
// order as cell_unit for each phase (Note [Recurrent layers]); on AVX2, 8
// units at a time with their 8-lane kernels (gru_row_f32_x8). A row whose
// sequence has ended keeps cell_unit's bookkeeping.
LIBOPS_TARGET_AVX512 void gru_row_f32_x16(const RnnDesc& d, const CellStep& st, int64_t b) {
  const int64_t H = d.H;
  GateRow row;
  if (!gate_row(d, st, b, 3, row)) return;
  const float *gxr = row.gx, *bx = row.bx, *bh = row.bh;
  float *ghr = row.gh, *h = row.h, *y = row.y;
  const int64_t zc = d.gates.block[0] * H, rc = d.gates.block[1] * H, nc = 2 * H;
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t j = 0; j < H; j += 16) {
    const __mmask16 m = H - j >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (H - j)) - 1);
    const __m512 hp = _mm512_maskz_loadu_ps(m, h + j);
    if (st.phase == 1) {  // z kept in gh's z block, r * h into rh
      const __m512 z = sigmoid_f32_x16(gate_pre_x16(m, gxr, ghr, bx, bh, zc + j)), r = sigmoid_f32_x16(gate_pre_x16(m, gxr, ghr, bx, bh, rc + j));
      _mm512_mask_storeu_ps(ghr + zc + j, m, z);
      _mm512_mask_storeu_ps(static_cast<float*>(st.rh) + b * H + j, m, _mm512_mul_ps(r, hp));
      continue;
    }
    __m512 z, n;
    if (st.phase == 2) {  // gh's n block holds (r * h) * Rn
      z = _mm512_maskz_loadu_ps(m, ghr + zc + j);
      n = tanh_f32_x16(gate_pre_x16(m, gxr, ghr, bx, bh, nc + j));
    } else {  // linear_before_reset: n = g(xn + bxn + r * (h * Rn + bhn))
      z = sigmoid_f32_x16(gate_pre_x16(m, gxr, ghr, bx, bh, zc + j));
      const __m512 r = sigmoid_f32_x16(gate_pre_x16(m, gxr, ghr, bx, bh, rc + j));
      __m512 xn = _mm512_maskz_loadu_ps(m, gxr + nc + j), hn = _mm512_maskz_loadu_ps(m, ghr + nc + j);
      if (bx != nullptr) xn = _mm512_add_ps(xn, _mm512_maskz_loadu_ps(m, bx + nc + j));
      if (bh != nullptr) hn = _mm512_add_ps(hn, _mm512_maskz_loadu_ps(m, bh + nc + j));
      n = tanh_f32_x16(_mm512_add_ps(xn, _mm512_mul_ps(r, hn)));
    }
    const __m512 hn = _mm512_add_ps(_mm512_mul_ps(z, hp), _mm512_mul_ps(_mm512_sub_ps(one, z), n));
    _mm512_mask_storeu_ps(h + j, m, hn);
    if (y != nullptr) store_y_x16(d, st, y, j, m, hn);
  }
}

LIBOPS_TARGET_AVX2 void gru_row_f32_x8(const RnnDesc& d, const CellStep& st, int64_t b) {
  const int64_t H = d.H;
  GateRow row;
  if (!gate_row(d, st, b, 3, row)) return;
  const float *gxr = row.gx, *bx = row.bx, *bh = row.bh;
  float *ghr = row.gh, *h = row.h, *y = row.y;
  const int64_t zc = d.gates.block[0] * H, rc = d.gates.block[1] * H, nc = 2 * H;
  const __m256 one = _mm256_set1_ps(1.0f);
  for (int64_t j = 0; j < H; j += 8) {
    const __m256i m = units_mask_x8(H - j);
    const __m256 hp = _mm256_maskload_ps(h + j, m);
    if (st.phase == 1) {  // z kept in gh's z block, r * h into rh
      const __m256 z = sigmoid_f32_x8(gate_pre_x8(m, gxr, ghr, bx, bh, zc + j));
      const __m256 r = sigmoid_f32_x8(gate_pre_x8(m, gxr, ghr, bx, bh, rc + j));
      _mm256_maskstore_ps(ghr + zc + j, m, z);
      _mm256_maskstore_ps(static_cast<float*>(st.rh) + b * H + j, m, _mm256_mul_ps(r, hp));
      continue;
    }
    __m256 z, n;
    if (st.phase == 2) {  // gh's n block holds (r * h) * Rn
      z = _mm256_maskload_ps(ghr + zc + j, m);
      n = tanh_f32_x8(gate_pre_x8(m, gxr, ghr, bx, bh, nc + j));
    } else {  // linear_before_reset: n = g(xn + bxn + r * (h * Rn + bhn))
      z = sigmoid_f32_x8(gate_pre_x8(m, gxr, ghr, bx, bh, zc + j));
      const __m256 r = sigmoid_f32_x8(gate_pre_x8(m, gxr, ghr, bx, bh, rc + j));
      __m256 xn = _mm256_maskload_ps(gxr + nc + j, m), hn = _mm256_maskload_ps(ghr + nc + j, m);
      if (bx != nullptr) xn = _mm256_add_ps(xn, _mm256_maskload_ps(bx + nc + j, m));
      if (bh != nullptr) hn = _mm256_add_ps(hn, _mm256_maskload_ps(bh + nc + j, m));
      n = tanh_f32_x8(_mm256_add_ps(xn, _mm256_mul_ps(r, hn)));
    }
    const __m256 hn = _mm256_add_ps(_mm256_mul_ps(z, hp), _mm256_mul_ps(_mm256_sub_ps(one, z), n));
    _mm256_maskstore_ps(h + j, m, hn);
    if (y != nullptr) store_y_x8(d, st, y, j, H - j, m, hn);
  }
}
#endif

#if LIBOPS_HAVE_EXP_F32_X8
bool fast_rnn_rows(const RnnDesc& d) {
  const Activation a = d.cell_act.kind;
  return d.kind == CellKind::kRnn && (a == Activation::kTanh || a == Activation::kRelu || a == Activation::kSigmoid) &&
         cpu_isa() >= CpuIsa::kAvx2;
}

// A simple RNN's rows, 16 units at a time (8 on avx2: rnn_row_f32_x8), for
// its usual activations (Note [Fast GRU rows]; cell_unit's call a unit took
// half of an RNN T64 N16 H512 layer's time, and from 53 to 14 ms on avx2).
// relu keeps NaN and gives +0 for -0, as activate does.
LIBOPS_TARGET_AVX512 void rnn_row_f32_x16(const RnnDesc& d, const CellStep& st, int64_t b) {
  const int64_t H = d.H;
  GateRow row;
  if (!gate_row(d, st, b, 1, row)) return;
  const float *gxr = row.gx, *ghr = row.gh, *bx = row.bx, *bh = row.bh;
  float *h = row.h, *y = row.y;
  const Activation act = d.cell_act.kind;
  for (int64_t j = 0; j < H; j += 16) {
    const __mmask16 m = H - j >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (H - j)) - 1);
    const __m512 v = gate_pre_x16(m, gxr, ghr, bx, bh, j);
    __m512 hn;
    if (act == Activation::kTanh) {
      hn = tanh_f32_x16(v);
    } else if (act == Activation::kSigmoid) {
      hn = sigmoid_f32_x16(v);
    } else {  // relu: v where v > 0 or NaN, else +0
      const __mmask16 keep = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      hn = _mm512_maskz_mov_ps(keep, v);
    }
    _mm512_mask_storeu_ps(h + j, m, hn);
    if (y != nullptr) store_y_x16(d, st, y, j, m, hn);
  }
}

LIBOPS_TARGET_AVX2 void rnn_row_f32_x8(const RnnDesc& d, const CellStep& st, int64_t b) {
  const int64_t H = d.H;
  GateRow row;
  if (!gate_row(d, st, b, 1, row)) return;
  const float *gxr = row.gx, *ghr = row.gh, *bx = row.bx, *bh = row.bh;
  float *h = row.h, *y = row.y;
  const Activation act = d.cell_act.kind;
  for (int64_t j = 0; j < H; j += 8) {
    const __m256i m = units_mask_x8(H - j);
    const __m256 v = gate_pre_x8(m, gxr, ghr, bx, bh, j);
    __m256 hn;
    if (act == Activation::kTanh) {
      hn = tanh_f32_x8(v);
    } else if (act == Activation::kSigmoid) {
      hn = sigmoid_f32_x8(v);
    } else {  // relu: v where v > 0 or NaN, else +0
      const __m256 keep = _mm256_or_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      hn = _mm256_and_ps(keep, v);
    }
    _mm256_maskstore_ps(h + j, m, hn);
    if (y != nullptr) store_y_x8(d, st, y, j, H - j, m, hn);
  }
}
#endif

// One GEMM of the engine on block.device(): c [m, n] (ldc) = a [m, k] * op(b).
Status gemm(const Context& block, DataType ct, bool trans_b, int64_t m, int64_t n, int64_t k, const void* a,
            int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc) {
  return with_op_name(block, blas::gemm_batched_on(block.device(), ct, false, trans_b, m, n, k, 1.0, a, lda, 0, b,
                                                   ldb, 0, 0.0, c, ldc, 0, 1));
}

// The sequence lengths: checked on the host (N small integers), then an
// int64 array the device's kernels read.
Status stage_lengths(const Context& block, const NDArray& lengths, int64_t T, NDArray& out) {
  RETURN_IF_ERROR(with_op_name(block, const_cast<NDArray&>(lengths).buffer()->sync_to_host()));
  RETURN_IF_ERROR(step_array(block, DataType::kInt64, Dims{lengths.length()}, out));
  for (int64_t b = 0; b < lengths.length(); ++b) {
    const double v = lengths.get_double(b);
    if (!(v >= 0 && v <= static_cast<double>(T)))
      return block.error(StatusCode::kInvalidArgument, "seq_len[%lld] = %g is outside [0, %lld] (the time steps of x)",
                         static_cast<long long>(b), v, static_cast<long long>(T));
    out.set_double(b, v);
  }
  return Status::ok();
}

Status fill_zero(const Context& block, NDArray& a) {
  NDArray zero;
  RETURN_IF_ERROR(NDArray::scalar(a.dtype(), 0.0, zero));
  return assign_on_device(block, a, zero);
}

// A [D, N, H] state in the compute dtype, from `init` (h0 or c0) or zeros:
// the staged output `out` when the caller wants the final state, else
// scratch.
Status stage_state(const Context& block, DataType ct, const Dims& shape, const NDArray* init, NDArray* out,
                   DeviceOutputStage& stage, NDArray& state) {
  if (out != nullptr) {
    RETURN_IF_ERROR(stage.begin(block, *out, ct));
    RETURN_IF_ERROR(with_op_name(block, stage.target().reshape(shape, state)));  // [N, H] -> [1, N, H]
  } else {
    RETURN_IF_ERROR(step_array(block, ct, shape, state));
  }
  return init != nullptr ? assign_on_device(block, state, *init) : fill_zero(block, state);
}

// Note [Packed recurrent weights]
// Each direction's R is packed into oneDNN's layout for its T steps (Note
// [Packed GEMM]). Packing 512 x 2048 floats took 1.5 ms a call, about 5%
// of an LSTM T64 N16 H512 at one thread. Where R is a graph constant (Note
// [Op state]) the packed copies are kept for the session and rebuilt only
// when R's buffer, the shapes or the thread count change. A GRU without
// linear_before_reset multiplies h by R's z and r blocks, then r * h by its
// n block: two packings, which took it from 39 to 24 ms at T64 N16 H512
// (one thread; 52 to 16 ms at two, where OpenBLAS' per-step GEMMs had made
// it slower than one).

// Note [LSTM steps in a team]
// At two or more threads the plain step forks twice: oneDNN's matmul
// splits h * R by columns, then parallel_for splits the cell by rows, and
// the threads meet at the end of each (7% of LSTM T64 N16 H512's samples
// at two threads were threads waiting there). Where the step's cell is a
// vector one (float32 sigmoid / tanh / tanh on AVX-512 or AVX2), there are
// no sequence lengths and R is a constant, the step instead runs in one team
// for all T steps: team member p owns the units [u_p, u_p+1) (multiples of
// 16) and keeps its own packed copy of R's columns for those units' four
// gates, so a step is its GEMM h [N, H] * R_p [H, 4 n_p] and its units'
// cells, and one barrier before the next step reads h. h is kept in two
// buffers, so no member overwrites an h another is still multiplying;
// the state ends in the first. A bidirectional layer whose directions write
// apart runs them side by side instead (Note [Directions side by side]).
struct TeamParts {
  bool usable = false;
  std::vector<int64_t> bounds;  // parts + 1 unit boundaries
  std::vector<std::unique_ptr<blas::PackedGemmF32>> gemm;
  int64_t max_cols = 0;         // the widest part's 4 n_p
};

struct PackedRecurrentWeights : OpState {
  const void* r = nullptr;  // the R input's data the copies were packed from
  int64_t n = 0, gh = 0, h = 0;
  bool trans = false;
  int threads = 0;
  bool side_by_side = false;  // packed for one thread a direction (Note [Directions side by side])
  std::vector<std::unique_ptr<blas::PackedGemmF32>> by_direction;    // R, or a GRU's z and r blocks
  std::vector<std::unique_ptr<blas::PackedGemmF32>> n_by_direction;  // a GRU's n block (two phases)
  std::vector<std::unique_ptr<TeamParts>> team_by_direction;
  // W's packings (Note [Packed input weights]), last run on w_rows rows of x.
  const void* w = nullptr;
  int64_t w_rows = 0;
  std::vector<std::unique_ptr<blas::PackedGemmF32>> w_by_direction;
};

// The node's kept packings where R is a constant input (made afresh when
// R's buffer, the shapes or the thread count change); nullptr otherwise.
PackedRecurrentWeights* kept_packings(Context& block, const RnnOperands& in, int directions, int64_t N, int64_t GH,
                                      int64_t H, bool tb, bool side_by_side = false) {
  const int threads = get_num_threads();
  int r_input = -1;
  for (int i = 0; i < block.num_inputs(); ++i)
    if (block.input(i) == in.r) r_input = i;
  if (r_input < 0 || !block.input_is_constant(r_input)) return nullptr;
  auto* st = dynamic_cast<PackedRecurrentWeights*>(block.op_state());
  if (st == nullptr || st->r != in.r->data() || st->n != N || st->gh != GH || st->h != H || st->trans != tb ||
      st->threads != threads || st->side_by_side != side_by_side ||
      static_cast<int>(st->by_direction.size()) != directions) {
    auto fresh = std::make_unique<PackedRecurrentWeights>();
    fresh->r = in.r->data(), fresh->n = N, fresh->gh = GH, fresh->h = H, fresh->trans = tb, fresh->threads = threads;
    fresh->side_by_side = side_by_side;
    fresh->by_direction.resize(static_cast<size_t>(directions));
    fresh->n_by_direction.resize(static_cast<size_t>(directions));
    fresh->team_by_direction.resize(static_cast<size_t>(directions));
    st = fresh.get();
    block.set_op_state(std::move(fresh));
  }
  return st;
}

// The packed R of direction dir for this call: the node's kept copy where
// R is a constant input, else `local`, packed now. Not packed (the caller
// then runs the plain GEMM) where oneDNN is off or refuses. `cols` columns
// of R from `r_cols` on (all GH of them, or a GRU's z and r blocks or its
// n block: part 0 or 1), written into gh's rows of GH. `side_by_side`:
// packed to run on one thread (Note [Directions side by side]).
blas::PackedGemmF32& packed_r_for(Context& block, const RnnOperands& in, int dir, int directions, int64_t N,
                                  int64_t GH, int64_t H, const void* r_cols, int64_t cols, int part, int64_t ldr,
                                  bool tb, bool side_by_side, blas::PackedGemmF32& local) {
  PackedRecurrentWeights* st = kept_packings(block, in, directions, N, GH, H, tb, side_by_side);
  const int threads = side_by_side ? 1 : get_num_threads();
  if (st == nullptr) {
    (void)local.pack(N, cols, H, static_cast<const float*>(r_cols), ldr, tb, H, GH, threads);
    return local;
  }
  auto& slots = part == 0 ? st->by_direction : st->n_by_direction;
  std::unique_ptr<blas::PackedGemmF32>& kept = slots[static_cast<size_t>(dir)];
  if (kept == nullptr) {
    kept = std::make_unique<blas::PackedGemmF32>();
    (void)kept->pack(N, cols, H, static_cast<const float*>(r_cols), ldr, tb, H, GH, threads);
  }
  return *kept;
}

// Note [Packed input weights]
// The input projection x [T*N, I] * W of every step ran through OpenBLAS,
// which packs W and zeroes the product on every call: a quarter of LSTM
// T64 N16 H512's samples, at 72 GFLOP/s. Where W (like R) is a graph
// constant, each direction's W is packed once for the session, beside R's
// packings, and the product runs on the packed kernels (the panel GEMM on
// AVX2 machines). Made again when W's buffer changes, and for a sequence
// of another length where the plan is for one row count (oneDNN's matmul
// on AVX-512; the panel GEMM takes any).

// Direction dir's packed W for `rows` rows of x where W and R are constant
// inputs on the CPU in float32; nullptr otherwise (the plain GEMM then).
blas::PackedGemmF32* packed_w_for(Context& block, const RnnOperands& in, int dir, int directions, int64_t rows,
                                  int64_t N, int64_t GH, int64_t H, int64_t I, const float* w_dir, int64_t ldw,
                                  bool tb, bool side_by_side) {
  int w_input = -1;
  for (int i = 0; i < block.num_inputs(); ++i)
    if (block.input(i) == in.w) w_input = i;
  if (w_input < 0 || !block.input_is_constant(w_input)) return nullptr;
  PackedRecurrentWeights* st = kept_packings(block, in, directions, N, GH, H, tb, side_by_side);
  if (st == nullptr) return nullptr;
  if (st->w != in.w->data()) {
    st->w = in.w->data(), st->w_rows = rows;
    st->w_by_direction.clear();
    st->w_by_direction.resize(static_cast<size_t>(directions));
  }
  if (st->w_rows != rows) {  // a sequence of another length: only plans made for one row count are made again
    for (std::unique_ptr<blas::PackedGemmF32>& k : st->w_by_direction)
      if (k != nullptr && !k->any_rows()) k.reset();
    st->w_rows = rows;
  }
  std::unique_ptr<blas::PackedGemmF32>& kept = st->w_by_direction[static_cast<size_t>(dir)];
  if (kept == nullptr) {
    kept = std::make_unique<blas::PackedGemmF32>();
    (void)kept->pack(rows, GH, I, w_dir, ldw, tb, I, GH, get_num_threads());
  }
  return kept->packed() ? kept.get() : nullptr;
}

#if LIBOPS_HAVE_EXP_F32_X8
// Direction dir's team parts (Note [LSTM steps in a team]), packed on first
// use; nullptr where the step does not qualify or packing failed.
TeamParts* team_parts_for(Context& block, const RnnDesc& d, const RnnOperands& in, int dir, const float* r_dir,
                          int64_t ldr, bool tb) {
  const int threads = get_num_threads();
  const int64_t H = d.H, N = d.N;
  if (threads < 2 || d.kind != CellKind::kLstm || d.T < 2 || in.lengths != nullptr || H < 16 * threads ||
      cpu_isa() < CpuIsa::kAvx2 || d.gate_act.kind != Activation::kSigmoid ||
      d.cell_act.kind != Activation::kTanh || d.out_act.kind != Activation::kTanh)
    return nullptr;
  PackedRecurrentWeights* st = kept_packings(block, in, d.directions, N, 4 * H, H, tb);
  if (st == nullptr) return nullptr;
  std::unique_ptr<TeamParts>& slot = st->team_by_direction[static_cast<size_t>(dir)];
  if (slot != nullptr) return slot->usable ? slot.get() : nullptr;
  slot = std::make_unique<TeamParts>();
  TeamParts& tp = *slot;
  try {  // out of memory here: the plain steps instead
    for (int p = 0; p < threads; ++p) tp.bounds.push_back((H * p / threads) & ~int64_t{15});
    tp.bounds.push_back(H);
    std::vector<float> sub;
    for (int p = 0; p < threads; ++p) {
      const int64_t u0 = tp.bounds[p], nu = tp.bounds[p + 1] - u0, cols = 4 * nu;
      tp.max_cols = std::max(tp.max_cols, cols);
      // R's columns g H + u for the part's units u, block by block: [H, 4 n_p].
      sub.assign(static_cast<size_t>(H * cols), 0.0f);
      for (int64_t k = 0; k < H; ++k)
        for (int g = 0; g < 4; ++g)
          for (int64_t u = 0; u < nu; ++u) {
            const int64_t col = g * H + u0 + u;
            sub[static_cast<size_t>(k * cols + g * nu + u)] = tb ? r_dir[col * ldr + k] : r_dir[k * ldr + col];
          }
      auto gemm = std::make_unique<blas::PackedGemmF32>();
      if (!gemm->pack(N, cols, H, sub.data(), cols, false, H, cols, 1).is_ok()) return nullptr;  // not usable
      tp.gemm.push_back(std::move(gemm));
    }
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  tp.usable = true;
  return &tp;
}

// All T steps of one direction in a team: st as for the plain steps;
// h_alt [N, H] the second h buffer, gh_parts [parts, N, max_cols] scratch.
Status run_lstm_team(const RnnDesc& d, const CellStep& st0, const TeamParts& tp, float* h_alt, float* gh_parts) {
  const int parts = static_cast<int>(tp.gemm.size());
  const int64_t N = d.N, H = d.H;
  float* const hbuf[2] = {static_cast<float*>(st0.h), h_alt};
  std::atomic<bool> failed{false};
  parallel_team(parts, [&](int t, int team) {
    CellStep st = st0;
    for (int64_t s = 0; s < d.T; ++s) {
      st.s = s;
      const float* h_cur = hbuf[s & 1];
      float* h_next = hbuf[(s + 1) & 1];
      for (int p = t; p < parts; p += team) {  // a smaller team takes several parts
        const int64_t u0 = tp.bounds[p], u1 = tp.bounds[p + 1], cols = 4 * (u1 - u0);
        float* gh = gh_parts + p * N * tp.max_cols;
        if (!tp.gemm[p]->run(h_cur, gh).is_ok()) {
          failed.store(true, std::memory_order_relaxed);
          continue;
        }
        for (int64_t b = 0; b < N; ++b) {
          LstmRow r;
          (void)lstm_row(d, st, b, r);  // no sequence lengths: every row runs
          r.gh = gh + b * cols;
          for (int k = 0; k < 4; ++k) r.gh_col[k] = d.gates.block[k] * (u1 - u0) - u0;
          r.h = h_next + b * H;
          lstm_units_f32(d, st, r, u0, u1);
        }
      }
      team_barrier();
    }
  });
  if (d.T % 2 == 1) std::memcpy(hbuf[0], h_alt, static_cast<size_t>(N * H) * sizeof(float));
  if (failed.load()) return Status::error(StatusCode::kInternal, "the packed recurrent GEMM failed");
  return Status::ok();
}
#endif

}  // namespace

void cell_cpu(DataType ct, const RnnDesc& desc, const CellStep& step) {
  if (ct == DataType::kFloat64) {
    cell_rows<double>(desc, step);
  } else if (fast_lstm_rows(desc, step)) {
    // A task of at least 2048 cells: a cell's gates cost some 40 flops and
    // two exps, so a batch of 16 rows of 512 splits between two threads
    // (with 8192, as before, it ran on one: LSTM T64 N16 H512 at two
    // threads 19.6 -> 17.8 ms).
    parallel_for(desc.N, std::max<int64_t>(1, 2048 / std::max<int64_t>(1, desc.H)), [&](int64_t begin, int64_t end) {
#if LIBOPS_HAVE_EXP_F32_X8
      if (cpu_isa() >= CpuIsa::kAvx2) {
        for (int64_t b = begin; b < end; ++b) {
          LstmRow r;
          if (lstm_row(desc, step, b, r)) lstm_units_f32(desc, step, r, 0, desc.H);
        }
        return;
      }
#endif
      std::vector<float> buf(static_cast<size_t>(4 * desc.H));
      float* row_buf = buf.data();
      // Bound by the gates' arithmetic: 512-bit vectors (Note [Vector width]
      // in core/cpu_isa.h).
      isa_dispatch<true>([&] {
        for (int64_t b = begin; b < end; ++b) lstm_row_f32(desc, step, b, row_buf);
      });
    });
#if LIBOPS_HAVE_EXP_F32_X8
  } else if (fast_gru_rows(desc)) {  // Note [Fast GRU rows]
    parallel_for(desc.N, std::max<int64_t>(1, 2048 / std::max<int64_t>(1, desc.H)), [&](int64_t begin, int64_t end) {
      if (cpu_isa() == CpuIsa::kAvx512) {
        for (int64_t b = begin; b < end; ++b) gru_row_f32_x16(desc, step, b);
      } else {
        for (int64_t b = begin; b < end; ++b) gru_row_f32_x8(desc, step, b);
      }
    });
  } else if (fast_rnn_rows(desc)) {
    parallel_for(desc.N, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, desc.H)), [&](int64_t begin, int64_t end) {
      if (cpu_isa() == CpuIsa::kAvx512) {
        for (int64_t b = begin; b < end; ++b) rnn_row_f32_x16(desc, step, b);
      } else {
        for (int64_t b = begin; b < end; ++b) rnn_row_f32_x8(desc, step, b);
      }
    });
#endif
  } else {
    cell_rows<float>(desc, step);
  }
}

Status run_recurrent(Context& block, const RnnDesc& d, const RnnOperands& in, NDArray* y, NDArray* h_last,
                     NDArray* c_last) {
  const DataType ct = in.x->dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  const int D = d.directions;
  const int64_t T = d.T, N = d.N, I = d.I, H = d.H, GH = d.gate_count() * H;
  const bool lstm = d.kind == CellKind::kLstm;
  const bool two_phase = d.kind == CellKind::kGru && !d.linear_before_reset;
  const Dims state_shape{D, N, H};

  // The final states are where the recurrence keeps its state.
  DeviceOutputStage y_out, h_out, c_out;
  NDArray h_state, c_state;
  RETURN_IF_ERROR(stage_state(block, ct, state_shape, in.h0, h_last, h_out, h_state));
  if (lstm) RETURN_IF_ERROR(stage_state(block, ct, state_shape, in.c0, c_last, c_out, c_state));
  if (y != nullptr) RETURN_IF_ERROR(y_out.begin(block, *y, ct));

  NDArray x, w, r, bx, bh, peep, lengths, gx, gh, rh;
  RETURN_IF_ERROR(dense_on_device(block, *in.x, ct, x));
  RETURN_IF_ERROR(dense_on_device(block, *in.w, ct, w));
  RETURN_IF_ERROR(dense_on_device(block, *in.r, ct, r));
  if (in.bx != nullptr) RETURN_IF_ERROR(dense_on_device(block, *in.bx, ct, bx));
  if (in.bh != nullptr) RETURN_IF_ERROR(dense_on_device(block, *in.bh, ct, bh));
  if (in.peep != nullptr) RETURN_IF_ERROR(dense_on_device(block, *in.peep, ct, peep));
  if (in.lengths != nullptr) RETURN_IF_ERROR(stage_lengths(block, *in.lengths, T, lengths));
  // Note [Directions side by side]
  // A bidirectional layer whose directions write apart (concatenated, or
  // each on its own axis) runs its two step loops at once, a thread each,
  // where two or more threads are asked: each step of a small layer is a
  // few microseconds of work (ocr_rec's LSTM, H 96 and N 2: a [2, 96] x
  // [96, 384] GEMM and 96 units), so splitting every step over the threads
  // (Note [LSTM steps in a team]) spent about as long at the step's barrier
  // as in its work. Each direction has its own scratch and its own packed
  // R for one thread; the x W products are made before, on all threads.
  const bool side_by_side = block.device().is_cpu() && ct == DataType::kFloat32 && D == 2 && !d.sum_directions &&
                            T >= 2 && N * H > 0 && get_num_threads() >= 2 && !libops::detail::in_parallel_region();
  const int64_t sets = side_by_side ? D : 1;  // scratch sets: one a direction side by side
  RETURN_IF_ERROR(step_array(block, ct, Dims{sets * T, N, GH}, gx));
  RETURN_IF_ERROR(step_array(block, ct, Dims{sets * N, GH}, gh));
  if (two_phase) RETURN_IF_ERROR(step_array(block, ct, Dims{sets * N, H}, rh));
  NDArray& yt = y_out.target();
  // What the kernels read is synced as inputs (uploaded where the device
  // copy is stale); the scratch and y only get their device copies.
  RETURN_IF_ERROR(with_op_name(
      block, sync_for_kernel(block.device(),
                             {&x, &w, &r, in.bx ? &bx : nullptr, in.bh ? &bh : nullptr, in.peep ? &peep : nullptr,
                              in.lengths ? &lengths : nullptr, &h_state, lstm ? &c_state : nullptr},
                             gx)));
  RETURN_IF_ERROR(sync_for_kernels(block, {&gh, two_phase ? &rh : nullptr, y != nullptr ? &yt : nullptr}));

  const CellDeviceFn device_cell = block.device().is_cpu() ? nullptr : cell_device_kernel.get(block.device().type);
  if (!block.device().is_cpu() && device_cell == nullptr) return no_device_implementation(block);
  auto run_cell = [&](const CellStep& st) -> Status {
    if (device_cell == nullptr) {
      cell_cpu(ct, d, st);
      return Status::ok();
    }
    return with_op_name(block, device_cell(block.device(), ct, d, st));
  };

  const size_t item = dtype_size(ct);
  auto at = [&](const NDArray& a, int64_t elements) -> void* {
    return static_cast<char*>(kernel_pointer(block, a)) + static_cast<size_t>(elements) * item;
  };
  // W and R as stored: [I, GH] / [H, GH], or transposed [GH, I] / [GH, H].
  const bool tb = d.w_transposed;
  const int64_t ldw = tb ? I : GH, ldr = tb ? H : GH;
  // Direction dir's x W for every step, into scratch set `set`.
  auto input_products = [&](int dir, int64_t set) -> Status {
    if (T * N > 0 && I > 0 && block.device().is_cpu() && ct == DataType::kFloat32) {
      if (blas::PackedGemmF32* packed = packed_w_for(block, in, dir, D, T * N, N, GH, H, I,
                                                     static_cast<const float*>(at(w, dir * I * GH)), ldw, tb,
                                                     side_by_side))
        return with_op_name(block, packed->run_rows(T * N, static_cast<const float*>(at(x, 0)),
                                                    static_cast<float*>(at(gx, set * T * N * GH))));
    }
    if (T * N > 0 && I > 0)
      return gemm(block, ct, tb, T * N, GH, I, at(x, 0), I, at(w, dir * I * GH), ldw, at(gx, set * T * N * GH), GH);
    if (T * N > 0) return fill_zero(block, gx);  // no inputs: x * W is 0
    return Status::ok();
  };
  auto step_of = [&](int dir, int64_t set) {
    CellStep st;
    st.direction = dir;
    st.gx = at(gx, set * T * N * GH);
    st.gh = at(gh, set * N * GH);
    st.bx = in.bx ? at(bx, dir * GH) : nullptr;
    st.bh = in.bh ? at(bh, dir * GH) : nullptr;
    st.peep = in.peep ? at(peep, dir * 3 * H) : nullptr;
    st.lengths = in.lengths ? static_cast<const int64_t*>(kernel_pointer(block, lengths)) : nullptr;
    st.h = at(h_state, dir * N * H);
    st.c = lstm ? at(c_state, dir * N * H) : nullptr;
    st.rh = two_phase ? at(rh, set * N * H) : nullptr;
    st.y = y != nullptr ? at(yt, 0) : nullptr;
    st.accumulate = d.sum_directions && dir == 1;
    return st;
  };
  // The T steps of one direction from its prepared CellStep; R packed (on
  // the CPU, float32, T >= 2) or multiplied by the plain GEMM.
  auto run_steps = [&](CellStep st, const void* r_dir, blas::PackedGemmF32& packed_r,
                       blas::PackedGemmF32& packed_n) -> Status {
    const void* rn = static_cast<const char*>(r_dir) + static_cast<size_t>(tb ? 2 * H * H : 2 * H) * item;
    const bool packed_two_phase = two_phase && packed_r.packed() && packed_n.packed();
    for (int64_t s = 0; s < T; ++s) {
      st.s = s;
      if (packed_two_phase) {
        RETURN_IF_ERROR(with_op_name(block, packed_r.run(static_cast<const float*>(st.h), static_cast<float*>(st.gh))));
        st.phase = 1;
        RETURN_IF_ERROR(run_cell(st));
        RETURN_IF_ERROR(with_op_name(
            block, packed_n.run(static_cast<const float*>(st.rh), static_cast<float*>(st.gh) + 2 * H)));
        st.phase = 2;
        RETURN_IF_ERROR(run_cell(st));
        continue;
      }
      if (packed_r.packed() && !two_phase) {
        RETURN_IF_ERROR(with_op_name(block, packed_r.run(static_cast<const float*>(st.h), static_cast<float*>(st.gh))));
        st.phase = 0;
        RETURN_IF_ERROR(run_cell(st));
        continue;
      }
      if (!two_phase) {
        RETURN_IF_ERROR(gemm(block, ct, tb, N, GH, H, st.h, H, r_dir, ldr, st.gh, GH));
        st.phase = 0;
        RETURN_IF_ERROR(run_cell(st));
        continue;
      }
      // z and r (blocks 0 and 1), then the candidate's (r * h) * Rn.
      RETURN_IF_ERROR(gemm(block, ct, tb, N, 2 * H, H, st.h, H, r_dir, ldr, st.gh, GH));
      st.phase = 1;
      RETURN_IF_ERROR(run_cell(st));
      RETURN_IF_ERROR(gemm(block, ct, tb, N, H, H, st.rh, H, rn, ldr, static_cast<char*>(st.gh) + 2 * H * item, GH));
      st.phase = 2;
      RETURN_IF_ERROR(run_cell(st));
    }
    return Status::ok();
  };
  // On the CPU, R packed once for all T steps, or kept packed for the
  // session where it is a constant (Note [Packed recurrent weights]);
  // where oneDNN is off or refuses, OpenBLAS. A GRU without
  // linear_before_reset packs its z and r blocks and its n block apart, for
  // its two GEMMs a step.
  blas::PackedGemmF32 local_r[2], local_rn[2];
  auto packings = [&](int dir, const void* r_dir, blas::PackedGemmF32*& packed_r, blas::PackedGemmF32*& packed_n) {
    packed_r = &local_r[dir];
    packed_n = &local_rn[dir];
    if (!block.device().is_cpu() || ct != DataType::kFloat32 || T < 2) return;
    const void* rn = static_cast<const char*>(r_dir) + static_cast<size_t>(tb ? 2 * H * H : 2 * H) * item;
    packed_r = &packed_r_for(block, in, dir, D, N, GH, H, r_dir, two_phase ? 2 * H : GH, 0, ldr, tb, side_by_side,
                             local_r[dir]);
    if (two_phase)
      packed_n = &packed_r_for(block, in, dir, D, N, GH, H, rn, H, 1, ldr, tb, side_by_side, local_rn[dir]);
  };

  if (side_by_side) {
    blas::PackedGemmF32* packed_r[2];
    blas::PackedGemmF32* packed_n[2];
    for (int dir = 0; dir < D; ++dir) {
      RETURN_IF_ERROR(input_products(dir, dir));
      packings(dir, at(r, dir * H * GH), packed_r[dir], packed_n[dir]);
    }
    Status status[2];
    parallel_team(D, [&](int t, int team) {
      const ScopedThreads one(1);  // the GEMMs and cells of a direction stay on its thread
      for (int dir = t; dir < D; dir += team)
        status[dir] = run_steps(step_of(dir, dir), at(r, dir * H * GH), *packed_r[dir], *packed_n[dir]);
    });
    for (const Status& st : status) RETURN_IF_ERROR(st);
  }
  const int directions_to_run = side_by_side || N * H == 0 ? 0 : D;  // an empty batch or layer: nothing to compute
  for (int dir = 0; dir < directions_to_run; ++dir) {
    RETURN_IF_ERROR(input_products(dir, 0));
    CellStep st = step_of(dir, 0);
    const void* r_dir = at(r, dir * H * GH);
#if LIBOPS_HAVE_EXP_F32_X8
    if (block.device().is_cpu() && ct == DataType::kFloat32) {
      if (TeamParts* tp = team_parts_for(block, d, in, dir, static_cast<const float*>(r_dir), ldr, tb)) {
        NDArray h_alt, gh_parts;
        RETURN_IF_ERROR(step_array(block, ct, Dims{N, H}, h_alt));
        RETURN_IF_ERROR(step_array(block, ct, Dims{static_cast<int64_t>(tp->gemm.size()), N, tp->max_cols}, gh_parts));
        RETURN_IF_ERROR(with_op_name(block, run_lstm_team(d, st, *tp, h_alt.data_as<float>(), gh_parts.data_as<float>())));
        continue;
      }
    }
#endif
    blas::PackedGemmF32 *packed_r = nullptr, *packed_n = nullptr;
    packings(dir, r_dir, packed_r, packed_n);
    RETURN_IF_ERROR(run_steps(st, r_dir, *packed_r, *packed_n));
  }
  for (NDArray* a : {&gx, &gh, two_phase ? &rh : nullptr, &h_state, lstm ? &c_state : nullptr,
                     y != nullptr ? &yt : nullptr}) {
    if (a == nullptr) continue;
    if (block.device().is_cpu()) a->buffer()->mark_host_written();
    else a->buffer()->mark_device_written();
  }
  if (y != nullptr) RETURN_IF_ERROR(y_out.finish(block, *y));
  if (h_last != nullptr) RETURN_IF_ERROR(h_out.finish(block, *h_last));
  if (c_last != nullptr && lstm) RETURN_IF_ERROR(c_out.finish(block, *c_last));
  return Status::ok();
}

}  // namespace libops::ops::rnn
