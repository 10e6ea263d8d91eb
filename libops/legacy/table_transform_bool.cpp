#include "libops/legacy/ops/transform_bool_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(UNARY, transform_bool, LIBOPS_TRANSFORM_BOOL_OPS, LIBOPS_TRANSFORM_BOOL_COUNT)
