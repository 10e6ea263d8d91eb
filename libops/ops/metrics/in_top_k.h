// in_top_k's kernel interface (in_top_k.cpp, .cu).
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct InTopKDesc {
  int64_t rows = 0, classes = 0, k = 0;
};

// predictions dense [rows, classes] float32 or float64; targets dense int64
// [rows], each in [0, classes) (the op checks them); z dense bool [rows]:
// whether fewer than k classes of the row score strictly more than its
// target, whose score must be finite.
using InTopKDeviceFn = Status (*)(Device device, const InTopKDesc& desc, const NDArray& predictions,
                                  const NDArray& targets, NDArray& z);
extern DeviceKernel<InTopKDeviceFn> in_top_k_device_kernel;

}  // namespace libops::ops
