// The transform_same table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(UNARY, transform_same, kTransformSame, LIBOPS_TRANSFORM_SAME_OPS)
