// Half 0 of the binary_bool table (even/odd op numbers; see table_impl.h).
#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE_HALF(BINARY, binary_bool, LIBOPS_BINARY_BOOL_OPS, LIBOPS_BINARY_BOOL_COUNT, 0)
