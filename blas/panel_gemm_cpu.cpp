// The panel GEMM's packing and AVX2 FMA kernels (Note [Panel GEMM]).
#include "blas/panel_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"

#if LIBOPS_ISA_DISPATCH
#include <immintrin.h>
#endif

namespace libops::blas {

namespace {

constexpr int64_t kLanes = 16;       // columns per panel: two 8-float vectors
constexpr int64_t kSliceK = 256;     // k per slice: a panel's slice is 16 KB
constexpr int64_t kRowChunk = 192;   // rows passing over one slice (A's part: 192 KB)
constexpr int kBlockRows = 6;        // rows of the main kernel
constexpr int64_t kPanelGroup = 8;   // panels whose slices a row block passes over: 128 KB of B, in L2
// Multiply-adds a thread should get before another is started (about
// 5 us of one core): an LSTM step of 2 x 96 by 96 x 384 stays on one.
// Fewer than 6 rows count as 6: B's loads, not the multiply-adds, take
// their time (a batch-1 layer of 784 x 512 ran 25 us on one thread).
constexpr int64_t kWorkPerThread = int64_t{1} << 18;

}  // namespace

void PanelGemmF32::FreeDeleter::operator()(float* p) const { std::free(p); }

bool PanelGemmF32::supported() {
#if LIBOPS_ISA_DISPATCH
  return cpu_isa() >= CpuIsa::kAvx2;
#else
  return false;
#endif
}

bool PanelGemmF32::pack_panels(int64_t n, int64_t k, const float* b, int64_t ldb, bool trans_b) {
  n_ = n, k_ = k, panels_ = (n + kLanes - 1) / kLanes;
  const size_t floats = static_cast<size_t>(panels_ * k * kLanes);
  const size_t bytes = std::max<size_t>(64, (floats * sizeof(float) + 63) / 64 * 64);
  data_.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
  if (data_ == nullptr) return false;
  float* out = data_.get();
  std::memset(out, 0, bytes);  // the last panel's padding multiplies as zeros
  if (!trans_b) {  // B read along its rows
    for (int64_t r = 0; r < k; ++r)
      for (int64_t p = 0; p < panels_; ++p)
        std::memcpy(out + (p * k + r) * kLanes, b + r * ldb + p * kLanes,
                    static_cast<size_t>(std::min(kLanes, n - p * kLanes)) * sizeof(float));
    return true;
  }
  for (int64_t col = 0; col < n; ++col) {  // B [n, k]: each of its rows is a column of op(B)
    float* dst = out + (col / kLanes) * k * kLanes + col % kLanes;
    for (int64_t r = 0; r < k; ++r) dst[r * kLanes] = b[col * ldb + r];
  }
  return true;
}

bool PanelGemmF32::pack(int64_t n, int64_t k, const float* b, int64_t ldb, bool trans_b) {
  columns_.reset();
  if (!pack_panels(n, k, b, ldb, trans_b)) return false;
  if (n == 0 || n > kNarrowColumns || k == 0) return true;
  columns_.reset(static_cast<float*>(std::aligned_alloc(64, static_cast<size_t>((n * k * 4 + 63) / 64 * 64))));
  if (columns_ == nullptr) return false;
  for (int64_t col = 0; col < n; ++col)
    for (int64_t r = 0; r < k; ++r) columns_.get()[col * k + r] = trans_b ? b[col * ldb + r] : b[r * ldb + col];
  return true;
}

#if LIBOPS_ISA_DISPATCH
namespace {

// One kernel call: rows of A times `NP` adjacent panels' slice of k.
struct Tile {
  const float* a;        // the rows' slice of A, packed: a[p * rows + r]
  const float* b;        // the first panel, at the slice's first row
  int64_t panel_stride;  // floats from one panel to the next
  float* c;              // the first row, at the first panel's first column
  int64_t ldc;
  int64_t cols;          // columns of C that exist here, up to 16 * NP
  int64_t kc;            // k of the slice
  bool first;            // the slice starts the sums (else: continue from C)
  const GemmEpilogue* epilogue;  // the last slice: bias (offset to these columns) and activation
};

// Lanes [0, lanes) of an 8-float vector, as a maskload/maskstore mask.
LIBOPS_TARGET_AVX2 inline __m256i lane_mask(int64_t lanes) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(lanes)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Columns of vector v (8 wide) among `cols`: 8, fewer, or none.
inline int64_t vector_lanes(int64_t cols, int v) { return std::clamp<int64_t>(cols - 8 * v, 0, 8); }

// Fully unrolled loops over a kernel's rows and vectors: the accumulators
// must stay in registers (a loop GCC kept rolled put them on the stack,
// stored on every step of k: a third of the speed).
#define LIBOPS_UNROLL _Pragma("GCC unroll 16")

template <int MR, int NP>
LIBOPS_TARGET_AVX2 void panel_kernel(const Tile& t) {
  constexpr int NV = 2 * NP;
  const int64_t ldc = t.ldc, stride = t.panel_stride, kc = t.kc, cols = t.cols;
  const float* a = t.a;
  float* c = t.c;
  __m256 acc[MR][NV];
  LIBOPS_UNROLL for (int r = 0; r < MR; ++r) {
    LIBOPS_UNROLL for (int v = 0; v < NV; ++v) {
      const int64_t lanes = vector_lanes(cols, v);
      const float* cp = c + r * ldc + 8 * v;
      if (t.first || lanes == 0) acc[r][v] = _mm256_setzero_ps();
      else if (lanes == 8) acc[r][v] = _mm256_loadu_ps(cp);
      else acc[r][v] = _mm256_maskload_ps(cp, lane_mask(lanes));
    }
  }
  const float* b = t.b;
  // Per step of k, panel by panel: its two vectors of B, then each row's
  // value broadcast and multiplied into them. 12 accumulators, two B
  // vectors and the broadcasts stay within 16 registers (nothing spills):
  // one or two rows broadcast once per step, more rows once per panel.
  constexpr bool kHoist = MR <= 2;
  _Pragma("GCC unroll 4") for (int64_t p = 0; p < kc; ++p) {
    __m256 x[MR];
    if constexpr (kHoist) {
      LIBOPS_UNROLL for (int r = 0; r < MR; ++r) x[r] = _mm256_broadcast_ss(a + p * MR + r);
    }
    LIBOPS_UNROLL for (int q = 0; q < NP; ++q) {
      const __m256 b0 = _mm256_loadu_ps(b + q * stride + p * kLanes);
      const __m256 b1 = _mm256_loadu_ps(b + q * stride + p * kLanes + 8);
      LIBOPS_UNROLL for (int r = 0; r < MR; ++r) {
        const __m256 xr = kHoist ? x[r] : _mm256_broadcast_ss(a + p * MR + r);
        acc[r][2 * q] = _mm256_fmadd_ps(xr, b0, acc[r][2 * q]);
        acc[r][2 * q + 1] = _mm256_fmadd_ps(xr, b1, acc[r][2 * q + 1]);
      }
    }
  }
  if (t.epilogue != nullptr) {
    // v + bias, then the activation as the relu ops compute it: v < 0
    // gives 0, relu6's v > 6 gives 6 (ordered compares keep NaN and -0).
    const __m256 zero = _mm256_setzero_ps(), six = _mm256_set1_ps(6.0f);
    const float* bias = t.epilogue->bias;
    const int act = t.epilogue->activation;
    LIBOPS_UNROLL for (int v = 0; v < NV; ++v) {
      const int64_t lanes = vector_lanes(cols, v);
      __m256 bv = zero;
      if (bias != nullptr && lanes > 0)
        bv = lanes == 8 ? _mm256_loadu_ps(bias + 8 * v) : _mm256_maskload_ps(bias + 8 * v, lane_mask(lanes));
      LIBOPS_UNROLL for (int r = 0; r < MR; ++r) {
        __m256 y = acc[r][v];
        if (bias != nullptr) y = _mm256_add_ps(y, bv);
        if (act >= 1) y = _mm256_blendv_ps(y, zero, _mm256_cmp_ps(y, zero, _CMP_LT_OQ));
        if (act == 2) y = _mm256_blendv_ps(y, six, _mm256_cmp_ps(y, six, _CMP_GT_OQ));
        acc[r][v] = y;
      }
    }
  }
  LIBOPS_UNROLL for (int r = 0; r < MR; ++r) {
    LIBOPS_UNROLL for (int v = 0; v < NV; ++v) {
      const int64_t lanes = vector_lanes(cols, v);
      float* cp = c + r * ldc + 8 * v;
      if (lanes == 8) _mm256_storeu_ps(cp, acc[r][v]);
      else if (lanes > 0) _mm256_maskstore_ps(cp, lane_mask(lanes), acc[r][v]);
    }
  }
}

// Rows [r0, r1) of C = A * B for B's N columns, each k contiguous floats
// (Note [Narrow products]): U sets of 8-lane partial sums per column, k in
// steps of 8 U, the last values under a mask.
template <int N, int U>
LIBOPS_TARGET_AVX2 void narrow_rows(int64_t r0, int64_t r1, const float* a, int64_t lda, const float* cols, int64_t k,
                                    float* c, int64_t ldc, const GemmEpilogue& ep) {
  const int64_t k_main = k / (8 * U) * (8 * U), k8 = k / 8 * 8;
  const __m256i tail = lane_mask(k - k8);
  for (int64_t r = r0; r < r1; ++r) {
    const float* ar = a + r * lda;
    __m256 acc[U][N];
    LIBOPS_UNROLL for (int u = 0; u < U; ++u) {
      LIBOPS_UNROLL for (int j = 0; j < N; ++j) acc[u][j] = _mm256_setzero_ps();
    }
    for (int64_t p = 0; p < k_main; p += 8 * U) {
      LIBOPS_UNROLL for (int u = 0; u < U; ++u) {
        const __m256 x = _mm256_loadu_ps(ar + p + 8 * u);
        LIBOPS_UNROLL for (int j = 0; j < N; ++j)
          acc[u][j] = _mm256_fmadd_ps(x, _mm256_loadu_ps(cols + j * k + p + 8 * u), acc[u][j]);
      }
    }
    for (int64_t p = k_main; p < k8; p += 8) {  // whole steps of 8 that U sets did not take
      const __m256 x = _mm256_loadu_ps(ar + p);
      LIBOPS_UNROLL for (int j = 0; j < N; ++j) acc[0][j] = _mm256_fmadd_ps(x, _mm256_loadu_ps(cols + j * k + p), acc[0][j]);
    }
    if (k8 < k) {
      const __m256 x = _mm256_maskload_ps(ar + k8, tail);
      LIBOPS_UNROLL for (int j = 0; j < N; ++j)
        acc[0][j] = _mm256_fmadd_ps(x, _mm256_maskload_ps(cols + j * k + k8, tail), acc[0][j]);
    }
    LIBOPS_UNROLL for (int j = 0; j < N; ++j) {
      __m256 v = acc[0][j];
      LIBOPS_UNROLL for (int u = 1; u < U; ++u) v = _mm256_add_ps(v, acc[u][j]);
      __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
      h = _mm_add_ps(h, _mm_movehl_ps(h, h));
      h = _mm_add_ss(h, _mm_movehdup_ps(h));
      float y = _mm_cvtss_f32(h);
      // The panel kernels' epilogue: bias, then relu / relu6 by ordered
      // compares (NaN and -0 kept).
      if (ep.bias != nullptr) y += ep.bias[j];
      if (ep.activation >= 1 && y < 0.0f) y = 0.0f;
      if (ep.activation == 2 && y > 6.0f) y = 6.0f;
      c[r * ldc + j] = y;
    }
  }
}

using NarrowFn = void (*)(int64_t, int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t,
                          const GemmEpilogue&);
// kNarrow[n - 1]: four sets of sums for one or two columns, two for three
// or four, one above (at most 8 accumulators).
constexpr NarrowFn kNarrow[] = {narrow_rows<1, 4>, narrow_rows<2, 4>, narrow_rows<3, 2>, narrow_rows<4, 2>,
                                narrow_rows<5, 1>, narrow_rows<6, 1>, narrow_rows<7, 1>, narrow_rows<8, 1>};
static_assert(sizeof(kNarrow) / sizeof(kNarrow[0]) == PanelGemmF32::kNarrowColumns, "one kernel per width");

#undef LIBOPS_UNROLL

// pack_rows writes up to this many floats past a block (garbage that the
// next block, packed after it, overwrites).
constexpr int64_t kPackSlack = 8;

// dst[p * rows + r] = a[r * lda + p] for p < kc: a block of A's rows
// interleaved for the kernels. Six rows go eight values of k at a time
// through an 8 x 8 transpose (two rows of zeros): the scalar loop took a
// fifth of a 160 x 97 x 192 product.
LIBOPS_TARGET_AVX2 void pack_rows(const float* a, int64_t lda, int64_t rows, int64_t kc, float* dst) {
  int64_t p = 0;
  if (rows == kBlockRows) {
    for (; p + 8 <= kc; p += 8) {
      __m256 v[8];
      for (int r = 0; r < 6; ++r) v[r] = _mm256_loadu_ps(a + r * lda + p);
      v[6] = v[7] = _mm256_setzero_ps();
      // Transpose: t[j] holds column j (value p + j of rows 0..7).
      const __m256 u0 = _mm256_unpacklo_ps(v[0], v[1]), u1 = _mm256_unpackhi_ps(v[0], v[1]);
      const __m256 u2 = _mm256_unpacklo_ps(v[2], v[3]), u3 = _mm256_unpackhi_ps(v[2], v[3]);
      const __m256 u4 = _mm256_unpacklo_ps(v[4], v[5]), u5 = _mm256_unpackhi_ps(v[4], v[5]);
      const __m256 u6 = _mm256_unpacklo_ps(v[6], v[7]), u7 = _mm256_unpackhi_ps(v[6], v[7]);
      const __m256 s0 = _mm256_shuffle_ps(u0, u2, 0x44), s1 = _mm256_shuffle_ps(u0, u2, 0xEE);
      const __m256 s2 = _mm256_shuffle_ps(u1, u3, 0x44), s3 = _mm256_shuffle_ps(u1, u3, 0xEE);
      const __m256 s4 = _mm256_shuffle_ps(u4, u6, 0x44), s5 = _mm256_shuffle_ps(u4, u6, 0xEE);
      const __m256 s6 = _mm256_shuffle_ps(u5, u7, 0x44), s7 = _mm256_shuffle_ps(u5, u7, 0xEE);
      const __m256 t[8] = {_mm256_permute2f128_ps(s0, s4, 0x20), _mm256_permute2f128_ps(s1, s5, 0x20),
                           _mm256_permute2f128_ps(s2, s6, 0x20), _mm256_permute2f128_ps(s3, s7, 0x20),
                           _mm256_permute2f128_ps(s0, s4, 0x31), _mm256_permute2f128_ps(s1, s5, 0x31),
                           _mm256_permute2f128_ps(s2, s6, 0x31), _mm256_permute2f128_ps(s3, s7, 0x31)};
      // Eight floats each, six of them real: each store's last two are
      // overwritten by the next (the last one's by the next block).
      for (int j = 0; j < 8; ++j) _mm256_storeu_ps(dst + (p + j) * kBlockRows, t[j]);
    }
  }
  for (; p < kc; ++p)
    for (int64_t r = 0; r < rows; ++r) dst[p * rows + r] = a[r * lda + p];
}

using KernelFn = void (*)(const Tile&);

// kKernels[rows - 1][panels - 1]: the panels a block of `rows` rows takes
// at a time, 12 accumulators where it can. Three rows would take two
// panels, and GCC then keeps one accumulator on the stack (it merges the
// per-panel broadcasts back into three registers): they run as two and one.
constexpr KernelFn kKernels[6][6] = {
    {panel_kernel<1, 1>, panel_kernel<1, 2>, panel_kernel<1, 3>, panel_kernel<1, 4>, panel_kernel<1, 5>,
     panel_kernel<1, 6>},
    {panel_kernel<2, 1>, panel_kernel<2, 2>, panel_kernel<2, 3>},
    {},
    {panel_kernel<4, 1>},
    {panel_kernel<5, 1>},
    {panel_kernel<6, 1>},
};
// The rows of the next kernel call with `left` rows to go.
constexpr int kernel_rows(int64_t left) {
  return left == 3 ? 2 : static_cast<int>(std::min<int64_t>(left, kBlockRows));
}
constexpr int panels_per_call(int rows) { return rows <= 2 ? kBlockRows / rows : 1; }

}  // namespace
#endif

void PanelGemmF32::run_narrow(int64_t r0, int64_t r1, const float* a, int64_t lda, float* c, int64_t ldc,
                              const GemmEpilogue& epilogue) const {
#if LIBOPS_ISA_DISPATCH
  kNarrow[n_ - 1](r0, r1, a, lda, columns_.get(), k_, c, ldc, epilogue);
#else
  (void)r0, (void)r1, (void)a, (void)lda, (void)c, (void)ldc, (void)epilogue;
#endif
}

void PanelGemmF32::run(int64_t m, const float* a, int64_t lda, float* c, int64_t ldc, const GemmEpilogue& epilogue,
                       int threads) const {
#if LIBOPS_ISA_DISPATCH
  if (columns_ != nullptr && m > 0) {  // Note [Narrow products]
    const int64_t rows_per_thread = std::max<int64_t>(1, kWorkPerThread / (n_ * k_));
    const int64_t parts = std::min<int64_t>(threads, (m + rows_per_thread - 1) / rows_per_thread);
    if (parts <= 1) return run_narrow(0, m, a, lda, c, ldc, epilogue);
    parallel_for(m, (m + parts - 1) / parts, [&](int64_t r0, int64_t r1) { run_narrow(r0, r1, a, lda, c, ldc, epilogue); });
    return;
  }
  if (m <= 0 || n_ <= 0) return;
  const int64_t k = k_, panels = panels_, panel_stride = k_ * kLanes;
  const float* packed = data_.get();
  if (k == 0) {  // an empty sum: C is the epilogue of zeros
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n_; ++j) {
        float y = epilogue.bias != nullptr ? epilogue.bias[j] : 0.0f;
        if (epilogue.activation >= 1 && y < 0.0f) y = 0.0f;
        if (epilogue.activation == 2 && y > 6.0f) y = 6.0f;
        c[i * ldc + j] = y;
      }
    return;
  }
  // Rows [r0, r1) by panels [p0, p1): the rows pass over each panel's
  // slice while it is in L1; the last m % 6 rows take several panels a call.
  auto block = [&](int64_t r0, int64_t r1, int64_t p0, int64_t p1) {
    // The chunk's slice of A, packed block by block: a block of R rows as
    // [kc][R], so that a kernel's broadcasts walk one pointer.
    thread_local std::vector<float> a_packed;
    a_packed.resize(static_cast<size_t>(kRowChunk * kSliceK + kPackSlack));
    for (int64_t ic = r0; ic < r1; ic += kRowChunk) {
      const int64_t iend = std::min(r1, ic + kRowChunk);
      const int64_t full_end = ic + (iend - ic) / kBlockRows * kBlockRows;
      for (int64_t pc = 0; pc < k; pc += kSliceK) {
        const int64_t kc = std::min(kSliceK, k - pc);
        for (int64_t i = ic; i < iend;) {
          const int rows = kernel_rows(iend - i);
          pack_rows(a + i * lda + pc, lda, rows, kc, a_packed.data() + (i - ic) * kc);
          i += rows;
        }
        Tile t{};
        t.ldc = ldc, t.panel_stride = panel_stride, t.kc = kc, t.first = pc == 0;
        GemmEpilogue here;
        auto at = [&](int64_t row, int64_t panel, int64_t count) {
          t.a = a_packed.data() + (row - ic) * kc;
          t.b = packed + panel * panel_stride + pc * kLanes;
          t.c = c + row * ldc + panel * kLanes;
          t.cols = std::min(count * kLanes, n_ - panel * kLanes);
          if (pc + kc == k) {
            here.activation = epilogue.activation;
            here.bias = epilogue.bias != nullptr ? epilogue.bias + panel * kLanes : nullptr;
            t.epilogue = &here;
          }
        };
        if (full_end > ic) {
          // Per group of panels (their slices in L2), each block of six
          // rows passes over the group's panels one at a time while its
          // part of A is in L1; then the last m % 6 rows the same way.
          // (Panel by panel with all rows under each, A's broadcasts came
          // from L2: 6-10% slower. The last rows taking several panels a
          // call read B from L3 again: a 128-row product with 3072 columns
          // spent a third more.)
          for (int64_t g0 = p0; g0 < p1; g0 += kPanelGroup) {
            const int64_t g1 = std::min(p1, g0 + kPanelGroup);
            for (int64_t i = ic; i < full_end; i += kBlockRows) {
              for (int64_t p = g0; p < g1; ++p) {
                at(i, p, 1);
                kKernels[kBlockRows - 1][0](t);
              }
            }
            for (int64_t i = full_end; i < iend;) {
              const int rows = kernel_rows(iend - i);
              for (int64_t p = g0; p < g1; ++p) {
                at(i, p, 1);
                kKernels[rows - 1][0](t);
              }
              i += rows;
            }
          }
          continue;
        }
        // Fewer than six rows: up to six panels a call, for 12 accumulators.
        for (int64_t i = ic; i < iend;) {
          const int rows = kernel_rows(iend - i);
          const int64_t step = panels_per_call(rows);
          for (int64_t p = p0; p < p1; p += step) {
            const int64_t count = std::min(step, p1 - p);
            at(i, p, count);
            kKernels[rows - 1][count - 1](t);
          }
          i += rows;
        }
      }
    }
  };
  // Threads split the panels or the 6-row blocks, whichever divides more
  // evenly (panels on a tie: each thread then reads only its part of B).
  const int64_t row_blocks = (m + kBlockRows - 1) / kBlockRows;
  const double work =
      static_cast<double>(std::max<int64_t>(m, kBlockRows)) * static_cast<double>(panels * kLanes) * static_cast<double>(k);
  const int64_t parts = std::min<int64_t>({threads, static_cast<int64_t>(std::min(work / kWorkPerThread, 1e6)),
                                           std::max(panels, row_blocks)});
  if (parts <= 1) return block(0, m, 0, panels);
  auto spread = [&](int64_t units) {  // the largest share over the even share
    return static_cast<double>((units + parts - 1) / parts) * static_cast<double>(parts) / static_cast<double>(units);
  };
  if (spread(panels) <= spread(row_blocks)) {
    parallel_for(panels, panels / parts, [&](int64_t p0, int64_t p1) { block(0, m, p0, p1); });
  } else {
    parallel_for(row_blocks, row_blocks / parts, [&](int64_t b0, int64_t b1) {
      block(b0 * kBlockRows, std::min(m, b1 * kBlockRows), 0, panels);
    });
  }
#else
  (void)m, (void)a, (void)lda, (void)c, (void)ldc, (void)epilogue, (void)threads;
#endif
}

}  // namespace libops::blas
