// The binary_bool table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(BINARY, binary_bool, kBinaryBool, LIBOPS_BINARY_BOOL_OPS)
