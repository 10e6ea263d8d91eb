// Block kernels: one legacy table row over a block of float32 values, for
// code that chains rows element by element (the fused_elementwise op,
// Note [Fused element-wise programs] in ops/elementwise/fused_program.h).
//
// Each kernel is the row's functor in the loop the legacy engine runs for a
// dense float32 run (its dense kernel where it has one, Note [Dense
// kernels]; the same instruction-set copies, Note [Runtime ISA dispatch]),
// so a value computed through a block kernel equals the legacy op's, bit for
// bit where the compiler contracts both loops alike (GCC here); a clang
// build may fuse a * b + c into an FMA in one copy only and differ in the
// rounding of that step (Note [Runtime ISA dispatch]). Only float32 rows
// with a float32 result have one: float32 is what a fused program computes
// in.
#pragma once

#include <cstdint>

#include "libops/loops/extra_params.h"

namespace libops::legacy {

// z[i] = op(x[i]) for i in [0, n).
using BlockUnaryFn = void (*)(const float* x, float* z, int64_t n, const ExtraParams& e);
// z[i] = op(x[i * sx], y[i * sy]) for i in [0, n); sx and sy are 1, or 0
// for an operand that is one value.
using BlockBinaryFn = void (*)(const float* x, int64_t sx, const float* y, int64_t sy, float* z, int64_t n,
                               const ExtraParams& e);

// The kernel of row `num` of a transform group (OPS_TRANSFORM_SAME,
// OPS_TRANSFORM_FLOAT, OPS_TRANSFORM_STRICT); nullptr for other groups,
// unknown numbers and rows without a float32 kernel.
BlockUnaryFn block_unary_f32(int group, int num);
// The kernel of row `num` of the binary table (the scalar, pairwise and
// broadcast groups); nullptr for unknown numbers and rows without one.
BlockBinaryFn block_binary_f32(int num);

}  // namespace libops::legacy
