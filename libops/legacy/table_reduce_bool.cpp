#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(REDUCE, reduce_bool, LIBOPS_REDUCE_BOOL_OPS, LIBOPS_REDUCE_BOOL_COUNT)
