#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_UNARY_TABLE(transform_same, LIBOPS_TRANSFORM_SAME_OPS, LIBOPS_TRANSFORM_SAME_COUNT)
