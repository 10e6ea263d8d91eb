// softmax's device kernels: a backend registers one fused kernel per device
// type (softmax.cu for CUDA); softmax.cpp runs it on dense C-order x and z
// in x's dtype, viewed as [outer, n, inner] with the axis in the middle.
#pragma once

#include "libops/array/ndarray.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

// x viewed as [outer, n, inner]: the axis in the middle; `log`: log_softmax.
struct SoftmaxDesc {
  int64_t outer = 1, n = 0, inner = 1;
  DataType dtype = DataType::kFloat32;
  bool log = false;
};

using SoftmaxDeviceFn = Status (*)(Device device, const SoftmaxDesc& desc, const NDArray& x, NDArray& z);
extern DeviceKernel<SoftmaxDeviceFn> softmax_device_kernel;

}  // namespace libops::ops
