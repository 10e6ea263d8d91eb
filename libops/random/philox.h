// Counter-based random numbers (Philox4x32-10) for libops random ops.
//
// Why counter-based: the value of element i of a random op must depend only
// on (seed, i, op params), never on thread count or evaluation order. A
// counter-based generator is a pure function of (key, counter), so each
// element can build its own stream from (seed, i) and draw from it with no
// shared state. Everything here is host+device code (LIBOPS_HOST_DEVICE) and
// integer-only (the uniforms scale by powers of two, so they are exact), so
// a CUDA kernel draws the same words and uniforms as the CPU, bit for bit.
//
// Reference: Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy
// as 1, 2, 3", SC'11.
#pragma once

#include <cstdint>

#include "libops/core/host_device.h"

namespace libops::random {

struct Uint4 {
  uint32_t v[4];
};

struct Uint2 {
  uint32_t v[2];
};

struct Philox4x32 {
  static constexpr uint32_t kMul0 = 0xD2511F53u;
  static constexpr uint32_t kMul1 = 0xCD9E8D57u;
  static constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
  static constexpr uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

  // Full 32x32 -> 64 bit product split into high and low words.
  LIBOPS_HOST_DEVICE static inline void mul_hi_lo(uint32_t a, uint32_t b,
                                                  uint32_t* hi, uint32_t* lo) {
#if defined(__CUDA_ARCH__)
    *hi = __umulhi(a, b);
    *lo = a * b;
#else
    uint64_t product = static_cast<uint64_t>(a) * b;
    *hi = static_cast<uint32_t>(product >> 32);
    *lo = static_cast<uint32_t>(product);
#endif
  }

  // One Philox S-box/P-box round.
  LIBOPS_HOST_DEVICE static inline Uint4 round(Uint4 c, Uint2 k) {
    uint32_t hi0, lo0, hi1, lo1;
    mul_hi_lo(kMul0, c.v[0], &hi0, &lo0);
    mul_hi_lo(kMul1, c.v[2], &hi1, &lo1);
    Uint4 out;
    out.v[0] = hi1 ^ c.v[1] ^ k.v[0];
    out.v[1] = lo1;
    out.v[2] = hi0 ^ c.v[3] ^ k.v[1];
    out.v[3] = lo0;
    return out;
  }

  // Philox4x32 with 10 rounds; the key is bumped by the Weyl constants
  // between rounds (9 bumps in total).
  LIBOPS_HOST_DEVICE static inline Uint4 round10(Uint4 counter, Uint2 key) {
    counter = round(counter, key);
    for (int r = 1; r < 10; ++r) {
      key.v[0] += kWeyl0;
      key.v[1] += kWeyl1;
      counter = round(counter, key);
    }
    return counter;
  }
};

// Per-element random stream. Element `element_index` of an op seeded with
// `seed` owns the counter space {index lo, index hi, j lo, j hi}; draw block
// j yields four 32-bit words, and j increments whenever those are used up.
// Two elements therefore never share a counter, and the words an element
// gets do not depend on any other element.
class ElementStream {
 public:
  LIBOPS_HOST_DEVICE ElementStream(uint64_t seed, uint64_t element_index)
      : key_{{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}},
        index_lo_(static_cast<uint32_t>(element_index)),
        index_hi_(static_cast<uint32_t>(element_index >> 32)),
        block_(0),
        buffer_{{0, 0, 0, 0}},
        used_(4) {}

  LIBOPS_HOST_DEVICE uint32_t next_u32() {
    if (used_ == 4) refill();
    return buffer_.v[used_++];
  }

  // High word is drawn first.
  LIBOPS_HOST_DEVICE uint64_t next_u64() {
    uint64_t hi = next_u32();
    uint64_t lo = next_u32();
    return (hi << 32) | lo;
  }

  // Uniform in [0, 1): the 24 high bits fill a float mantissa exactly.
  LIBOPS_HOST_DEVICE float next_float01() {
    return static_cast<float>(next_u32() >> 8) * 0x1.0p-24f;
  }

  // Uniform in (0, 1]: same grid shifted up one step, so log() is finite.
  LIBOPS_HOST_DEVICE float next_float_open01() {
    return static_cast<float>((next_u32() >> 8) + 1u) * 0x1.0p-24f;
  }

  // Uniform in [0, 1) with 53 random bits.
  LIBOPS_HOST_DEVICE double next_double01() {
    return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  }

  // Uniform in (0, 1] with 53 random bits.
  LIBOPS_HOST_DEVICE double next_double_open01() {
    return static_cast<double>((next_u64() >> 11) + 1u) * 0x1.0p-53;
  }

 private:
  LIBOPS_HOST_DEVICE void refill() {
    Uint4 counter{{index_lo_, index_hi_, static_cast<uint32_t>(block_),
                   static_cast<uint32_t>(block_ >> 32)}};
    buffer_ = Philox4x32::round10(counter, key_);
    ++block_;
    used_ = 0;
  }

  Uint2 key_;
  uint32_t index_lo_;
  uint32_t index_hi_;
  uint64_t block_;  // next draw block j
  Uint4 buffer_;
  int used_;  // words of buffer_ already handed out (4 = empty)
};

}  // namespace libops::random
