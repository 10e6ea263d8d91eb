// The RANDOM table: per-element draws over z with optional inputs x and y.
#include "libops/legacy/ops/random_ops.h"
#include "libops/legacy/table_impl.h"

namespace libops::legacy {

LIBOPS_TABLE_NAMES(random, LIBOPS_RANDOM_OPS, LIBOPS_RANDOM_COUNT)

namespace {

// Visits z in C order (no dim reordering, so run positions are linear
// indices), loading x and y (broadcast to z) into C.
template <typename Op, typename C>
void random_run(uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z, const ExtraParams& e) {
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
          random::ElementStream stream(seed, static_cast<uint64_t>(index + i + j));
          zb[j] = Op::op(stream, xb[j], yb[j], e);
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
  return with_compute_type<kSet>(name, compute_type_of(z.dtype()), z.dtype(), [&](auto tag) {
    using C = decltype(tag);
    random_run<F<C>, C>(seed, x, y, z, e);
  });
}

#define LIBOPS_RANDOM_CASE(NUM, NAME, F, SET) \
  case NUM: return dispatch_random<F, SET>(#NAME, seed, x, y, z, e);

}  // namespace

Status run_random(int num, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z, const ExtraParams& e) {
  const char* op = op_name(OPS_RANDOM, num);
  for (const NDArray* a : {x, y})
    if (a && !broadcasts_to_shape(a->shape(), z.shape()))
      return Status::error(StatusCode::kShape, "%s: input %s does not broadcast to z%s", op, a->shape().str().c_str(),
                           z.shape().str().c_str());
  if (z.length() == 0) return Status::ok();
  switch (num) { LIBOPS_RANDOM_OPS(LIBOPS_RANDOM_CASE) }
  return Status::error(StatusCode::kUnknownOp, "random: no op number %d", num);
}

}  // namespace libops::legacy
