// The binary_int table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/binary_int_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(BINARY, binary_int, kBinaryInt, LIBOPS_BINARY_INT_OPS)
