// Reduction kernels: z = finish(merge over axes of map(x)) for one functor
// and one compute type, over any strides and any set of axes.
//
// A reduce functor (see legacy/functors/reduce_functors.h) provides
//   using Acc = ...;                         accumulator type
//   static Acc identity(const ExtraParams&);
//   static Acc map(C x, const ExtraParams&)                (unary)
//   static Acc map(C x, C y, const ExtraParams&)           (reduce3: kArity = 2)
//   static Acc map(C x, int64_t index, const ExtraParams&) (index reduce: kIndexed)
//   static Acc merge(Acc a, Acc b);          associative
//   static R finish(Acc a, int64_t n, const ExtraParams&); n = reduced count
//
// Note [Reduction order]
// Dense runs are accumulated in 8 lanes (so the compiler vectorizes) over
// blocks of 4096 elements, block results merged in order. A reduction of
// more than kReduceChunk elements into few outputs is split into fixed-size
// chunks merged in order, so results do not depend on the thread count.
#pragma once

#include <vector>

#include "libops/array/ndarray.h"
#include "libops/core/parallel.h"
#include "libops/loops/convert.h"
#include "libops/loops/extra_params.h"
#include "libops/loops/nd_loop.h"

namespace libops {

inline constexpr int64_t kReduceChunk = 65536;
inline constexpr int64_t kElementwiseGrainForReduce = 32768;  // input elements per thread, at least

template <typename Op>
struct reduce_traits {
  template <typename T> static constexpr int arity(decltype(T::kArity)*) { return T::kArity; }
  template <typename T> static constexpr int arity(...) { return 1; }
  template <typename T> static constexpr bool indexed(decltype(T::kIndexed)*) { return T::kIndexed; }
  template <typename T> static constexpr bool indexed(...) { return false; }
  static constexpr int kArity = arity<Op>(nullptr);
  static constexpr bool kIndexed = indexed<Op>(nullptr);
};

namespace detail {

template <typename Op, typename C>
struct ReduceRunner {
  using Acc = typename Op::Acc;
  static constexpr int kArity = reduce_traits<Op>::kArity;
  static constexpr bool kIndexed = reduce_traits<Op>::kIndexed;
  static constexpr int kLanes = 8;
  static constexpr int64_t kBlock = 4096;

  const ExtraParams& e;
  bool direct;  // inputs already in C
  LoadFn<C> load_x, load_y;

  Acc map1(const C* x, const C* y, int64_t i, int64_t index) const {
    if constexpr (kArity == 2) return Op::map(x[i], y[i], e);
    else if constexpr (kIndexed) return Op::map(x[i], index, e);
    else return Op::map(x[i], e);
  }

  // Dense compute-type run: lanes over blocks (Note [Reduction order]).
  Acc dense(const C* x, const C* y, int64_t n, int64_t index0) const {
    Acc total = Op::identity(e);
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      Acc lane[kLanes];
      for (int k = 0; k < kLanes; ++k) lane[k] = Op::identity(e);
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

  // One run of the reduced-dims loop: p[0] = x, p[1] = y (reduce3).
  Acc run(char* const* p, const int64_t* s, int64_t n, int64_t index0) const {
    const C* y = nullptr;
    if (direct) {
      const C* x = reinterpret_cast<const C*>(p[0]);
      if constexpr (kArity == 2) y = reinterpret_cast<const C*>(p[1]);
      bool dense_run = s[0] == int64_t(sizeof(C)) && (kArity == 1 || s[1] == int64_t(sizeof(C)));
      if (dense_run) return dense(x, y, n, index0);
      Acc a = Op::identity(e);
      const int64_t sx = s[0] / int64_t(sizeof(C));
      const int64_t sy = kArity == 2 ? s[1] / int64_t(sizeof(C)) : 0;
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (kArity == 2) a = Op::merge(a, Op::map(x[i * sx], y[i * sy], e));
        else if constexpr (kIndexed) a = Op::merge(a, Op::map(x[i * sx], index0 + i, e));
        else a = Op::merge(a, Op::map(x[i * sx], e));
      }
      return a;
    }
    Acc a = Op::identity(e);
    C xb[kBlock > 512 ? 512 : kBlock], yb[kArity == 2 ? 512 : 1];
    for (int64_t i = 0; i < n; i += 512) {
      const int64_t m = std::min<int64_t>(512, n - i);
      load_x(p[0] + i * s[0], s[0], m, xb);
      if constexpr (kArity == 2) load_y(p[1] + i * s[1], s[1], m, yb);
      a = Op::merge(a, dense(xb, kArity == 2 ? yb : nullptr, m, index0 + i));
    }
    return a;
  }
};

}  // namespace detail

// Reduces x (and y for reduce3, same shape as x) over the normalized,
// sorted `axes` into z, whose shape is reduced_shape(x, axes, keep_dims) for
// either keep_dims (checked by the caller).
template <typename Op, typename C>
void reduce_run(const NDArray& x, const NDArray* y, NDArray& z, const Dims& axes, const ExtraParams& e) {
  using Acc = typename Op::Acc;
  using R = decltype(Op::finish(Acc{}, int64_t{}, e));
  constexpr int kArity = reduce_traits<Op>::kArity;
  constexpr int NI = kArity;  // inputs in the inner loop

  detail::ReduceRunner<Op, C> runner{e, false, nullptr, nullptr};
  runner.direct = x.dtype() == dtype_of_v<C> && (kArity == 1 || y->dtype() == dtype_of_v<C>);
  if (!runner.direct) {
    runner.load_x = load_fn<C>(x.dtype());
    if constexpr (kArity == 2) runner.load_y = load_fn<C>(y->dtype());
  }
  const bool z_direct = z.dtype() == dtype_of_v<R>;
  const StoreFn<R> store_z = z_direct ? nullptr : store_fn<R>(z.dtype());

  // Split x's dims into kept (outer loop, with z) and reduced (inner loop).
  const int rank = x.rank();
  Dims outer_shape, inner_shape, x_outer, x_inner, y_outer, y_inner, z_outer;
  outer_shape.resize(rank);
  inner_shape.resize(rank);
  x_outer.resize(rank);
  x_inner.resize(rank);
  y_outer.resize(rank);
  y_inner.resize(rank);
  z_outer.resize(rank);
  const bool keep = z.rank() == rank;
  int a = 0, zd = 0;
  for (int d = 0; d < rank; ++d) {
    const bool reduced = a < axes.size() && axes[a] == d;
    if (reduced) ++a;
    outer_shape[d] = reduced ? 1 : x.dim(d);
    inner_shape[d] = reduced ? x.dim(d) : 1;
    x_outer[d] = reduced ? 0 : x.strides()[d];
    x_inner[d] = reduced ? x.strides()[d] : 0;
    if constexpr (kArity == 2) {
      y_outer[d] = reduced ? 0 : y->strides()[d];
      y_inner[d] = reduced ? y->strides()[d] : 0;
    }
    if (!reduced) z_outer[d] = z.strides()[zd++];
    else {
      z_outer[d] = 0;
      if (keep) ++zd;
    }
  }

  NdLoop<1 + NI> outer;
  outer.init(outer_shape);
  outer.set_operand(0, z.data(), z_outer, int64_t(z.element_size()));
  outer.set_operand(1, x.data(), x_outer, int64_t(x.element_size()));
  if constexpr (kArity == 2) outer.set_operand(2, y->data(), y_outer, int64_t(y->element_size()));
  outer.coalesce();

  NdLoop<NI> inner;
  inner.init(inner_shape);
  inner.set_operand(0, x.data(), x_inner, int64_t(x.element_size()));
  if constexpr (kArity == 2) inner.set_operand(1, y->data(), y_inner, int64_t(y->element_size()));
  inner.coalesce();

  const int64_t n_out = outer.count();
  const int64_t n_red = inner.count();

  // Reduces inner positions [b, e) for the output whose inputs start at xs.
  auto reduce_range = [&](char* const* in_base, int64_t b, int64_t end) {
    NdLoop<NI> loop = inner;
    for (int k = 0; k < NI; ++k) loop.base[k] = in_base[k];
    Acc acc = Op::identity(e);
    int64_t index = b;
    loop.run(b, end, [&](char* const* p, const int64_t* s, int64_t n) {
      acc = Op::merge(acc, runner.run(p, s, n, index));
      index += n;
    });
    return acc;
  };
  auto store = [&](char* zp, R r) {
    if (z_direct) *reinterpret_cast<R*>(zp) = r;
    else store_z(&r, zp, 0, 1);
  };

  if (n_out == 0) return;
  const int64_t chunks = (n_red + kReduceChunk - 1) / kReduceChunk;
  if (n_out < get_num_threads() && chunks > 1) {
    // Few outputs, long reductions: split each into fixed chunks.
    std::vector<Acc> partial(static_cast<size_t>(chunks));
    outer.run(0, n_out, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        char* in_base[NI];
        for (int k = 0; k < NI; ++k) in_base[k] = p[1 + k] + i * s[1 + k];
        parallel_for(chunks, 1, [&](int64_t cb, int64_t ce) {
          for (int64_t c = cb; c < ce; ++c)
            partial[c] = reduce_range(in_base, c * kReduceChunk, std::min(n_red, (c + 1) * kReduceChunk));
        });
        Acc acc = Op::identity(e);
        for (const Acc& pa : partial) acc = Op::merge(acc, pa);
        store(p[0] + i * s[0], Op::finish(acc, n_red, e));
      }
    });
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrainForReduce / std::max<int64_t>(n_red, 1));
  parallel_for(n_out, grain, [&](int64_t b, int64_t end) {
    outer.run(b, end, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        char* in_base[NI];
        for (int k = 0; k < NI; ++k) in_base[k] = p[1 + k] + i * s[1 + k];
        store(p[0] + i * s[0], Op::finish(reduce_range(in_base, 0, n_red), n_red, e));
      }
    });
  });
}

}  // namespace libops
