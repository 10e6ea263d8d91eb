// The iteration a one-pass reduction runs (expr.h's reductions, Note
// [Reductions]; the fused_reduce op): the dims of the reduced shape S
// reordered with the kept dims outer and the reduced dims inner, each group
// in its own order, so that the C-order enumeration of the NdLoop visits
// each output element's values as one contiguous range of `per_output`
// elements, which one thread can reduce whole.
#pragma once

#include <cstdint>

#include "libops/array/dims.h"
#include "libops/array/ndarray.h"
#include "libops/loops/nd_loop.h"

namespace libops {

struct ReductionOrder {
  int rank = 0;
  int order[kMaxRank] = {};  // iteration dim i is S's dim order[i]
  Dims shape;                // S in iteration order
  Dims z_strides;            // z's element strides in iteration order; 0 on the reduced dims
  int64_t per_output = 1;    // values per output element

  // Element strides over S (an operand broadcast to S) in iteration order.
  Dims permuted(const Dims& strides) const {
    Dims p = strides;
    for (int i = 0; i < rank; ++i) p[i] = strides[order[i]];
    return p;
  }
  // An NdLoop over the iteration with z as operand 0 (the caller sets the
  // others with set_input, then coalesces).
  template <int N>
  NdLoop<N> loop(NDArray& z) const {
    NdLoop<N> l;
    l.init(shape);
    l.set_operand(0, z.data(), z_strides, static_cast<int64_t>(z.element_size()));
    return l;
  }
  // Operand k: array `a`, broadcast to S.
  template <int N>
  void set_input(NdLoop<N>& l, int k, const NDArray& a, const Dims& s_shape) const {
    l.set_operand(k, a.data(), permuted(broadcast_strides(a.shape(), a.strides(), s_shape)),
                  static_cast<int64_t>(a.element_size()));
  }
};

// The order for reducing S = `shape` over the normalised `axes` into z,
// which has S's dims with the reduced ones kept as 1 (z's rank is S's) or
// dropped.
inline ReductionOrder reduction_order(const Dims& shape, const Dims& axes, const NDArray& z) {
  ReductionOrder r;
  r.rank = shape.size();
  bool reduced[kMaxRank] = {};
  for (int d : axes) {
    reduced[d] = true;
    r.per_output *= shape[d];
  }
  const bool kept_dims = z.rank() == r.rank;
  Dims z_over_s = shape;  // z's strides over S's dims
  for (int d = 0, o = 0; d < r.rank; ++d) {
    if (reduced[d]) {
      z_over_s[d] = 0;
      if (kept_dims) ++o;
    } else {
      z_over_s[d] = z.strides()[o++];
    }
  }
  int n = 0;
  for (int d = 0; d < r.rank; ++d)
    if (!reduced[d]) r.order[n++] = d;
  for (int d = 0; d < r.rank; ++d)
    if (reduced[d]) r.order[n++] = d;
  r.shape = r.permuted(shape);
  r.z_strides = r.permuted(z_over_s);
  return r;
}

// Note [Split reductions]
// Threads take whole output elements, so a reduction to one element (a sum
// of everything) would run on one thread. Where there are at most
// kSplitOutputs outputs of at least two pieces each, each output's range is
// cut into pieces of kSplitPiece values, reduced in parallel and combined in
// order. The cut depends on the shapes alone, never on the thread count, so
// results do not either. Expressions (expr.h) and fused_reduce cut alike.
inline constexpr int64_t kSplitPiece = int64_t{1} << 16;
inline constexpr int64_t kSplitOutputs = 16;

// The pieces each output is cut into, or 0 when the reduction is not cut.
inline int64_t split_pieces(int64_t outputs, int64_t per_output) {
  if (outputs > kSplitOutputs || per_output < 2 * kSplitPiece) return 0;
  return (per_output + kSplitPiece - 1) / kSplitPiece;
}

}  // namespace libops
