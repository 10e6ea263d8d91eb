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

// A new dense C-order array for a step's result.
inline Status step_array(const Context& block, DataType dtype, const Dims& shape, NDArray& out) {
  Status s = NDArray::create(dtype, shape, 'c', out);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

}  // namespace libops::ops
