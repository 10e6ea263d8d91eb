// Internal: the per-table name lists and dispatch functions generated from
// the X-macro tables in ops/*_ops.h, one .cpp per table so they compile in
// parallel. legacy.cpp validates calls and then lands here.
#pragma once

#include "libops/legacy/legacy.h"
#include "libops/loops/extra_params.h"

namespace libops::legacy {

struct OpTable {
  const LegacyOpInfo* ops;
  int count;
};

enum class Table {
  kTransformFloat, kTransformSame, kTransformStrict, kTransformBool, kTransformAny,
  kBinary, kBinaryBool, kBinaryInt,
  kReduceFloat, kReduceSame, kReduceBool, kReduceLong, kReduce3, kIndexReduce, kSummaryStats,
  kRandom,
};
Table table_of(ops_legacy_group_t group);
OpTable op_table(Table t);

// Runs op `num` of table t on `device`, after syncing x, y and z there; marks
// z written there on success. Element-wise: x (and y) already broadcast-
// compatible with z; reductions: `axes` normalized and sorted, z shaped by
// reduced_shape().
Status run_table(Table t, Device device, int num, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z,
                 const Dims& axes, const ExtraParams& e);
Status run_random_on(Device device, int num, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                     const ExtraParams& e);
// The CPU kernels of the random table.
Status run_random(int num, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z, const ExtraParams& e);

// Per-table entry points (one .cpp each).
#define LIBOPS_DECLARE_TABLE(NAME)                                                                   \
  OpTable NAME##_table();                                                                           \
  Status NAME##_run(int num, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z,         \
                    const Dims& axes, const ExtraParams& e);
LIBOPS_DECLARE_TABLE(transform_float)
LIBOPS_DECLARE_TABLE(transform_same)
LIBOPS_DECLARE_TABLE(transform_strict)
LIBOPS_DECLARE_TABLE(transform_bool)
LIBOPS_DECLARE_TABLE(transform_any)
LIBOPS_DECLARE_TABLE(binary)
LIBOPS_DECLARE_TABLE(binary_bool)
LIBOPS_DECLARE_TABLE(binary_int)
LIBOPS_DECLARE_TABLE(reduce_float)
LIBOPS_DECLARE_TABLE(reduce_same)
LIBOPS_DECLARE_TABLE(reduce_bool)
LIBOPS_DECLARE_TABLE(reduce_long)
LIBOPS_DECLARE_TABLE(reduce3)
LIBOPS_DECLARE_TABLE(index_reduce)
LIBOPS_DECLARE_TABLE(summary_stats)
#undef LIBOPS_DECLARE_TABLE
OpTable random_table();

}  // namespace libops::legacy
