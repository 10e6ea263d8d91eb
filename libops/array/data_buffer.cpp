#include "libops/array/data_buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace libops {

namespace {
constexpr size_t kAlignment = 64;
// A non-null address for zero-byte buffers, so "has data" never depends on size.
alignas(kAlignment) unsigned char g_empty_storage[kAlignment];
}  // namespace

std::shared_ptr<DataBuffer> DataBuffer::allocate(size_t bytes) {
  void* p = g_empty_storage;
  if (bytes > 0) {
    size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded < bytes) return nullptr;  // overflow
    p = std::aligned_alloc(kAlignment, rounded);
    if (p == nullptr) return nullptr;
  }
  std::shared_ptr<DataBuffer> b(new (std::nothrow) DataBuffer());
  if (!b) {
    if (bytes > 0) std::free(p);
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
  if (owned_) std::free(host_);
  else if (deleter_) deleter_(host_);
}

}  // namespace libops
