// Streaming (non-temporal) stores for element-wise outputs too large to
// stay in cache.
//
// Note [Streaming stores]
// A normal store to a line that is not in cache first reads the line from
// memory (write-allocate), so z = op(x) moves 12 bytes per float element
// instead of 8, and z = op(x, y) 16 instead of 12. A non-temporal store
// writes whole lines straight to memory: no read, and no eviction of useful
// lines. It pays only when the output would not be read from cache anyway,
// so it is used for outputs larger than the last-level cache
// (streaming_store_threshold()), where it makes a bandwidth-bound kernel
// about 1.4x faster on a 2-core EPYC. Results are computed into a
// 128-byte tile in L1, whole tiles are streamed to 64-byte aligned
// addresses, and the ends are stored normally.
// Non-temporal stores are weakly ordered: a thread fences
// (stream_fence()) before it reports its part of a loop done, once per
// part, never per run. A fence waits for the streamed lines to reach
// memory: one per 256-byte row of a broadcast add over 64 MiB (262,144
// runs) tripled its time (50 ms against ONNX Runtime's 16), and one per
// 256-value block of a fused node cost it a quarter. So stream_out,
// stream_out_tiles and stream_copy do not fence; the loops around them do,
// at the end of each parallel chunk (loops/elementwise.cpp, the expression
// evaluator, row_norm).
#pragma once

#include <algorithm>
#include <cstdint>

#include "libops/core/api.h"
#include "libops/core/cpu_isa.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#define LIBOPS_HAVE_STREAMING_STORES 1
#else
#define LIBOPS_HAVE_STREAMING_STORES 0
#endif

namespace libops {

// Output bytes from which element-wise kernels stream their stores: the
// size of the last-level cache (read once from the OS; 32 MiB if unknown),
// or what set_streaming_store_threshold chose. Never on machines without
// streaming stores.
// Exported, with its setter: expressions compiled outside the library ask.
LIBOPS_API_BEGIN
int64_t streaming_store_threshold();
// Overrides the threshold (tests, tuning); bytes <= 0 restores the default.
void set_streaming_store_threshold(int64_t bytes);
LIBOPS_API_END

namespace detail {
inline constexpr int64_t kStreamTileBytes = 128;

#if LIBOPS_HAVE_STREAMING_STORES
#if LIBOPS_ISA_DISPATCH || defined(__AVX__)
// 32-byte moves for the AVX2 and AVX-512 copies (Note [Runtime ISA
// dispatch]): the tile was just written with 32-byte (or wider) stores, and
// reading it back in 16-byte halves costs the store forwarding: relu
// streamed 15% slower.
LIBOPS_TARGET_AVX2 inline void stream_tile_avx(void* dst, const void* src) {
  auto* d = static_cast<__m256i*>(dst);
  const auto* s = static_cast<const __m256i*>(src);
  for (int k = 0; k < 4; ++k) _mm256_stream_si256(d + k, _mm256_loadu_si256(s + k));
}
#endif
// Whether stream_tile may move 32 bytes at a time: asked once per output
// run, not per tile.
inline bool stream_wide_tiles() {
#if defined(__AVX__)
  return true;
#elif LIBOPS_ISA_DISPATCH
  return cpu_isa() != CpuIsa::kBaseline;
#else
  return false;
#endif
}

// Streams 128 bytes from `src` to the 64-byte aligned `dst`; `wide` is
// stream_wide_tiles().
inline void stream_tile(void* dst, const void* src, bool wide) {
#if defined(__AVX__)
  (void)wide;
  stream_tile_avx(dst, src);
#else
#if LIBOPS_ISA_DISPATCH
  if (wide) return stream_tile_avx(dst, src);
#else
  (void)wide;
#endif
  auto* d = static_cast<__m128i*>(dst);
  const auto* s = static_cast<const __m128i*>(src);
  for (int k = 0; k < 8; ++k) _mm_stream_si128(d + k, _mm_loadu_si128(s + k));
#endif
}
#endif
}  // namespace detail

// Fills z[0, n) with streaming stores (Note [Streaming stores]) where the
// machine has them and z is aligned to its element: fill(i, m, dst) writes
// the results for indices [i, i + m) to dst, which is either z + i (the
// unaligned ends) or a 128-byte tile in L1 that is then streamed to z + i.
// No fence: the caller's loop fences once per thread's part.
template <typename R, typename Fill>
[[gnu::flatten]] void stream_out_tiles(R* z, int64_t n, Fill&& fill) {
#if LIBOPS_HAVE_STREAMING_STORES
  static_assert(detail::kStreamTileBytes % sizeof(R) == 0, "stream_out: an element must divide the 128-byte tile");
  constexpr int64_t kTile = detail::kStreamTileBytes / int64_t(sizeof(R));
  const auto address = reinterpret_cast<uintptr_t>(z);
  if (address % sizeof(R) == 0) {
    const int64_t head = std::min<int64_t>(n, int64_t((64 - address % 64) % 64) / int64_t(sizeof(R)));
    if (head > 0) fill(int64_t{0}, head, z);
    int64_t i = head;
    const bool wide = detail::stream_wide_tiles();
    for (; i + kTile <= n; i += kTile) {
      alignas(64) R tile[kTile];
      fill(i, kTile, tile);
      detail::stream_tile(z + i, tile, wide);
    }
    if (i < n) fill(i, n - i, z + i);
    return;
  }
#endif
  fill(int64_t{0}, n, z);
}

// z[0, n) = src[0, n), the 128-byte tiles at 64-byte aligned addresses of
// z as streaming stores straight from src, the ends as normal stores (a
// fused node's blocks, computed in L1).
template <typename R>
void stream_copy(R* z, const R* src, int64_t n) {
  int64_t lo = n, hi = n;  // [lo, hi) streamed
#if LIBOPS_HAVE_STREAMING_STORES
  constexpr int64_t kTile = detail::kStreamTileBytes / int64_t(sizeof(R));
  const auto address = reinterpret_cast<uintptr_t>(z);
  if (address % sizeof(R) == 0) {
    lo = std::min<int64_t>(n, int64_t((64 - address % 64) % 64) / int64_t(sizeof(R)));
    hi = lo + (n - lo) / kTile * kTile;
    const bool wide = detail::stream_wide_tiles();
    for (int64_t i = lo; i < hi; i += kTile) detail::stream_tile(z + i, src + i, wide);
  }
#endif
  for (int64_t i = 0; i < lo; ++i) z[i] = src[i];
  for (int64_t i = hi; i < n; ++i) z[i] = src[i];
}

// Orders the streaming stores before it before every later store: the end
// of a thread's part of a streaming loop.
inline void stream_fence() {
#if LIBOPS_HAVE_STREAMING_STORES
  _mm_sfence();
#endif
}

// z[i] = f(i) for i < n; with `stream`, whole tiles at 64-byte aligned
// addresses go out as non-temporal stores (no fence: the caller's loop
// fences once per thread's part). The unstreamed output and a
// streamed one's unaligned ends share one loop, so each functor's loop is
// compiled once (plus the fixed-size tile body): the legacy tables
// instantiate this for every op and type, and their compile time follows
// the number of loop bodies.
template <typename R, typename F>
[[gnu::flatten]] void stream_out(R* z, int64_t n, bool stream, F&& f) {
  int64_t lo = n, hi = n;  // [lo, hi) streamed; [0, lo) and [hi, n) stored normally
#if LIBOPS_HAVE_STREAMING_STORES
  static_assert(detail::kStreamTileBytes % sizeof(R) == 0, "stream_out: an element must divide the 128-byte tile");
  constexpr int64_t kTile = detail::kStreamTileBytes / int64_t(sizeof(R));
  const auto address = reinterpret_cast<uintptr_t>(z);
  if (stream && address % sizeof(R) == 0) {
    lo = std::min<int64_t>(n, int64_t((64 - address % 64) % 64) / int64_t(sizeof(R)));
    hi = lo + (n - lo) / kTile * kTile;
    const bool wide = detail::stream_wide_tiles();
    for (int64_t i = lo; i < hi; i += kTile) {
      alignas(64) R tile[kTile];
      for (int64_t j = 0; j < kTile; ++j) tile[j] = f(i + j);
      detail::stream_tile(z + i, tile, wide);
    }
  }
#endif
  int64_t b = 0, e = lo;
#pragma GCC unroll 1
  for (int part = 0; part < 2; ++part, b = hi, e = n)
    for (int64_t i = b; i < e; ++i) z[i] = f(i);
}

}  // namespace libops
