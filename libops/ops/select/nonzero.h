// The coordinates of x's nonzero elements: argwhere, nonzero and where with
// one input (nonzero.cpp, where.cpp).
//
// Note [Nonzero coordinates]
// - An element is nonzero when x != 0: NaN is, -0.0 is not, bool true is.
// - Coordinates are int64, in C order of x's logical indices (whatever its
//   strides), as numpy gives them.
// - argwhere and where(cond) give [count, rank] (numpy.argwhere, TF's
//   where(cond), libnd4j's Where with one input): row k is the k-th nonzero
//   element's index. nonzero gives the transpose, [rank, count]: row d is
//   numpy.nonzero's d-th array (ONNX NonZero's layout).
// - A rank-0 x gives [count, 0] (count 0 or 1) as numpy.argwhere does, and
//   nonzero its transpose [0, count] (numpy >= 2 refuses nonzero on 0-d).
//
// Sizes: the shape function counts the nonzeros with the legacy
// count_nonzero reduction on the call's device and reads that one value
// back; the body converts x to dense bool flags there and the kernel writes
// the coordinates (nonzero_cpu here, nonzero.cu on CUDA).
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/context.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct NonzeroDesc {
  int rank = 0;
  int64_t dims[kMaxRank] = {};  // x's extents
  int64_t n = 0;                // elements of x
  int64_t count = 0;            // nonzero elements (the output's extent)
  bool rank_major = false;      // [rank, count] (nonzero); else [count, rank]
};

// flags: dense bool [n], x != 0 in C order. z: dense int64 of count * rank
// elements in the layout the desc names.
Status nonzero_cpu(const NonzeroDesc& d, const NDArray& flags, NDArray& z);

using NonzeroDeviceFn = Status (*)(Device device, const NonzeroDesc& d, const NDArray& flags, NDArray& z);
extern DeviceKernel<NonzeroDeviceFn> nonzero_device_kernel;

// For the ops: the output shape of x's coordinates, counted on
// block.device() (an error when x's values are not known yet), and the
// coordinates written into z, of that shape.
Status nonzero_shape(const Context& block, const NDArray& x, bool rank_major, TensorShape& out);
Status nonzero_into(const Context& block, const NDArray& x, bool rank_major, NDArray& z);

}  // namespace libops::ops
