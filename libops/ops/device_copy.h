// Copies inside declarable ops, on the device the op runs on.
//
// Note [Copies on a device]
// Shape ops (cast, reshape, permute, concat, tear) move data by copying a
// view of an input into a view of an output. On the CPU that is
// NDArray::assign; on a device it is the legacy transform-any `assign`
// kernel run on that device, so the data never passes through the host and
// the output buffer is marked as newest on the device. Either way the copy
// converts to dst's dtype and broadcasts src to dst's shape.
#pragma once

#include "libops/ops/context.h"

namespace libops::ops {

// dst = src (converted, broadcast) on block.device(). Errors name the op.
Status assign_on_device(const Context& block, NDArray& dst, const NDArray& src);

}  // namespace libops::ops
