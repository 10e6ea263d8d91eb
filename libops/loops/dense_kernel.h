// Hand-vectorized kernels for whole dense runs of one functor.
//
// Note [Dense kernels]
// Element-wise functors are written once, per element, and the compiler
// vectorizes the loops around them (loops/elementwise.h). Where that falls
// measurably short, a functor may also get a kernel over a whole dense run
// by specializing DenseKernel: `run(x, z, n, e)` computes z[i] = op(x[i])
// for i in [0, n), with exactly the per-element functor's results, bit for
// bit (its tests compare the two). The engine uses it for dense runs of the
// functor's own compute type and keeps the per-element loop for everything
// else. Specializations are CPU-only code (SIMD intrinsics), declared next
// to their functor under `#if !defined(__CUDACC__)`: CUDA kernels never
// instantiate the CPU engine.
//   Exp<float> (legacy/ops/transform_strict_ops.h): AVX2 exp_f32_x8, whose
//   clamps are single min/max instructions where the per-element code needs
//   a compare and a blend each: about 1.4x in cache, 1.13x at memory speed.
//   Its 16-lane form scales by 2^n with one vscalefps.
//   Sigmoid<float>, Tanh<float> (the same file): 16 lanes around that exp
//   where the level is avx512, 1.32x and 1.18x at memory speed.
#pragma once

#include <cstdint>

namespace libops {

template <typename Op>
struct DenseKernel {
  static constexpr bool kHas = false;
};

}  // namespace libops
