// searchsorted's kernel interface (searchsorted.cpp, .cu).
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct SearchSortedDesc {
  int64_t rows = 1, n = 0, m = 0;  // sequences [rows, n]; values [rows, m] (or any shape: shared)
  bool shared = false;             // one sequence for every value
  bool right = false;
};

// seq and values dense, of one sort key dtype (sort.h); z dense int64.
using SearchSortedDeviceFn = Status (*)(Device, const SearchSortedDesc&, const NDArray& seq, const NDArray& values,
                                        NDArray& z);
extern DeviceKernel<SearchSortedDeviceFn> searchsorted_device_kernel;

}  // namespace libops::ops
