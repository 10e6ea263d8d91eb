// reverse_sequence's kernel interface (reverse_sequence.cpp, .cu).
//
// x is staged dense and seen as [pre, A, mid, B, post]: A and B are the
// batch and time axes in the order they come (`time_first` says which is
// which), post the elements after the later one. Row b's first lengths[b]
// time steps come out reversed, the rest as they are; z has x's layout.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct ReverseSequenceDesc {
  int64_t pre = 1, a = 1, mid = 1, b = 1, post = 1;
  bool time_first = false;  // A is the time axis (else the batch axis)
  int64_t elem_size = 0;    // 1, 2, 4 or 8 bytes
};

// The source time index of output time t in a row of length len.
LIBOPS_HOST_DEVICE inline constexpr int64_t reversed_time(int64_t t, int64_t len) { return t < len ? len - 1 - t : t; }

// Row u of z (C order over [pre, A, mid, B], each row `post` elements) comes
// from this row of x.
LIBOPS_HOST_DEVICE inline int64_t reverse_sequence_source(const ReverseSequenceDesc& d, const int64_t* len, int64_t u) {
  const int64_t j = u % d.b;
  u /= d.b;
  const int64_t m = u % d.mid;
  u /= d.mid;
  const int64_t i = u % d.a, p = u / d.a;
  const int64_t si = d.time_first ? reversed_time(i, len[j]) : i;
  const int64_t sj = d.time_first ? j : reversed_time(j, len[i]);
  return ((p * d.a + si) * d.mid + m) * d.b + sj;
}

// x and z dense in one dtype, sharing no memory; lengths dense int64 [batch],
// each in [0, time] (the op checks them first).
using ReverseSequenceDeviceFn = Status (*)(Device device, const ReverseSequenceDesc& desc, const NDArray& x,
                                           const NDArray& lengths, NDArray& z);
extern DeviceKernel<ReverseSequenceDeviceFn> reverse_sequence_device_kernel;

}  // namespace libops::ops
