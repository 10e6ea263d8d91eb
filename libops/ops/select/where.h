// where (select): z = cond ? x : y, the three broadcast together. The kernel
// copies elements by their size: cond is bool, x, y and z share one dtype
// (the op converts first where they do not), so nothing is compiled per
// dtype. Other ops that keep or replace elements by a mask (triu, tril,
// matrix_band_part) call select_into.
#pragma once

#include "libops/loops/nd_loop.h"
#include "libops/ops/context.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

// The loop of one select: operands z, cond, x, y over z's shape, broadcast
// strides, element size of z (1, 2, 4 or 8 bytes; cond is 1 byte).
struct SelectLoop {
  NdLoop<4> loop;
  int64_t elem_size = 0;
};

// z = cond ? x : y on block.device(). cond is bool; x, y and z share a dtype;
// all three broadcast to z's shape. Errors name the op.
Status select_into(const Context& block, const NDArray& cond, const NDArray& x, const NDArray& y, NDArray& z);

using SelectDeviceFn = Status (*)(Device device, const SelectLoop& loop);
extern DeviceKernel<SelectDeviceFn> select_device_kernel;

}  // namespace libops::ops
