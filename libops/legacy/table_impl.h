// Internal: turns one X-macro table into its name list and dispatch
// function. Included by exactly one .cpp per table, e.g.
//   #include "libops/legacy/ops/transform_same_ops.h"
//   LIBOPS_UNARY_TABLE(transform_same, LIBOPS_TRANSFORM_SAME_OPS, LIBOPS_TRANSFORM_SAME_COUNT)
#pragma once

#include "libops/legacy/dispatch.h"
#include "libops/legacy/tables.h"
#include "libops/loops/reduce.h"

namespace libops::legacy {

template <size_t N>
constexpr bool numbers_ascending(const LegacyOpInfo (&ops)[N]) {
  for (size_t i = 1; i < N; ++i)
    if (ops[i - 1].num >= ops[i].num) return false;
  return true;
}

template <template <typename> class F, unsigned kSet>
Status dispatch_unary(const char* name, ComputeType ct, const NDArray& x, NDArray& z, const ExtraParams& e) {
  return with_compute_type<kSet>(name, ct, x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    elementwise_unary<F<C>, C>(x, z, e);
  });
}

template <template <typename> class F, unsigned kSet>
Status dispatch_binary(const char* name, ComputeType ct, const NDArray& x, const NDArray& y, NDArray& z,
                       const ExtraParams& e) {
  return with_compute_type<kSet>(name, ct, promote_types(x.dtype(), y.dtype()), [&](auto tag) {
    using C = decltype(tag);
    elementwise_binary<F<C>, C>(x, y, z, e);
  });
}

template <template <typename> class F, unsigned kSet>
Status dispatch_reduce(const char* name, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z,
                       const Dims& axes, const ExtraParams& e) {
  Status checked;  // the functor's check of its extra params (loops/reduce.h)
  RETURN_IF_ERROR(with_compute_type<kSet>(name, ct, y ? promote_types(x.dtype(), y->dtype()) : x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    checked = reduce_check<F<C>>(name, e);
    if (checked.is_ok()) reduce_run<F<C>, C>(x, y, z, axes, e);
  }));
  return checked;
}

}  // namespace libops::legacy

#define LIBOPS_TABLE_NAMES(NAME, TABLE, COUNT)                                                   \
  namespace {                                                                                   \
  constexpr LegacyOpInfo k_##NAME##_ops[] = {TABLE(LIBOPS_TABLE_INFO_ROW)};                     \
  static_assert(sizeof(k_##NAME##_ops) / sizeof(LegacyOpInfo) == COUNT,                         \
                #NAME ": the table's row count differs from its COUNT; update both together");   \
  static_assert(numbers_ascending(k_##NAME##_ops),                                              \
                #NAME ": op numbers must be unique and rows in ascending number order");        \
  }                                                                                             \
  OpTable NAME##_table() { return {k_##NAME##_ops, COUNT}; }
#define LIBOPS_TABLE_INFO_ROW(NUM, NAME, F, SET) LegacyOpInfo{NUM, #NAME},

#define LIBOPS_UNARY_TABLE(NAME, TABLE, COUNT)                                                  \
  namespace libops::legacy {                                                                    \
  LIBOPS_TABLE_NAMES(NAME, TABLE, COUNT)                                                        \
  Status NAME##_run(int num, ComputeType ct, const NDArray& x, const NDArray*, NDArray& z,       \
                    const Dims&, const ExtraParams& e) {                                        \
    switch (num) { TABLE(LIBOPS_UNARY_CASE) }                                                   \
    return Status::error(StatusCode::kUnknownOp, #NAME ": no op number %d", num);               \
  }                                                                                             \
  }
#define LIBOPS_UNARY_CASE(NUM, NAME, F, SET) \
  case NUM: return dispatch_unary<F, SET>(#NAME, ct, x, z, e);

#define LIBOPS_BINARY_TABLE(NAME, TABLE, COUNT)                                                 \
  namespace libops::legacy {                                                                    \
  LIBOPS_TABLE_NAMES(NAME, TABLE, COUNT)                                                        \
  Status NAME##_run(int num, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z,     \
                    const Dims&, const ExtraParams& e) {                                        \
    switch (num) { TABLE(LIBOPS_BINARY_CASE) }                                                  \
    return Status::error(StatusCode::kUnknownOp, #NAME ": no op number %d", num);               \
  }                                                                                             \
  }
#define LIBOPS_BINARY_CASE(NUM, NAME, F, SET) \
  case NUM: return dispatch_binary<F, SET>(#NAME, ct, x, *y, z, e);

#define LIBOPS_REDUCE_TABLE(NAME, TABLE, COUNT)                                                 \
  namespace libops::legacy {                                                                    \
  LIBOPS_TABLE_NAMES(NAME, TABLE, COUNT)                                                        \
  Status NAME##_run(int num, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z,     \
                    const Dims& axes, const ExtraParams& e) {                                   \
    switch (num) { TABLE(LIBOPS_REDUCE_CASE) }                                                  \
    return Status::error(StatusCode::kUnknownOp, #NAME ": no op number %d", num);               \
  }                                                                                             \
  }
#define LIBOPS_REDUCE_CASE(NUM, NAME, F, SET) \
  case NUM: return dispatch_reduce<F, SET>(#NAME, ct, x, y, z, axes, e);
