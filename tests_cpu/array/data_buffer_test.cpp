// Host allocation of DataBuffer: alignment, zeroing, and the block cache
// that keeps large freed blocks for the next allocation of their size
// (Note [Host block cache] in libops/array/data_buffer.cpp).
#include "libops/array/data_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace libops {
namespace {

bool aligned(const void* p, uintptr_t to) { return reinterpret_cast<uintptr_t>(p) % to == 0; }

TEST(DataBufferHost, AlignedAtEverySize) {
  for (size_t bytes : {size_t{1}, size_t{63}, size_t{4096}, size_t{65536}, size_t{100000}, size_t{5} << 20}) {
    auto b = DataBuffer::allocate(bytes);
    ASSERT_TRUE(b) << bytes;
    EXPECT_TRUE(aligned(b->host(), 64)) << bytes;
    std::memset(b->host(), 0x5a, bytes);  // the whole size is writable (ASan checks it in its builds)
  }
}

// A large block freed and asked for again comes back, and a zeroed
// allocation from a block that held data is zeroed all the same. Sizes
// that round to the same 4 KiB meet; others do not take the block.
TEST(DataBufferHost, LargeFreedBlocksAreReused) {
  if (!host_block_cache_enabled()) GTEST_SKIP() << "AddressSanitizer builds free every block";
  const size_t bytes = size_t{1} << 20;
  void* first = nullptr;
  {
    auto b = DataBuffer::allocate(bytes);
    ASSERT_TRUE(b);
    first = b->host();
    std::memset(first, 0xff, bytes);
  }
  {
    auto again = DataBuffer::allocate_zeroed(bytes - 100);  // the same 4 KiB-rounded size
    ASSERT_TRUE(again);
    EXPECT_EQ(again->host(), first);
    const auto* p = static_cast<const unsigned char*>(again->host());
    std::vector<unsigned char> zeros(bytes - 100, 0);
    EXPECT_EQ(std::memcmp(p, zeros.data(), zeros.size()), 0);
  }
  auto other = DataBuffer::allocate(bytes + (size_t{64} << 10));
  ASSERT_TRUE(other);
  EXPECT_NE(other->host(), first);
  // Two live buffers of one size never share a block.
  auto a = DataBuffer::allocate(bytes), b = DataBuffer::allocate(bytes);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->host(), b->host());
}

}  // namespace
}  // namespace libops
