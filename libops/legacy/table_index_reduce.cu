// The index_reduce table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/index_reduce_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(REDUCE, index_reduce, kIndexReduce, LIBOPS_INDEX_REDUCE_OPS)
