// Element-wise kernels: z = op(x) and z = op(x, y) over any strides, with
// broadcasting and dtype conversion, for one functor and one compute type.
//
// A functor is a struct with a static `op`: `R op(C x, const ExtraParams&)`
// or `R op(C x, C y, const ExtraParams&)`. R is C, or bool for predicates.
// Dense operands (z dense, each input laid out like z or a single element)
// run as one flat range; anything else goes through an NdLoop. Three paths,
// picked per run of the innermost dim, each compiled per instruction set
// (Note [Runtime ISA dispatch] in core/cpu_isa.h):
//   1. every operand already in its compute type and dense (or y/x a scalar):
//      the functor's dense kernel where it has one (Note [Dense kernels]), else
//      a plain loop the compiler vectorizes, with streaming stores when z
//      is larger than the cache (Note [Streaming stores]);
//   2. compute types but strided: a plain strided loop;
//   3. anything else: convert blocks of kBlock elements on load and store
//      (Note [Compute types] in core/dtype.h).
#pragma once

#include <type_traits>

#include "libops/array/ndarray.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "libops/loops/convert.h"
#include "libops/loops/dense_kernel.h"
#include "libops/loops/extra_params.h"
#include "libops/loops/nd_loop.h"
#include "libops/loops/streaming_store.h"

namespace libops {

inline constexpr int64_t kElementwiseGrain = 32768;  // elements per thread, at least
inline constexpr int64_t kConvertBlock = 256;

template <typename Op, typename C>
using unary_result_t = decltype(Op::op(C{}, ExtraParams{}));
template <typename Op, typename C>
using binary_result_t = decltype(Op::op(C{}, C{}, ExtraParams{}));

namespace detail {

// Sets up an NdLoop over z's shape with z as operand 0 and the inputs
// broadcast to it; dims sorted by z's strides (order-independent ops only).
template <int N>
NdLoop<N> make_elementwise_loop(NDArray& z, const NDArray* const* inputs) {
  NdLoop<N> loop;
  loop.init(z.shape());
  loop.set_operand(0, z.data(), z.strides(), static_cast<int64_t>(z.element_size()));
  for (int k = 1; k < N; ++k) {
    const NDArray& a = *inputs[k - 1];
    loop.set_operand(k, a.data(), broadcast_strides(a.shape(), a.strides(), z.shape()),
                     static_cast<int64_t>(a.element_size()));
  }
  loop.sort_dims_by_operand(0);
  loop.coalesce();
  return loop;
}

// A kernel's inner loop, type-erased: fn(ctx, ptrs, byte strides, n).
using InnerFn = void (*)(const void* ctx, char* const* p, const int64_t* s, int64_t n);

// Runs fn over every element of z (operand 0) with the inputs broadcast to
// z's shape, in parallel: one flat run where z is dense and every input is
// laid out like z or is a single element, else an NdLoop with dims sorted
// by z's strides and coalesced. Compiled once per operand count
// (elementwise.cpp), not per functor and type: the legacy tables
// instantiate their kernels hundreds of times, and only the inner loop
// needs to differ.
template <int N>
void run_elementwise_erased(NDArray& z, const NDArray* const* inputs, InnerFn fn, const void* ctx);
extern template void run_elementwise_erased<2>(NDArray&, const NDArray* const*, InnerFn, const void*);
extern template void run_elementwise_erased<3>(NDArray&, const NDArray* const*, InnerFn, const void*);

// Runs inner(ptrs, strides, n) over every element of z, in parallel.
template <int N, typename Inner>
void run_elementwise(NDArray& z, const NDArray* const* inputs, const Inner& inner) {
  run_elementwise_erased<N>(
      z, inputs,
      [](const void* ctx, char* const* p, const int64_t* s, int64_t n) { (*static_cast<const Inner*>(ctx))(p, s, n); },
      &inner);
}

// True when z is big enough for streaming stores (Note [Streaming stores]).
inline bool stream_output(const NDArray& z) {
  return z.length() * static_cast<int64_t>(z.element_size()) >= streaming_store_threshold();
}

// z[i] = f(i) over a dense run: a loop the compiler vectorizes, streamed
// when `stream`. Flattened: the whole functor must inline into the loop for
// it to vectorize, and GCC's size heuristics alone can stop one level short.
template <typename R, typename F>
[[gnu::flatten]] void write_dense(R* z, int64_t n, bool stream, const F& f) {
  stream_out(z, n, stream, f);
}

}  // namespace detail

// z = op(x); x broadcasts to z's shape (checked by the caller). kWide: the
// functor is bound by arithmetic, and its AVX-512 copy gets 512-bit
// vectors (Note [Vector width] in core/cpu_isa.h).
template <typename Op, typename C, bool kWide = false>
void elementwise_unary(const NDArray& x, NDArray& z, const ExtraParams& e) {
  using R = unary_result_t<Op, C>;
  const NDArray* in[1] = {&x};
  const bool direct = x.dtype() == dtype_of_v<C> && z.dtype() == dtype_of_v<R>;
  const bool stream = direct && detail::stream_output(z);
  const LoadFn<C> load_x = direct ? nullptr : load_fn<C>(x.dtype());
  const StoreFn<R> store_z = direct ? nullptr : store_fn<R>(z.dtype());

  auto body = [&](char* const* p, const int64_t* s, int64_t n) {
    if (direct) {
      R* zp = reinterpret_cast<R*>(p[0]);
      const C* xp = reinterpret_cast<const C*>(p[1]);
      if (s[0] == sizeof(R) && s[1] == sizeof(C)) {
        if constexpr (DenseKernel<Op>::kHas) {  // Note [Dense kernels]
          if (stream)
            stream_out_tiles(zp, n, [&](int64_t i, int64_t m, R* dst) { DenseKernel<Op>::run(xp + i, dst, m, e); });
          else
            DenseKernel<Op>::run(xp, zp, n, e);
        } else {
          // A local copy: the stores to z cannot alias it, so its
          // parameters are read once rather than per element, which kept
          // loops like elu's scalar.
          const ExtraParams ep = e;
          detail::write_dense(zp, n, stream, [&](int64_t i) { return Op::op(xp[i], ep); });
        }
      } else {
        const int64_t sz = s[0] / int64_t(sizeof(R)), sx = s[1] / int64_t(sizeof(C));
        for (int64_t i = 0; i < n; ++i) zp[i * sz] = Op::op(xp[i * sx], e);
      }
      return;
    }
    C xb[kConvertBlock];
    R zb[kConvertBlock];
    for (int64_t i = 0; i < n; i += kConvertBlock) {
      const int64_t m = std::min(kConvertBlock, n - i);
      load_x(p[1] + i * s[1], s[1], m, xb);
      if constexpr (DenseKernel<Op>::kHas) DenseKernel<Op>::run(xb, zb, m, e);
      else for (int64_t j = 0; j < m; ++j) zb[j] = Op::op(xb[j], e);
      store_z(zb, p[0] + i * s[0], s[0], m);
    }
  };
  // Every path compiled per instruction set (Note [Runtime ISA dispatch]),
  // so a dense run and a strided one give the same bits.
  auto inner = [&](char* const* p, const int64_t* s, int64_t n) { isa_dispatch<kWide>([&] { body(p, s, n); }); };
  detail::run_elementwise<2>(z, in, inner);
}

// z = op(x, y); x and y broadcast to z's shape (checked by the caller).
template <typename Op, typename C>
void elementwise_binary(const NDArray& x, const NDArray& y, NDArray& z, const ExtraParams& e) {
  using R = binary_result_t<Op, C>;
  const NDArray* in[2] = {&x, &y};
  const bool direct =
      x.dtype() == dtype_of_v<C> && y.dtype() == dtype_of_v<C> && z.dtype() == dtype_of_v<R>;
  const bool stream = direct && detail::stream_output(z);
  const LoadFn<C> load_x = direct ? nullptr : load_fn<C>(x.dtype());
  const LoadFn<C> load_y = direct ? nullptr : load_fn<C>(y.dtype());
  const StoreFn<R> store_z = direct ? nullptr : store_fn<R>(z.dtype());

  auto body = [&](char* const* p, const int64_t* s, int64_t n) {
    if (direct) {
      R* zp = reinterpret_cast<R*>(p[0]);
      const C* xp = reinterpret_cast<const C*>(p[1]);
      const C* yp = reinterpret_cast<const C*>(p[2]);
      constexpr int64_t cs = sizeof(C), rs = sizeof(R);
      if (s[0] == rs && s[1] == cs && s[2] == cs) {
        detail::write_dense(zp, n, stream, [&](int64_t i) { return Op::op(xp[i], yp[i], e); });
      } else if (s[0] == rs && s[1] == cs && s[2] == 0) {
        const C yv = *yp;
        detail::write_dense(zp, n, stream, [&](int64_t i) { return Op::op(xp[i], yv, e); });
      } else if (s[0] == rs && s[1] == 0 && s[2] == cs) {
        const C xv = *xp;
        detail::write_dense(zp, n, stream, [&](int64_t i) { return Op::op(xv, yp[i], e); });
      } else {
        const int64_t sz = s[0] / rs, sx = s[1] / cs, sy = s[2] / cs;
        for (int64_t i = 0; i < n; ++i) zp[i * sz] = Op::op(xp[i * sx], yp[i * sy], e);
      }
      return;
    }
    C xb[kConvertBlock], yb[kConvertBlock];
    R zb[kConvertBlock];
    for (int64_t i = 0; i < n; i += kConvertBlock) {
      const int64_t m = std::min(kConvertBlock, n - i);
      load_x(p[1] + i * s[1], s[1], m, xb);
      load_y(p[2] + i * s[2], s[2], m, yb);
      for (int64_t j = 0; j < m; ++j) zb[j] = Op::op(xb[j], yb[j], e);
      store_z(zb, p[0] + i * s[0], s[0], m);
    }
  };
  auto inner = [&](char* const* p, const int64_t* s, int64_t n) { isa_dispatch([&] { body(p, s, n); }); };
  detail::run_elementwise<3>(z, in, inner);
}

// z[i] = gen(i) for the C-order linear index i of z (random and index ops):
// the value depends only on i, never on thread count or visiting order.
// `gen` is called as gen(int64_t index) -> R.
template <typename R, typename Gen>
void elementwise_indexed(NDArray& z, const Gen& gen) {
  NdLoop<1> loop;
  loop.init(z.shape());
  loop.set_operand(0, z.data(), z.strides(), static_cast<int64_t>(z.element_size()));
  loop.coalesce();  // keeps C order, so run positions are linear indices
  const bool direct = z.dtype() == dtype_of_v<R>;
  const StoreFn<R> store_z = direct ? nullptr : store_fn<R>(z.dtype());
  parallel_for(loop.count(), kElementwiseGrain / 8, [&](int64_t b, int64_t end) {
    int64_t index = b;
    loop.run(b, end, [&](char* const* p, const int64_t* s, int64_t n) {
      if (direct) {
        const int64_t sz = s[0] / int64_t(sizeof(R));
        R* zp = reinterpret_cast<R*>(p[0]);
        for (int64_t i = 0; i < n; ++i) zp[i * sz] = gen(index + i);
      } else {
        R zb[kConvertBlock];
        for (int64_t i = 0; i < n; i += kConvertBlock) {
          const int64_t m = std::min(kConvertBlock, n - i);
          for (int64_t j = 0; j < m; ++j) zb[j] = gen(index + i + j);
          store_z(zb, p[0] + i * s[0], s[0], m);
        }
      }
      index += n;
    });
  });
}

}  // namespace libops
