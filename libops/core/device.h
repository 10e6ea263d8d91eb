// Device: where an op runs and where a buffer's current copy lives.
//
// The CPU is always there. Other device types come from a backend compiled
// into the library (libops/backends/cuda/ with -c cuda), which registers its
// DeviceRuntime when the library loads. Core code therefore never needs an
// #ifdef: asking for a device type whose runtime is not registered is a
// clear error ("built without CUDA"), and so is asking for a device index
// the machine does not have ("no CUDA device").
#pragma once

#include "libops/core/api.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include "libops/core/status.h"

LIBOPS_API_BEGIN

namespace libops {

enum class DeviceType : uint8_t { kCpu = 0, kCuda = 1 };
inline constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::kCpu;
  int index = 0;

  static constexpr Device cpu() { return Device{}; }
  static constexpr Device cuda(int index = 0) { return Device{DeviceType::kCuda, index}; }
  constexpr bool is_cpu() const { return type == DeviceType::kCpu; }
  constexpr bool is_cuda() const { return type == DeviceType::kCuda; }
  friend constexpr bool operator==(Device a, Device b) = default;

  std::string str() const;  // "cpu", "cuda:0"
  // Parses "cpu", "cuda" (index 0) or "cuda:N".
  static Status parse(const char* text, Device& out);
};

const char* device_type_name(DeviceType t);

// What a backend provides to move and hold data on its devices. All
// functions are safe to call from several threads at once.
struct DeviceRuntime {
  // Devices of this type visible now (0 when there is no driver or device).
  int (*device_count)();
  // Ok when `index` names a usable device; otherwise why not.
  Status (*check_device)(int index);
  // Device memory of `bytes` (> 0); *out untouched on error.
  Status (*allocate)(int index, size_t bytes, void** out);
  // Frees memory from `allocate`, after all work already queued on it.
  void (*release)(int index, void* p);
  // Blocking copies: when they return, the data is where it was sent and all
  // device work queued before them that wrote `src` has finished.
  Status (*copy_to_device)(int index, void* dst, const void* src, size_t bytes);
  Status (*copy_to_host)(int index, void* dst, const void* src, size_t bytes);
  // Waits for all work queued on the device.
  Status (*synchronize)(int index);
  // Named ranges for profilers (NVTX for CUDA); may be null.
  void (*range_push)(const char* name);
  void (*range_pop)();
};

// Called by a backend at load time; `runtime` must outlive the library.
void register_device_runtime(DeviceType type, const DeviceRuntime* runtime);
// The registered runtime, or nullptr (never for the CPU, which needs none).
const DeviceRuntime* device_runtime(DeviceType type);

// Ok when ops can run on `d`; otherwise a kDevice error that says why:
// libops built without that backend, no such device, no driver.
Status check_device(Device d);

}  // namespace libops

LIBOPS_API_END
