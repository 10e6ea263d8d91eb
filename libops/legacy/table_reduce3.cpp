#include "libops/legacy/ops/reduce3_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(REDUCE, reduce3, LIBOPS_REDUCE3_OPS, LIBOPS_REDUCE3_COUNT)
