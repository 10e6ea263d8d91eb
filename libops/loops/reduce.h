// Reduction kernels: z = finish(merge over axes of map(x))) for one functor
// and one compute type, over any strides and any set of axes.
//
// A reduce functor (see legacy/ops/reduce_ops.h) provides
//   using Acc = ...;                         accumulator: a number, bool or small struct
//   static Acc identity(const ExtraParams&); merge(identity, a) == a
//   static Acc map(C x, const ExtraParams&)                (unary)
//   static Acc map(C x, C y, const ExtraParams&)           (reduce3: kArity = 2)
//   static Acc map(C x, int64_t index, const ExtraParams&) (index reduce: kIndexed;
//                                           index = C-order position within the reduced dims)
//   static Acc merge(Acc a, Acc b);          associative and commutative up to rounding;
//                                            a result that depends on position (the first
//                                            index of a tie) compares the indices it carries
//   static R finish(Acc a, int64_t n, const ExtraParams&); n = reduced count, R = z's compute type
// and optionally
//   static Status check(const char* op, const ExtraParams&)  rejects bad extra parameters
//                                                            (see reduce_check) before any work
//
// Note [Reduction order]
// Which values are merged in which order is fixed by the shapes and strides
// alone, never by the thread count, so results are bit-identical with 1 or N
// threads (floating-point sums depend on order). Two paths:
//  * Generic (x's innermost dim is reduced, or nothing is kept): each
//    output's reduced positions, in C order over the reduced dims, are cut
//    into chunks of kReduceChunk positions whose results are merged left to
//    right. Inside a chunk each run along the innermost reduced dim is folded
//    in kLanes interleaved lanes over blocks of kBlock elements (so the
//    compiler vectorizes across lanes; kLanes depends only on the functor's
//    accumulator type, e.g. 64 for float); lanes are folded pairwise, blocks
//    left to right. A run that is strided or needs conversion is copied in
//    blocks of kLoadBlock elements, each folded the same way and merged left
//    to right. Threads take whole outputs or, when there are few
//    outputs and many chunks, whole chunks. A run shorter than kLanes thus
//    folds left to right from the identity, and one-dim reductions that
//    short take a loop without the lane machinery (same values, because
//    merging with the identity changes nothing).
//  * Kept-inner (x's innermost dim is kept, e.g. a column sum of a row-major
//    matrix): whole rows along the kept inner dim (extent L) are merged
//    element-wise into a row of accumulators, so the compiler vectorizes
//    across outputs and memory is read in order. The reduced positions are
//    cut into chunks of max(16, kReduceChunk / L) rows, each folded left to
//    right from the identity (kRowBatch rows per pass over the
//    accumulators, same order), chunk results merged left to right. Threads
//    take slices of the kept dims or, with few outputs, whole chunks.
// Both paths agree up to rounding; which one runs depends on the layout, so
// a transposed view may round differently from a dense copy of it.
//
// Reducing zero elements stores finish(identity, 0); integer results are then
// clamped into z's dtype, so an empty int8 max is -128 rather than the wrapped
// int32 identity (Note [Empty reductions] in legacy/ops/reduce_ops.h).
#pragma once

#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "libops/array/ndarray.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "libops/core/status.h"
#include "libops/loops/convert.h"
#include "libops/loops/extra_params.h"
#include "libops/loops/nd_loop.h"

namespace libops {

inline constexpr int64_t kReduceChunk = 65536;              // positions per chunk (Note [Reduction order])
inline constexpr int64_t kElementwiseGrainForReduce = 32768;  // input elements per thread, at least

template <typename Op>
struct reduce_traits {
  static constexpr int kArity = [] {
    if constexpr (requires { Op::kArity; }) return int(Op::kArity);
    else return 1;
  }();
  static constexpr bool kIndexed = [] {
    if constexpr (requires { Op::kIndexed; }) return bool(Op::kIndexed);
    else return false;
  }();
};

// Runs the functor's optional `check` of its extra parameters.
template <typename Op>
Status reduce_check(const char* op, const ExtraParams& e) {
  if constexpr (requires { Op::check(op, e); }) return Op::check(op, e);
  else return Status::ok();
}

namespace detail {

// Clamps an integer result into the range of storage dtype `t` (bool: 0..1).
template <typename R>
R clamp_to_dtype(R v, DataType t) {
  auto clamp = [v](auto lo, auto hi) -> R {
    if (std::cmp_less(v, lo)) return static_cast<R>(lo);
    if (std::cmp_greater(v, hi)) return static_cast<R>(hi);
    return v;
  };
  auto lim = [&](auto s) {
    using S = decltype(s);
    return clamp(std::numeric_limits<S>::lowest(), std::numeric_limits<S>::max());
  };
  switch (t) {
    case DataType::kBool: return clamp(0, 1);
    case DataType::kInt8: return lim(int8_t{});
    case DataType::kInt16: return lim(int16_t{});
    case DataType::kInt32: return lim(int32_t{});
    case DataType::kInt64: return lim(int64_t{});
    case DataType::kUInt8: return lim(uint8_t{});
    case DataType::kUInt16: return lim(uint16_t{});
    case DataType::kUInt32: return lim(uint32_t{});
    case DataType::kUInt64: return lim(uint64_t{});
    default: return v;
  }
}

// dst[i] = src[i * stride] (stride in elements).
template <typename C>
void gather(const C* src, int64_t stride, int64_t n, C* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i * stride];
}

// The loops of one reduction, independent of the functor (so they compile
// once per input count, not once per op): the kept dims with z, x (, y) and
// the reduced dims with x (, y), each coalesced.
template <int NI>
struct ReduceLoops {
  NdLoop<1 + NI> outer;  // kept dims: z, x (, y)
  NdLoop<NI> inner;      // reduced dims: x (, y)
  int64_t n_out = 0, n_red = 0;

  [[gnu::noinline]] ReduceLoops(const NDArray& x, const NDArray* y, const NDArray& z, const Dims& axes) {
    const int rank = x.rank();
    Dims outer_shape, inner_shape, x_outer, x_inner, y_outer, y_inner, z_outer;
    for (Dims* d : {&outer_shape, &inner_shape, &x_outer, &x_inner, &y_outer, &y_inner, &z_outer}) d->resize(rank);
    const bool keep = z.rank() == rank;
    int a = 0, zd = 0;
    for (int d = 0; d < rank; ++d) {
      const bool reduced = a < axes.size() && axes[a] == d;
      if (reduced) ++a;
      outer_shape[d] = reduced ? 1 : x.dim(d);
      inner_shape[d] = reduced ? x.dim(d) : 1;
      x_outer[d] = reduced ? 0 : x.strides()[d];
      x_inner[d] = reduced ? x.strides()[d] : 0;
      if constexpr (NI == 2) {
        y_outer[d] = reduced ? 0 : y->strides()[d];
        y_inner[d] = reduced ? y->strides()[d] : 0;
      }
      if (!reduced) {
        z_outer[d] = z.strides()[zd++];
      } else {
        z_outer[d] = 0;
        if (keep) ++zd;
      }
    }
    outer.init(outer_shape);
    outer.set_operand(0, z.data(), z_outer, int64_t(z.element_size()));
    outer.set_operand(1, x.data(), x_outer, int64_t(x.element_size()));
    if constexpr (NI == 2) outer.set_operand(2, y->data(), y_outer, int64_t(y->element_size()));
    outer.coalesce();
    inner.init(inner_shape);
    inner.set_operand(0, x.data(), x_inner, int64_t(x.element_size()));
    if constexpr (NI == 2) inner.set_operand(1, y->data(), y_inner, int64_t(y->element_size()));
    inner.coalesce();
    n_out = outer.count();
    n_red = inner.count();
  }

  // True when x's innermost dim (smallest stride) is kept: Note [Reduction order].
  bool kept_inner() const {
    if (outer.rank == 0) return false;
    const int64_t kept = abs64(outer.strides[1][outer.rank - 1]);
    for (int d = 0; d < inner.rank; ++d)
      if (abs64(inner.strides[0][d]) <= kept) return false;
    return true;
  }

  // p = z, x (, y) pointers of kept position `pos`, s = their strides along
  // the innermost kept dim.
  [[gnu::noinline]] void kept_ptrs(int64_t pos, char** p, int64_t* s) const {
    outer.run(pos, pos + 1, [&](char* const* q, const int64_t* qs, int64_t) {
      for (int k = 0; k < 1 + NI; ++k) {
        p[k] = q[k];
        s[k] = qs[k];
      }
    });
  }

  static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }
};

// loop.run(b, end, f) through a function pointer, so the N-d stepping is
// compiled once per operand count rather than at every call site.
using ReduceRunFn = void (*)(void* ctx, char* const* p, const int64_t* s, int64_t n);
template <int N>
[[gnu::noinline]] void run_loop_erased(const NdLoop<N>& loop, int64_t b, int64_t end, ReduceRunFn fn, void* ctx) {
  loop.run(b, end, [&](char* const* p, const int64_t* s, int64_t n) { fn(ctx, p, s, n); });
}
template <int N, typename F>
void for_each_run(const NdLoop<N>& loop, int64_t b, int64_t end, F&& f) {
  using Fn = std::remove_reference_t<F>;
  run_loop_erased<N>(
      loop, b, end,
      [](void* ctx, char* const* p, const int64_t* s, int64_t n) { (*static_cast<Fn*>(ctx))(p, s, n); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

template <typename Op, typename C>
class Reducer {
 public:
  using Acc = typename Op::Acc;
  using R = decltype(Op::finish(std::declval<Acc>(), int64_t{}, std::declval<const ExtraParams&>()));
  static constexpr int kArity = reduce_traits<Op>::kArity;
  static constexpr bool kIndexed = reduce_traits<Op>::kIndexed;
  static constexpr int NI = kArity;       // inputs of the reduced-dims loop
  // Interleaved lanes of the generic path: 256 bytes of accumulators for
  // numbers (8 AVX registers: enough independent add chains that a dense
  // sum is bound by memory bandwidth, not by add latency), 16 for structs.
  static constexpr int kLanes = [] {
    if constexpr (std::is_arithmetic_v<Acc>) return int(std::clamp<size_t>(256 / sizeof(Acc), 16, 64));
    else return 16;
  }();
  static constexpr int64_t kBlock = 4096;
  static constexpr int64_t kLoadBlock = 512;  // elements copied per block (strided or converted runs)
  static constexpr int64_t kSlice = 1024;     // kept-inner path: outputs per accumulator row
  static constexpr int kRowBatch = 4;         // kept-inner path: rows merged per pass over the accumulators
  static constexpr int64_t kMinChunkRows = 16;  // kept-inner path: rows per chunk, at least
  static constexpr int64_t kPartialBytes = 4 << 20;  // kept-inner path: chunk results held at once

  Reducer(const NDArray& x, const NDArray* y, NDArray& z, const Dims& axes, const ExtraParams& e)
      : e_(e), z_(z), loops_(x, y, z, axes), outer_(loops_.outer), inner_(loops_.inner), n_out_(loops_.n_out),
        n_red_(loops_.n_red) {
    direct_ = x.dtype() == dtype_of_v<C> && (kArity == 1 || y->dtype() == dtype_of_v<C>);
    if (!direct_) {
      load_x_ = load_fn<C>(x.dtype());
      if constexpr (kArity == 2) load_y_ = load_fn<C>(y->dtype());
    }
    z_direct_ = z.dtype() == dtype_of_v<R>;
    if (!z_direct_) store_z_ = store_fn<R>(z.dtype());
  }

  void run() {
    if (n_out_ == 0) return;
    if (n_red_ == 0) return run_empty();
    if (loops_.kept_inner()) return run_kept_inner();
    run_generic();
  }

  bool kept_inner_applies() const { return loops_.kept_inner(); }

 private:
  const ExtraParams& e_;
  NDArray& z_;
  ReduceLoops<NI> loops_;
  const NdLoop<1 + NI>& outer_;
  const NdLoop<NI>& inner_;
  const int64_t n_out_, n_red_;
  bool direct_ = false, z_direct_ = false;
  LoadFn<C> load_x_ = nullptr, load_y_ = nullptr;
  StoreFn<R> store_z_ = nullptr;

  // Scratch arrays (not std::vector: Acc may be bool).
  template <typename T> static std::unique_ptr<T[]> buffer(size_t n) { return std::make_unique<T[]>(n); }

  void store(char* zp, R r) const {
    if (z_direct_) *reinterpret_cast<R*>(zp) = r;
    else store_z_(&r, zp, 0, 1);
  }

  Acc map1(const C* x, const C* y, int64_t i, int64_t index) const {
    if constexpr (kArity == 2) return Op::map(x[i], y[i], e_);
    else if constexpr (kIndexed) return Op::map(x[i], index, e_);
    else return Op::map(x[i], e_);
  }

  // ---- empty reductions ----

  void run_empty() const {
    R r = Op::finish(Op::identity(e_), 0, e_);
    if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) r = clamp_to_dtype(r, z_.dtype());
    for_each_run(outer_, 0, n_out_, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) store(p[0] + i * s[0], r);
    });
  }

  // ---- generic path ----

  // Note [Dense index picks]: argmax-like reductions (a value and its
  // index, Op::Compare, NaN first, ties to the first index) over a dense
  // run go block by block: one vectorized pass finds the block's best key
  // and whether it holds a NaN, then a second pass over the block, still in
  // L1, finds the first index holding that key (or the first NaN). Memory
  // is read once, and the result is the generic merge's exactly.
  // nvcc's host front end lacks GNU vector comparisons: a .cu file that
  // includes this header takes the generic merge.
#if defined(__CUDACC__)
  static constexpr bool kPicksIndex = false;
#else
  static constexpr bool kPicksIndex = [] {
    if constexpr (requires { Op::kLargest; })  // |x| of a signed integer may wrap: generic path
      return std::is_arithmetic_v<C> && !std::is_same_v<C, bool> && (!Op::kAbsolute || std::is_floating_point_v<C>);
    else return false;
  }();
#endif

  // The key the op compares: x, or |x| for the absolute picks.
  C pick_key(C v) const { return Op::map(v, 0, e_).value; }

#if !defined(__CUDACC__)
  // Two vectors of lanes (GNU vector extensions: no intrinsics, any
  // element type) so the block pass runs at memory speed.
  static constexpr int kPickBytes = 32;
  typedef C PickVec __attribute__((vector_size(kPickBytes)));
  static constexpr int kPickLanes = kPickBytes / int(sizeof(C));

  // Always inlined: each ISA copy of the pick keeps its vectors in its
  // own registers (Note [Runtime ISA dispatch]); no call passes them.
  [[gnu::always_inline]] static PickVec load_vec(const C* p) {
    PickVec v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  // x, or |x| for the absolute picks (float keys only on this path).
  [[gnu::always_inline]] static PickVec key_vec(PickVec v) {
    if constexpr (Op::kAbsolute) return v < C(0) ? -v : v;
    else return v;
  }
  [[gnu::always_inline]] static auto better_vec(PickVec a, PickVec b) {
    if constexpr (Op::kLargest) return a > b;
    else return a < b;
  }
  // Whether any lane of a comparison's mask is set: the mask's bytes ORed
  // as four 64-bit words (a lane-by-lane loop cost more than the compares).
  [[gnu::always_inline]] static bool any_lane(decltype(PickVec{} != PickVec{}) m) {
    static_assert(sizeof(m) == 4 * sizeof(uint64_t));
    uint64_t w[4];
    std::memcpy(w, &m, sizeof w);
    return ((w[0] | w[1]) | (w[2] | w[3])) != 0;
  }

  Acc fold_pick(const C* x, int64_t n, int64_t index0) const
    requires(kPicksIndex) {
    Acc total = Op::identity(e_);
    // The key picked so far: a later block is located (read a second time)
    // only when its best key beats it, since on a tie the earlier position
    // wins; after a NaN nothing can. On data in no order that is a handful
    // of blocks, so the pick runs at the speed of one read.
    C run_key{};
    bool have = false, run_nan = false;
    for (int64_t b = 0; b < n; b += kBlock) {
      if (run_nan) break;
      const int64_t m = std::min(kBlock, n - b);
      const C* xb = x + b;
      const int64_t whole = m / (2 * kPickLanes) * (2 * kPickLanes);
      int64_t at = -1;
      if (whole > 0) {
        PickVec lo = key_vec(load_vec(xb)), hi = key_vec(load_vec(xb + kPickLanes));
        auto nan = (lo != lo) | (hi != hi);
        for (int64_t i = 2 * kPickLanes; i < whole; i += 2 * kPickLanes) {
          const PickVec a = key_vec(load_vec(xb + i)), c = key_vec(load_vec(xb + i + kPickLanes));
          nan |= (a != a) | (c != c);
          lo = better_vec(a, lo) ? a : lo;  // a NaN never replaces
          hi = better_vec(c, hi) ? c : hi;
        }
        lo = better_vec(hi, lo) ? hi : lo;
        bool any_nan = any_lane(nan);
        C best = lo[0];
        for (int k = 1; k < kPickLanes; ++k) best = better_scalar(lo[k], best) ? lo[k] : best;
        for (int64_t i = whole; i < m; ++i) {
          const C v = pick_key(xb[i]);
          any_nan |= v != v;
          best = better_scalar(v, best) ? v : best;
        }
        if (have && !any_nan && !better_scalar(best, run_key)) continue;  // nothing here beats the pick
        have = true;
        run_key = best;
        run_nan = any_nan;
        // The first position holding the target (the first NaN, or the best
        // key): a vector of lanes tested at a time, then the one that hit.
        const PickVec target = PickVec{} + best;
        int64_t g = 0;
        for (; g < whole; g += kPickLanes) {
          const PickVec v = key_vec(load_vec(xb + g));
          if (any_lane(any_nan ? v != v : v == target)) break;
        }
        for (int64_t j = g; j < m; ++j) {
          const C v = pick_key(xb[j]);
          if (any_nan ? v != v : v == best) {
            at = j;
            break;
          }
        }
      }
      if (at < 0) {  // a short block: the generic merge
        Acc a = Op::identity(e_);
        for (int64_t j = 0; j < m; ++j) a = Op::merge(a, Op::map(xb[j], index0 + b + j, e_));
        total = Op::merge(total, a);
      } else {
        total = Op::merge(total, Op::map(xb[at], index0 + b + at, e_));
      }
    }
    return total;
  }
#endif  // !__CUDACC__

  static bool better_scalar(C a, C b) {
    if constexpr (Op::kLargest) return a > b;
    else return a < b;
  }

  // A dense compute-type run: lanes over blocks (Note [Reduction order]),
  // compiled per instruction set (Note [Runtime ISA dispatch]).
  [[gnu::noinline]] Acc fold_dense(const C* x, const C* y, int64_t n, int64_t index0) const {
    return isa_dispatch([&] { return fold_dense_body(x, y, n, index0); });
  }
  Acc fold_dense_body(const C* x, const C* y, int64_t n, int64_t index0) const {
#if !defined(__CUDACC__)
    if constexpr (kPicksIndex) return fold_pick(x, n, index0);
#endif
    Acc total = Op::identity(e_);
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      Acc lane[kLanes];
      for (int k = 0; k < kLanes; ++k) lane[k] = Op::identity(e_);
      int64_t i = 0;
      for (; i + kLanes <= m; i += kLanes)
        for (int k = 0; k < kLanes; ++k) lane[k] = Op::merge(lane[k], map1(x, y, b + i + k, index0 + b + i + k));
      for (; i < m; ++i) lane[0] = Op::merge(lane[0], map1(x, y, b + i, index0 + b + i));
      for (int w = kLanes / 2; w >= 1; w /= 2)
        for (int k = 0; k < w; ++k) lane[k] = Op::merge(lane[k], lane[k + w]);
      total = Op::merge(total, lane[0]);
    }
    return total;
  }

  // Copies n elements of operand k (x or y) from `src`, `stride` bytes apart,
  // into dst as C.
  void load(int k, const char* src, int64_t stride, int64_t n, C* dst) const {
    if (direct_) gather(reinterpret_cast<const C*>(src), stride / int64_t(sizeof(C)), n, dst);
    else (k == 0 ? load_x_ : load_y_)(src, stride, n, dst);
  }

  // One run along the innermost reduced dim: p[0] = x, p[1] = y (reduce3).
  // A run that is not dense in C is copied or converted kLoadBlock elements
  // at a time, each block folded as a dense run.
  Acc fold_run(char* const* p, const int64_t* s, int64_t n, int64_t index0) const {
    if (direct_ && s[0] == int64_t(sizeof(C)) && s[NI - 1] == int64_t(sizeof(C))) {
      const C* y = nullptr;
      if constexpr (kArity == 2) y = reinterpret_cast<const C*>(p[1]);
      return fold_dense(reinterpret_cast<const C*>(p[0]), y, n, index0);
    }
    Acc a = Op::identity(e_);
    C xb[kLoadBlock], yb[kArity == 2 ? kLoadBlock : 1];
    const C* y = kArity == 2 ? yb : nullptr;
    for (int64_t i = 0; i < n; i += kLoadBlock) {
      const int64_t m = std::min(kLoadBlock, n - i);
      load(0, p[0] + i * s[0], s[0], m, xb);
      if constexpr (kArity == 2) load(1, p[1] + i * s[1], s[1], m, yb);
      a = Op::merge(a, fold_dense(xb, y, m, index0 + i));
    }
    return a;
  }

  // Folds reduced positions [b, end) of the output whose inputs start at `in`.
  Acc fold_range(char* const* in, int64_t b, int64_t end) const {
    Acc acc = Op::identity(e_);
    if (inner_.rank <= 1) {  // one run: skip the loop machinery (same merges as below)
      char* p[NI];
      int64_t s[NI];
      for (int k = 0; k < NI; ++k) {
        s[k] = inner_.rank == 1 ? inner_.strides[k][0] : 0;
        p[k] = in[k] + b * s[k];
      }
      return Op::merge(acc, fold_run(p, s, end - b, b));
    }
    NdLoop<NI> loop = inner_;
    for (int k = 0; k < NI; ++k) loop.base[k] = in[k];
    int64_t index = b;
    for_each_run(loop, b, end, [&](char* const* p, const int64_t* s, int64_t n) {
      acc = Op::merge(acc, fold_run(p, s, n, index));
      index += n;
    });
    return acc;
  }

  [[gnu::noinline]] Acc fold_chunk(char* const* in, int64_t c) const {
    return fold_range(in, c * kReduceChunk, std::min(n_red_, (c + 1) * kReduceChunk));
  }

  // Pointers of output o: z, x (, y).
  void output_ptrs(int64_t o, char** zp, char** in) const {
    char* p[1 + NI];
    int64_t s[1 + NI];
    loops_.kept_ptrs(o, p, s);
    *zp = p[0];
    for (int k = 0; k < NI; ++k) in[k] = p[1 + k];
  }

  // Outputs [b, end), each folded over all its chunks.
  [[gnu::noinline]] void reduce_outputs(int64_t b, int64_t end, int64_t chunks) const {
    for_each_run(outer_, b, end, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        char* in[NI];
        for (int k = 0; k < NI; ++k) in[k] = p[1 + k] + i * s[1 + k];
        Acc acc = Op::identity(e_);
        for (int64_t c = 0; c < chunks; ++c) acc = Op::merge(acc, fold_chunk(in, c));
        store(p[0] + i * s[0], Op::finish(acc, n_red_, e_));
      }
    });
  }

  // Items [b, end) of (output, chunk) into partial[item].
  [[gnu::noinline]] void fold_output_chunks(int64_t b, int64_t end, int64_t chunks, Acc* partial) const {
    for (int64_t item = b; item < end; ++item) {
      char* zp;
      char* in[NI];
      output_ptrs(item / chunks, &zp, in);
      partial[item] = fold_chunk(in, item % chunks);
    }
  }

  // Reductions shorter than kLanes along one dim (e.g. the last dim of
  // [N, 4]): fold_dense would put every element in lane 0 and merge it with
  // identities only, so a plain left-to-right fold gives the same result
  // without the per-output lane machinery.
  // kShortGroup outputs are folded side by side: each output's fold is a
  // chain of dependent merges (a float add's latency each: 49 of them for
  // a 7x7 global pooling), and independent chains overlap. Each output's
  // order stays left to right.
  static constexpr int kShortGroup = 8;
  [[gnu::noinline]] void reduce_short_outputs(int64_t b, int64_t end) const {
    C xb[kShortGroup][kLanes], yb[kArity == 2 ? kShortGroup : 1][kLanes];
    // Dense runs are read in place, others copied.
    bool in_place = direct_;
    for (int k = 0; k < NI; ++k) in_place = in_place && inner_.strides[k][0] == int64_t(sizeof(C));
    for_each_run(outer_, b, end, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; i += kShortGroup) {
        const int group = static_cast<int>(std::min<int64_t>(kShortGroup, n - i));
        const C* xp[kShortGroup];
        const C* yp[kShortGroup] = {};
        for (int j = 0; j < group; ++j) {
          if (in_place) {
            xp[j] = reinterpret_cast<const C*>(p[1] + (i + j) * s[1]);
            if constexpr (kArity == 2) yp[j] = reinterpret_cast<const C*>(p[2] + (i + j) * s[2]);
            continue;
          }
          load(0, p[1] + (i + j) * s[1], inner_.strides[0][0], n_red_, xb[j]);
          xp[j] = xb[j];
          if constexpr (kArity == 2) {
            load(1, p[2] + (i + j) * s[2], inner_.strides[1][0], n_red_, yb[j]);
            yp[j] = yb[j];
          }
        }
        Acc acc[kShortGroup];
        for (int j = 0; j < kShortGroup; ++j) acc[j] = Op::identity(e_);
        if (group == kShortGroup) {
          for (int64_t r = 0; r < n_red_; ++r)
            for (int j = 0; j < kShortGroup; ++j) acc[j] = Op::merge(acc[j], map1(xp[j], yp[j], r, r));
        } else {
          for (int j = 0; j < group; ++j)
            for (int64_t r = 0; r < n_red_; ++r) acc[j] = Op::merge(acc[j], map1(xp[j], yp[j], r, r));
        }
        for (int j = 0; j < group; ++j) store(p[0] + (i + j) * s[0], Op::finish(acc[j], n_red_, e_));
      }
    });
  }

  void run_generic() const {
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrainForReduce / n_red_);
    if (inner_.rank == 1 && n_red_ < kLanes) {
      parallel_for(n_out_, grain, [&](int64_t b, int64_t end) { reduce_short_outputs(b, end); });
      return;
    }
    const int64_t chunks = (n_red_ + kReduceChunk - 1) / kReduceChunk;
    if (chunks == 1 || n_out_ >= 4 * int64_t(get_num_threads())) {
      parallel_for(n_out_, grain, [&](int64_t b, int64_t end) { reduce_outputs(b, end, chunks); });
      return;
    }
    // Few outputs, long reductions: threads take (output, chunk) items.
    auto partial = buffer<Acc>(static_cast<size_t>(n_out_ * chunks));
    parallel_for(n_out_ * chunks, 1, [&](int64_t b, int64_t end) { fold_output_chunks(b, end, chunks, partial.get()); });
    for (int64_t o = 0; o < n_out_; ++o) {
      Acc acc = Op::identity(e_);
      for (int64_t c = 0; c < chunks; ++c) acc = Op::merge(acc, partial[o * chunks + c]);
      char* zp;
      char* in[NI];
      output_ptrs(o, &zp, in);
      store(zp, Op::finish(acc, n_red_, e_));
    }
  }

  // ---- kept-inner path ----

  // Where one slice of the kept dims lives: `w` outputs along the kept inner
  // dim starting at z/x/y pointers with strides s (bytes).
  struct Slice {
    char* p[1 + NI];
    int64_t s[1 + NI];
    int64_t w;
  };

  struct KeptInnerPlan {
    int64_t len;             // L: extent of the kept inner dim
    int64_t width;           // outputs per slice, <= kSlice
    int64_t slices_per_row;  // slices across one kept inner row
    int64_t slices;          // over all kept dims
    int64_t rows_per_chunk;
    int64_t chunks;
  };

  KeptInnerPlan plan_kept_inner() const {
    KeptInnerPlan k;
    k.len = outer_.shape[outer_.rank - 1];
    k.width = std::min(kSlice, k.len);
    k.slices_per_row = (k.len + k.width - 1) / k.width;
    k.slices = (n_out_ / k.len) * k.slices_per_row;
    k.rows_per_chunk = std::max<int64_t>(kMinChunkRows, kReduceChunk / k.len);
    k.chunks = (n_red_ + k.rows_per_chunk - 1) / k.rows_per_chunk;
    return k;
  }

  static int64_t slice_width(const KeptInnerPlan& k, int64_t slice) {
    return std::min(k.width, k.len - (slice % k.slices_per_row) * k.width);
  }

  Slice slice_at(const KeptInnerPlan& k, int64_t slice) const {
    Slice sl;
    const int64_t first = (slice / k.slices_per_row) * k.len + (slice % k.slices_per_row) * k.width;
    sl.w = slice_width(k, slice);
    loops_.kept_ptrs(first, sl.p, sl.s);  // [first, first + w) lies in one row of the last kept dim
    return sl;
  }

  // Scratch of one thread on the kept-inner path.
  struct RowScratch {
    std::unique_ptr<Acc[]> acc, total;
    std::unique_ptr<C[]> xb, yb;  // kRowBatch rows each, when rows are copied
    explicit RowScratch(int64_t width)
        : acc(buffer<Acc>(size_t(width))), total(buffer<Acc>(size_t(width))),
          xb(buffer<C>(size_t(kRowBatch * width))), yb(buffer<C>(kArity == 2 ? size_t(kRowBatch * width) : 0)) {}
  };

  Acc map_at(const C* const* xp, const C* const* yp, int j, int64_t k, int64_t index) const {
    if constexpr (kArity == 2) return Op::map(xp[j][k], yp[j][k], e_);
    else if constexpr (kIndexed) return Op::map(xp[j][k], index + j, e_);
    else return Op::map(xp[j][k], e_);
  }

  // acc[k] = merge(... merge(acc[k], map(row 0)[k]) ..., map(row nr-1)[k])
  // for nr consecutive reduced positions whose rows start at `rows` (`step`
  // bytes apart): the same left-to-right order as one row at a time, but each
  // accumulator is loaded and stored once per kRowBatch rows.
  void accumulate_rows(Acc* __restrict acc, const char* const* rows, const int64_t* step, int nr, const Slice& sl,
                       int64_t index, RowScratch& scratch) const {
    const int64_t w = sl.w;
    const C* xp[kRowBatch];
    const C* yp[kRowBatch] = {};
    for (int j = 0; j < nr; ++j) {
      for (int k = 0; k < NI; ++k) {
        const char* r = rows[k] + j * step[k];
        const C*& out = k == 0 ? xp[j] : yp[j];
        if (direct_ && sl.s[1 + k] == int64_t(sizeof(C))) {
          out = reinterpret_cast<const C*>(r);  // dense row: read in place
        } else {
          C* buf = (k == 0 ? scratch.xb : scratch.yb).get() + j * w;
          load(k, r, sl.s[1 + k], w, buf);
          out = buf;
        }
      }
    }
    // The merges, compiled per instruction set (Note [Runtime ISA dispatch]).
    isa_dispatch([&] { merge_rows(acc, xp, yp, nr, w, index); });
  }

  void merge_rows(Acc* __restrict acc, const C* const* xp, const C* const* yp, int nr, int64_t w,
                  int64_t index) const {
    if (nr == kRowBatch) {
      for (int64_t k = 0; k < w; ++k) {
        Acc a = acc[k];
#pragma GCC unroll 4
        for (int j = 0; j < kRowBatch; ++j) a = Op::merge(a, map_at(xp, yp, j, k, index));
        acc[k] = a;
      }
      return;
    }
    for (int j = 0; j < nr; ++j)
      for (int64_t k = 0; k < w; ++k) acc[k] = Op::merge(acc[k], map_at(xp, yp, j, k, index));
  }

  // Folds chunk c of the reduced positions for one slice into acc[0, w).
  [[gnu::noinline]] void fold_rows(const KeptInnerPlan& k, const Slice& sl, int64_t c, Acc* acc,
                                   RowScratch& scratch) const {
    fill_identity(acc, sl.w);
    const int64_t rb = c * k.rows_per_chunk, re = std::min(n_red_, rb + k.rows_per_chunk);
    if (inner_.rank == 1 && direct_ && sl.s[1] == int64_t(sizeof(C)) && sl.s[NI] == int64_t(sizeof(C))) {
      // Dense rows along one reduced dim: every batch of rows in one
      // dispatched call (the same merges as below).
      int64_t qs[NI];
      const char* q[NI];
      for (int j = 0; j < NI; ++j) qs[j] = inner_.strides[j][0], q[j] = sl.p[1 + j] + rb * qs[j];
      isa_dispatch([&] {
        for (int64_t i = 0; i < re - rb; i += kRowBatch) {
          const int nr = static_cast<int>(std::min<int64_t>(kRowBatch, re - rb - i));
          const C* xp[kRowBatch];
          const C* yp[kRowBatch] = {};
          for (int r = 0; r < nr; ++r) {
            xp[r] = reinterpret_cast<const C*>(q[0] + (i + r) * qs[0]);
            if constexpr (kArity == 2) yp[r] = reinterpret_cast<const C*>(q[1] + (i + r) * qs[1]);
          }
          merge_rows(acc, xp, yp, nr, sl.w, rb + i);
        }
      });
      return;
    }
    NdLoop<NI> loop = inner_;
    for (int j = 0; j < NI; ++j) loop.base[j] = sl.p[1 + j];
    int64_t index = rb;
    for_each_run(loop, rb, re, [&](char* const* q, const int64_t* qs, int64_t m) {
      for (int64_t i = 0; i < m; i += kRowBatch) {
        const int nr = static_cast<int>(std::min<int64_t>(kRowBatch, m - i));
        const char* rows[NI];
        for (int j = 0; j < NI; ++j) rows[j] = q[j] + i * qs[j];
        accumulate_rows(acc, rows, qs, nr, sl, index, scratch);
        index += nr;
      }
    });
  }

  void fill_identity(Acc* a, int64_t w) const {
    for (int64_t j = 0; j < w; ++j) a[j] = Op::identity(e_);
  }
  [[gnu::noinline]] void merge_row(Acc* __restrict total, const Acc* part, int64_t w) const {
    for (int64_t j = 0; j < w; ++j) total[j] = Op::merge(total[j], part[j]);
  }
  [[gnu::noinline]] void store_slice(const Slice& sl, const Acc* total) const {
    for (int64_t j = 0; j < sl.w; ++j) store(sl.p[0] + j * sl.s[0], Op::finish(total[j], n_red_, e_));
  }

  // Slices [b, end): chunk results merged left to right, then stored.
  [[gnu::noinline]] void reduce_slices(const KeptInnerPlan& k, int64_t b, int64_t end) const {
    RowScratch scratch(k.width);
    for (int64_t slice = b; slice < end; ++slice) {
      const Slice sl = slice_at(k, slice);
      fill_identity(scratch.total.get(), sl.w);
      for (int64_t c = 0; c < k.chunks; ++c) {
        fold_rows(k, sl, c, scratch.acc.get(), scratch);
        merge_row(scratch.total.get(), scratch.acc.get(), sl.w);
      }
      store_slice(sl, scratch.total.get());
    }
  }

  // Items [b, end) of (slice, chunk c0 + i), i < nc, into rows of `partial`.
  [[gnu::noinline]] void fold_slice_chunks(const KeptInnerPlan& k, int64_t c0, int64_t nc, int64_t b, int64_t end,
                                           Acc* partial) const {
    RowScratch scratch(k.width);
    for (int64_t item = b; item < end; ++item)
      fold_rows(k, slice_at(k, item / nc), c0 + item % nc, partial + item * k.width, scratch);
  }

  void run_kept_inner() const {
    const KeptInnerPlan k = plan_kept_inner();
    const int64_t threads = get_num_threads();
    if (k.chunks == 1 || k.slices >= 4 * threads) {
      const int64_t grain = std::max<int64_t>(1, kElementwiseGrainForReduce / (k.width * n_red_));
      parallel_for(k.slices, grain, [&](int64_t b, int64_t end) { reduce_slices(k, b, end); });
      return;
    }
    // Few outputs, long reductions: threads take (slice, chunk) items, in
    // waves of chunks so the partial rows stay within kPartialBytes; each
    // wave is merged into the totals in chunk order.
    const int64_t row_bytes = int64_t(sizeof(Acc)) * k.width;
    const int64_t wave = std::max<int64_t>(1, std::max(threads, kPartialBytes / row_bytes) / k.slices);
    auto partial = buffer<Acc>(static_cast<size_t>(k.slices * std::min(wave, k.chunks) * k.width));
    auto total = buffer<Acc>(static_cast<size_t>(k.slices * k.width));
    fill_identity(total.get(), k.slices * k.width);
    for (int64_t c0 = 0; c0 < k.chunks; c0 += wave) {
      const int64_t nc = std::min(wave, k.chunks - c0);
      parallel_for(k.slices * nc, 1,
                   [&](int64_t b, int64_t end) { fold_slice_chunks(k, c0, nc, b, end, partial.get()); });
      for (int64_t slice = 0; slice < k.slices; ++slice)
        for (int64_t c = 0; c < nc; ++c)
          merge_row(&total[slice * k.width], &partial[(slice * nc + c) * k.width], slice_width(k, slice));
    }
    for (int64_t slice = 0; slice < k.slices; ++slice) store_slice(slice_at(k, slice), &total[slice * k.width]);
  }
};

}  // namespace detail

// Reduces x (and y for reduce3, same shape as x) over the normalized,
// sorted `axes` into z, whose shape is reduced_shape(x, axes, keep_dims) for
// either keep_dims (checked by the caller, as is reduce_check<Op>).
template <typename Op, typename C>
void reduce_run(const NDArray& x, const NDArray* y, NDArray& z, const Dims& axes, const ExtraParams& e) {
  detail::Reducer<Op, C>(x, y, z, axes, e).run();
}

}  // namespace libops
