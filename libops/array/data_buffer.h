// DataBuffer: the memory behind one or more NDArray views.
//
// Host memory is 64-byte aligned (a full cache line, and enough for any
// vector load). A buffer either owns its memory or wraps the caller's.
//
// Note [Host and device copies]
// A buffer always has its host memory; a device copy is made the first time
// an op on a device needs it. `sync()` says which copies are current:
//   kHostOnly     no device copy
//   kHostNewer    both exist, the device copy is stale
//   kDeviceNewer  both exist, the host copy is stale
//   kInSync       both exist and hold the same data
// Ops never copy data themselves. Before an op reads or writes an array on a
// side, the op machinery calls sync_to_host() or sync_to_device() (which copy
// only when that side is stale); after it wrote, mark_host_written() or
// mark_device_written() makes the other side stale. Views never care.
// Transitions take a lock, so two threads may sync one shared buffer (a graph
// constant) at once; the common case, a buffer already current where it is
// needed, is one atomic load.
#pragma once

#include "libops/core/api.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "libops/core/device.h"

LIBOPS_API_BEGIN

namespace libops {

// Note [Allocation faults]
// Out-of-memory paths are tested by making one allocation fail on purpose:
// after fail_nth_host_allocation(n), the n-th owned host allocation from
// then on (n >= 1; zero-byte buffers do not count) returns nullptr as an
// exhausted heap would, and later ones succeed again; n = 0 disarms it.
// host_allocation_count() counts owned host allocations since the process
// started, so a test can measure a run and then fail each allocation of it
// in turn. fail_host_allocations_over(bytes) makes every owned host
// allocation larger than `bytes` fail (0 lifts the cap): the fuzzers use it
// so that a call asking for a large output reports out-of-memory at once
// rather than filling gigabytes. Process-wide: meant for tests.
namespace fault_injection {
void fail_nth_host_allocation(int64_t n);
int64_t host_allocation_count();
void fail_host_allocations_over(size_t bytes);
}  // namespace fault_injection

// Whether large freed host blocks are kept for reuse (Note [Host block
// cache] in data_buffer.cpp); false in AddressSanitizer builds.
bool host_block_cache_enabled();

class DataBuffer {
 public:
  using Deleter = std::function<void(void*)>;

  // Owned, 64-byte aligned, uninitialized. Returns nullptr when out of memory.
  static std::shared_ptr<DataBuffer> allocate(size_t bytes);
  // Owned and zero-filled.
  static std::shared_ptr<DataBuffer> allocate_zeroed(size_t bytes);
  // Wraps memory owned by the caller; `deleter` (may be empty) runs on release.
  static std::shared_ptr<DataBuffer> wrap(void* data, size_t bytes, Deleter deleter = {});

  ~DataBuffer();
  DataBuffer(const DataBuffer&) = delete;
  DataBuffer& operator=(const DataBuffer&) = delete;

  void* host() const { return host_; }
  size_t bytes() const { return bytes_; }
  bool owned() const { return owned_; }

  // ---- host and device copies (Note [Host and device copies]) ----
  enum class Sync : uint8_t { kHostOnly, kHostNewer, kDeviceNewer, kInSync };
  Sync sync() const { return sync_.load(std::memory_order_acquire); }
  // The device copy (null until one is made) and the device it is on.
  void* device_data() const { return device_data_; }
  Device device() const { return decode(device_code_.load(std::memory_order_acquire)); }

  // Makes the host copy current. Cheap when it already is; hot paths test
  // host_stale() first, which builds no Status.
  bool host_stale() const { return sync() == Sync::kDeviceNewer; }
  Status sync_to_host() { return host_stale() ? copy_back_to_host() : Status::ok(); }
  // Makes a copy on `d` current (allocating it, or moving it from another
  // device). `overwrite`: the caller is about to write every byte, so stale
  // data need not be copied first.
  Status sync_to_device(Device d, bool overwrite = false) {
    return d.is_cpu() ? sync_to_host() : sync_to_accelerator(d, overwrite);
  }
  // After a write on the host / on the buffer's device.
  void mark_host_written() {
    if (sync() != Sync::kHostOnly) sync_.store(Sync::kHostNewer, std::memory_order_release);
  }
  void mark_device_written() { sync_.store(Sync::kDeviceNewer, std::memory_order_release); }

 private:
  DataBuffer() = default;
  Status copy_back_to_host();
  Status sync_to_accelerator(Device d, bool overwrite);
  void release_device_copy();
  // The device, packed so the lock-free check in sync_to_device can read it.
  static uint32_t encode(Device d) { return uint32_t(d.type) << 24 | uint32_t(d.index); }
  static Device decode(uint32_t c) { return Device{DeviceType(c >> 24), int(c & 0xffffff)}; }

  void* host_ = nullptr;
  size_t bytes_ = 0;
  bool owned_ = false;
  Deleter deleter_;
  std::atomic<Sync> sync_{Sync::kHostOnly};
  void* device_data_ = nullptr;
  std::atomic<uint32_t> device_code_{0};
  std::mutex mutex_;  // guards transitions of sync_ / device_data_
};

}  // namespace libops

LIBOPS_API_END
