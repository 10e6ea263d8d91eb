// Shared by the reduce_* custom ops: input x, axes as i args (none = all,
// negative counts from the end), b arg 0 keep_dims (default false). The
// work is done by the legacy reduce tables (libops/legacy/ops/reduce_ops.h).
#pragma once

#include <string>

#include "libops/legacy/legacy.h"
#include "libops/ops/declarable_op.h"

namespace libops::ops {

// Output 0 = the legacy reduction (group, num) of input 0 over the i-arg
// axes; keep_dims follows from the output's rank (legacy::exec).
inline Status reduce_exec(Context& block, ops_legacy_group_t group, int num) {
  legacy::LegacyCall call;
  call.group = group;
  call.num = num;
  call.x = block.input(0);
  call.z = block.output(0);
  call.device = block.device();
  call.axes = block.i_args().data();
  call.n_axes = block.num_i_args();
  Status s = legacy::exec(call);
  // The legacy layer names its own op; say which custom op called it.
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

}  // namespace libops::ops
