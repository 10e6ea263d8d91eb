// DeviceKernel: where an op finds the kernel a backend registered for a
// device type. The op's header declares one (with the kernel's function
// type), its .cpp defines it and runs the CPU path itself, and the backend's
// file beside it (a .cu) sets the slot when the library loads:
//
//   // where.h
//   using WhereDeviceFn = Status (*)(Device, const WhereArgs&);
//   extern DeviceKernel<WhereDeviceFn> where_device_kernel;
//   // where.cu
//   static const bool registered = (where_device_kernel.set(DeviceType::kCuda, where_cuda), true);
//
// The slots are constant-initialized, so a backend's registrar may run
// before or after the op file's own static objects.
#pragma once

#include <atomic>

#include "libops/core/device.h"

namespace libops::ops {

template <typename Fn>
class DeviceKernel {
 public:
  constexpr DeviceKernel() = default;
  DeviceKernel(const DeviceKernel&) = delete;
  DeviceKernel& operator=(const DeviceKernel&) = delete;

  void set(DeviceType type, Fn fn) { slots_[static_cast<int>(type)].store(fn, std::memory_order_release); }
  // The registered kernel, or nullptr (the op then says it has none).
  Fn get(DeviceType type) const { return slots_[static_cast<int>(type)].load(std::memory_order_acquire); }

 private:
  std::atomic<Fn> slots_[kNumDeviceTypes] = {};
};

}  // namespace libops::ops
