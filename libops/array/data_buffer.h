// DataBuffer: the memory behind one or more NDArray views.
//
// Host memory is 64-byte aligned (a full cache line, and enough for any
// vector load). A buffer either owns its memory or wraps the caller's. The
// CUDA backend adds a device copy and a sync state beside `host_`, so that
// data moves only when the side that needs it is stale; views never care.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace libops {

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

 private:
  DataBuffer() = default;
  void* host_ = nullptr;
  size_t bytes_ = 0;
  bool owned_ = false;
  Deleter deleter_;
};

}  // namespace libops
