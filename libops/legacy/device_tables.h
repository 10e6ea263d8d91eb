// Internal: the kernels of legacy tables on devices other than the CPU.
//
// A backend compiles each table for its device (e.g. table_binary.cu) and
// registers the table's run function when the library loads, so the
// validation in legacy.cpp is shared by every device and core code has no
// #ifdef. A table with no registered function on a device is an error that
// names the group, the op and the device; data is never copied to the host
// behind the caller's back.
#pragma once

#include "libops/core/device.h"
#include "libops/legacy/tables.h"

namespace libops::legacy {

using TableRunFn = Status (*)(int num, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z,
                              const Dims& axes, const ExtraParams& e);
using RandomRunFn = Status (*)(int num, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                               const ExtraParams& e);

void register_device_table(DeviceType device, Table table, TableRunFn fn);
void register_device_random(DeviceType device, RandomRunFn fn);
// nullptr when `device` has no kernels for the table.
TableRunFn device_table(DeviceType device, Table table);
RandomRunFn device_random(DeviceType device);

}  // namespace libops::legacy
