#include "libops/legacy/ops/transform_any_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(UNARY, transform_any, LIBOPS_TRANSFORM_ANY_OPS, LIBOPS_TRANSFORM_ANY_COUNT)
