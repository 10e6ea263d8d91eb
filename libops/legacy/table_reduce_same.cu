// The reduce_same table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(REDUCE, reduce_same, kReduceSame, LIBOPS_REDUCE_SAME_OPS)
