#include "libops/core/device.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace libops {

namespace {
std::atomic<const DeviceRuntime*> g_runtimes[kNumDeviceTypes];
}  // namespace

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::kCpu: return "cpu";
    case DeviceType::kCuda: return "cuda";
  }
  return "?";
}

std::string Device::str() const {
  if (is_cpu()) return "cpu";
  return std::string(device_type_name(type)) + ":" + std::to_string(index);
}

Status Device::parse(const char* text, Device& out) {
  if (text == nullptr) return Status::error(StatusCode::kNullPointer, "device name is null");
  if (std::strcmp(text, "cpu") == 0) {
    out = Device::cpu();
    return Status::ok();
  }
  if (std::strncmp(text, "cuda", 4) == 0) {
    const char* rest = text + 4;
    if (*rest == '\0') {
      out = Device::cuda(0);
      return Status::ok();
    }
    if (*rest == ':' && rest[1] >= '0' && rest[1] <= '9') {
      char* end = nullptr;
      errno = 0;
      const long index = std::strtol(rest + 1, &end, 10);
      if (errno == 0 && *end == '\0' && index <= 1024) {
        out = Device::cuda(static_cast<int>(index));
        return Status::ok();
      }
    }
  }
  return Status::error(StatusCode::kInvalidArgument, "unknown device '%s' (expected cpu, cuda or cuda:N)", text);
}

void register_device_runtime(DeviceType type, const DeviceRuntime* runtime) {
  g_runtimes[static_cast<int>(type)].store(runtime, std::memory_order_release);
}

const DeviceRuntime* device_runtime(DeviceType type) {
  return g_runtimes[static_cast<int>(type)].load(std::memory_order_acquire);
}

Status check_device(Device d) {
  if (d.is_cpu()) {
    if (d.index != 0) return Status::error(StatusCode::kDevice, "there is one cpu device, not %s", d.str().c_str());
    return Status::ok();
  }
  const DeviceRuntime* rt = device_runtime(d.type);
  if (rt == nullptr)
    return Status::error(StatusCode::kDevice, "%s: libops was built without the %s backend (build with -c %s)",
                         d.str().c_str(), device_type_name(d.type), device_type_name(d.type));
  return rt->check_device(d.index);
}

}  // namespace libops
