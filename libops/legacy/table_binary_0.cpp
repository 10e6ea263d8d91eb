// Half 0 of the binary table (even/odd op numbers; see table_impl.h).
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/table_impl.h"

LIBOPS_TABLE_HALF(BINARY, binary, LIBOPS_BINARY_OPS, LIBOPS_BINARY_COUNT, 0)
