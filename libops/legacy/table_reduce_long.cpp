#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(REDUCE, reduce_long, LIBOPS_REDUCE_LONG_OPS, LIBOPS_REDUCE_LONG_COUNT)
