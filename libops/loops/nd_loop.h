// NdLoop: the one strided N-d iterator behind every element-wise and
// reduction kernel (after PyTorch's TensorIterator, much smaller).
//
// It holds N operands viewed over a common shape (a broadcast operand has
// stride 0), merges neighbouring dimensions whose strides line up so a dense
// array of any rank becomes one flat run, and hands the kernel runs along
// the innermost dimension: f(ptrs, strides, n). Strides here are in bytes.
#pragma once

#include <algorithm>
#include <cstdint>

#include "libops/array/dims.h"

namespace libops {

template <int N>
struct NdLoop {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t strides[N][kMaxRank] = {};  // bytes
  char* base[N] = {};

  // Starts a loop over `extents`; every operand must then be set.
  void init(const Dims& extents) {
    rank = extents.size();
    for (int d = 0; d < rank; ++d) shape[d] = extents[d];
  }
  // Operand k: `elem_strides` (in elements) aligned with the loop's dims.
  void set_operand(int k, void* data, const Dims& elem_strides, int64_t elem_size) {
    base[k] = static_cast<char*>(data);
    for (int d = 0; d < rank; ++d) strides[k][d] = elem_strides[d] * elem_size;
  }

  int64_t count() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= shape[d];
    return n;
  }

  // Reorders dims so that operand k's strides decrease from outer to inner
  // (a stable sort). Only for loops whose result does not depend on the
  // visiting order, e.g. element-wise ops on an F-ordered output.
  void sort_dims_by_operand(int k) {
    for (int i = 1; i < rank; ++i)
      for (int j = i; j > 0 && abs64(strides[k][j - 1]) < abs64(strides[k][j]); --j) swap_dims(j - 1, j);
  }

  // Drops extent-1 dims and merges dim d into d+1 when, for every operand,
  // stride[d] == stride[d+1] * shape[d+1]. Keeps C visiting order.
  void coalesce() {
    int out = 0;
    for (int d = 0; d < rank; ++d) {
      if (shape[d] == 1) continue;
      copy_dim(d, out++);
    }
    rank = out;
    if (rank <= 1) return;
    int w = 0;
    for (int d = 1; d < rank; ++d) {
      bool can_merge = true;
      for (int k = 0; k < N; ++k)
        if (strides[k][w] != strides[k][d] * shape[d]) can_merge = false;
      if (can_merge) {
        shape[w] *= shape[d];
        for (int k = 0; k < N; ++k) strides[k][w] = strides[k][d];
      } else {
        copy_dim(d, ++w);
      }
    }
    rank = w + 1;
  }

  // Visits elements [begin, end) of the C-order enumeration in runs along the
  // innermost dim: f(char* ptrs[N], const int64_t strides[N], int64_t n).
  template <typename F>
  void run(int64_t begin, int64_t end, F&& f) const {
    if (begin >= end) return;
    char* p[N];
    int64_t inner_stride[N];
    if (rank == 0) {
      for (int k = 0; k < N; ++k) {
        p[k] = base[k];
        inner_stride[k] = 0;
      }
      f(p, inner_stride, end - begin);
      return;
    }
    const int last = rank - 1;
    int64_t idx[kMaxRank];
    int64_t rem = begin;
    for (int d = last; d >= 0; --d) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
    }
    for (int k = 0; k < N; ++k) {
      p[k] = base[k];
      for (int d = 0; d < rank; ++d) p[k] += idx[d] * strides[k][d];
      inner_stride[k] = strides[k][last];
    }
    int64_t pos = begin;
    const int64_t inner = shape[last];
    while (pos < end) {
      int64_t n = std::min(inner - idx[last], end - pos);
      f(p, inner_stride, n);
      pos += n;
      if (pos >= end) break;
      // Step to the start of the next row, carrying into outer dims.
      for (int k = 0; k < N; ++k) p[k] -= idx[last] * strides[k][last];
      idx[last] = 0;
      for (int d = last - 1; d >= 0; --d) {
        ++idx[d];
        for (int k = 0; k < N; ++k) p[k] += strides[k][d];
        if (idx[d] < shape[d]) break;
        for (int k = 0; k < N; ++k) p[k] -= idx[d] * strides[k][d];
        idx[d] = 0;
      }
    }
  }

 private:
  static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }
  void copy_dim(int from, int to) {
    shape[to] = shape[from];
    for (int k = 0; k < N; ++k) strides[k][to] = strides[k][from];
  }
  void swap_dims(int a, int b) {
    std::swap(shape[a], shape[b]);
    for (int k = 0; k < N; ++k) std::swap(strides[k][a], strides[k][b]);
  }
};

// Strides (elements) of `a` broadcast to `target` (Note [Broadcasting]):
// stride 0 where `a` has extent 1 or lacks the dim. The caller has checked
// that the shapes broadcast.
inline Dims broadcast_strides(const Dims& a_shape, const Dims& a_strides, const Dims& target) {
  Dims s;
  s.resize(target.size());
  int off = target.size() - a_shape.size();
  for (int d = 0; d < target.size(); ++d) {
    int ad = d - off;
    s[d] = (ad >= 0 && a_shape[ad] != 1) ? a_strides[ad] : 0;
  }
  return s;
}

}  // namespace libops
