// Half 0 of the transform_same table (even/odd op numbers; see table_impl.h).
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE_HALF(UNARY, transform_same, LIBOPS_TRANSFORM_SAME_OPS, LIBOPS_TRANSFORM_SAME_COUNT, 0)
