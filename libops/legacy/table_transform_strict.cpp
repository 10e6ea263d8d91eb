#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_UNARY_TABLE(transform_strict, LIBOPS_TRANSFORM_STRICT_OPS, LIBOPS_TRANSFORM_STRICT_COUNT)
