// The transform_float table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/transform_float_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(UNARY, transform_float, kTransformFloat, LIBOPS_TRANSFORM_FLOAT_OPS)
