// The reduce_long table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(REDUCE, reduce_long, kReduceLong, LIBOPS_REDUCE_LONG_OPS)
