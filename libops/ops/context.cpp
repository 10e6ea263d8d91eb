#include "libops/ops/context.h"

#include <algorithm>

#include "libops/loops/convert.h"

namespace libops {

void* Workspace::allocate_bytes(size_t bytes) {
  void* p = std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
  if (p) blocks_.push_back(p);
  return p;
}

void Workspace::release(void* p) {
  auto it = std::find(blocks_.begin(), blocks_.end(), p);
  if (it == blocks_.end()) return;
  std::free(p);
  blocks_.erase(it);
}

void Workspace::release_all() {
  for (void* p : blocks_) std::free(p);
  blocks_.clear();
}

void Context::clear() {
  inputs_.clear();
  outputs_.clear();
  owned_outputs_.clear();
  t_args_.clear();
  i_args_.clear();
  b_args_.clear();
  d_args_.clear();
  inplace_ = false;
  device_ = Device::cpu();
  workspace_.release_all();
}

Status Context::store_result(int i, const NDArray& a) {
  if (i < 0 || i >= num_outputs())
    return error(StatusCode::kInternal, "store_result: output %d does not exist (%d outputs)", i, num_outputs());
  NDArray* out = outputs_[static_cast<size_t>(i)];
  if (out->same_view(a)) return Status::ok();
  if (out->has_data() && out->shape() == a.shape()) return out->assign(a);
  *out = a;
  return Status::ok();
}

Status Context::set_boolean_result(bool value) {
  if (num_outputs() < 1 || !output(0)->has_data() || output(0)->length() != 1)
    return error(StatusCode::kInternal, "boolean op needs a one-element output");
  output(0)->set_double(0, value ? 1.0 : 0.0);
  return Status::ok();
}

Status Context::error(StatusCode code, const char* fmt, ...) const {
  va_list args;
  va_start(args, fmt);
  std::string msg = str_vformat(fmt, args);
  va_end(args);
  return Status(code, std::string(op_name_) + ": " + msg);
}

}  // namespace libops
