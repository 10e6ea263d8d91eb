// Internal: turns one X-macro table into its name list and dispatch
// function. A table is compiled by one .cpp:
//   #include "libops/legacy/ops/transform_same_ops.h"
//   LIBOPS_TABLE(UNARY, transform_same, LIBOPS_TRANSFORM_SAME_OPS, LIBOPS_TRANSFORM_SAME_COUNT)
// or, when that file would take long to compile, by two .cpp files that
// each instantiate every other row (even / odd numbers) and so build in
// parallel:
//   LIBOPS_TABLE_HALF(BINARY, binary, LIBOPS_BINARY_OPS, LIBOPS_BINARY_COUNT, 0)  // table_binary_0.cpp
//   LIBOPS_TABLE_HALF(BINARY, binary, LIBOPS_BINARY_OPS, LIBOPS_BINARY_COUNT, 1)  // table_binary_1.cpp
// KIND is UNARY (transforms), UNARY_WIDE (transforms bound by arithmetic:
// Note [Vector width] in core/cpu_isa.h), BINARY (scalar/pairwise/broadcast)
// or REDUCE.
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

// kWide: the table's functors are bound by arithmetic (Note [Vector width]
// in core/cpu_isa.h): the UNARY_WIDE kind.
template <template <typename> class F, unsigned kSet, bool kWide = false>
Status dispatch_unary(const char* name, ComputeType ct, const NDArray& x, NDArray& z, const ExtraParams& e) {
  return with_compute_type<kSet>(name, ct, x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    elementwise_unary<F<C>, C, kWide>(x, z, e);
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

// The kernel call of one row, per table kind (parameters of the run functions below).
#define LIBOPS_CALL_UNARY(NAME, F, SET) dispatch_unary<F, SET>(#NAME, ct, x, z, e)
#define LIBOPS_CALL_UNARY_WIDE(NAME, F, SET) dispatch_unary<F, SET, true>(#NAME, ct, x, z, e)
#define LIBOPS_CALL_BINARY(NAME, F, SET) dispatch_binary<F, SET>(#NAME, ct, x, *y, z, e)
#define LIBOPS_CALL_REDUCE(NAME, F, SET) dispatch_reduce<F, SET>(#NAME, ct, x, y, z, axes, e)
#define LIBOPS_CASE_UNARY(NUM, NAME, F, SET) case NUM: return LIBOPS_CALL_UNARY(NAME, F, SET);
#define LIBOPS_CASE_UNARY_WIDE(NUM, NAME, F, SET) case NUM: return LIBOPS_CALL_UNARY_WIDE(NAME, F, SET);
#define LIBOPS_CASE_BINARY(NUM, NAME, F, SET) case NUM: return LIBOPS_CALL_BINARY(NAME, F, SET);
#define LIBOPS_CASE_REDUCE(NUM, NAME, F, SET) case NUM: return LIBOPS_CALL_REDUCE(NAME, F, SET);
// In a half, rows of the other parity are not instantiated (if constexpr).
#define LIBOPS_HALF_CASE_UNARY(NUM, NAME, F, SET) \
  case NUM: if constexpr ((NUM) % 2 == kHalf) return LIBOPS_CALL_UNARY(NAME, F, SET); else break;
#define LIBOPS_HALF_CASE_UNARY_WIDE(NUM, NAME, F, SET) \
  case NUM: if constexpr ((NUM) % 2 == kHalf) return LIBOPS_CALL_UNARY_WIDE(NAME, F, SET); else break;
#define LIBOPS_HALF_CASE_BINARY(NUM, NAME, F, SET) \
  case NUM: if constexpr ((NUM) % 2 == kHalf) return LIBOPS_CALL_BINARY(NAME, F, SET); else break;
#define LIBOPS_HALF_CASE_REDUCE(NUM, NAME, F, SET) \
  case NUM: if constexpr ((NUM) % 2 == kHalf) return LIBOPS_CALL_REDUCE(NAME, F, SET); else break;

#define LIBOPS_RUN_PARAMS                                                                        \
  int num, [[maybe_unused]] ComputeType ct, [[maybe_unused]] const NDArray& x,                    \
      [[maybe_unused]] const NDArray* y, [[maybe_unused]] NDArray& z, [[maybe_unused]] const Dims& axes, \
      [[maybe_unused]] const ExtraParams& e

#define LIBOPS_TABLE(KIND, NAME, TABLE, COUNT)                                                  \
  namespace libops::legacy {                                                                    \
  LIBOPS_TABLE_NAMES(NAME, TABLE, COUNT)                                                        \
  Status NAME##_run(LIBOPS_RUN_PARAMS) {                                                        \
    switch (num) { TABLE(LIBOPS_CASE_##KIND) }                                                  \
    return Status::error(StatusCode::kUnknownOp, #NAME ": no op number %d", num);               \
  }                                                                                             \
  }

// Half HALF (0: even numbers, 1: odd) of a table; half 0 also defines the
// names and NAME##_run, which asks both halves.
#define LIBOPS_TABLE_HALF(KIND, NAME, TABLE, COUNT, HALF)                                      \
  namespace libops::legacy {                                                                    \
  Status NAME##_run_half0(LIBOPS_RUN_PARAMS);                                                   \
  Status NAME##_run_half1(LIBOPS_RUN_PARAMS);                                                   \
  Status NAME##_run_half##HALF(LIBOPS_RUN_PARAMS) {                                             \
    [[maybe_unused]] constexpr int kHalf = HALF;                                                \
    switch (num) { TABLE(LIBOPS_HALF_CASE_##KIND) }                                             \
    return Status::error(StatusCode::kUnknownOp, #NAME ": no op number %d", num);               \
  }                                                                                             \
  LIBOPS_TABLE_HALF_MAIN_##HALF(NAME, TABLE, COUNT)                                             \
  }
#define LIBOPS_TABLE_HALF_MAIN_0(NAME, TABLE, COUNT)                                            \
  LIBOPS_TABLE_NAMES(NAME, TABLE, COUNT)                                                        \
  Status NAME##_run(LIBOPS_RUN_PARAMS) {                                                        \
    return num % 2 == 0 ? NAME##_run_half0(num, ct, x, y, z, axes, e)                           \
                        : NAME##_run_half1(num, ct, x, y, z, axes, e);                          \
  }
#define LIBOPS_TABLE_HALF_MAIN_1(NAME, TABLE, COUNT)
