// The binary table on CUDA devices (see table_impl.cuh).
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/table_impl.cuh"

LIBOPS_CUDA_TABLE(BINARY, binary, kBinary, LIBOPS_BINARY_OPS)
