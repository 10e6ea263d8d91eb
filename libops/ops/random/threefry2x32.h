// threefry2x32's kernel interface (threefry2x32.cpp, .cu).
#pragma once

#include "libops/core/device.h"
#include "libops/loops/nd_loop.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

// The loop over the pairs: operands out, key, counter over the broadcast
// shape without its last dim (strides in bytes); word 1 of each operand
// lies last_stride[k] bytes after word 0. Every word is 4 bytes (int32 or
// uint32, taken as their bits).
struct ThreefryLoop {
  NdLoop<3> loop;
  int64_t last_stride[3] = {};
};

using ThreefryDeviceFn = Status (*)(Device device, const ThreefryLoop& l);
extern DeviceKernel<ThreefryDeviceFn> threefry_device_kernel;

}  // namespace libops::ops
