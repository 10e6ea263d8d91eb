// softmax and log_softmax along one axis share their row loops and device
// path (softmax.cpp); log_softmax.cpp declares the second op. On a device
// they run the fused kernel its backend registered (softmax.cu for CUDA) on
// dense C-order x and z in x's dtype, viewed as [outer, n, inner] with the
// axis in the middle.
#pragma once

#include "libops/array/ndarray.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

// The op's body: softmax of input 0 into output 0 along i arg 0 (an axis of
// x that the signature checked), or log_softmax when `log`.
Status softmax_exec(Context& block, bool log);
// Output 0: x's dtype and shape.
Status softmax_shape(Context& block, ShapeList& shapes);

// The CPU's softmax of one contiguous float32 row of n >= 1 elements, z = x
// allowed.
void softmax_row_f32(const float* x, float* z, int64_t n);
// The same row without its last pass: z = exp(x - max(x)), returning the
// sum of z, by which the caller divides later work instead (blocked
// attention divides the rows of exp(S) v, which are shorter than S's).
float softmax_exp_row_f32(const float* x, float* z, int64_t n);

// x viewed as [outer, n, inner]: the axis in the middle; `log`: log_softmax.
struct SoftmaxDesc {
  int64_t outer = 1, n = 0, inner = 1;
  DataType dtype = DataType::kFloat32;
  bool log = false;
};

using SoftmaxDeviceFn = Status (*)(Device device, const SoftmaxDesc& desc, const NDArray& x, NDArray& z);
extern DeviceKernel<SoftmaxDeviceFn> softmax_device_kernel;

}  // namespace libops::ops
