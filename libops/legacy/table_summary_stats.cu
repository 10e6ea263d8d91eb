// The summary_stats table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/summary_stats_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(REDUCE, summary_stats, kSummaryStats, LIBOPS_SUMMARY_STATS_OPS)
