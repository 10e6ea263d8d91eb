// The reduce3 table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/reduce3_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(REDUCE, reduce3, kReduce3, LIBOPS_REDUCE3_OPS)
