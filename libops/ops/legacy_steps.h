// Ops composed of legacy kernels (logsumexp, moments, one_hot, ...): each
// step runs one legacy (group, number) on the call's device, into arrays
// the op allocates, so a composed op runs wherever the legacy tables do and
// its data never passes through the host. Errors name the custom op.
#pragma once

#include <string>

#include "libops/legacy/legacy.h"
#include "libops/ops/context.h"

namespace libops::ops {

// z = op(x[, y]) on block.device(); broadcasting and dtypes as legacy::exec.
inline Status legacy_step(const Context& block, ops_legacy_group_t group, int num, const NDArray& x,
                          const NDArray* y, NDArray& z, const ExtraParams& extra = {}) {
  legacy::LegacyCall call;
  call.group = group;
  call.num = num;
  call.x = &x;
  call.y = y;
  call.z = &z;
  call.extra = extra;
  call.device = block.device();
  Status s = legacy::exec(call);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

// z = act(z) in place on block.device() by the relu / relu6 ops' own
// kernels (NaN kept): activation 0 none, 1 relu, 2 relu6, as the
// activation args of conv2d and matmul number them.
Status activation_step(const Context& block, int64_t activation, NDArray& z);

// A new dense C-order array for a step's result.
inline Status step_array(const Context& block, DataType dtype, const Dims& shape, NDArray& out) {
  Status s = NDArray::create(dtype, shape, 'c', out);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

// z = start, ..., stop evenly spaced in C order (z.length() values; z a
// float dtype), computed in double and rounded once, by the legacy
// linspace kernel on the call's device.
Status linspace_into(const Context& block, double start, double stop, NDArray& z);
// z = 0, 1, 2, ... in C order (exact below 2^53 in float64).
inline Status iota_into(const Context& block, NDArray& z) {
  return linspace_into(block, 0.0, static_cast<double>(z.length() - 1), z);
}

}  // namespace libops::ops
