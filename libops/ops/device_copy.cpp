#include "libops/ops/device_copy.h"

#include <string>

#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/transform_any_ops.h"

namespace libops::ops {

Status assign_on_device(const Context& block, NDArray& dst, const NDArray& src) {
  if (block.device().is_cpu()) return dst.assign(src);
  legacy::LegacyCall call;
  call.group = OPS_TRANSFORM_ANY;
  call.num = static_cast<int>(legacy::TransformAnyOp::assign);
  call.x = &src;
  call.z = &dst;
  call.device = block.device();
  Status s = legacy::exec(call);
  if (s.is_ok()) return s;
  return Status(s.code(), std::string(block.op_name()) + ": " + s.message());
}

}  // namespace libops::ops
