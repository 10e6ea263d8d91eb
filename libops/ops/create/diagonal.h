// The main diagonals of matrices as a strided view: used by eye, diag,
// diag_part and trace.
#pragma once

#include <algorithm>

#include "libops/array/ndarray.h"

namespace libops::ops {

// The diagonals of a dense C-order [batch..., rows, cols] array, as a
// [batch, min(rows, cols)] view: in each flat matrix they are every
// (cols + 1)-th element.
inline Status diagonal_view(const NDArray& z, NDArray& view) {
  const int r = z.rank();
  const int64_t rows = z.dim(r - 2), cols = z.dim(r - 1);
  const int64_t batch = rows * cols == 0 ? 0 : z.length() / (rows * cols);
  NDArray flat;
  RETURN_IF_ERROR(z.reshape(Dims{batch, rows * cols}, flat));
  return flat.slice(1, 0, std::min(rows, cols) * (cols + 1), cols + 1, view);
}

}  // namespace libops::ops
