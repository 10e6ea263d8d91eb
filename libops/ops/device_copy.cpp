#include "libops/ops/device_copy.h"

#include <string>

#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/transform_any_ops.h"

namespace libops::ops {

Status assign_on_device(const Context& block, NDArray& dst, const NDArray& src) {
  if (block.device().is_cpu()) return dst.assign(src);  // copes with overlap itself
  if (dst.may_overlap(src) && !dst.same_view(src)) {
    // Parts of one buffer (pad mirrors its own values): through a copy,
    // as NDArray::assign does on the host.
    NDArray tmp;
    RETURN_IF_ERROR(NDArray::create(src.dtype(), src.shape(), 'c', tmp));
    RETURN_IF_ERROR(assign_on_device(block, tmp, src));
    return assign_on_device(block, dst, tmp);
  }
  legacy::LegacyCall call;
  call.group = OPS_TRANSFORM_ANY;
  call.num = static_cast<int>(legacy::TransformAnyOp::assign);
  call.x = &src;
  call.z = &dst;
  call.device = block.device();
  return with_op_name(block, legacy::exec(call));
}

Status no_device_implementation(const Context& block) {
  const Device d = block.device();
  return block.error(StatusCode::kNotImplemented, "has no %s implementation (asked to run on %s)",
                     device_type_name(d.type), d.str().c_str());
}

Status with_op_name(const Context& block, const Status& s) {
  return s.with_prefix(std::string(block.op_name()) + ": ");
}

Status dense_on_device(const Context& block, const NDArray& a, DataType dt, NDArray& out) {
  if (a.dtype() == dt && a.is_c_contiguous()) {
    out = a;
    return Status::ok();
  }
  // The copy's host memory is never written: the device copy becomes the
  // newest one (Note [Copies on a device]).
  RETURN_IF_ERROR(NDArray::create(dt, a.shape(), 'c', out));
  return assign_on_device(block, out, a);
}

Status DeviceOutputStage::begin(const Context& block, NDArray& z, DataType dt, bool may_use_z) {
  bool direct = may_use_z && z.dtype() == dt && z.is_c_contiguous();
  for (int i = 0; direct && i < block.num_inputs(); ++i) direct = !z.may_overlap(*block.input(i));
  direct_ = direct;
  if (direct) {
    target_ = z;
    return Status::ok();
  }
  return NDArray::create(dt, z.shape(), 'c', target_);
}

Status DeviceOutputStage::finish(const Context& block, NDArray& z) {
  return direct_ ? Status::ok() : assign_on_device(block, z, target_);
}

Status checked_int64_on_host(const Context& block, const NDArray& given, const char* name, const char* what,
                             int64_t lo, int64_t hi, NDArray& out) {
  RETURN_IF_ERROR(with_op_name(block, const_cast<NDArray&>(given).buffer()->sync_to_host()));
  RETURN_IF_ERROR(with_op_name(block, NDArray::create(DataType::kInt64, Dims{given.length()}, 'c', out)));
  int64_t* p = out.data_as<int64_t>();
  for (int64_t i = 0; i < given.length(); ++i) {
    const int64_t v = given.get_int64(i);
    if (v < lo || v >= hi)
      return block.error(StatusCode::kInvalidArgument, "%s[%lld] = %lld is not %s in [%lld, %lld)", name,
                         static_cast<long long>(i), static_cast<long long>(v), what, static_cast<long long>(lo),
                         static_cast<long long>(hi));
    p[i] = v;
  }
  out.buffer()->mark_host_written();
  return Status::ok();
}

}  // namespace libops::ops
