#include "libops/legacy/ops/index_reduce_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(REDUCE, index_reduce, LIBOPS_INDEX_REDUCE_OPS, LIBOPS_INDEX_REDUCE_COUNT)
