// Threefry-2x32: the counter-based block function behind threefry2x32 and
// the random_* ops, host and device code.
//
// Note [Threefry random numbers]
// One scheme, JAX's (jax.random with its default threefry_partitionable
// bits, JAX >= 0.5), so that a seed draws the same numbers on the CPU, on a
// CUDA device and in JAX:
//   * Block function: Threefry-2x32 with 20 rounds (Salmon et al., "Parallel
//     random numbers: as easy as 1, 2, 3", SC'11; Random123's
//     threefry2x32_20): key (k0, k1) and counter (c0, c1) to two words; key
//     schedule k2 = 0x1BD11BDA ^ k0 ^ k1, rotations 13 15 26 6 17 29 16 24,
//     the key added before round 1 and after every 4th round, injection s
//     adding (ks[s % 3], ks[(s + 1) % 3] + s). Bit for bit Nx's threefry
//     (key and counter as (word 0, word 1) pairs along a last dim of 2) and
//     JAX's threefry2x32_p; checked against Random123's known answers.
//   * Key: a 64-bit seed s gives (s >> 32, s & 0xffffffff), JAX's
//     PRNGKey(s) (with 64-bit ints enabled; a seed below 2^31 either way).
//   * Element i of an output (its C-order position, from 0) uses the block
//     (b0, b1) = threefry(key, (i >> 32, i & 0xffffffff)). Its 32 random
//     bits are b0 ^ b1, its 64 random bits (b0 << 32) | b1. A value depends
//     on (key, i) alone: not on the thread split, the device, the output's
//     size or the other elements.
//   * Uniform at dtype P (float16, bfloat16, float32, float64; m = 10, 7,
//     23, 52 mantissa bits): u = (the low 16, 8, 32 or all 64 random bits
//     >> (16 - m, 8 - m, 32 - m, 64 - m)) * 2^-m, JAX's mantissa trick, so
//     u is one of 2^m steps in [0, 1). Then, rounding each step to P:
//     lo = P(min), span = P(P(max) - lo), v = P(fma(u, span, lo)),
//     value = max(lo, v). One rounding for u * span + lo, as XLA fuses it
//     on CPUs with FMA and on GPUs. Computed in float for the 16-bit dtypes
//     (rounded back to them at each step), else in P itself. (XLA rounds a
//     bfloat16 product before adding lo, so a bfloat16 range other than
//     [0, 1) can differ from JAX's in the last bit.)
//   * Normal(mean, stddev): u uniform at P with min = nextafter(-1, 0) in P
//     and max = 1 (so u is in (-1, 1)), z = sqrt(2) * erfinv(u) in the
//     compute type (float below float64), value = P(fma(stddev, z, mean)).
//     erfinv is Giles' approximation (samplers.h) over our own logarithm,
//     both written with correctly rounded operations and explicit fused
//     multiply-adds only, so the CPU and CUDA agree bit for bit; JAX's
//     normal (XLA's own erf_inv and log) agrees to a few ulp.
//   * Bernoulli(p): the float32 uniform u in [0, 1), value = u < float(p).
//   * Shuffle of n rows (random_shuffle): JAX's permutation. R =
//     ceil(3 ln n / ln(2^32 - 1)) rounds (1 up to n = 1625); each splits the
//     key into (key', sub) = (threefry(key, (0, 0)), threefry(key, (0, 1)))
//     (JAX's split), draws the 32-bit sort keys of elements 0..n-1 from sub
//     and stably sorts the rows by them.
//   * Categorical (random_multinomial): JAX's categorical with the Gumbel
//     trick. Sample s of batch row b of B, over K classes: the class k with
//     the largest logit[b, k] + g, g = -log(-log(u)) for the uniform u at the
//     compute precision (float32, float64) with min = the smallest normal
//     number and max = 1, drawn for element i = (s * B + b) * K + k; the
//     first of equal maxima wins, a NaN logit beats every number.
#pragma once

#include <cstdint>

#include "libops/core/host_device.h"

namespace libops::ops::rng {

struct ThreefryKey {
  uint32_t k0 = 0, k1 = 0;
};

// The key of a seed (JAX's PRNGKey): the high and low words.
LIBOPS_HOST_DEVICE inline ThreefryKey threefry_key(int64_t seed) {
  const uint64_t s = static_cast<uint64_t>(seed);
  return ThreefryKey{static_cast<uint32_t>(s >> 32), static_cast<uint32_t>(s)};
}

LIBOPS_HOST_DEVICE inline uint32_t rotate_left(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// Threefry-2x32, 20 rounds: (c0, c1) under key (k0, k1) to (*o0, *o1).
LIBOPS_HOST_DEVICE inline void threefry2x32(uint32_t k0, uint32_t k1, uint32_t c0, uint32_t c1, uint32_t* o0,
                                            uint32_t* o1) {
  constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {k0, k1, 0x1BD11BDAu ^ k0 ^ k1};
  uint32_t x0 = c0 + k0, x1 = c1 + k1;
  for (int r = 0; r < 20; ++r) {
    x0 += x1;
    x1 = rotate_left(x1, kRotations[r % 8]) ^ x0;
    if (r % 4 == 3) {
      const uint32_t s = static_cast<uint32_t>(r / 4 + 1);
      x0 += ks[s % 3];
      x1 += ks[(s + 1) % 3] + s;
    }
  }
  *o0 = x0;
  *o1 = x1;
}

// The block of element i: the counter (i >> 32, i & 0xffffffff).
struct Block {
  uint32_t b0, b1;
};
LIBOPS_HOST_DEVICE inline Block element_block(ThreefryKey key, int64_t i) {
  const uint64_t c = static_cast<uint64_t>(i);
  Block b;
  threefry2x32(key.k0, key.k1, static_cast<uint32_t>(c >> 32), static_cast<uint32_t>(c), &b.b0, &b.b1);
  return b;
}

LIBOPS_HOST_DEVICE inline uint32_t element_bits32(ThreefryKey key, int64_t i) {
  const Block b = element_block(key, i);
  return b.b0 ^ b.b1;
}

LIBOPS_HOST_DEVICE inline uint64_t element_bits64(ThreefryKey key, int64_t i) {
  const Block b = element_block(key, i);
  return (static_cast<uint64_t>(b.b0) << 32) | b.b1;
}

// JAX's split(key) into two: key j is the block of counter (0, j).
LIBOPS_HOST_DEVICE inline void threefry_split(ThreefryKey key, ThreefryKey* next, ThreefryKey* sub) {
  threefry2x32(key.k0, key.k1, 0, 0, &next->k0, &next->k1);
  threefry2x32(key.k0, key.k1, 0, 1, &sub->k0, &sub->k1);
}

}  // namespace libops::ops::rng
