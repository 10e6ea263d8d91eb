// Shared helpers for the legacy dispatch files (transform_*.cpp, binary.cpp,
// reduce.cpp, ...): type sets, a compute-type switch that instantiates a
// functor only for the types it supports, and uniform error messages.
#pragma once

#include <algorithm>
#include <iterator>

#include "libops/legacy/legacy.h"
#include "libops/loops/elementwise.h"

namespace libops::legacy {

// Which compute types an op accepts (Note [Compute types]).
enum TypeSet : unsigned {
  kFloatTypes = 1,           // float, double
  kIntTypes = 2,             // int32, int64, uint64
  kNumericTypes = 3,
};

template <typename C>
constexpr bool type_set_has(unsigned set) {
  return is_float_compute_v<C> ? (set & kFloatTypes) != 0 : (set & kIntTypes) != 0;
}

inline const char* type_set_name(unsigned set) {
  switch (set) {
    case kFloatTypes: return "float16, bfloat16, float32, float64";
    case kIntTypes: return "integer and bool dtypes";
    default: return "all numeric dtypes";
  }
}

// Calls body(C{}) for compute type `ct` when the op's TypeSet holds it, else
// returns an error naming the op, the dtype and what is supported.
template <unsigned kSet, typename Body>
Status with_compute_type(const char* op, ComputeType ct, DataType shown, Body&& body) {
  return dispatch_compute(ct, [&](auto tag) -> Status {
    using C = decltype(tag);
    if constexpr (type_set_has<C>(kSet)) {
      body(tag);
      return Status::ok();
    } else {
      return Status::error(StatusCode::kDtype, "%s: unsupported dtype %s (computes in %s); supported: %s", op,
                           dtype_name(shown), compute_type_name(ct), type_set_name(kSet));
    }
  });
}

inline Status unknown_op(ops_legacy_group_t group, int num) {
  return Status::error(StatusCode::kUnknownOp, "legacy %s: no op number %d", group_name(group), num);
}

// Name tables: sorted by number, with the check that numbers are unique.
template <size_t N>
constexpr bool numbers_unique(const LegacyOpInfo (&ops)[N]) {
  for (size_t i = 0; i < N; ++i)
    for (size_t j = i + 1; j < N; ++j)
      if (ops[i].num == ops[j].num) return false;
  return true;
}

}  // namespace libops::legacy

// Generates `enum class Name : int { op = number, ... }` from a table, so
// callers name legacy ops instead of writing their numbers.
#define LIBOPS_TABLE_ENUM_ROW(NUM, NAME, F, SET) NAME = NUM,
