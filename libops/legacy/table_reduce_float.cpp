#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(REDUCE, reduce_float, LIBOPS_REDUCE_FLOAT_OPS, LIBOPS_REDUCE_FLOAT_COUNT)
