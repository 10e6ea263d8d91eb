#include "libops/legacy/ops/binary_int_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE(BINARY, binary_int, LIBOPS_BINARY_INT_OPS, LIBOPS_BINARY_INT_COUNT)
