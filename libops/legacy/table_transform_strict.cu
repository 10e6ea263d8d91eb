// The transform_strict table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(UNARY, transform_strict, kTransformStrict, LIBOPS_TRANSFORM_STRICT_OPS)
