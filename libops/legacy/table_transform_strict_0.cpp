// Half 0 of the transform_strict table (even/odd op numbers; see table_impl.h).
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE_HALF(UNARY_WIDE, transform_strict, LIBOPS_TRANSFORM_STRICT_OPS, LIBOPS_TRANSFORM_STRICT_COUNT, 0)
