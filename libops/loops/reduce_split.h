// How the CUDA reductions (loops/reduce.cuh) split column reductions: x's
// innermost dim is kept and there are too few outputs to fill the GPU with a
// thread each (e.g. the sum over axis 0 of a [1e7, 4] array, batch-norm
// statistics of [N, C]). Plain host arithmetic, so tests_cpu checks it.
//
// The reduced positions 0..n_red-1 (C order over the reduced dims) are cut
// into `chunks` consecutive ranges of `rows_per_chunk` positions (the last
// one may be shorter, none is empty). Pass 1 gives every (output, chunk)
// item a thread that folds the chunk left to right from the identity; pass 2
// merges each output's chunk results in chunk order and finishes them.
//
// The rule: about kSplitTargetThreads items in all (roughly twice the
// threads an H100 holds at once, 132 SMs x 2048), each chunk at least
// kSplitMinRows positions long, at most kSplitMaxChunks chunks (which bounds
// pass 2's work per output). No split (chunks == 1) when that would give
// fewer than 2 chunks. The plan depends only on the two counts, so a call
// rounds the same way on every run and every GPU.
#pragma once

#include <algorithm>
#include <cstdint>

#include "libops/core/host_device.h"

namespace libops::cuda {

inline constexpr int64_t kSplitTargetThreads = int64_t{1} << 19;
inline constexpr int64_t kSplitMinRows = 64;
inline constexpr int64_t kSplitMaxChunks = 65535;
// Pass 2 merges up to this many chunks per output in one thread; more take a
// block per output.
inline constexpr int64_t kSplitThreadMergeMax = 32;

struct ReduceSplit {
  int64_t chunks = 1;          // 1: no split
  int64_t rows_per_chunk = 0;  // reduced positions per chunk (the last may be shorter)
  bool merge_by_block = false;  // pass 2: a block per output (chunks > kSplitThreadMergeMax)
};

// The split of n_out outputs of n_red reduced positions each.
inline ReduceSplit reduce_split_plan(int64_t n_out, int64_t n_red) {
  ReduceSplit s;
  s.rows_per_chunk = n_red;
  if (n_out <= 0 || n_red < 2 * kSplitMinRows) return s;
  const int64_t want = std::min({kSplitTargetThreads / n_out, n_red / kSplitMinRows, kSplitMaxChunks});
  if (want < 2) return s;
  // rows_per_chunk >= n_red / want >= kSplitMinRows, and recounting the
  // chunks from it leaves none empty: (chunks - 1) * rows_per_chunk < n_red.
  s.rows_per_chunk = (n_red + want - 1) / want;
  s.chunks = (n_red + s.rows_per_chunk - 1) / s.rows_per_chunk;
  s.merge_by_block = s.chunks > kSplitThreadMergeMax;
  return s;
}

// Reduced positions [begin, end) of chunk c < s.chunks.
struct ReduceChunkRange {
  int64_t begin, end;
};
LIBOPS_HOST_DEVICE inline ReduceChunkRange reduce_chunk_range(const ReduceSplit& s, int64_t n_red, int64_t c) {
  const int64_t begin = c * s.rows_per_chunk;
  const int64_t end = begin + s.rows_per_chunk < n_red ? begin + s.rows_per_chunk : n_red;
  return {begin, end};
}

}  // namespace libops::cuda
