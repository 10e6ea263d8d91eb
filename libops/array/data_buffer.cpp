#include "libops/array/data_buffer.h"

#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace libops {

namespace {
constexpr size_t kAlignment = 64;
// A non-null address for zero-byte buffers, so "has data" never depends on size.
alignas(kAlignment) unsigned char g_empty_storage[kAlignment];

// Note [Huge pages]
// Buffers of kHugeMin bytes or more are aligned to 2 MiB and, on Linux,
// advised for transparent huge pages (most distributions enable THP only
// for memory that asks for it). A streaming kernel then crosses a page
// boundary every 2 MiB instead of every 4 KiB: fewer TLB misses, and the
// hardware prefetchers, which stop at page boundaries, keep running. On a
// 2-core EPYC this raised a 64 MiB exp, triad or sum by 10-15%. The advice
// is only advice: where THP is off it changes nothing.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeMin = size_t{4} << 20;

// Note [Host block cache]
// Freed blocks of kCacheMinBytes or more are kept, up to kCacheMaxBytes in
// all, and handed out again for an allocation of the same rounded size.
// Why: glibc returns large freed blocks to the kernel (munmap, or trimming
// the heap's top), and the next allocation of the size faults in and
// zeroes every page again. An op's scratch and a nested op's outputs are
// allocated and freed on every call: a 2-layer BERT encoder took about 700
// page faults per run (2.8 MB zeroed by the kernel) before this, none
// after. Sizes are rounded up to kCacheGranule so that near sizes meet.
// The cache is a short list under a mutex (blocks this large are few and
// allocated about once per op call), oldest entries evicted first. Builds
// with AddressSanitizer leave it out, so a use after free still reports.
constexpr size_t kCacheMinBytes = size_t{64} << 10;
constexpr size_t kCacheMaxBytes = size_t{64} << 20;
constexpr size_t kCacheGranule = size_t{4} << 10;
constexpr size_t kCacheMaxBlocks = 64;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCacheBlocks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCacheBlocks = false;
#else
constexpr bool kCacheBlocks = true;
#endif
#else
constexpr bool kCacheBlocks = true;
#endif

class HostBlockCache {
 public:
  // A kept block of exactly `rounded` bytes and `align`, or nullptr.
  void* take(size_t rounded, size_t align) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = blocks_.size(); i-- > 0;) {  // newest first: its lines may still be cached
      if (blocks_[i].bytes == rounded && blocks_[i].align == align) {
        void* p = blocks_[i].p;
        held_ -= rounded;
        blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
        return p;
      }
    }
    return nullptr;
  }
  // Keeps p (rounded bytes, align) for reuse, or frees it.
  void give(void* p, size_t rounded, size_t align) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (rounded <= kCacheMaxBytes) {
        while (!blocks_.empty() && (held_ + rounded > kCacheMaxBytes || blocks_.size() >= kCacheMaxBlocks)) {
          std::free(blocks_.front().p);
          held_ -= blocks_.front().bytes;
          blocks_.erase(blocks_.begin());
        }
        blocks_.push_back({p, rounded, align});
        held_ += rounded;
        return;
      }
    }
    std::free(p);
  }

 private:
  struct Block {
    void* p;
    size_t bytes, align;
  };
  std::mutex mu_;
  std::vector<Block> blocks_;  // oldest first
  size_t held_ = 0;
};

// Never destroyed: buffers that static objects own may be freed during
// exit, after any destructor of the cache would have run.
HostBlockCache& host_block_cache() {
  static HostBlockCache* cache = new HostBlockCache;
  return *cache;
}

std::atomic<int64_t> g_host_allocations{0};
std::atomic<int64_t> g_fail_at{0};  // Note [Allocation faults]: the count that fails, 0 none
std::atomic<size_t> g_fail_over{0};  // allocations of more bytes fail; 0: no cap

// What allocate_host asks for `bytes`: a whole number of alignment units,
// and of kCacheGranule where the block cache may keep it. 0 on overflow.
size_t rounded_size(size_t bytes) {
  const size_t align = bytes >= kHugeMin ? kHugePage : kAlignment;
  const size_t unit = kCacheBlocks && bytes >= kCacheMinBytes && align < kCacheGranule ? kCacheGranule : align;
  if (bytes > SIZE_MAX - unit) return 0;
  return (bytes + unit - 1) / unit * unit;
}

void free_host(void* p, size_t bytes) {
  const size_t rounded = rounded_size(bytes);
  if (kCacheBlocks && rounded >= kCacheMinBytes)
    return host_block_cache().give(p, rounded, bytes >= kHugeMin ? kHugePage : kAlignment);
  std::free(p);
}

// The machine's physical memory in bytes (SIZE_MAX where unknown). A
// request past it is refused at once: it cannot be filled without the OOM
// killer or swap, and sanitizer allocators abort on such sizes instead of
// returning null (a huge size argument to irfft, repeat and the like).
size_t physical_memory_bytes() {
  static const size_t bytes = [] {
#if defined(__linux__)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) return static_cast<size_t>(pages) * static_cast<size_t>(page);
#endif
    return SIZE_MAX;
  }();
  return bytes;
}

// `bytes` (> 0) of host memory aligned to kAlignment, or nullptr.
void* allocate_host(size_t bytes) {
  const int64_t count = g_host_allocations.fetch_add(1, std::memory_order_relaxed) + 1;
  if (g_fail_at.load(std::memory_order_relaxed) == count) return nullptr;
  const size_t cap = g_fail_over.load(std::memory_order_relaxed);
  if (cap != 0 && bytes > cap) return nullptr;
  if (bytes > physical_memory_bytes()) return nullptr;
  const size_t align = bytes >= kHugeMin ? kHugePage : kAlignment;
  const size_t rounded = rounded_size(bytes);
  if (rounded < bytes) return nullptr;  // overflow
  if (kCacheBlocks && rounded >= kCacheMinBytes)
    if (void* kept = host_block_cache().take(rounded, align)) return kept;
  void* p = std::aligned_alloc(align, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p != nullptr && align == kHugePage) static_cast<void>(madvise(p, rounded, MADV_HUGEPAGE));
#endif
  return p;
}

// mark_device_written() on a buffer that was never synced to a device
// leaves nothing to copy from (and no runtime for the CPU): an error, not a
// null dereference.
Status no_device_copy_error(size_t bytes) {
  return Status::error(StatusCode::kInternal,
                       "a buffer of %zu bytes was marked written on a device but has no device copy", bytes);
}
}  // namespace

bool host_block_cache_enabled() { return kCacheBlocks; }

namespace fault_injection {
void fail_nth_host_allocation(int64_t n) {
  g_fail_at.store(n > 0 ? g_host_allocations.load() + n : 0);
}
int64_t host_allocation_count() { return g_host_allocations.load(); }
void fail_host_allocations_over(size_t bytes) { g_fail_over.store(bytes); }
}  // namespace fault_injection

std::shared_ptr<DataBuffer> DataBuffer::allocate(size_t bytes) {
  void* p = g_empty_storage;
  if (bytes > 0) {
    p = allocate_host(bytes);
    if (p == nullptr) return nullptr;
  }
  std::shared_ptr<DataBuffer> b(new (std::nothrow) DataBuffer());
  if (!b) {
    if (bytes > 0) free_host(p, bytes);
    return nullptr;
  }
  b->host_ = p;
  b->bytes_ = bytes;
  b->owned_ = bytes > 0;
  return b;
}

std::shared_ptr<DataBuffer> DataBuffer::allocate_zeroed(size_t bytes) {
  auto b = allocate(bytes);
  if (b && bytes > 0) std::memset(b->host_, 0, bytes);
  return b;
}

std::shared_ptr<DataBuffer> DataBuffer::wrap(void* data, size_t bytes, Deleter deleter) {
  std::shared_ptr<DataBuffer> b(new (std::nothrow) DataBuffer());
  if (!b) return nullptr;
  b->host_ = data;
  b->bytes_ = bytes;
  b->owned_ = false;
  b->deleter_ = std::move(deleter);
  return b;
}

DataBuffer::~DataBuffer() {
  release_device_copy();
  if (owned_) free_host(host_, bytes_);
  else if (deleter_) deleter_(host_);
}

void DataBuffer::release_device_copy() {
  if (device_data_ != nullptr) {
    // A runtime that allocated memory stays registered for the library's life.
    const Device d = device();
    device_runtime(d.type)->release(d.index, device_data_);
    device_data_ = nullptr;
  }
  sync_.store(Sync::kHostOnly, std::memory_order_release);
}

Status DataBuffer::copy_back_to_host() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (sync() != Sync::kDeviceNewer) return Status::ok();  // another thread did it
  if (bytes_ > 0) {
    const Device d = device();
    if (device_data_ == nullptr || d.is_cpu()) return no_device_copy_error(bytes_);
    Status s = device_runtime(d.type)->copy_to_host(d.index, host_, device_data_, bytes_);
    if (!s.is_ok()) return s.with_prefix("copying " + std::to_string(bytes_) + " bytes from " + d.str() + ": ");
  }
  sync_.store(Sync::kInSync, std::memory_order_release);
  return Status::ok();
}

Status DataBuffer::sync_to_accelerator(Device d, bool overwrite) {
  const Sync now = sync();
  if ((now == Sync::kDeviceNewer || now == Sync::kInSync) && device() == d) return Status::ok();
  RETURN_IF_ERROR(check_device(d));
  const DeviceRuntime* rt = device_runtime(d.type);
  std::lock_guard<std::mutex> lock(mutex_);
  const Device old = device();
  if (sync() != Sync::kHostOnly && old != d) {
    // On another device: bring the data home, then start over on `d`.
    if (sync() == Sync::kDeviceNewer && bytes_ > 0) {
      if (device_data_ == nullptr || old.is_cpu()) return no_device_copy_error(bytes_);
      Status s = device_runtime(old.type)->copy_to_host(old.index, host_, device_data_, bytes_);
      if (!s.is_ok()) return s.with_prefix("copying " + std::to_string(bytes_) + " bytes from " + old.str() + ": ");
    }
    release_device_copy();
  }
  if (bytes_ == 0) {  // nothing to hold: both sides are trivially current
    device_code_.store(encode(d), std::memory_order_release);
    sync_.store(Sync::kInSync, std::memory_order_release);
    return Status::ok();
  }
  if (device_data_ == nullptr) {
    void* p = nullptr;
    Status s = rt->allocate(d.index, bytes_, &p);
    if (!s.is_ok()) return s.with_prefix("allocating " + std::to_string(bytes_) + " bytes on " + d.str() + ": ");
    device_data_ = p;
    device_code_.store(encode(d), std::memory_order_release);
    sync_.store(Sync::kHostNewer, std::memory_order_release);
  }
  // With `overwrite` the state stays kHostNewer until the caller's write
  // marks the device side newer; if the op fails first, the host still
  // holds the data.
  if (sync() == Sync::kHostNewer && !overwrite) {
    Status s = rt->copy_to_device(d.index, device_data_, host_, bytes_);
    if (!s.is_ok()) return s.with_prefix("copying " + std::to_string(bytes_) + " bytes to " + d.str() + ": ");
    sync_.store(Sync::kInSync, std::memory_order_release);
  }
  return Status::ok();
}

}  // namespace libops
