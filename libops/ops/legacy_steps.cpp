#include "libops/ops/legacy_steps.h"

#include "libops/legacy/ops/random_ops.h"

namespace libops::ops {

Status linspace_into(const Context& block, double start, double stop, NDArray& z) {
  if (z.length() == 0) return Status::ok();
  const double ends[2] = {start, stop};
  legacy::LegacyCall call;
  call.group = OPS_RANDOM;
  call.num = static_cast<int>(legacy::RandomOp::linspace);
  call.z = &z;
  call.extra = ExtraParams::from(ends, 2);
  call.device = block.device();
  Status s = legacy::exec(call);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

}  // namespace libops::ops
