#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_BINARY_TABLE(binary, LIBOPS_BINARY_OPS, LIBOPS_BINARY_COUNT)
