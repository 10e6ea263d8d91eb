#include "libops/legacy/ops/summary_stats_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(REDUCE, summary_stats, LIBOPS_SUMMARY_STATS_OPS, LIBOPS_SUMMARY_STATS_COUNT)
