// tfidf_vectorizer's shared parts (tfidf_vectorizer.cpp, .cu): the n-gram
// table both devices search and the per-row counting loop.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

enum class TfIdfMode : int64_t { kTf = 0, kIdf = 1, kTfIdf = 2 };

struct TfIdfDesc {
  int64_t rows = 0;       // 1 for a vector x
  int64_t length = 0;     // tokens a row (C)
  int64_t out = 0;        // output columns: max(ngram_indexes) + 1
  int64_t min_n = 1, max_n = 1, max_skip = 0;
  int64_t sizes = 0;      // gram sizes the pool holds: 1 .. sizes
  int64_t capacity = 0;   // the table's slots
  TfIdfMode mode = TfIdfMode::kTf;
};

// The pool's n-grams of the counted sizes as an open-addressing hash table
// (linear probing), flat arrays both devices read:
//   keys   int64, every counted gram's tokens, one gram after another
//   grams  int64 [3 * entries]: per entry its size, the offset of its
//          first token in keys, and its output column, or kPrefixOnly for
//          a proper prefix of a counted gram that is not counted itself
//   slots  int64 [capacity, a power of two at least twice the grams][2]: a
//          gram's index (-1: an empty slot) and its hash, so that a probe
//          that misses (most of a text's n-grams are not in a pool) reads
//          the slots alone
// A gram size outside [min_n, max_n] is not in the table, except as a
// prefix. Counting walks each start position's n-grams from n = 1 up and
// stops at the first one that is in the table neither as a gram nor as a
// prefix (count_grams_at), as a trie would: most of a text's tokens start
// no n-gram of the pool.
inline constexpr int64_t kPrefixOnly = -2;

// The hash of the n tokens row[s], row[s + d], ...: each token mixed in by
// a multiply, then the high bits folded down (the table is indexed by the
// low ones).
LIBOPS_HOST_DEVICE inline uint64_t gram_hash(const int64_t* row, int64_t s, int64_t d, int64_t n) {
  uint64_t h = static_cast<uint64_t>(n) * 0x9E3779B97F4A7C15ull;
  for (int64_t j = 0; j < n; ++j) h = (h ^ static_cast<uint64_t>(row[s + j * d])) * 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

// The output column of the n tokens row[s], row[s + d], ..., kPrefixOnly,
// or -1 where the table has no such entry.
LIBOPS_HOST_DEVICE inline int64_t gram_column(const int64_t* keys, const int64_t* grams, const int64_t* slots,
                                              int64_t capacity, int64_t n, const int64_t* row, int64_t s, int64_t d) {
  const uint64_t mask = static_cast<uint64_t>(capacity - 1);
  const uint64_t h = gram_hash(row, s, d, n);
  for (uint64_t i = h & mask;; i = (i + 1) & mask) {
    const int64_t g = slots[2 * i];
    if (g < 0) return -1;
    if (static_cast<uint64_t>(slots[2 * i + 1]) != h) continue;
    const int64_t* e = grams + 3 * g;
    if (e[0] != n) continue;
    const int64_t* k = keys + e[1];
    bool same = true;
    for (int64_t j = 0; j < n && same; ++j) same = k[j] == row[s + j * d];
    if (same) return e[2];
  }
}

// Calls add(column) for every counted n-gram that starts at row[s]
// (length tokens in the row), at every skip distance: the 1-gram once,
// longer ones per distance d = 1 .. max_skip + 1.
template <typename Add>
LIBOPS_HOST_DEVICE void count_grams_at(const TfIdfDesc& t, const int64_t* keys, const int64_t* grams,
                                       const int64_t* slots, const int64_t* row, int64_t s, int64_t length,
                                       Add& add) {
  const int64_t top = t.max_n < t.sizes ? t.max_n : t.sizes;
  const int64_t first = gram_column(keys, grams, slots, t.capacity, 1, row, s, 1);
  if (first == -1) return;  // no n-gram of the pool starts with this token
  if (first >= 0 && t.min_n == 1) add(first);
  for (int64_t d = 1; d <= t.max_skip + 1; ++d)
    for (int64_t n = 2; n <= top && s + (n - 1) * d < length; ++n) {
      const int64_t c = gram_column(keys, grams, slots, t.capacity, n, row, s, d);
      if (c == -1) break;
      if (c >= 0 && n >= t.min_n) add(c);
    }
}

// The weight applied to a count c of output column col (w: per column,
// else nullptr for all ones).
LIBOPS_HOST_DEVICE inline float tfidf_weighted(const TfIdfDesc& t, float c, const float* w, int64_t col) {
  const float weight = w != nullptr ? w[col] : 1.f;
  if (t.mode == TfIdfMode::kIdf) return c > 0.f ? weight : 0.f;
  if (t.mode == TfIdfMode::kTfIdf) return c * weight;
  return c;
}

// x dense int64 [rows, length]; keys, grams, slots as above; weights
// dense float32 [out] (per column), or a null array; z dense float32
// [rows, out].
using TfIdfDeviceFn = Status (*)(Device device, const TfIdfDesc& desc, const NDArray& x, const NDArray& keys,
                                 const NDArray& grams, const NDArray& slots, const NDArray& weights, NDArray& z);
extern DeviceKernel<TfIdfDeviceFn> tfidf_vectorizer_device_kernel;

}  // namespace libops::ops
