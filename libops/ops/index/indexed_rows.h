// Row gathers and scatters addressed by multi-dimensional indices: the
// machinery of gather_nd, scatter_nd, scatter_nd_update, the libnd4j
// scatter_* ops and gather with batch dims.
//
// Note [Indexed rows]
// x is seen as [B, D0, ..., D(K-1), R]: B batches, K indexed dims, rows of R
// elements. indices is [B, count, K] (or [count, K] shared by every batch:
// indices_batch_stride 0). Index (b, i) names the row
//   b * prod(D) + sum_k idx[b, i, k] * prod(D[k+1..])
// of x, an index below 0 counting from the end of its dim once (-D[k] is
// 0). Any other index is an error naming the first bad position, found as
// the data is read (on a device: reported by the kernel, Note [gather on
// devices]).
//   gather:  z[b, i, :] = x[row(b, i), :]
//   scatter: z[row(b, i), :] = combine(z[row(b, i), :], updates[b, i, :])
// with z a copy of x (or zeros) made first. For the set mode a row named
// twice takes the last update (in (b, i) order), on every device; add,
// subtract, multiply, divide, max and min combine every update into it (a
// device adds in an unspecified order, so float sums may round apart).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

enum class ScatterMode : int { kSet = 0, kAdd, kSubtract, kMultiply, kDivide, kMax, kMin };
const char* scatter_mode_name(ScatterMode m);

// What an index outside [-n, n) (or a negative one, for the drop policies)
// does: an error (negatives count from the end), or the update is dropped
// (TF's unsorted segment ops drop negative ids, bincount with maxlength
// drops values past it; the other side stays an error, negatives then not
// counting from the end). Drops apply to K = 1 scatters.
enum class OutOfRange : int { kError = 0, kDropNegative, kDropAbove };

struct IndexedRows {
  int64_t batches = 1, count = 0, k = 0, row = 1;
  OutOfRange out_of_range = OutOfRange::kError;
  int64_t dims[kMaxRank] = {};         // D0 .. D(K-1)
  int64_t indices_batch_stride = 0;    // count * K, or 0 when shared
  LIBOPS_HOST_DEVICE int64_t rows_per_batch() const {
    int64_t p = 1;
    for (int64_t d = 0; d < k; ++d) p *= dims[d];
    return p;
  }
};

// gather: z [B, count, R] from x [B, prod(D), R] (dense, one dtype; the
// kernel moves bytes). indices int32 or int64, dense. *bad is -1 or the
// first bad index position (C order over indices).
Status gather_rows_cpu(const IndexedRows& d, const NDArray& x, const NDArray& indices, NDArray& z, int64_t* bad);
// scatter into z [B, prod(D), R] (dense) from updates [B, count, R] (dense,
// z's dtype, a compute dtype: float32, float64, int64 or uint64).
// zero_fill: z's contents are not read, the scatter combines into zeros
// (Note [Scatter into zeros]); on a bad index z is then left unwritten.
Status scatter_rows_cpu(const IndexedRows& d, ScatterMode mode, const NDArray& indices, const NDArray& updates,
                        NDArray& z, int64_t* bad, bool zero_fill = false);
// The first bad index position (C order over indices), or -1; host data.
int64_t first_bad_row_index(const IndexedRows& d, const NDArray& indices);

// Note [Indexed elements]
// gather_elements and scatter_elements index single elements along one
// axis: indices has x's rank and, off the axis, extents at most x's. The
// element of x for index position p (a multi-index over indices' shape) is
// p with its axis coordinate replaced by indices[p] (negative counting from
// the end once). gather: z[p] = x[that]; scatter: z[that] combined with
// updates[p], z a copy of x, in (C-order) position order.
struct IndexedElements {
  int rank = 0, axis = 0;
  int64_t shape[kMaxRank] = {};    // indices' (and updates', z's for gather) shape
  int64_t strides[kMaxRank] = {};  // x's dense C-order strides, in elements
  int64_t n = 0;                   // x's extent along the axis
  LIBOPS_HOST_DEVICE int64_t count() const {
    int64_t c = 1;
    for (int d = 0; d < rank; ++d) c *= shape[d];
    return c;
  }
};

Status gather_elements_cpu(const IndexedElements& d, const NDArray& x, const NDArray& indices, NDArray& z,
                           int64_t* bad);
Status scatter_elements_cpu(const IndexedElements& d, ScatterMode mode, const NDArray& indices,
                            const NDArray& updates, NDArray& z, int64_t* bad);

using GatherRowsDeviceFn = Status (*)(Device, const IndexedRows&, const NDArray& x, const NDArray& indices,
                                      NDArray& z, int64_t* bad);
using ScatterRowsDeviceFn = Status (*)(Device, const IndexedRows&, ScatterMode, const NDArray& indices,
                                       const NDArray& updates, NDArray& z, int64_t* bad);
using GatherElementsDeviceFn = Status (*)(Device, const IndexedElements&, const NDArray& x, const NDArray& indices,
                                          NDArray& z, int64_t* bad);
using ScatterElementsDeviceFn = Status (*)(Device, const IndexedElements&, ScatterMode, const NDArray& indices,
                                           const NDArray& updates, NDArray& z, int64_t* bad);
extern DeviceKernel<GatherRowsDeviceFn> gather_rows_device_kernel;
extern DeviceKernel<GatherElementsDeviceFn> gather_elements_device_kernel;
extern DeviceKernel<ScatterElementsDeviceFn> scatter_elements_device_kernel;
extern DeviceKernel<ScatterRowsDeviceFn> scatter_rows_device_kernel;

// The names of scatter_ops.cpp's and segments.cpp's tables, for tests and tools.
std::vector<std::string> scatter_op_names();
std::vector<std::string> segment_op_names();

}  // namespace libops::ops
