// Copy with broadcasting and dtype conversion: the engine behind
// NDArray::assign, dup, cast and every data-movement op (concat, gather,
// permute copies). Same-dtype copies move bytes by element size, so they are
// instantiated 4 times in all, not once per dtype.
#pragma once

#include "libops/array/ndarray.h"
#include "libops/core/api.h"

namespace libops {

// dst[...] = src[...] with src broadcast to dst's shape (checked by the
// caller) and converted to dst's dtype. dst must not partially overlap src.
// Exported: expressions compiled outside the library copy through it.
LIBOPS_API_BEGIN
void copy_into(const NDArray& src, NDArray& dst);
LIBOPS_API_END

}  // namespace libops
