// The RANDOM table: per-element draws over z with optional inputs x and y
// (libops/legacy/ops/random_ops.h), plus choice, which draws z's elements
// from a 1-D x with weights y.
//
// Order of checks, all before any element is written: the op's inputs
// (those it reads must be given), their shapes, its extra params, z's
// dtype, then (choice) the weights in y. An empty z passes the same
// checks and then does nothing.
#include <vector>

#include "libops/legacy/ops/random_ops.h"
#include "libops/legacy/table_impl.h"

namespace libops::legacy {

LIBOPS_TABLE_NAMES(random, LIBOPS_RANDOM_OPS, LIBOPS_RANDOM_COUNT)

namespace {

// Visits z in C order (no dim reordering, so run positions are linear
// indices), loading x and y (broadcast to z; absent ones read as 0) into C,
// and stores draw(stream(seed, i), i, x, y) at z's element i.
template <typename C, typename Draw>
void random_run(uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z, Draw&& draw) {
  static const C kZero = C(0);
  NdLoop<3> loop;
  loop.init(z.shape());
  loop.set_operand(0, z.data(), z.strides(), int64_t(z.element_size()));
  Dims zero_strides;
  zero_strides.resize(z.rank(), 0);
  const NDArray* in[2] = {x, y};
  LoadFn<C> load[2] = {nullptr, nullptr};
  for (int k = 0; k < 2; ++k) {
    if (in[k]) {
      loop.set_operand(k + 1, in[k]->data(), broadcast_strides(in[k]->shape(), in[k]->strides(), z.shape()),
                       int64_t(in[k]->element_size()));
      load[k] = load_fn<C>(in[k]->dtype());
    } else {
      loop.set_operand(k + 1, const_cast<C*>(&kZero), zero_strides, int64_t(sizeof(C)));
      load[k] = load_fn<C>(dtype_of_v<C>);
    }
  }
  loop.coalesce();
  const StoreFn<C> store = store_fn<C>(z.dtype());
  parallel_for(loop.count(), kElementwiseGrain / 8, [&](int64_t b, int64_t end) {
    int64_t index = b;
    loop.run(b, end, [&](char* const* p, const int64_t* s, int64_t n) {
      C xb[kConvertBlock], yb[kConvertBlock], zb[kConvertBlock];
      for (int64_t i = 0; i < n; i += kConvertBlock) {
        const int64_t m = std::min(kConvertBlock, n - i);
        load[0](p[1] + i * s[1], s[1], m, xb);
        load[1](p[2] + i * s[2], s[2], m, yb);
        for (int64_t j = 0; j < m; ++j) {
          const int64_t at = index + i + j;
          random::ElementStream stream(seed, static_cast<uint64_t>(at));
          zb[j] = draw(stream, at, xb[j], yb[j]);
        }
        store(zb, p[0] + i * s[0], s[0], m);
      }
      index += n;
    });
  });
}

// The inputs an op reads must be given. Others may be given too (a graph
// passes one to give z its shape, say): they are checked like inputs but
// never read.
Status check_inputs(const char* op, int inputs, const NDArray* x, const NDArray* y) {
  if (inputs >= 1 && !x) return Status::error(StatusCode::kInvalidArgument, "%s: input x is required", op);
  if (inputs == 2 && !y) return Status::error(StatusCode::kInvalidArgument, "%s: input y is required", op);
  return Status::ok();
}

// Per-element inputs broadcast to z and, when they share memory with z,
// are z itself (in-place), never a partial overlap.
Status check_elementwise_inputs(const char* op, const NDArray* x, const NDArray* y, const NDArray& z) {
  const NDArray* in[2] = {x, y};
  const char* role[2] = {"x", "y"};
  for (int k = 0; k < 2; ++k) {
    const NDArray* a = in[k];
    if (!a) continue;
    if (!broadcasts_to_shape(a->shape(), z.shape()))
      return Status::error(StatusCode::kShape, "%s: input %s%s does not broadcast to z%s", op, role[k],
                           a->shape().str().c_str(), z.shape().str().c_str());
    if (z.may_overlap(*a) && !z.same_view(*a))
      return Status::error(StatusCode::kInvalidArgument,
                           "%s: output z partially overlaps input %s; use the same view for in-place or a "
                           "separate output",
                           op, role[k]);
  }
  return Status::ok();
}

template <template <typename> class F, unsigned kSet>
Status dispatch_random(const char* name, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                       const ExtraParams& e) {
  // Only the class is instantiated here, for its constants and Params.
  using Info = F<double>;
  typename Info::Params params;
  RETURN_IF_ERROR(check_inputs(name, Info::kInputs, x, y));
  RETURN_IF_ERROR(check_elementwise_inputs(name, x, y, z));
  RETURN_IF_ERROR(Info::Params::make(name, e, z, params));
  return with_compute_type<kSet>(name, compute_type_of(z.dtype()), z.dtype(), [&](auto tag) {
    using C = decltype(tag);
    // Inputs the op does not read are not loaded: it sees 0 for them.
    random_run<C>(seed, Info::kInputs >= 1 ? x : nullptr, Info::kInputs >= 2 ? y : nullptr, z,
                  [&](random::ElementStream& s, int64_t i, C xv, C yv) { return F<C>::op(s, i, xv, yv, params); });
  });
}

// ---- choice ----

// Reads a 1-D array of any dtype and strides into a dense vector of T.
template <typename T>
std::vector<T> load_vector(const NDArray& a) {
  std::vector<T> v(static_cast<size_t>(a.length()));
  if (!v.empty())
    load_fn<T>(a.dtype())(static_cast<const char*>(a.data()), a.strides()[0] * int64_t(a.element_size()), a.length(),
                          v.data());
  return v;
}

// The running sums of the weights in y, checked: finite, >= 0, not all 0.
Status choice_cdf(const char* op, const NDArray& y, std::vector<double>& cdf, int64_t& last_positive) {
  cdf = load_vector<double>(y);
  double total = 0;
  last_positive = -1;
  for (size_t j = 0; j < cdf.size(); ++j) {
    const double w = cdf[j];
    if (!(std::isfinite(w) && w >= 0))
      return Status::error(StatusCode::kInvalidArgument, "%s: weight y[%zu] = %g is invalid: must be finite and >= 0",
                           op, j, w);
    if (w > 0) last_positive = static_cast<int64_t>(j);
    total += w;
    cdf[j] = total;
  }
  if (last_positive < 0)
    return Status::error(StatusCode::kInvalidArgument, "%s: all %zu weights in y are 0: at least one must be > 0", op,
                         cdf.size());
  if (!std::isfinite(total))
    return Status::error(StatusCode::kInvalidArgument, "%s: the weights in y sum to %g: the sum must be finite", op,
                         total);
  return Status::ok();
}

template <unsigned kSet>
Status run_choice(const char* name, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                  const ExtraParams& e) {
  using Info = fn::RandomChoice<double>;
  RETURN_IF_ERROR(check_inputs(name, Info::kInputs, x, y));
  if (x->rank() != 1 || y->rank() != 1 || x->length() != y->length())
    return Status::error(StatusCode::kShape, "%s: x%s and y%s must be 1-D with the same length (values and their weights)",
                         name, x->shape().str().c_str(), y->shape().str().c_str());
  Info::Params params;
  RETURN_IF_ERROR(Info::Params::make(name, e, z, params));
  std::vector<double> cdf;
  int64_t last_positive = -1;
  RETURN_IF_ERROR(choice_cdf(name, *y, cdf, last_positive));
  // x and y are copied out before z is written, so z may share their memory.
  return with_compute_type<kSet>(name, compute_type_of(z.dtype()), z.dtype(), [&](auto tag) {
    using C = decltype(tag);
    const std::vector<C> values = load_vector<C>(*x);
    const int64_t n = static_cast<int64_t>(cdf.size());
    random_run<C>(seed, nullptr, nullptr, z, [&](random::ElementStream& s, int64_t, C, C) {
      return values[static_cast<size_t>(fn::RandomChoice<C>::pick(s, cdf.data(), n, last_positive))];
    });
  });
}

// choice's row goes to run_choice; every other row to dispatch_random.
template <template <typename> class F> constexpr bool kIsChoice = false;
template <> constexpr bool kIsChoice<fn::RandomChoice> = true;

template <template <typename> class F, unsigned kSet>
Status run_row(const char* name, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
               const ExtraParams& e) {
  if constexpr (kIsChoice<F>) {
    return run_choice<kSet>(name, seed, x, y, z, e);
  } else {
    return dispatch_random<F, kSet>(name, seed, x, y, z, e);
  }
}

#define LIBOPS_RANDOM_CASE(NUM, NAME, F, SET) \
  case NUM: return run_row<F, SET>(#NAME, seed, x, y, z, e);

}  // namespace

Status run_random(int num, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z, const ExtraParams& e) {
  switch (num) { LIBOPS_RANDOM_OPS(LIBOPS_RANDOM_CASE) }
  return Status::error(StatusCode::kUnknownOp, "random: no op number %d", num);
}

}  // namespace libops::legacy
