// Discrete Fourier transforms on the CPU, and their dispatch to a device
// backend.
//
// Note [Stockham FFT]
// A length n = R1 * R2 * ... * Rs (radices 4, 2, 3, 5 and other primes up
// to kMaxDirectRadix) is transformed in s passes of Stockham's autosort
// algorithm, ping-ponging between two buffers: no bit-reversal pass, and
// every pass reads and writes in runs of unit stride. In pass j, with
// p = R1 * ... * R(j-1) (the length of the sub-transforms done so far) and
// R = Rj, input i (of n / R) starts a group of R inputs i, i + n/R, ...;
// with k = i mod p, input q of the group is multiplied by the twiddle
// exp(-2 pi i q k / (p R)), the group gets an R-point DFT, and its outputs go
// p apart from (i - k) * R + k. After the last pass the buffer holds X in
// natural order.
//
// A length with a larger prime factor uses Bluestein's algorithm: since
// t k = (t^2 + k^2 - (k - t)^2) / 2, the DFT is a convolution with the chirp
// c[t] = exp(-pi i t^2 / n): X[k] = c[k] * sum_t (x[t] c[t]) conj(c[k - t]),
// done by power-of-two transforms of a length m >= 2n - 1.
//
// The inverse is the forward transform of the conjugate, conjugated. The
// twiddles and the chirp are computed in double from exactly reduced
// integer angles and then rounded, so float transforms lose nothing to them.
// A plan (radices and twiddles for one n) is cached for the next call.
//
// Note [Real FFT by halves]
// A real signal x of even length n = 2N is transformed as the complex
// signal z[t] = x[2t] + i x[2t+1] of length N. With Z = FFT(z), the
// transforms of the even and the odd samples are E[k] = (Z[k] +
// conj(Z[N-k])) / 2 and O[k] = (Z[k] - conj(Z[N-k])) / 2i (indices mod N),
// and X[k] = E[k] + w^k O[k] for k = 0 .. N, w = exp(-2 pi i / n), with
// w^N = -1. The inverse runs the same steps backwards: from bins 0 .. N,
// 2E[k] = X[k] + conj(X[N-k]), 2O[k] = (X[k] - conj(X[N-k])) / w^k, then
// z = IFFT(2E + 2iO) holds x[2t] in its real parts and x[2t+1] in its
// imaginary ones (the imaginary parts of X[0] and X[N] are dropped first,
// as they must not reach the result). Half the work of a complex transform
// of length n; odd lengths take that full transform.
// Signals are gathered into contiguous buffers (whatever the stride of
// their axis), several at a time in SIMD lanes (Note [Signals in lanes]),
// and scattered back; threads split the signals.
#include "blas/fft.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <numbers>
#include <unordered_map>
#include <vector>

#include "libops/core/parallel.h"

namespace libops::blas {

namespace {

std::atomic<const DeviceFft*> g_device_fft[kNumDeviceTypes];

// Primes above this make the whole length use Bluestein: a direct R-point
// DFT costs R multiply-adds per point.
constexpr int kMaxDirectRadix = 31;

// Note [Signals in lanes]
// Several signals are transformed at once: W of them sit in the W lanes of
// a SIMD pack (E = Pack<T>, 32 bytes: 4 doubles or 8 floats), so each add
// and multiply of a pass serves W signals, with no shuffles, and a twiddle
// is one scalar broadcast to every lane. Signals are copied into the lanes
// and back (the gather and scatter each signal needed anyway); the signals
// left over when fewer than W remain run with E = T. The passes are written
// once for both element types.
typedef float PackF __attribute__((vector_size(32)));
typedef double PackD __attribute__((vector_size(32)));

template <typename T> struct PackOf;
template <> struct PackOf<float> { using type = PackF; };
template <> struct PackOf<double> { using type = PackD; };
template <typename T> using Pack = typename PackOf<T>::type;

// The scalar of an element type: T itself, or a Pack<T>'s T.
template <typename E> struct ScalarOf { using type = E; };
template <> struct ScalarOf<PackF> { using type = float; };
template <> struct ScalarOf<PackD> { using type = double; };
template <typename E> using Scalar = typename ScalarOf<E>::type;

// How many signals an element of type E carries.
template <typename E> constexpr int kLanes = static_cast<int>(sizeof(E) / sizeof(Scalar<E>));

template <typename E>
struct Cx {
  E re, im;
};

// Plain arithmetic: std::complex's operator* checks for NaN and inf on every
// product, which keeps these loops from vectorizing.
template <typename E> inline Cx<E> operator+(Cx<E> a, Cx<E> b) { return {a.re + b.re, a.im + b.im}; }
template <typename E> inline Cx<E> operator-(Cx<E> a, Cx<E> b) { return {a.re - b.re, a.im - b.im}; }
// b is of a's type, or a scalar complex (a twiddle) that every lane of a meets.
template <typename E, typename B> inline Cx<E> operator*(Cx<E> a, Cx<B> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <typename E> inline Cx<E> operator*(Scalar<E> s, Cx<E> a) { return {s * a.re, s * a.im}; }
template <typename E> inline Cx<E> conj(Cx<E> a) { return {a.re, -a.im}; }
template <typename E> inline Cx<E> times_minus_i(Cx<E> a) { return {a.im, -a.re}; }
template <typename E> inline Cx<E> times_i(Cx<E> a) { return {-a.im, a.re}; }

// Lane w of an element: one signal's value, into a pack and out of it.
template <typename E> inline void put(Cx<E>& e, int w, Cx<Scalar<E>> v) {
  if constexpr (kLanes<E> == 1) {
    e = v;
  } else {
    e.re[w] = v.re;
    e.im[w] = v.im;
  }
}
template <typename E> inline Cx<Scalar<E>> take(const Cx<E>& e, int w) {
  if constexpr (kLanes<E> == 1) return e;
  else return {e.re[w], e.im[w]};
}

// exp(-2 pi i num / den), num reduced below den first.
template <typename T>
Cx<T> unit_root(int64_t num, int64_t den) {
  const double angle = -2.0 * std::numbers::pi * static_cast<double>(num % den) / static_cast<double>(den);
  return {static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle))};
}

// R-point forward DFTs in place, for the radices with closed forms.
template <typename E>
inline void dft2(Cx<E>* a) {
  const Cx<E> t = a[0] - a[1];
  a[0] = a[0] + a[1];
  a[1] = t;
}

template <typename E>
inline void dft3(Cx<E>* a) {
  using S = Scalar<E>;
  const S s = static_cast<S>(0.86602540378443864676);  // sin(2 pi / 3)
  const Cx<E> t1 = a[1] + a[2];
  const Cx<E> t2 = a[0] - static_cast<S>(0.5) * t1;
  const Cx<E> t3 = s * (a[1] - a[2]);
  a[0] = a[0] + t1;
  a[1] = t2 + times_minus_i(t3);
  a[2] = t2 + times_i(t3);
}

template <typename E>
inline void dft4(Cx<E>* a) {
  const Cx<E> t0 = a[0] + a[2], t1 = a[0] - a[2], t2 = a[1] + a[3], t3 = a[1] - a[3];
  a[0] = t0 + t2;
  a[1] = t1 + times_minus_i(t3);
  a[2] = t0 - t2;
  a[3] = t1 + times_i(t3);
}

template <typename E>
inline void dft5(Cx<E>* a) {
  using S = Scalar<E>;
  const S c1 = static_cast<S>(0.30901699437494742410), c2 = static_cast<S>(-0.80901699437494742410);
  const S s1 = static_cast<S>(0.95105651629515357212), s2 = static_cast<S>(0.58778525229247312917);
  const Cx<E> t1 = a[1] + a[4], t2 = a[2] + a[3], t3 = a[1] - a[4], t4 = a[2] - a[3];
  const Cx<E> b1 = a[0] + c1 * t1 + c2 * t2, b2 = a[0] + c2 * t1 + c1 * t2;
  const Cx<E> d1 = s1 * t3 + s2 * t4, d2 = s2 * t3 - s1 * t4;
  a[0] = a[0] + t1 + t2;
  a[1] = b1 + times_minus_i(d1);
  a[2] = b2 + times_minus_i(d2);
  a[3] = b2 + times_i(d2);
  a[4] = b1 + times_i(d1);
}

// Moving signals into lanes and out (Note [Signals in lanes]). xs[w] is
// where lane w's signal starts and `stride` the step between its elements.
// Unit strides (the signals along the last axis) go through in-register
// transposes of W x W blocks; lanes whose signals are neighbours in memory
// (an inner axis) are one unaligned load or store per element.
typedef int MaskF __attribute__((vector_size(32)));
typedef long long MaskD __attribute__((vector_size(32)));
template <typename V> struct MaskOf;
template <> struct MaskOf<PackF> { using type = MaskF; };
template <> struct MaskOf<PackD> { using type = MaskD; };

// GCC's two-vector shuffle by a run-time mask; clang has none (its
// __builtin_shufflevector wants constant indices), so there a lane loop,
// which it folds once the masks are known (only sanitizer and fuzz builds
// use clang).
template <typename V, typename M>
inline V shuffle2(V a, V b, M mask) {
#if defined(__clang__)
  constexpr int W = static_cast<int>(sizeof(V) / sizeof(a[0]));
  V r;
  for (int i = 0; i < W; ++i) r[i] = mask[i] < W ? a[mask[i]] : b[mask[i] - W];
  return r;
#else
  return __builtin_shuffle(a, b, mask);
#endif
}

// One stage of a W x W transpose: swaps bit D of the row index with bit D
// of the column index. The stages commute; all log2(W) of them transpose.
template <typename V, int D>
inline void swap_index_bit(V* rows) {
  constexpr int W = kLanes<V>;
  typename MaskOf<V>::type lo, hi;
  for (int j = 0; j < W; ++j) {
    lo[j] = (j & D) ? W + j - D : j;
    hi[j] = (j & D) ? W + j : j + D;
  }
  for (int i = 0; i < W; ++i)
    if ((i & D) == 0) {
      const V a = rows[i], b = rows[i + D];
      rows[i] = shuffle2(a, b, lo);
      rows[i + D] = shuffle2(a, b, hi);
    }
}

template <typename V>
inline void transpose(V* rows) {
  swap_index_bit<V, 1>(rows);
  swap_index_bit<V, 2>(rows);
  if constexpr (kLanes<V> == 8) swap_index_bit<V, 4>(rows);
}

template <typename P, size_t W>
bool neighbours(const std::array<P*, W>& starts) {
  for (size_t w = 1; w < W; ++w)
    if (starts[w] != starts[0] + w) return false;
  return true;
}

// dst[j] lane w = xs[w][j * stride], j < count.
template <typename E>
void gather(E* dst, const std::array<const Scalar<E>*, kLanes<E>>& xs, int64_t count, int64_t stride) {
  constexpr int W = kLanes<E>;
  int64_t j = 0;
  if constexpr (W > 1) {
    if (stride == 1) {
      for (; j + W <= count; j += W) {
        E rows[W];
        for (int w = 0; w < W; ++w) std::memcpy(&rows[w], xs[w] + j, sizeof(E));
        transpose(rows);
        for (int q = 0; q < W; ++q) dst[j + q] = rows[q];
      }
    } else if (neighbours(xs)) {
      for (; j < count; ++j) std::memcpy(&dst[j], xs[0] + j * stride, sizeof(E));
    }
  }
  for (; j < count; ++j)
    for (int w = 0; w < W; ++w) {
      if constexpr (W == 1) dst[j] = xs[w][j * stride];
      else dst[j][w] = xs[w][j * stride];
    }
}

// zs[w][j * stride] = src[j] lane w, j < count.
template <typename E>
void scatter(const std::array<Scalar<E>*, kLanes<E>>& zs, const E* src, int64_t count, int64_t stride) {
  constexpr int W = kLanes<E>;
  int64_t j = 0;
  if constexpr (W > 1) {
    if (stride == 1) {
      for (; j + W <= count; j += W) {
        E rows[W];
        for (int q = 0; q < W; ++q) rows[q] = src[j + q];
        transpose(rows);
        for (int w = 0; w < W; ++w) std::memcpy(zs[w] + j, &rows[w], sizeof(E));
      }
    } else if (neighbours(zs)) {
      for (; j < count; ++j) std::memcpy(zs[0] + j * stride, &src[j], sizeof(E));
    }
  }
  for (; j < count; ++j)
    for (int w = 0; w < W; ++w) {
      if constexpr (W == 1) zs[w][j * stride] = src[j];
      else zs[w][j * stride] = src[j][w];
    }
}

// The same for complex signals. With unit stride a complex signal is a real
// one of twice the length, and Cx<E>s are packs re, im, re, im, ...
template <typename E>
void gather(Cx<E>* dst, const std::array<const Cx<Scalar<E>>*, kLanes<E>>& xs, int64_t count, int64_t stride) {
  using T = Scalar<E>;
  constexpr int W = kLanes<E>;
  if constexpr (W > 1) {
    if (stride == 1) {
      std::array<const T*, W> reals;
      for (int w = 0; w < W; ++w) reals[w] = reinterpret_cast<const T*>(xs[w]);
      return gather(reinterpret_cast<E*>(dst), reals, 2 * count, 1);
    }
    if (neighbours(xs)) {  // W complex values in a row: split real and imaginary parts
      typename MaskOf<E>::type even, odd;
      for (int q = 0; q < W; ++q) {
        even[q] = 2 * q;
        odd[q] = 2 * q + 1;
      }
      for (int64_t j = 0; j < count; ++j) {
        E a, b;
        std::memcpy(&a, xs[0] + j * stride, sizeof(E));
        std::memcpy(&b, xs[0] + j * stride + W / 2, sizeof(E));
        dst[j] = {shuffle2(a, b, even), shuffle2(a, b, odd)};
      }
      return;
    }
  }
  for (int64_t j = 0; j < count; ++j)
    for (int w = 0; w < W; ++w) put(dst[j], w, xs[w][j * stride]);
}

template <typename E>
void scatter(const std::array<Cx<Scalar<E>>*, kLanes<E>>& zs, const Cx<E>* src, int64_t count, int64_t stride) {
  using T = Scalar<E>;
  constexpr int W = kLanes<E>;
  if constexpr (W > 1) {
    if (stride == 1) {
      std::array<T*, W> reals;
      for (int w = 0; w < W; ++w) reals[w] = reinterpret_cast<T*>(zs[w]);
      return scatter(reals, reinterpret_cast<const E*>(src), 2 * count, 1);
    }
    if (neighbours(zs)) {  // interleave real and imaginary parts
      typename MaskOf<E>::type lo, hi;
      for (int q = 0; q < W; ++q) {
        lo[q] = q / 2 + (q % 2) * W;
        hi[q] = W / 2 + q / 2 + (q % 2) * W;
      }
      for (int64_t j = 0; j < count; ++j) {
        const E a = shuffle2(src[j].re, src[j].im, lo), b = shuffle2(src[j].re, src[j].im, hi);
        std::memcpy(zs[0] + j * stride, &a, sizeof(E));
        std::memcpy(zs[0] + j * stride + W / 2, &b, sizeof(E));
      }
      return;
    }
  }
  for (int64_t j = 0; j < count; ++j)
    for (int w = 0; w < W; ++w) zs[w][j * stride] = take(src[j], w);
}

// Every prime factor of n, smallest first, with pairs of 2 merged into 4.
std::vector<int64_t> radices_of(int64_t n) {
  std::vector<int64_t> radices;
  while (n % 4 == 0) {
    radices.push_back(4);
    n /= 4;
  }
  for (int64_t f = 2; f * f <= n; f += (f == 2 ? 1 : 2))
    while (n % f == 0) {
      radices.push_back(f);
      n /= f;
    }
  if (n > 1) radices.push_back(n);
  return radices;
}

template <typename T>
struct Plan {
  struct Pass {
    int radix;
    int64_t p;         // the length of the sub-transforms this pass combines
    size_t twiddles;   // offset of its p * (radix - 1) twiddles, [k][q - 1]
    size_t roots;      // offset of its radix roots of unity (direct radices)
  };
  int64_t n = 0;
  std::vector<Pass> passes;
  std::vector<Cx<T>> table;  // twiddles and roots of every pass

  // Bluestein (sub != nullptr): the chirp c[t], t < n, and the transform of
  // the filter conj(c[|j|]) wrapped to length m, times 1 / m.
  std::shared_ptr<const Plan<T>> sub;
  std::vector<Cx<T>> chirp, filter;

  // exp(-2 pi i k / 2n), k < n: the w^k of Note [Real FFT by halves] for
  // real transforms of length 2n, which run on this plan.
  std::vector<Cx<T>> half_twiddles;

  // Entries in each of the two buffers run() takes.
  // Four-step (cols != nullptr, Note [Four-step FFT]): n = n1 * n2, the
  // n1-point plan for the columns, the n2-point one for the rows, and the
  // twiddles W^(k1 t2) as [k1][t2] real and imaginary parts.
  std::shared_ptr<const Plan<T>> cols, rows;
  std::vector<T> split_re, split_im;

  int64_t work_length() const { return sub ? sub->n : n; }

  // The forward transform of buf[0, n) (of each lane, E a Pack<T>): returns
  // buf or tmp, whichever holds X. Both have work_length() entries.
  template <typename E>
  Cx<E>* run(Cx<E>* buf, Cx<E>* tmp) const {
    if (sub) return run_bluestein(buf, tmp);
    if constexpr (kLanes<E> == 1)
      if (cols) return run_four_step(buf, tmp);
    Cx<E>* x = buf;
    Cx<E>* y = tmp;
    for (const Pass& pass : passes) {
      run_pass(pass, x, y);
      std::swap(x, y);
    }
    return x;
  }

 private:
  template <int R, typename E, typename Dft>
  void fixed_pass(const Pass& pass, const Cx<E>* x, Cx<E>* y, Dft dft) const {
    const int64_t groups = n / R, p = pass.p;
    if (p == 1) {  // the first pass: every twiddle is 1
      for (int64_t g = 0; g < groups; ++g) {
        Cx<E> a[R];
        for (int q = 0; q < R; ++q) a[q] = x[g + q * groups];
        dft(a);
        for (int q = 0; q < R; ++q) y[g * R + q] = a[q];
      }
      return;
    }
    const Cx<T>* tw = table.data() + pass.twiddles;
    for (int64_t first = 0; first < groups; first += p) {
      const Cx<E>* in = x + first;
      Cx<E>* out = y + first * R;
      for (int64_t k = 0; k < p; ++k) {
        Cx<E> a[R];
        a[0] = in[k];
        for (int q = 1; q < R; ++q) a[q] = in[k + q * groups] * tw[k * (R - 1) + q - 1];
        dft(a);
        for (int q = 0; q < R; ++q) out[q * p + k] = a[q];
      }
    }
  }

  template <typename E>
  void direct_pass(const Pass& pass, const Cx<E>* x, Cx<E>* y) const {
    const int r = pass.radix;
    const int64_t groups = n / r, p = pass.p;
    const Cx<T>* tw = table.data() + pass.twiddles;
    const Cx<T>* roots = table.data() + pass.roots;
    Cx<E> a[kMaxDirectRadix];
    for (int64_t first = 0; first < groups; first += p)
      for (int64_t k = 0; k < p; ++k) {
        a[0] = x[first + k];
        for (int q = 1; q < r; ++q) a[q] = x[first + k + q * groups] * tw[k * (r - 1) + q - 1];
        Cx<E>* out = y + first * r + k;
        for (int s = 0; s < r; ++s) {
          Cx<E> sum = a[0];
          for (int q = 1, e = s; q < r; ++q, e = (e + s) % r) sum = sum + a[q] * roots[e];
          out[s * p] = sum;
        }
      }
  }

  template <typename E>
  void run_pass(const Pass& pass, const Cx<E>* x, Cx<E>* y) const {
    switch (pass.radix) {
      case 2: return fixed_pass<2>(pass, x, y, dft2<E>);
      case 3: return fixed_pass<3>(pass, x, y, dft3<E>);
      case 4: return fixed_pass<4>(pass, x, y, dft4<E>);
      case 5: return fixed_pass<5>(pass, x, y, dft5<E>);
      default: return direct_pass(pass, x, y);
    }
  }

  // Note [Four-step FFT]: x[t1 * n2 + t2] -> column transforms over t1
  // (Y[k1][t2], times W^(k1 t2)) -> row transforms over t2 -> X[k1 + n1 k2],
  // the columns and then the rows a pack of lanes at a time (Note [Signals
  // in lanes]). One signal at a time: for_each_signal does not put signals
  // of a four-step plan in lanes, and a single long signal is split between
  // threads here instead.
  Cx<T>* run_four_step(Cx<T>* buf, Cx<T>* tmp) const {
    using G = Pack<T>;
    constexpr int lanes = kLanes<G>;
    const int64_t n1 = cols->n, n2 = rows->n;
    const size_t half = static_cast<size_t>(std::max(cols->work_length(), rows->work_length()) + 1);
    // Threads split the groups of columns, then of rows (inline when the
    // signals are already split between threads), ~16K points per chunk.
    const auto grain = [&](int64_t len) { return std::max<int64_t>(1, (int64_t{1} << 14) / (lanes * len)); };
    // Columns, buf -> tmp: Y[k1][t2] W^(k1 t2).
    parallel_for(n2 / lanes, grain(n1), [&](int64_t begin, int64_t end) {
      std::vector<Cx<G>> scratch(2 * half);
      std::array<const Cx<T>*, lanes> from;
      std::array<Cx<T>*, lanes> to;
      for (int64_t c = begin * lanes; c < end * lanes; c += lanes) {
        for (int w = 0; w < lanes; ++w) from[w] = buf + c + w;
        gather(scratch.data(), from, n1, n2);
        Cx<G>* y = cols->run(scratch.data(), scratch.data() + half);
        for (int64_t k1 = 0; k1 < n1; ++k1) {
          Cx<G> tw;
          std::memcpy(&tw.re, split_re.data() + k1 * n2 + c, sizeof(G));
          std::memcpy(&tw.im, split_im.data() + k1 * n2 + c, sizeof(G));
          y[k1] = y[k1] * tw;
        }
        for (int w = 0; w < lanes; ++w) to[w] = tmp + c + w;
        scatter(to, y, n1, n2);
      }
    });
    // Rows, tmp -> buf: X[k1 + n1 k2].
    parallel_for(n1 / lanes, grain(n2), [&](int64_t begin, int64_t end) {
      std::vector<Cx<G>> scratch(2 * half);
      std::array<const Cx<T>*, lanes> from;
      std::array<Cx<T>*, lanes> to;
      for (int64_t r = begin * lanes; r < end * lanes; r += lanes) {
        for (int w = 0; w < lanes; ++w) from[w] = tmp + (r + w) * n2;
        gather(scratch.data(), from, n2, 1);
        const Cx<G>* x = rows->run(scratch.data(), scratch.data() + half);
        for (int w = 0; w < lanes; ++w) to[w] = buf + r + w;
        scatter(to, x, n2, n1);
      }
    });
    return buf;
  }

  template <typename E>
  Cx<E>* run_bluestein(Cx<E>* buf, Cx<E>* tmp) const {
    const int64_t m = sub->n;
    for (int64_t t = 0; t < n; ++t) buf[t] = buf[t] * chirp[t];
    std::fill(buf + n, buf + m, Cx<E>{});
    Cx<E>* spectrum = sub->run(buf, tmp);
    // Convolution by the filter, then its inverse transform by conjugation.
    for (int64_t j = 0; j < m; ++j) spectrum[j] = conj(spectrum[j] * filter[j]);
    Cx<E>* other = spectrum == buf ? tmp : buf;
    const Cx<E>* conv = sub->run(spectrum, other);
    for (int64_t k = 0; k < n; ++k) buf[k] = conj(conv[k]) * chirp[k];
    return buf;
  }
};

// Note [Four-step FFT]
// Above kFourStepMin points (float32) the two buffers of a Stockham transform leave
// the L2 cache and every pass streams them from further out. Such a length
// n = n1 * n2 is done as n2 transforms of length n1 (the columns of x seen
// as [n1, n2]), a twiddle W^(k1 t2) (W = exp(-2 pi i / n)), and n1
// transforms of length n2 (the rows), each small enough to stay in cache;
// X[k1 + n1 k2] is the k2-th output of row k1. n1 and n2 are multiples of
// 8, so whole packs of columns and rows fill the lanes, and as close to
// sqrt(n) as such a pair allows.
constexpr int64_t kFourStepMin = int64_t{1} << 14;

// n1 for a four-step transform of length n, or 0 for none. float32 only:
// in float64 (a pack holds 4 columns, and a row of them is a whole cache
// line a page apart from the next) the column passes measured 1.3-1.6x
// slower than the plain passes at 2^16 and 2^18 points, in float32 1.4-2.3x
// faster.
template <typename T>
int64_t four_step_split(int64_t n) {
  if (sizeof(T) != sizeof(float) || n < kFourStepMin) return 0;
  int64_t best = 0;
  for (int64_t n1 = 8; n1 * n1 <= n; n1 += 8)
    if (n % n1 == 0 && (n / n1) % 8 == 0) best = n1;
  return best;
}

template <typename T>
std::shared_ptr<const Plan<T>> plan_for(int64_t n);

template <typename T>
std::shared_ptr<const Plan<T>> make_plan(int64_t n) {
  auto plan = std::make_shared<Plan<T>>();
  plan->n = n;
  plan->half_twiddles.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) plan->half_twiddles[static_cast<size_t>(k)] = unit_root<T>(k, 2 * n);
  const std::vector<int64_t> radices = radices_of(n);
  if (const int64_t n1 = four_step_split<T>(n); n1 > 0 && radices.back() <= kMaxDirectRadix) {
    const int64_t n2 = n / n1;
    plan->cols = plan_for<T>(n1);
    plan->rows = plan_for<T>(n2);
    plan->split_re.resize(static_cast<size_t>(n));
    plan->split_im.resize(static_cast<size_t>(n));
    for (int64_t k1 = 0; k1 < n1; ++k1)
      for (int64_t t2 = 0; t2 < n2; ++t2) {
        const Cx<T> w = unit_root<T>(k1 * t2, n);
        plan->split_re[static_cast<size_t>(k1 * n2 + t2)] = w.re;
        plan->split_im[static_cast<size_t>(k1 * n2 + t2)] = w.im;
      }
  }
  if (!radices.empty() && radices.back() > kMaxDirectRadix) {  // n == 1 has no passes
    int64_t m = 1;
    while (m < 2 * n - 1) m *= 2;
    plan->sub = plan_for<T>(m);
    plan->chirp.resize(static_cast<size_t>(n));
    for (int64_t t = 0; t < n; ++t) {
      // exp(-pi i t^2 / n) = exp(-2 pi i (t^2 mod 2n) / 2n), reduced exactly.
      const auto square = static_cast<unsigned __int128>(t) * static_cast<unsigned __int128>(t);
      plan->chirp[static_cast<size_t>(t)] = unit_root<T>(static_cast<int64_t>(square % (2 * n)), 2 * n);
    }
    std::vector<Cx<T>> filter(static_cast<size_t>(m), Cx<T>{0, 0}), tmp(static_cast<size_t>(m));
    filter[0] = Cx<T>{1, 0};
    for (int64_t t = 1; t < n; ++t) filter[static_cast<size_t>(t)] = filter[static_cast<size_t>(m - t)] =
        conj(plan->chirp[static_cast<size_t>(t)]);
    const Cx<T>* spectrum = plan->sub->run(filter.data(), tmp.data());
    const T inv_m = static_cast<T>(1.0 / static_cast<double>(m));
    plan->filter.assign(spectrum, spectrum + m);
    for (Cx<T>& f : plan->filter) f = inv_m * f;
    return plan;
  }
  int64_t p = 1;
  for (int64_t r : radices) {
    typename Plan<T>::Pass pass{static_cast<int>(r), p, plan->table.size(), 0};
    for (int64_t k = 0; k < p; ++k)
      for (int64_t q = 1; q < r; ++q) plan->table.push_back(unit_root<T>(q * k, p * r));
    pass.roots = plan->table.size();
    if (r > 5)
      for (int64_t s = 0; s < r; ++s) plan->table.push_back(unit_root<T>(s, r));
    plan->passes.push_back(pass);
    p *= r;
  }
  return plan;
}

// Plans of lengths up to kMaxCachedLength are kept, at most kMaxCachedPlans
// of them per precision; a larger one is made for its call and freed after.
constexpr int64_t kMaxCachedLength = int64_t{1} << 22;
constexpr size_t kMaxCachedPlans = 64;

template <typename T>
std::shared_ptr<const Plan<T>> plan_for(int64_t n) {
  static std::mutex mu;
  static std::unordered_map<int64_t, std::shared_ptr<const Plan<T>>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(n);
    if (it != cache.end()) return it->second;
  }
  // Made outside the lock: a Bluestein plan asks for its sub-plan.
  std::shared_ptr<const Plan<T>> plan = make_plan<T>(n);
  if (n <= kMaxCachedLength) {
    std::lock_guard<std::mutex> lock(mu);
    if (cache.size() >= kMaxCachedPlans) cache.clear();
    cache.emplace(n, plan);
  }
  return plan;
}

// Signals per thread chunk: enough that each chunk does ~16K points, and a
// whole number of packs.
template <typename T>
int64_t signals_per_chunk(int64_t n) {
  constexpr int64_t lanes = kLanes<Pack<T>>;
  const int64_t signals = std::max<int64_t>(1, (int64_t{1} << 14) / n);
  return (signals + lanes - 1) / lanes * lanes;
}

// Where the signals first .. first + kLanes<E> - 1 of [outer, len, inner]
// start (signal s at o = s / inner, i = s % inner). Gathers and scatters
// then run over t with the lanes innermost, so each element of a pack is
// written whole.
template <typename E, typename P>
std::array<P*, kLanes<E>> lane_starts(P* data, int64_t first, int64_t len, int64_t inner) {
  std::array<P*, kLanes<E>> starts;
  for (int w = 0; w < kLanes<E>; ++w) starts[w] = data + (first + w) / inner * len * inner + (first + w) % inner;
  return starts;
}

// Calls f(buf, tmp, first) for the signals first .. first + kLanes<E> - 1 of
// the outer * inner signals of [outer, *, inner], signal s at
// o = s / inner, i = s % inner (Note [Signals in lanes]): E = Pack<T> while
// a whole pack of signals is left in a thread's chunk, E = T for the rest
// and for four-step plans, which fill the lanes themselves.
// buf and tmp have plan.work_length() + 1 elements.
template <typename T, typename F>
void for_each_signal(const Plan<T>& plan, int64_t outer, int64_t inner, F&& f) {
  constexpr int64_t lanes = kLanes<Pack<T>>;
  const auto len = static_cast<size_t>(plan.work_length() + 1);
  parallel_for(outer * inner, signals_per_chunk<T>(plan.n), [&](int64_t begin, int64_t end) {
    int64_t s = begin;
    if (end - begin >= lanes && !plan.cols) {  // a four-step plan fills lanes itself
      std::vector<Cx<Pack<T>>> scratch(2 * len);
      for (; s + lanes <= end; s += lanes) f(scratch.data(), scratch.data() + len, s);
    }
    if (s < end) {
      std::vector<Cx<T>> scratch(2 * len);
      for (; s < end; ++s) f(scratch.data(), scratch.data() + len, s);
    }
  });
}

template <typename T>
void c2c_cpu(bool inverse, int64_t outer, int64_t n, int64_t inner, const void* in, void* out, double scale) {
  const auto plan = plan_for<T>(n);
  const T s = static_cast<T>(scale);
  for_each_signal(*plan, outer, inner, [&]<typename E>(Cx<E>* buf, Cx<E>* tmp, int64_t first) {
    gather(buf, lane_starts<E>(static_cast<const Cx<T>*>(in), first, n, inner), n, inner);
    if (inverse)
      for (int64_t t = 0; t < n; ++t) buf[t] = conj(buf[t]);
    Cx<E>* r = plan->run(buf, tmp);
    if (inverse || s != 1)
      for (int64_t t = 0; t < n; ++t) r[t] = s * (inverse ? conj(r[t]) : r[t]);
    scatter(lane_starts<E>(static_cast<Cx<T>*>(out), first, n, inner), r, n, inner);
  });
}

template <typename T>
void r2c_cpu(int64_t outer, int64_t n, int64_t inner, const void* in, void* out) {
  const int64_t h = real_fft_bins(n);
  if (n % 2 == 1) {  // the full complex transform, first h bins kept
    const auto plan = plan_for<T>(n);
    for_each_signal(*plan, outer, inner, [&]<typename E>(Cx<E>* buf, Cx<E>* tmp, int64_t first) {
      E* x = reinterpret_cast<E*>(tmp);  // n reals
      gather(x, lane_starts<E>(static_cast<const T*>(in), first, n, inner), n, inner);
      for (int64_t t = 0; t < n; ++t) buf[t] = Cx<E>{x[t], E{}};
      const Cx<E>* r = plan->run(buf, tmp);
      scatter(lane_starts<E>(static_cast<Cx<T>*>(out), first, h, inner), r, h, inner);
    });
    return;
  }
  // Note [Real FFT by halves].
  const int64_t half = n / 2;
  const auto plan = plan_for<T>(half);
  const Cx<T>* tw = plan->half_twiddles.data();
  const T one_half = static_cast<T>(0.5);
  for_each_signal(*plan, outer, inner, [&]<typename E>(Cx<E>* buf, Cx<E>* tmp, int64_t first) {
    E* x = reinterpret_cast<E*>(tmp);  // n reals
    gather(x, lane_starts<E>(static_cast<const T*>(in), first, n, inner), n, inner);
    for (int64_t t = 0; t < half; ++t) buf[t] = Cx<E>{x[2 * t], x[2 * t + 1]};
    const Cx<E>* r = plan->run(buf, tmp);
    Cx<E>* bins = r == buf ? tmp : buf;  // half + 1 of them
    for (int64_t k = 0; k <= half; ++k) {
      const Cx<E> a = r[k == half ? 0 : k], b = conj(r[k == 0 ? 0 : half - k]);
      const Cx<E> even = one_half * (a + b), odd = one_half * times_minus_i(a - b);
      bins[k] = k < half ? even + odd * tw[k] : even - odd;
    }
    scatter(lane_starts<E>(static_cast<Cx<T>*>(out), first, h, inner), bins, h, inner);
  });
}

template <typename T>
void c2r_cpu(int64_t outer, int64_t m, int64_t n, int64_t inner, const void* in, void* out, double scale) {
  const int64_t h = real_fft_bins(n), used = std::min(m, h);
  const T s = static_cast<T>(scale);
  if (n % 2 == 1) {
    const auto plan = plan_for<T>(n);
    for_each_signal(*plan, outer, inner, [&]<typename E>(Cx<E>* buf, Cx<E>* tmp, int64_t first) {
      // The conjugate of the full spectrum (the inverse by conjugation):
      // bins 0 .. h - 1 from x, the rest conj(X[n - k]), conjugated again.
      gather(buf, lane_starts<E>(static_cast<const Cx<T>*>(in), first, m, inner), used, inner);
      for (int64_t k = 0; k < h; ++k) buf[k] = k < used ? conj(buf[k]) : Cx<E>{};
      for (int64_t k = h; k < n; ++k) buf[k] = conj(buf[n - k]);
      // The real part of the conjugate is the real part (and bin 0's
      // imaginary part only ever reaches the imaginary parts).
      const Cx<E>* r = plan->run(buf, tmp);
      E* z = reinterpret_cast<E*>(r == buf ? tmp : buf);  // n reals
      for (int64_t t = 0; t < n; ++t) z[t] = s * r[t].re;
      scatter(lane_starts<E>(static_cast<T*>(out), first, n, inner), z, n, inner);
    });
    return;
  }
  // Note [Real FFT by halves], the inverse by conjugation.
  const int64_t half = n / 2;
  const auto plan = plan_for<T>(half);
  const Cx<T>* tw = plan->half_twiddles.data();
  for_each_signal(*plan, outer, inner, [&]<typename E>(Cx<E>* buf, Cx<E>* tmp, int64_t first) {
    // Bins 0 .. half into tmp: the missing ones zero, the imaginary parts
    // of bins 0 and half dropped.
    gather(tmp, lane_starts<E>(static_cast<const Cx<T>*>(in), first, m, inner), used, inner);
    for (int64_t k = used; k <= half; ++k) tmp[k] = Cx<E>{};
    tmp[0].im = E{};
    tmp[half].im = E{};
    for (int64_t k = 0; k < half; ++k) {
      const Cx<E> a = tmp[k], b = conj(tmp[half - k]);
      const Cx<E> even = a + b, odd = (a - b) * conj(tw[k]);
      buf[k] = conj(even + times_i(odd));
    }
    const Cx<E>* r = plan->run(buf, tmp);
    E* z = reinterpret_cast<E*>(r == buf ? tmp : buf);  // n reals
    for (int64_t t = 0; t < half; ++t) {
      z[2 * t] = s * r[t].re;
      z[2 * t + 1] = -s * r[t].im;
    }
    scatter(lane_starts<E>(static_cast<T*>(out), first, n, inner), z, n, inner);
  });
}

Status check_extents(const char* what, DataType dtype, int64_t outer, int64_t n, int64_t inner) {
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat64)
    return Status::error(StatusCode::kNotImplemented, "%s: dtype %s is not supported (float32, float64 are)", what,
                         dtype_name(dtype));
  if (outer < 0 || inner < 0 || n < 1)
    return Status::error(StatusCode::kInvalidArgument,
                         "%s: outer=%lld and inner=%lld must be >= 0 and the length n=%lld >= 1", what,
                         static_cast<long long>(outer), static_cast<long long>(inner), static_cast<long long>(n));
  return Status::ok();
}

Status check_pointers(const char* what, int64_t signals, const void* a, const void* b) {
  if (signals > 0 && (a == nullptr || b == nullptr))
    return Status::error(StatusCode::kNullPointer, "%s: null data pointer", what);
  return Status::ok();
}

Status no_device_fft(const char* what, Device device) {
  return Status::error(StatusCode::kNotImplemented, "%s: no %s implementation (device %s)", what,
                       device_type_name(device.type), device.str().c_str());
}

// The backend's table for a device call, or the error why there is none.
Status device_fns(const char* what, Device device, const DeviceFft** fns) {
  RETURN_IF_ERROR(check_device(device));
  *fns = device_fft(device.type);
  return *fns == nullptr ? no_device_fft(what, device) : Status::ok();
}

}  // namespace

void register_device_fft(DeviceType type, const DeviceFft* fns) {
  g_device_fft[static_cast<int>(type)].store(fns, std::memory_order_release);
}

const DeviceFft* device_fft(DeviceType type) {
  return g_device_fft[static_cast<int>(type)].load(std::memory_order_acquire);
}

Status fft_c2c_on(Device device, DataType dtype, bool inverse, int64_t outer, int64_t n, int64_t inner, const void* in,
                  void* out, double scale) {
  RETURN_IF_ERROR(check_extents("fft c2c", dtype, outer, n, inner));
  RETURN_IF_ERROR(check_pointers("fft c2c", outer * inner, in, out));
  if (outer * inner == 0) return Status::ok();
  if (!device.is_cpu()) {
    const DeviceFft* fns = nullptr;
    RETURN_IF_ERROR(device_fns("fft c2c", device, &fns));
    return fns->c2c(device.index, dtype, inverse, outer, n, inner, in, out, scale);
  }
  if (dtype == DataType::kFloat32) c2c_cpu<float>(inverse, outer, n, inner, in, out, scale);
  else c2c_cpu<double>(inverse, outer, n, inner, in, out, scale);
  return Status::ok();
}

Status fft_r2c_on(Device device, DataType dtype, int64_t outer, int64_t n, int64_t inner, const void* in, void* out) {
  RETURN_IF_ERROR(check_extents("fft r2c", dtype, outer, n, inner));
  RETURN_IF_ERROR(check_pointers("fft r2c", outer * inner, in, out));
  if (outer * inner == 0) return Status::ok();
  if (!device.is_cpu()) {
    const DeviceFft* fns = nullptr;
    RETURN_IF_ERROR(device_fns("fft r2c", device, &fns));
    return fns->r2c(device.index, dtype, outer, n, inner, in, out);
  }
  if (dtype == DataType::kFloat32) r2c_cpu<float>(outer, n, inner, in, out);
  else r2c_cpu<double>(outer, n, inner, in, out);
  return Status::ok();
}

Status fft_c2r_on(Device device, DataType dtype, int64_t outer, int64_t m, int64_t n, int64_t inner, const void* in,
                  void* out, double scale) {
  RETURN_IF_ERROR(check_extents("fft c2r", dtype, outer, n, inner));
  if (m < 1)
    return Status::error(StatusCode::kInvalidArgument, "fft c2r: the input has %lld bins; it needs at least 1",
                         static_cast<long long>(m));
  RETURN_IF_ERROR(check_pointers("fft c2r", outer * inner, in, out));
  if (outer * inner == 0) return Status::ok();
  if (!device.is_cpu()) {
    const DeviceFft* fns = nullptr;
    RETURN_IF_ERROR(device_fns("fft c2r", device, &fns));
    return fns->c2r(device.index, dtype, outer, m, n, inner, in, out, scale);
  }
  if (dtype == DataType::kFloat32) c2r_cpu<float>(outer, m, n, inner, in, out, scale);
  else c2r_cpu<double>(outer, m, n, inner, in, out, scale);
  return Status::ok();
}

}  // namespace libops::blas
