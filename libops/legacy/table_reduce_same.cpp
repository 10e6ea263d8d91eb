#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(REDUCE, reduce_same, LIBOPS_REDUCE_SAME_OPS, LIBOPS_REDUCE_SAME_COUNT)
