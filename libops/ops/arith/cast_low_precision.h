// cast_low_precision's kernel interface (cast_low_precision.cpp, .cu): the
// arithmetic is low_precision.h's, on the host and on devices alike.
#pragma once

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/arith/low_precision.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

// x dense: int32 (a low-precision source's bytes), int64 (an integer
// source) or float64; z dense: int32 (a low-precision target's bytes) or
// float64.
using LowpCastDeviceFn = Status (*)(Device device, const LowpCastDesc& d, const NDArray& x, NDArray& z);
extern DeviceKernel<LowpCastDeviceFn> lowp_cast_device_kernel;

}  // namespace libops::ops
