// gather on devices other than the CPU: the kernel a backend registers.
//
// Note [gather on devices]
// On the CPU gather checks every index before it copies a row. A device
// kernel cannot stop the op with an error, so it checks as it copies: a row
// whose index is outside [-n, n) is left unwritten and the kernel reports
// the first such position in indices. The op then reads the indices back
// and gives the CPU's error, word for word. Reporting costs one read of
// 8 bytes after the kernel, which waits for the stream: gather is the one
// op that synchronises with the host on a device, and the price of an error
// that names the bad index instead of an output silently filled with zeros
// or clamped rows (what other engines do on GPUs).
//
// The op stages the arrays first (ops/device_copy.h): x dense in its dtype,
// indices dense in their dtype (int32 or int64), and z dense C-order in x's
// dtype sharing no memory with either. x is seen as [outer, n, inner] and z
// as [outer, count, inner], count = indices.length().
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"

namespace libops::ops {

struct GatherDesc {
  int64_t outer = 1, n = 0, count = 0, inner = 1;
};

// z[o, j, :] = x[o, indices[j] (+ n when negative), :] on `device`.
// *bad_position is -1 when every index was in range, else the first
// position in indices (C order) that was not.
using GatherDeviceFn = Status (*)(Device device, const GatherDesc& desc, const NDArray& x, const NDArray& indices,
                                  NDArray& z, int64_t* bad_position);

// Called by a backend when the library loads (tests may swap in their own
// and put back what they found).
void register_gather_device(DeviceType type, GatherDeviceFn fn);
// The registered kernel, or nullptr.
GatherDeviceFn gather_device(DeviceType type);

}  // namespace libops::ops
