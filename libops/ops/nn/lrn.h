// lrn's device kernel slot (lrn.cpp computes on the CPU; lrn.cu registers
// the CUDA kernel when the library loads).
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops::nn {

// x and z dense [batch, channels, spatial] in float or double (the compute
// dtype). Channel c sums the squares of channels c - before .. c + after
// (clipped to the array).
struct LrnDesc {
  int64_t batch = 0, channels = 0, spatial = 1;
  int64_t before = 0, after = 0;  // floor((size - 1) / 2), ceil((size - 1) / 2)
  double alpha_over_size = 1e-4, beta = 0.75, bias = 1.0;
};

// The CPU kernel on dense x and z of `ct` (float32 or float64); also what
// a test's fake device runs.
void lrn_cpu(const LrnDesc& desc, DataType ct, const void* x, void* z);

using LrnDeviceFn = Status (*)(Device device, const LrnDesc& desc, const NDArray& x, NDArray& z);
extern DeviceKernel<LrnDeviceFn> lrn_device_kernel;

}  // namespace libops::ops::nn
