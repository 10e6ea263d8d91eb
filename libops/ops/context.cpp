#include "libops/ops/context.h"

#include <algorithm>

#include "libops/loops/convert.h"
#include "libops/ops/device_copy.h"

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
  args_.clear();
  inplace_ = false;
  device_ = Device::cpu();
  workspace_.release_all();
  constant_inputs_.clear();
  op_state_.reset();
}

Status Context::store_result(int i, const NDArray& a) {
  if (i < 0 || i >= num_outputs())
    return error(StatusCode::kInternal, "store_result: output %d does not exist (%d outputs)", i, num_outputs());
  NDArray* out = outputs_[static_cast<size_t>(i)];
  if (out->same_view(a)) return Status::ok();
  if (out->has_data() && out->shape() == a.shape()) {
    // A result computed on a device is copied there (Note [Copies on a device]).
    return device().is_cpu() ? out->assign(a) : ops::assign_on_device(*this, *out, a);
  }
  *out = a;
  return Status::ok();
}

Status Context::set_boolean_result(bool value) {
  if (num_outputs() < 1 || !output(0)->has_data() || output(0)->length() != 1)
    return error(StatusCode::kInternal, "boolean op needs a one-element output");
  output(0)->set_double(0, value ? 1.0 : 0.0);
  return Status::ok();
}

Status Context::int_list(const char* name, std::vector<int64_t>& out) const {
  out.clear();
  const ArgSpec* a = signature_ ? signature_->find(name) : nullptr;
  if (a == nullptr || a->kind != ArgKind::kInt || !a->list)
    return error(StatusCode::kInternal, "int_list: the op declares no int list arg '%s'", name);
  if (a->from_input >= 0 && a->from_input < num_inputs()) {
    RETURN_IF_ERROR(int_values(a->from_input, name, out));
    // Axes given as an array are checked here, as i args are when the call
    // is resolved (Note [Argument resolution]).
    if (a->axis_of >= 0 && a->axis_of < num_inputs() && input(a->axis_of) != nullptr) {
      const int64_t rank = input(a->axis_of)->rank();
      for (size_t k = 0; k < out.size(); ++k) {
        const int64_t v = out[k];
        if (v < -rank || v >= rank)
          return error(StatusCode::kInvalidArgument,
                       "%s (input %d, value %zu) is %lld: it must be an axis of input %d %s, in [%lld, %lld]", name,
                       a->from_input, k, static_cast<long long>(v), a->axis_of,
                       input(a->axis_of)->shape().str().c_str(), static_cast<long long>(-rank),
                       static_cast<long long>(rank - 1));
        for (size_t j = 0; a->distinct && j < k; ++j)
          if ((out[j] < 0 ? out[j] + rank : out[j]) == (v < 0 ? v + rank : v))
            return error(StatusCode::kInvalidArgument, "%s (input %d) names axis %lld twice (values %zu and %zu)",
                         name, a->from_input, static_cast<long long>(v < 0 ? v + rank : v), j, k);
      }
    }
    return Status::ok();
  }
  const size_t first = static_cast<size_t>(a->position);
  if (args_.i.size() > first) out.assign(args_.i.begin() + static_cast<std::ptrdiff_t>(first), args_.i.end());
  return Status::ok();
}

Status Context::int_values(int index, const char* what, std::vector<int64_t>& out) const {
  out.clear();
  const NDArray& v = *input(index);
  if (!dtype_is_integer(v.dtype()))
    return error(StatusCode::kDtype, "%s given as input %d must be an integer array, got %s%s", what, index,
                 dtype_name(v.dtype()), v.shape().str().c_str());
  // A vector may come as [1, N] (libnd4j's tests pass tile's reps so) or
  // [N, 1]: at most one extent other than 1.
  int long_dims = 0;
  for (int d = 0; d < v.rank(); ++d) long_dims += v.dim(d) != 1 ? 1 : 0;
  if (long_dims > 1)
    return error(StatusCode::kShape, "%s given as input %d must be a scalar or a vector (or [1, N]), got %s%s", what,
                 index, dtype_name(v.dtype()), v.shape().str().c_str());
  if (!v.has_data())
    return error(StatusCode::kInvalidArgument, "%s given as input %d: its values are not known yet", what, index);
  if (v.buffer()->host_stale()) RETURN_IF_ERROR(v.buffer()->sync_to_host());
  const int64_t n = v.length();
  out.reserve(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) out.push_back(v.get_int64(k));
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
