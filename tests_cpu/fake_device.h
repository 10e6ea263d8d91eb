// A fake "cuda" device for tests of the host/device sync machinery on the
// CPU: its memory comes from malloc and its copies are memcpy, counted.
// ScopedFakeCuda registers it for one test and restores the real runtime
// (or none) after.
#pragma once

#include <cstdlib>
#include <cstring>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/legacy.h"

namespace libops::test {

struct FakeDevice {
  static inline int to_device = 0, to_host = 0, allocations = 0, releases = 0;
  static inline int table_kernels = 0;  // legacy kernels run by cpu_table_on_device_copies
  static inline bool fail_allocation = false;
  static int count() { return 2; }
  static Status check(int index) {
    return index >= 0 && index < 2 ? Status::ok() : Status::error(StatusCode::kDevice, "no fake device %d", index);
  }
  static Status allocate(int, size_t bytes, void** out) {
    if (fail_allocation) return Status::error(StatusCode::kOutOfMemory, "fake device is full");
    ++allocations;
    *out = std::malloc(bytes);
    return Status::ok();
  }
  static void release(int, void* p) {
    ++releases;
    std::free(p);
  }
  static Status copy_to_device(int, void* dst, const void* src, size_t n) {
    ++to_device;
    std::memcpy(dst, src, n);
    return Status::ok();
  }
  static Status copy_to_host(int, void* dst, const void* src, size_t n) {
    ++to_host;
    std::memcpy(dst, src, n);
    return Status::ok();
  }
  static Status synchronize(int) { return Status::ok(); }
};

inline const DeviceRuntime kFakeRuntime{FakeDevice::count,          FakeDevice::check,
                                        FakeDevice::allocate,       FakeDevice::release,
                                        FakeDevice::copy_to_device, FakeDevice::copy_to_host,
                                        FakeDevice::synchronize,    nullptr,
                                        nullptr};

class ScopedFakeCuda {
 public:
  ScopedFakeCuda() : saved_(device_runtime(DeviceType::kCuda)) {
    register_device_runtime(DeviceType::kCuda, &kFakeRuntime);
    FakeDevice::to_device = FakeDevice::to_host = FakeDevice::allocations = FakeDevice::releases = 0;
    FakeDevice::table_kernels = 0;
    FakeDevice::fail_allocation = false;
  }
  ~ScopedFakeCuda() { register_device_runtime(DeviceType::kCuda, saved_); }
  ScopedFakeCuda(const ScopedFakeCuda&) = delete;
  ScopedFakeCuda& operator=(const ScopedFakeCuda&) = delete;

 private:
  const DeviceRuntime* saved_;
};

// `a`'s buffer with its newest copy on the fake cuda:0 and its host copy
// overwritten, so a host read by mistake shows in the values.
inline Status move_to_device(NDArray& a) {
  RETURN_IF_ERROR(a.buffer()->sync_to_device(Device::cuda(0)));
  a.buffer()->mark_device_written();
  std::memset(a.buffer()->host(), 0x7f, a.buffer()->bytes());
  return Status::ok();
}

// A host view of `a`'s device copy (the fake device's memory is host memory).
inline Status device_view(const NDArray& a, NDArray& out) {
  const size_t start = static_cast<size_t>(a.offset()) * a.element_size();
  return NDArray::wrap(a.device_data(), a.buffer()->bytes() - start, a.dtype(), a.shape(), &a.strides(), out);
}

// What a device's transform-any kernel does, done by the CPU kernel on the
// fake device's copies: fake device tables call it after counting the call.
inline Status transform_any_on_device_copies(int num, const NDArray& x, NDArray& z, const ExtraParams& e) {
  NDArray xd, zd;
  RETURN_IF_ERROR(device_view(x, xd));
  RETURN_IF_ERROR(device_view(z, zd));
  legacy::LegacyCall call;
  call.group = OPS_TRANSFORM_ANY;
  call.num = num;
  call.x = &xd;
  call.z = &zd;
  call.extra = e;
  return legacy::exec(call);
}

// What a device's legacy table does, done by the table's CPU kernel on the
// fake device's copies: register as a fake device table, e.g.
// cpu_table_on_device_copies<legacy::binary_run> for Table::kBinary.
// Counts its calls in FakeDevice::table_kernels.
template <legacy::TableRunFn CpuRun>
Status cpu_table_on_device_copies(int num, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z,
                                  const Dims& axes, const ExtraParams& e) {
  ++FakeDevice::table_kernels;
  NDArray xv, yv, zv;
  RETURN_IF_ERROR(device_view(x, xv));
  if (y != nullptr) RETURN_IF_ERROR(device_view(*y, yv));
  RETURN_IF_ERROR(device_view(z, zv));
  return CpuRun(num, ct, xv, y != nullptr ? &yv : nullptr, zv, axes, e);
}

}  // namespace libops::test
