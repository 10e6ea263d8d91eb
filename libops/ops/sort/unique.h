// unique, unique_with_counts and unique_all (unique.cpp): the distinct
// values of x and where each element of x went, from one stable sort of the
// keys of Note [Sort order] (sort.h). The kernels take x flattened in C
// order, dense, in its sort_key_dtype; the op converts and copies around
// them.
//
// Note [Unique values]
// - x is flattened in C order of its logical indices (numpy.unique's
//   default; TF's unique takes vectors only), whatever its strides.
// - Equal values are one value. -0.0 and +0.0 are equal; the value given
//   back is the one that occurs first in x (numpy.unique with return_index,
//   whose mergesort keeps that one first). NaNs are one value, last in sorted
//   order, as numpy >= 1.24's default equal_nan=True; with equal_nan false
//   every NaN is its own value (numpy's equal_nan=False, the Array API's
//   unique_all), in order of occurrence.
// - sorted (the default): values ascending, as numpy, ONNX (sorted=1),
//   PyTorch and JAX give them. Unsorted: in order of first occurrence in x,
//   as TF's and libnd4j's unique (and ONNX with sorted=0).
// - inverse has x's shape with values[inverse] == x (numpy >= 2's
//   return_inverse, TF's idx); first holds the C-order flat position of
//   each value's first occurrence (numpy's return_index); counts how often
//   each occurs. All three are int64.
//
// Sizes: the number of distinct values is read from the data by the shape
// function (unique_count, the one value read back from a device: a keys-only
// sort and a count of group heads); the op's compute sorts again, with
// indices, to fill the outputs.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct UniqueDesc {
  int64_t n = 0;          // elements of x
  bool sorted = true;     // ascending; else in order of first occurrence
  bool equal_nan = true;  // every NaN is the same value
};

// x: dense [n] of a sort_key_dtype (sort.h). count: a dense int64 scalar
// that receives the number of distinct values.
Status unique_count_cpu(const UniqueDesc& d, const NDArray& x, NDArray& count);

// x as above, with u distinct values. Dense outputs: values [u] of x's
// dtype (the key dtype: the op converts), first [u], inverse [n] and
// counts [u] of int64.
Status unique_cpu(const UniqueDesc& d, const NDArray& x, NDArray& values, NDArray& first, NDArray& inverse,
                  NDArray& counts);

using UniqueCountDeviceFn = Status (*)(Device device, const UniqueDesc& d, const NDArray& x, NDArray& count);
using UniqueDeviceFn = Status (*)(Device device, const UniqueDesc& d, const NDArray& x, NDArray& values,
                                  NDArray& first, NDArray& inverse, NDArray& counts);
extern DeviceKernel<UniqueCountDeviceFn> unique_count_device_kernel;
extern DeviceKernel<UniqueDeviceFn> unique_device_kernel;

}  // namespace libops::ops
