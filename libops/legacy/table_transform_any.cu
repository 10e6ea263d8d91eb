// The transform_any table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/transform_any_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(UNARY, transform_any, kTransformAny, LIBOPS_TRANSFORM_ANY_OPS)
