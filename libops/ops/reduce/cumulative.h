// Cumulative scans (cumsum, cumprod, cummax, cummin) and the kernel a
// backend registers for them.
//
// The op stages x as a dense C-order array of its compute type (float for
// float16/bfloat16/float32, double, int64 for signed and uint64 for
// unsigned integers and bool), reversed along the axis when the scan runs
// backwards, and z likewise: the kernels only ever scan forwards, along the
// middle dim of [outer, n, inner]. An exclusive scan shifts the inclusive
// one by a position and starts from the identity.
#pragma once

#include <climits>
#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

enum class ScanOp : int { kSum, kProd, kMax, kMin };

struct ScanDesc {
  ScanOp op = ScanOp::kSum;
  int64_t outer = 1, n = 0, inner = 1;
  bool exclusive = false;
  // The range of x's integer dtype: the identities of max and min (an
  // exclusive cummax of int32 starts at INT32_MIN, not INT64_MIN).
  int64_t int_lowest = INT64_MIN;
  uint64_t int_highest = UINT64_MAX;
};

// z = scan(x) for dense x and z of one compute dtype on `device`.
using ScanDeviceFn = Status (*)(Device device, const ScanDesc& desc, const NDArray& x, NDArray& z);
extern DeviceKernel<ScanDeviceFn> scan_device_kernel;

}  // namespace libops::ops
