#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_BINARY_TABLE(binary_bool, LIBOPS_BINARY_BOOL_OPS, LIBOPS_BINARY_BOOL_COUNT)
