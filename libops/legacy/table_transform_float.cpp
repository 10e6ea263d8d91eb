#include "libops/legacy/ops/transform_float_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(UNARY, transform_float, LIBOPS_TRANSFORM_FLOAT_OPS, LIBOPS_TRANSFORM_FLOAT_COUNT)
