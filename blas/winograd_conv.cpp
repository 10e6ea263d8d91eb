// Winograd's F(4x4, 3x3) and F(2x2, 3x3) on 8-lane channel blocks (Note
// [Own Winograd convolution] in winograd_conv.h).
#include "blas/winograd_conv.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <new>
#include <type_traits>
#include <vector>

#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"

#if LIBOPS_ISA_DISPATCH
#include <immintrin.h>
#endif

namespace libops::blas {

namespace {

constexpr int64_t kLanes = WinogradConv3x3::kLanes;
// Bytes of V (or M) per chunk of tiles: large enough that a GEMM has
// hundreds of rows where the channels are few, small enough to stay in L2
// and L3 between the phases.
constexpr int64_t kChunkBytes = int64_t{1} << 21;

// The filter transform u = G g of one 3-vector (g[k * stride]), in double.
// F(4x4, 3x3):
// (Products with the reciprocals: divisions made a 512-channel layer's
// transform take 100 ms.)
void filter_1d(const double* g, int64_t stride, double* u, std::integral_constant<int, 4>) {
  constexpr double kSixth = 1.0 / 6, kTwelfth = 1.0 / 12, kTwentyFourth = 1.0 / 24;
  const double g0 = g[0], g1 = g[stride], g2 = g[2 * stride];
  const double even = g0 * kTwentyFourth + g2 * kSixth, odd = g1 * kTwelfth;
  u[0] = g0 * 0.25;
  u[1] = -(g0 + g1 + g2) * kSixth;
  u[2] = -(g0 - g1 + g2) * kSixth;
  u[3] = even + odd;
  u[4] = even - odd;
  u[5] = g2;
}
// F(2x2, 3x3):
void filter_1d(const double* g, int64_t stride, double* u, std::integral_constant<int, 2>) {
  const double g0 = g[0], g1 = g[stride], g2 = g[2 * stride];
  u[0] = g0;
  u[1] = (g0 + g1 + g2) * 0.5;
  u[2] = (g0 - g1 + g2) * 0.5;
  u[3] = g2;
}

#if LIBOPS_ISA_DISPATCH
#define WINOGRAD_INLINE LIBOPS_TARGET_AVX2 inline __attribute__((always_inline))

// r = B^T d of alpha vectors d[k * stride], into r[k * rstride]. F(4x4, 3x3):
//   r0 = 4 d0 - 5 d2 + d4             r3 = (d4 - d2) + 2 (d3 - d1)
//   r1 = (d4 - 4 d2) + (d3 - 4 d1)    r4 = (d4 - d2) - 2 (d3 - d1)
//   r2 = (d4 - 4 d2) - (d3 - 4 d1)    r5 = 4 d1 - 5 d3 + d5
WINOGRAD_INLINE void input_1d(const __m256* d, int stride, __m256* r, int rstride, std::integral_constant<int, 4>) {
  const __m256 four = _mm256_set1_ps(4.f), minus4 = _mm256_set1_ps(-4.f), minus5 = _mm256_set1_ps(-5.f);
  const __m256 d0 = d[0], d1 = d[stride], d2 = d[2 * stride], d3 = d[3 * stride], d4 = d[4 * stride],
               d5 = d[5 * stride];
  const __m256 t1 = _mm256_fmadd_ps(minus4, d2, d4), t2 = _mm256_fmadd_ps(minus4, d1, d3);
  const __m256 t3 = _mm256_sub_ps(d4, d2), t4 = _mm256_sub_ps(d3, d1);
  const __m256 t4x2 = _mm256_add_ps(t4, t4);
  r[0] = _mm256_fmadd_ps(four, d0, _mm256_fmadd_ps(minus5, d2, d4));
  r[rstride] = _mm256_add_ps(t1, t2);
  r[2 * rstride] = _mm256_sub_ps(t1, t2);
  r[3 * rstride] = _mm256_add_ps(t3, t4x2);
  r[4 * rstride] = _mm256_sub_ps(t3, t4x2);
  r[5 * rstride] = _mm256_fmadd_ps(four, d1, _mm256_fmadd_ps(minus5, d3, d5));
}
// F(2x2, 3x3): r0 = d0 - d2, r1 = d1 + d2, r2 = d2 - d1, r3 = d1 - d3.
WINOGRAD_INLINE void input_1d(const __m256* d, int stride, __m256* r, int rstride, std::integral_constant<int, 2>) {
  const __m256 d0 = d[0], d1 = d[stride], d2 = d[2 * stride], d3 = d[3 * stride];
  r[0] = _mm256_sub_ps(d0, d2);
  r[rstride] = _mm256_add_ps(d1, d2);
  r[2 * rstride] = _mm256_sub_ps(d2, d1);
  r[3 * rstride] = _mm256_sub_ps(d1, d3);
}

// o = A^T m of alpha vectors. F(4x4, 3x3):
//   o0 = m0 + (m1 + m2) + (m3 + m4)      o2 = (m1 + m2) + 4 (m3 + m4)
//   o1 = (m1 - m2) + 2 (m3 - m4)         o3 = (m1 - m2) + 8 (m3 - m4) + m5
WINOGRAD_INLINE void output_1d(const __m256* m, int stride, __m256* o, int ostride, std::integral_constant<int, 4>) {
  const __m256 a = _mm256_add_ps(m[stride], m[2 * stride]), b = _mm256_sub_ps(m[stride], m[2 * stride]);
  const __m256 c = _mm256_add_ps(m[3 * stride], m[4 * stride]), d = _mm256_sub_ps(m[3 * stride], m[4 * stride]);
  o[0] = _mm256_add_ps(_mm256_add_ps(m[0], a), c);
  o[ostride] = _mm256_fmadd_ps(_mm256_set1_ps(2.f), d, b);
  o[2 * ostride] = _mm256_fmadd_ps(_mm256_set1_ps(4.f), c, a);
  o[3 * ostride] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.f), d, b), m[5 * stride]);
}
// F(2x2, 3x3): o0 = m0 + m1 + m2, o1 = m1 - m2 - m3.
WINOGRAD_INLINE void output_1d(const __m256* m, int stride, __m256* o, int ostride, std::integral_constant<int, 2>) {
  o[0] = _mm256_add_ps(_mm256_add_ps(m[0], m[stride]), m[2 * stride]);
  o[ostride] = _mm256_sub_ps(_mm256_sub_ps(m[stride], m[2 * stride]), m[3 * stride]);
}

struct Shape {
  int64_t n, cb_in, cb_out, h, w, oh, ow, pad_top, pad_left, tiles_h, tiles_w;
};

// The alpha^2 transformed vectors of tile `tile` (image-major, then tile
// rows) and input block cb: v[p * v_stride] for p = alpha i + j (i along
// the height).
template <int M>
LIBOPS_TARGET_AVX2 void input_tile(const Shape& s, const float* x, int64_t tile, int64_t cb, float* v,
                                   int64_t v_stride) {
  constexpr int kAlpha = M + 2;
  constexpr std::integral_constant<int, M> kM;
  const int64_t per_image = s.tiles_h * s.tiles_w;
  const int64_t img = tile / per_image, t = tile % per_image;
  const int64_t y0 = t / s.tiles_w * M - s.pad_top, x0 = t % s.tiles_w * M - s.pad_left;
  const float* plane = x + (img * s.cb_in + cb) * s.h * s.w * kLanes;
  __m256 d[kAlpha * kAlpha], rows[kAlpha * kAlpha];
  if (y0 >= 0 && x0 >= 0 && y0 + kAlpha <= s.h && x0 + kAlpha <= s.w) {
    for (int i = 0; i < kAlpha; ++i) {
      const float* row = plane + ((y0 + i) * s.w + x0) * kLanes;
      for (int j = 0; j < kAlpha; ++j) d[i * kAlpha + j] = _mm256_loadu_ps(row + j * kLanes);
    }
  } else {  // zeros outside the image (the padding)
    for (int i = 0; i < kAlpha; ++i)
      for (int j = 0; j < kAlpha; ++j) {
        const int64_t yy = y0 + i, xx = x0 + j;
        d[i * kAlpha + j] = yy >= 0 && yy < s.h && xx >= 0 && xx < s.w
                                ? _mm256_loadu_ps(plane + (yy * s.w + xx) * kLanes)
                                : _mm256_setzero_ps();
      }
  }
  for (int i = 0; i < kAlpha; ++i) input_1d(d + i * kAlpha, 1, rows + i * kAlpha, 1, kM);  // along the width
  for (int j = 0; j < kAlpha; ++j) input_1d(rows + j, kAlpha, d + j, kAlpha, kM);          // along the height
  for (int p = 0; p < kAlpha * kAlpha; ++p) _mm256_storeu_ps(v + p * v_stride, d[p]);
}

// The outputs of tile `tile` and output block ob from its alpha^2 GEMM
// results m[p * m_stride], with bias, residual and activation; only those
// inside the image are written.
template <int M>
LIBOPS_TARGET_AVX2 void output_tile(const Shape& s, const float* m, int64_t m_stride, int64_t tile, int64_t ob,
                                    const float* bias, const float* residual, int activation, float* z) {
  constexpr int kAlpha = M + 2;
  constexpr std::integral_constant<int, M> kM;
  __m256 in[kAlpha * kAlpha], rows[kAlpha * M], out[M * M];
  for (int p = 0; p < kAlpha * kAlpha; ++p) in[p] = _mm256_loadu_ps(m + p * m_stride);
  for (int i = 0; i < kAlpha; ++i) output_1d(in + i * kAlpha, 1, rows + i * M, 1, kM);  // along the width
  for (int j = 0; j < M; ++j) output_1d(rows + j, M, out + j, M, kM);                    // along the height
  const int64_t per_image = s.tiles_h * s.tiles_w;
  const int64_t img = tile / per_image, t = tile % per_image;
  const int64_t y0 = t / s.tiles_w * M, x0 = t % s.tiles_w * M;
  const int64_t rows_in = std::min<int64_t>(M, s.oh - y0), cols_in = std::min<int64_t>(M, s.ow - x0);
  const int64_t plane = (img * s.cb_out + ob) * s.oh * s.ow * kLanes;
  const __m256 b = bias != nullptr ? _mm256_loadu_ps(bias + ob * kLanes) : _mm256_setzero_ps();
  const __m256 zero = _mm256_setzero_ps(), six = _mm256_set1_ps(6.f);
  for (int64_t i = 0; i < rows_in; ++i)
    for (int64_t j = 0; j < cols_in; ++j) {
      const int64_t at = plane + ((y0 + i) * s.ow + x0 + j) * kLanes;
      __m256 y = _mm256_add_ps(out[i * M + j], b);
      if (residual != nullptr) y = _mm256_add_ps(y, _mm256_loadu_ps(residual + at));
      if (activation >= 1) y = _mm256_max_ps(y, zero);
      if (activation == 2) y = _mm256_min_ps(y, six);
      _mm256_storeu_ps(z + at, y);
    }
}
#endif

// U_p [cin_padded, cout_padded] for each position p of F(M x M, 3x3),
// zeros past the real channels: (G g G^T)_p of each filter g, in double.
template <int M>
std::vector<float> transform_filters(int64_t cin, int64_t cout, const float* w, int64_t cin_padded,
                                     int64_t cout_padded) {
  constexpr int kAlpha = M + 2;
  constexpr std::integral_constant<int, M> kM;
  std::vector<float> u(static_cast<size_t>(kAlpha * kAlpha * cin_padded * cout_padded), 0.0f);
  parallel_for(cin, 8, [&](int64_t ci0, int64_t ci1) {
    // Row ci of every U_p, gathered here and then copied out whole (36
    // scattered stores per filter took a third of the time).
    std::vector<float> rows(static_cast<size_t>(kAlpha * kAlpha * cout));
    for (int64_t ci = ci0; ci < ci1; ++ci) {
      for (int64_t co = 0; co < cout; ++co) {
        double g[9], half[kAlpha * 3], full[kAlpha * kAlpha];
        for (int k = 0; k < 9; ++k) g[k] = w[(co * cin + ci) * 9 + k];
        for (int c = 0; c < 3; ++c) filter_1d(g + c, 3, half + c * kAlpha, kM);  // G g: half[c][i] along the height
        for (int i = 0; i < kAlpha; ++i) {
          const double col[3] = {half[i], half[kAlpha + i], half[2 * kAlpha + i]};
          filter_1d(col, 1, full + i * kAlpha, kM);  // (G g) G^T along the width
        }
        for (int p = 0; p < kAlpha * kAlpha; ++p) rows[static_cast<size_t>(p * cout + co)] = static_cast<float>(full[p]);
      }
      for (int p = 0; p < kAlpha * kAlpha; ++p)
        std::copy_n(rows.begin() + p * cout, cout, u.begin() + (p * cin_padded + ci) * cout_padded);
    }
  });
  return u;
}

}  // namespace

bool WinogradConv3x3::supported() { return PanelGemmF32::supported(); }

int WinogradConv3x3::tile_for(int64_t n, int64_t oh, int64_t ow) {
  return n * ((oh + 3) / 4) * ((ow + 3) / 4) >= kMinTilesOf4 ? 4 : 2;
}

bool WinogradConv3x3::prepare(int tile, int64_t cin, int64_t cout, const float* w, int64_t cin_padded,
                              int64_t cout_padded) {
  u_.clear();
  if (!supported() || (tile != 2 && tile != 4) || cin > cin_padded || cout > cout_padded || cin_padded % kLanes != 0 ||
      cout_padded % kLanes != 0)
    return false;
  // Out of memory is a false return (the caller's direct path), not an
  // exception (parallel_for rethrows its threads' ones here).
  std::vector<float> u;
  std::vector<PanelGemmF32> packed;
  const int positions = (tile + 2) * (tile + 2);
  try {
    u = tile == 4 ? transform_filters<4>(cin, cout, w, cin_padded, cout_padded)
                  : transform_filters<2>(cin, cout, w, cin_padded, cout_padded);
    packed.resize(static_cast<size_t>(positions));
  } catch (const std::bad_alloc&) {
    return false;
  }
  std::atomic<bool> packed_all{true};
  parallel_for(positions, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      if (!packed[static_cast<size_t>(p)].pack(cout_padded, cin_padded, u.data() + p * cin_padded * cout_padded,
                                                cout_padded, false))
        packed_all.store(false, std::memory_order_relaxed);
  });
  if (!packed_all.load()) return false;
  u_ = std::move(packed);
  tile_ = tile;
  cin_ = cin_padded;
  cout_ = cout_padded;
  return true;
}

void WinogradConv3x3::run(const WinogradGeometry& g, const float* x, const float* bias, const float* residual,
                          int activation, float* z, int threads) const {
#if LIBOPS_ISA_DISPATCH
  if (u_.empty() || g.c != cin_ || g.cout != cout_ || g.n <= 0 || g.oh <= 0 || g.ow <= 0) return;
  if (tile_ == 4) return run_tiles<4>(g, x, bias, residual, activation, z, threads);
  return run_tiles<2>(g, x, bias, residual, activation, z, threads);
#else
  (void)g, (void)x, (void)bias, (void)residual, (void)activation, (void)z, (void)threads;
#endif
}

template <int M>
void WinogradConv3x3::run_tiles(const WinogradGeometry& g, const float* x, const float* bias, const float* residual,
                                int activation, float* z, int threads) const {
#if LIBOPS_ISA_DISPATCH
  constexpr int64_t kPositions = (M + 2) * (M + 2);
  Shape s{g.n, g.c / kLanes, g.cout / kLanes, g.h, g.w, g.oh, g.ow, g.pad_top, g.pad_left,
          (g.oh + M - 1) / M, (g.ow + M - 1) / M};
  const int64_t tiles = s.n * s.tiles_h * s.tiles_w;
  const int64_t widest = std::max(cin_, cout_);
  const int64_t chunk = std::clamp<int64_t>(kChunkBytes / (kPositions * widest * 4), 36, tiles);
  // V [positions][chunk][cin] and M [positions][chunk][cout]; a thread's
  // own, kept between calls (no page faults per call).
  thread_local std::vector<float> work;
  const size_t v_size = static_cast<size_t>(kPositions * chunk * cin_),
               m_size = static_cast<size_t>(kPositions * chunk * cout_);
  if (work.size() < v_size + m_size) work.resize(v_size + m_size);
  float* v = work.data();
  float* m = v + v_size;
  const int team_threads = static_cast<int>(std::min<int64_t>(threads, chunk * std::max(s.cb_in, s.cb_out)));
  parallel_team(std::max(team_threads, 1), [&](int id, int team) {
    auto share = [&](int64_t items, int64_t& b, int64_t& e) {
      b = items * id / team;
      e = items * (id + 1) / team;
    };
    for (int64_t t0 = 0; t0 < tiles; t0 += chunk) {
      const int64_t tc = std::min(chunk, tiles - t0);
      int64_t b = 0, e = 0;
      share(tc * s.cb_in, b, e);
      for (int64_t item = b; item < e; ++item) {
        const int64_t t = item / s.cb_in, cb = item % s.cb_in;
        input_tile<M>(s, x, t0 + t, cb, v + t * cin_ + cb * kLanes, chunk * cin_);
      }
      team_barrier();
      // The GEMMs in parts: whole positions where they divide evenly over
      // the team, else each position's rows in ranges (multiples of 6, Panel
      // GEMM's row block), the fewest ranges that spread the parts within
      // 5% (36 positions on 16 threads: 3 ranges each; 16 on 3: 2).
      int64_t row_parts = 1;
      for (int64_t parts = 1; parts <= 8 && parts * 6 <= std::max<int64_t>(tc, 6); ++parts) {
        const int64_t total = kPositions * parts;
        row_parts = parts;
        if (static_cast<double>((total + team - 1) / team * team) <= 1.05 * static_cast<double>(total)) break;
      }
      const int64_t rows_per_part = ((tc + row_parts - 1) / row_parts + 5) / 6 * 6;
      share(kPositions * row_parts, b, e);
      for (int64_t item = b; item < e; ++item) {
        const int64_t p = item / row_parts, r0 = item % row_parts * rows_per_part;
        const int64_t rows = std::min(rows_per_part, tc - r0);
        if (rows > 0)
          u_[static_cast<size_t>(p)].run(rows, v + (p * chunk + r0) * cin_, cin_, m + (p * chunk + r0) * cout_, cout_,
                                         GemmEpilogue{}, 1);
      }
      team_barrier();
      share(tc * s.cb_out, b, e);
      for (int64_t item = b; item < e; ++item) {
        const int64_t t = item / s.cb_out, ob = item % s.cb_out;
        output_tile<M>(s, m + t * cout_ + ob * kLanes, chunk * cout_, t0 + t, ob, bias, residual, activation, z);
      }
      // The next chunk's input transform writes only V, which every
      // thread has finished reading (the barrier after the GEMMs).
    }
  });
#else
  (void)g, (void)x, (void)bias, (void)residual, (void)activation, (void)z, (void)threads;
#endif
}

}  // namespace libops::blas
