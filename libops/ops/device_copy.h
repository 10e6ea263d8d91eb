// Copies inside declarable ops, on the device the op runs on, and the
// staging that gives a device kernel dense arrays.
//
// Note [Copies on a device]
// Shape ops (cast, reshape, permute, concat, tear) move data by copying a
// view of an input into a view of an output. On the CPU that is
// NDArray::assign; on a device it is the legacy transform-any `assign`
// kernel run on that device, so the data never passes through the host and
// the output buffer is marked as newest on the device. Either way the copy
// converts to dst's dtype and broadcasts src to dst's shape.
//
// Ops whose device kernels take dense C-order arrays (the nn ops of Note
// [nn ops on devices], gather) stage their operands with the same copy:
// dense_on_device for inputs, DeviceOutputStage for the output.
#pragma once

#include "libops/ops/context.h"

namespace libops::ops {

// dst = src (converted, broadcast) on block.device(); src may overlap dst
// (it is then copied first). Errors name the op.
Status assign_on_device(const Context& block, NDArray& dst, const NDArray& src);

// The error of an op with no implementation on block.device():
// "<op>: has no <device type> implementation (asked to run on <device>)".
Status no_device_implementation(const Context& block);

// `s` with the op's name in front (ok stays ok).
Status with_op_name(const Context& block, const Status& s);

// `a` as a dense C-order array of dtype `dt` on block.device(): `a` itself
// when it is one, else a copy made on the device.
Status dense_on_device(const Context& block, const NDArray& a, DataType dt, NDArray& out);

// A small integer array a kernel indexes with (sequence lengths, class ids,
// image indices), read on the host and checked before the kernel runs, so
// a bad value is an error naming its position on every device:
// "<op>: <name>[i] = v is not <what> in [lo, hi)". out: the values as a
// dense int64 host array (a device kernel's sync_for_kernel uploads it).
Status checked_int64_on_host(const Context& block, const NDArray& given, const char* name, const char* what,
                             int64_t lo, int64_t hi, NDArray& out);

// Where a device computation writes: z itself when z is dense C-order in
// `dt` and shares no memory with any input (and `may_use_z`), else a dense
// scratch array that finish() copies into z on the device.
class DeviceOutputStage {
 public:
  Status begin(const Context& block, NDArray& z, DataType dt, bool may_use_z = true);
  NDArray& target() { return target_; }
  Status finish(const Context& block, NDArray& z);

 private:
  NDArray target_;
  bool direct_ = false;
};

}  // namespace libops::ops
