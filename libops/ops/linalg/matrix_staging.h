// What the linalg ops share: moving stacks of matrices between libops'
// row-major arrays and the column-major memory of blas/decompositions.h
// (Note [Column-major decompositions]), on the device the call runs on, and
// the checks every one of them makes.
//
// A row-major stack a[..., m, n] in column-major order is the dense C-order
// copy of a with its last two dims swapped, [..., n, m]: one legacy assign
// on the device. Results come back the same way, assigned into the op's
// output through the swapped view.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "libops/array/ndarray.h"
#include "libops/ops/context.h"

namespace libops::ops {

// The view of `a` with its last two dims swapped (rank >= 2), or with
// `trailing` > 0 the two before the last `trailing` ones (an [..., n, n, 2]
// stack of complex pairs swaps its matrix dims with trailing 1).
Status swap_last_two(const NDArray& a, NDArray& out, int trailing = 0);

// a's leading (batch) dims, those before its last two, followed by `tail`.
Dims matrix_stack_shape(const NDArray& a, std::initializer_list<int64_t> tail);

// out = a's matrices in column-major order, dense [..., n, m], dtype dt,
// in memory the kernels of block.device() can read and write.
Status column_major_copy(const Context& block, const NDArray& a, DataType dt, NDArray& out);

// z[..., i, j] = f[..., j, i]: a column-major result into a row-major output
// (`trailing` as for swap_last_two).
Status assign_from_column_major(const Context& block, NDArray& z, const NDArray& f, int trailing = 0);

// A new dense C-order scratch array, named after the op in errors.
Status linalg_scratch(const Context& block, DataType dt, const Dims& shape, NDArray& out);

// Readies each array on block.device() as a kernel's output (an array
// that covers its buffer gets a device copy, but no upload); kernel_pointer
// is then where that kernel finds it, and mark_kernel_written records what
// a device kernel wrote. A kernel may also read such an array only when it
// is already newest on the device (made there by assign_on_device or an
// earlier kernel): a caller's input, or dense_on_device's result (which may
// be that input), is synced with sync_for_kernel's input list instead.
Status sync_for_kernels(const Context& block, std::initializer_list<NDArray*> arrays);
void* kernel_pointer(const Context& block, const NDArray& a);
void mark_kernel_written(const Context& block, std::initializer_list<NDArray*> arrays);

// The number of matrices in a stack [..., rows, cols].
int64_t matrix_count(const NDArray& a);

// "<op>: <name><shape> has rank r; it needs rank >= 2 (a stack of
// matrices)", and with `square` the same for unequal last two dims.
Status check_matrix_stack(const Context& block, const NDArray& a, const char* name, bool square);

// Right-hand sides (solve, lstsq): b [..., rows, k] with a's leading dims,
// or any leading dims when a has rank 2, or a vector [rows] when a has rank
// 2; errors name both shapes.
Status check_right_hand_side(const Context& block, const NDArray& a, const NDArray& b, int64_t rows);
// b, or a vector b as the one-column matrix [n, 1] (a view).
Status as_matrices(const NDArray& b, NDArray& out);

// Iterative solvers (SVD, eigen-decompositions) need finite input: the
// first matrix of `a` holding NaN or Inf is an error naming it, found by a
// legacy reduction on the device and read back once.
Status check_finite_matrices(const Context& block, const NDArray& a, const char* name);

// Zeros the triangle of each matrix of dense z that `keep_upper` does not
// keep (the diagonal is kept), on the device, whatever it held (NaN, inf).
Status clear_other_triangle(const Context& block, bool keep_upper, NDArray& z);

}  // namespace libops::ops
