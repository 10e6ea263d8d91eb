// The RANDOM table on the CPU: per-element draws over z with optional
// inputs x and y (libops/legacy/ops/random_ops.h), plus choice, which draws
// z's elements from a 1-D x with weights y. table_random.cu is the same
// table on CUDA devices.
//
// The checks (legacy/random_checks.h) all run before any element is
// written. An empty z passes the same checks and then does nothing.
#include <vector>

#include "libops/legacy/ops/random_ops.h"
#include "libops/legacy/random_checks.h"
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

template <template <typename> class F, unsigned kSet>
Status dispatch_random(const char* name, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                       const ExtraParams& e) {
  using Info = F<double>;
  typename Info::Params params;
  RETURN_IF_ERROR(random_prepare<F>(name, x, y, z, e, params));
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

template <unsigned kSet>
Status run_choice(const char* name, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                  const ExtraParams& e) {
  RETURN_IF_ERROR(choice_prepare(name, x, y, z, e));
  std::vector<double> cdf = load_vector<double>(*y);
  const fn::ChoiceWeights weights = fn::choice_cdf_in_place(cdf.data(), static_cast<int64_t>(cdf.size()));
  RETURN_IF_ERROR(choice_check_weights(name, weights, static_cast<int64_t>(cdf.size())));
  const int64_t last_positive = weights.last_positive;
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
template <template <typename> class F, unsigned kSet>
Status run_row(const char* name, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
               const ExtraParams& e) {
  if constexpr (kIsRandomChoice<F>) {
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
