// The transform_bool table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/transform_bool_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(UNARY, transform_bool, kTransformBool, LIBOPS_TRANSFORM_BOOL_OPS)
