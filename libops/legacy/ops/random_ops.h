// RANDOM: z[i] = draw(stream(seed, i), i, x[i], y[i]) where i is z's C-order
// linear index and x, y (broadcast to z) are per-element inputs where an op
// takes them (dropout's input, say). The stream is counter-based Philox
// (libops/random/philox.h): a value depends only on (seed, i, params and the
// op's inputs at i), never on the thread count, the visiting order or z's
// strides, and the CUDA backend can draw the same numbers.
//
// A functor F<C> (C is z's compute type, Note [Compute types]) has
//   static constexpr int kInputs;   // 0: none, 1: x required, 2: x and y
//   using Params = ...;             // prepared once per call:
//   // static Status Params::make(const char* op, const ExtraParams&, const NDArray& z, Params&)
//   LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t i, C x, C y, const Params& p);
// Params::make checks the extra params (ranges, count) and returns a
// Status naming the op and the value; op() trusts it and is never called
// with bad params. An op reads only the inputs it takes (its kInputs): a
// missing one is an error, and one it does not take may still be passed (a
// graph gives z the shape of its input that way) and must broadcast to z,
// but is never read: op() sees 0 for it.
//
// Continuous ops need a float z (kFloatTypes). bernoulli, binomial, poisson
// and choice write any numeric z; for an integer (or bool) z they sample in
// double and store exact integers. choice is not per-element in x and y (x
// and y are the values and weights to draw from, not broadcast to z), so it
// has no op(): the table runs it with choice_cdf_in_place and
// RandomChoice::pick.
//
// op(), pick() and choice_cdf_in_place() are host+device code
// (LIBOPS_HOST_DEVICE): table_random.cpp runs them on the CPU and
// table_random.cu in CUDA kernels, with the same per-element streams, so a
// seed gives the same numbers on both (Note [Random numbers on CUDA] in
// libops/random/distributions.h says which may differ in the last bits).
// Params::make and the checks below are host code, shared by both tables
// through legacy/random_checks.h.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "libops/core/host_device.h"
#include "libops/legacy/dispatch.h"
#include "libops/random/distributions.h"
#include "libops/random/philox.h"

namespace libops::legacy::fn {

// ---- parameter checks, shared by the Params structs below ----

// "<op>: <name> = <value> is invalid: <rule>", the value printed in its
// shortest round-trip form (so 1.0000000001 is not shown as 1).
inline Status random_param_error(const char* op, const char* name, double v, const char* rule) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf) - 1, v);
  *r.ptr = '\0';
  return Status::error(StatusCode::kInvalidArgument, "%s: %s = %s is invalid: %s", op, name, buf, rule);
}

inline Status random_check_count(const char* op, const ExtraParams& e, int max, const char* names) {
  if (e.n <= max) return Status::ok();
  return Status::error(StatusCode::kInvalidArgument, "%s: got %d extra params; takes at most %d (%s)", op, e.n, max,
                       names);
}

inline Status random_check_finite(const char* op, const char* name, double v) {
  return std::isfinite(v) ? Status::ok() : random_param_error(op, name, v, "must be finite");
}

inline Status random_check_positive(const char* op, const char* name, double v) {
  return std::isfinite(v) && v > 0 ? Status::ok() : random_param_error(op, name, v, "must be finite and > 0");
}

inline Status random_check_nonnegative(const char* op, const char* name, double v) {
  return std::isfinite(v) && v >= 0 ? Status::ok() : random_param_error(op, name, v, "must be finite and >= 0");
}

inline Status random_check_probability(const char* op, const char* name, double v) {
  return v >= 0 && v <= 1 ? Status::ok() : random_param_error(op, name, v, "must be in [0, 1]");
}

// The largest count an integer (or bool) z can hold; infinity for float z.
// Counts are computed in double, so 2^53 bounds the exact ones.
inline double random_count_limit(DataType z) {
  switch (z) {
    case DataType::kBool: return 1;
    case DataType::kInt8: return 127;
    case DataType::kInt16: return 32767;
    case DataType::kInt32: return 2147483647.0;
    case DataType::kUInt8: return 255;
    case DataType::kUInt16: return 65535;
    case DataType::kUInt32: return 4294967295.0;
    case DataType::kInt64:
    case DataType::kUInt64: return 0x1p53;
    default: return std::numeric_limits<double>::infinity();
  }
}

// The type a sampler runs in: the float compute type itself, else double
// (integer z: the sample is an exact integer in double, then stored).
template <typename C>
using random_sample_t = std::conditional_t<is_float_compute_v<C>, C, double>;

// A count held in double -> C. Float C: rounds like any double -> float.
// Integer C: exact below `limit` (the z dtype's maximum), saturating above,
// so a narrow z never wraps.
template <typename C>
LIBOPS_HOST_DEVICE inline C random_store_count(double v, double limit) {
  if constexpr (is_float_compute_v<C>) {
    return static_cast<C>(v);
  } else {
    return static_cast<C>(limit < v ? limit : v);  // std::min(v, limit)
  }
}

// ---- Params: extra params parsed and checked once per call ----

struct NoParams {
  static Status make(const char* op, const ExtraParams& e, const NDArray&, NoParams&) {
    return random_check_count(op, e, 0, "none");
  }
};

// extra: [lo = 0, hi = 1], finite, lo <= hi.
struct RangeParams {
  double lo = 0, hi = 1;
  static Status make(const char* op, const ExtraParams& e, const NDArray&, RangeParams& p) {
    RETURN_IF_ERROR(random_check_count(op, e, 2, "lo, hi"));
    p.lo = e.get(0, 0.0);
    p.hi = e.get(1, 1.0);
    RETURN_IF_ERROR(random_check_finite(op, "lo", p.lo));
    RETURN_IF_ERROR(random_check_finite(op, "hi", p.hi));
    if (p.hi < p.lo) return random_param_error(op, "hi", p.hi, "must be >= lo");
    return Status::ok();
  }
};

// extra: [mean = 0, stddev = 1]; mean finite, stddev finite and >= 0.
struct NormalParams {
  double mean = 0, stddev = 1;
  static Status make(const char* op, const ExtraParams& e, const NDArray&, NormalParams& p) {
    RETURN_IF_ERROR(random_check_count(op, e, 2, "mean, stddev"));
    p.mean = e.get(0, 0.0);
    p.stddev = e.get(1, 1.0);
    RETURN_IF_ERROR(random_check_finite(op, "mean", p.mean));
    return random_check_nonnegative(op, "stddev", p.stddev);
  }
};

// extra: [p = 0.5] in [0, 1].
struct ProbParams {
  double p = 0.5;
  static Status make(const char* op, const ExtraParams& e, const NDArray&, ProbParams& out) {
    RETURN_IF_ERROR(random_check_count(op, e, 1, "p"));
    out.p = e.get(0, 0.5);
    return random_check_probability(op, "p", out.p);
  }
};

// extra: [p = 0.5] in (0, 1]: ops that divide by the keep probability.
struct KeepParams {
  double p = 0.5;
  static Status make(const char* op, const ExtraParams& e, const NDArray&, KeepParams& out) {
    RETURN_IF_ERROR(random_check_count(op, e, 1, "p"));
    out.p = e.get(0, 0.5);
    if (!(out.p > 0 && out.p <= 1)) return random_param_error(op, "p", out.p, "must be in (0, 1]");
    return Status::ok();
  }
};

// extra: [trials = 1, p = 0.5]; trials a whole number in [0, 2^53] that an
// integer z can hold (trials is the largest possible count), p in [0, 1].
struct BinomialParams {
  int64_t trials = 1;
  double p = 0.5;
  static Status make(const char* op, const ExtraParams& e, const NDArray& z, BinomialParams& out) {
    RETURN_IF_ERROR(random_check_count(op, e, 2, "trials, p"));
    const double t = e.get(0, 1.0);
    if (!(t >= 0 && t <= 0x1p53 && t == std::floor(t)))
      return random_param_error(op, "trials", t, "must be a whole number in [0, 2^53]");
    if (t > random_count_limit(z.dtype()))
      return Status::error(StatusCode::kInvalidArgument, "%s: trials = %lld does not fit output z of dtype %s (max %.0f)",
                           op, static_cast<long long>(t), dtype_name(z.dtype()), random_count_limit(z.dtype()));
    out.trials = static_cast<int64_t>(t);
    out.p = e.get(1, 0.5);
    return random_check_probability(op, "p", out.p);
  }
};

// extra: [lambda = 1], finite and > 0. `limit` caps counts for integer z.
struct RateParams {
  double lambda = 1;
  double limit = 0;
  static Status make(const char* op, const ExtraParams& e, const NDArray& z, RateParams& p) {
    RETURN_IF_ERROR(random_check_count(op, e, 1, "lambda"));
    p.lambda = e.get(0, 1.0);
    p.limit = random_count_limit(z.dtype());
    return random_check_positive(op, "lambda", p.lambda);
  }
};

// extra: [alpha = 1, beta = 1]: shape alpha and *rate* beta (mean
// alpha / beta, as TensorFlow's random_gamma; numpy's scale is 1 / beta).
struct GammaParams {
  double alpha = 1, beta = 1;
  static Status make(const char* op, const ExtraParams& e, const NDArray&, GammaParams& p) {
    RETURN_IF_ERROR(random_check_count(op, e, 2, "alpha, beta"));
    p.alpha = e.get(0, 1.0);
    p.beta = e.get(1, 1.0);
    RETURN_IF_ERROR(random_check_positive(op, "alpha", p.alpha));
    return random_check_positive(op, "beta", p.beta);
  }
};

// Note [Alpha dropout]
// SELU-compatible dropout (Klambauer et al., "Self-Normalizing Neural
// Networks", 2017). With keep probability q and the SELU constants
// lambda = 1.0507009873554805, alpha = 1.6732632423543772, a dropped unit
// is set to alpha' = -lambda * alpha (SELU's limit at -inf) instead of 0:
//   d = x with probability q, else alpha'
//   z = a * d + b,  a = (q + alpha'^2 q (1 - q))^(-1/2),  b = -a (1 - q) alpha'
// For x with mean 0 and variance 1, z has mean 0 and variance 1 again.
// q = 1 gives a = 1, b = 0 (z = x).
// extra: [p = 0.5] = q in (0, 1].
struct AlphaDropoutParams {
  static constexpr double kSeluLambda = 1.0507009873554804934;
  static constexpr double kSeluAlpha = 1.6732632423543772848;
  static constexpr double kAlphaPrime = -kSeluLambda * kSeluAlpha;
  double p = 0.5, a = 1, b = 0;
  static Status make(const char* op, const ExtraParams& e, const NDArray& z, AlphaDropoutParams& out) {
    KeepParams keep;
    RETURN_IF_ERROR(KeepParams::make(op, e, z, keep));
    const double q = keep.p;
    out.p = q;
    out.a = 1 / std::sqrt(q + kAlphaPrime * kAlphaPrime * q * (1 - q));
    out.b = -out.a * (1 - q) * kAlphaPrime;
    return Status::ok();
  }
};

// extra: [start = 0, stop = 1], finite; n = z's length,
// step = (stop - start) / (n - 1), and n == 1 gives start.
struct LinspaceParams {
  double start = 0, stop = 1, step = 0;
  int64_t last = 0;
  static Status make(const char* op, const ExtraParams& e, const NDArray& z, LinspaceParams& p) {
    RETURN_IF_ERROR(random_check_count(op, e, 2, "start, stop"));
    p.start = e.get(0, 0.0);
    p.stop = e.get(1, 1.0);
    RETURN_IF_ERROR(random_check_finite(op, "start", p.start));
    RETURN_IF_ERROR(random_check_finite(op, "stop", p.stop));
    p.last = z.length() - 1;
    p.step = p.last > 0 ? (p.stop - p.start) / static_cast<double>(p.last) : 0.0;
    return Status::ok();
  }
};

// ---- functors ----

// Uniform in [lo, hi). Rounding of lo + (hi - lo) u, or of a float16 or
// bfloat16 z on store, can give hi itself.
template <typename C> struct RandomUniform {
  static constexpr int kInputs = 0;
  using Params = RangeParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C, C, const Params& p) {
    return random::uniform<C>(s, C(p.lo), C(p.hi));
  }
};

// Normal(mean, stddev) by Box-Muller.
template <typename C> struct RandomGaussian {
  static constexpr int kInputs = 0;
  using Params = NormalParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C, C, const Params& p) {
    return random::normal<C>(s, C(p.mean), C(p.stddev));
  }
};

// 1 with probability p, else 0; any numeric z.
template <typename C> struct RandomBernoulli {
  static constexpr int kInputs = 0;
  using Params = ProbParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C, C, const Params& p) {
    using S = random_sample_t<C>;
    return random::bernoulli<S>(s, S(p.p)) != S(0) ? C(1) : C(0);
  }
};

// Successes in `trials` Bernoulli(p) trials; any numeric z (counts are
// exact up to 2^24 in a float32 z).
template <typename C> struct RandomBinomial {
  static constexpr int kInputs = 0;
  using Params = BinomialParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C, C, const Params& p) {
    // Sampled in double for every z, so p is not rounded to float first;
    // Params::make proved that trials (the largest count) fits z.
    return static_cast<C>(random::binomial<double>(s, p.trials, p.p));
  }
};

// Exponential with rate lambda (mean 1 / lambda).
template <typename C> struct RandomExponential {
  static constexpr int kInputs = 0;
  using Params = RateParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C, C, const Params& p) {
    return random::exponential<C>(s, C(p.lambda));
  }
};

// exp(N(mean, stddev)): mean and stddev are those of the underlying normal.
template <typename C> struct RandomLogNormal {
  static constexpr int kInputs = 0;
  using Params = NormalParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C, C, const Params& p) {
    return random::log_normal<C>(s, C(p.mean), C(p.stddev));
  }
};

// Normal(mean, stddev) redrawn until within mean +- 2 stddev.
template <typename C> struct RandomTruncatedNormal {
  static constexpr int kInputs = 0;
  using Params = NormalParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C, C, const Params& p) {
    return random::truncated_normal<C>(s, C(p.mean), C(p.stddev));
  }
};

// Poisson(lambda); any numeric z. An integer z saturates at its dtype's
// maximum instead of wrapping.
template <typename C> struct RandomPoisson {
  static constexpr int kInputs = 0;
  using Params = RateParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C, C, const Params& p) {
    const double k = random::poisson<double>(s, p.lambda);
    return random_store_count<C>(k, p.limit);
  }
};

// Gamma with shape alpha and rate beta.
template <typename C> struct RandomGamma {
  static constexpr int kInputs = 0;
  using Params = GammaParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C, C, const Params& p) {
    return random::gamma<C>(s, C(p.alpha), C(p.beta));
  }
};

// z = x with keep probability p, else 0 (no rescaling).
template <typename C> struct RandomDropout {
  static constexpr int kInputs = 1;
  using Params = ProbParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C x, C, const Params& p) {
    return random::bernoulli<C>(s, C(p.p)) != C(0) ? x : C(0);
  }
};

// z = x / p with keep probability p, else 0: the expected value of z is x.
template <typename C> struct RandomDropoutInverted {
  static constexpr int kInputs = 1;
  using Params = KeepParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C x, C, const Params& p) {
    return random::bernoulli<C>(s, C(p.p)) != C(0) ? x / C(p.p) : C(0);
  }
};

// Note [Alpha dropout].
template <typename C> struct RandomAlphaDropout {
  static constexpr int kInputs = 1;
  using Params = AlphaDropoutParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream& s, int64_t, C x, C, const Params& p) {
    const C d = random::bernoulli<C>(s, C(p.p)) != C(0) ? x : C(Params::kAlphaPrime);
    return random::fused_mul_add(C(p.a), d, C(p.b));
  }
};

// z[i] = start + i * step, computed in double and rounded once to z; the
// last element is stop exactly (as numpy does), so rounding never
// overshoots. Draws nothing: the seed does not matter.
template <typename C> struct RandomLinspace {
  static constexpr int kInputs = 0;
  using Params = LinspaceParams;
  LIBOPS_HOST_DEVICE static C op(random::ElementStream&, int64_t i, C, C, const Params& p) {
    if (i == p.last && i > 0) return C(p.stop);
    return C(random::fused_mul_add(static_cast<double>(i), p.step, p.start));
  }
};

// z[i] = x[j], j drawn with probability y[j] / sum(y). x and y are 1-D
// and of the same length; y holds finite weights >= 0, not all 0 (they need
// not sum to 1). Any numeric z; x is converted to z's dtype.
template <typename C> struct RandomChoice {
  static constexpr int kInputs = 2;
  using Params = NoParams;
  // The index j for one element: u uniform in [0, total) and the first j
  // with cdf[j] > u (std::upper_bound), so an index whose weight is 0
  // (cdf[j] == cdf[j - 1]) is never returned. `last_positive` is the last
  // index with a weight > 0, taken when rounding makes u reach total.
  LIBOPS_HOST_DEVICE static int64_t pick(random::ElementStream& s, const double* cdf, int64_t n,
                                         int64_t last_positive) {
    const double u = s.next_double01() * cdf[n - 1];
    int64_t lo = 0, count = n;  // the answer is in [lo, lo + count]
    while (count > 0) {
      const int64_t half = count / 2;
      if (!(u < cdf[lo + half])) {
        lo += half + 1;
        count -= half + 1;
      } else {
        count = half;
      }
    }
    return lo < n ? lo : last_positive;
  }
};

// choice's weights y, scanned once per call: the first invalid weight (each
// must be finite and >= 0), the last one > 0 and the sum.
struct ChoiceWeights {
  int64_t bad = -1;  // index of the first invalid weight, or -1
  double bad_value = 0;
  int64_t last_positive = -1;
  double total = 0;
};

// Replaces the weights w[0, n) by their running sums (choice's CDF), left to
// right in double, and stops at the first invalid weight. Checked on the
// host by choice_check_weights (legacy/random_checks.h).
LIBOPS_HOST_DEVICE inline ChoiceWeights choice_cdf_in_place(double* w, int64_t n) {
  ChoiceWeights r;
  double total = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double v = w[j];
    if (!(std::isfinite(v) && v >= 0)) {
      r.bad = j;
      r.bad_value = v;
      return r;
    }
    if (v > 0) r.last_positive = j;
    total += v;
    w[j] = total;
  }
  r.total = total;
  return r;
}

}  // namespace libops::legacy::fn

// Numbers are stable: append new ops, never renumber or reuse one.
#define LIBOPS_RANDOM_OPS(X)                                 \
  X(0, uniform, fn::RandomUniform, kFloatTypes)              \
  X(1, gaussian, fn::RandomGaussian, kFloatTypes)            \
  X(2, bernoulli, fn::RandomBernoulli, kNumericTypes)        \
  X(3, binomial, fn::RandomBinomial, kNumericTypes)          \
  X(4, exponential, fn::RandomExponential, kFloatTypes)      \
  X(5, log_normal, fn::RandomLogNormal, kFloatTypes)         \
  X(6, truncated_normal, fn::RandomTruncatedNormal, kFloatTypes) \
  X(7, poisson, fn::RandomPoisson, kNumericTypes)            \
  X(8, gamma, fn::RandomGamma, kFloatTypes)                  \
  X(9, dropout, fn::RandomDropout, kFloatTypes)              \
  X(10, dropout_inverted, fn::RandomDropoutInverted, kFloatTypes) \
  X(11, alpha_dropout, fn::RandomAlphaDropout, kFloatTypes)  \
  X(12, linspace, fn::RandomLinspace, kFloatTypes)           \
  X(13, choice, fn::RandomChoice, kNumericTypes)
#define LIBOPS_RANDOM_COUNT 14

namespace libops::legacy {
enum class RandomOp : int { LIBOPS_RANDOM_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
