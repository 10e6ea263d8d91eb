#include "libops/ops/legacy_steps.h"

#include "libops/legacy/ops/random_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"

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

Status activation_step(const Context& block, int64_t activation, NDArray& z) {
  if (activation == 0 || z.length() == 0) return Status::ok();
  const auto op = activation == 1 ? legacy::TransformSameOp::relu : legacy::TransformSameOp::relu6;
  return legacy_step(block, OPS_TRANSFORM_SAME, static_cast<int>(op), z, nullptr, z);
}

}  // namespace libops::ops
