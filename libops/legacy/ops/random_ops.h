// RANDOM: z[i] = draw(stream(seed, i), x[i], y[i]) where i is z's C-order
// linear index and x, y (optional, broadcast to z) are per-element inputs
// (dropout's input, say). The stream is counter-based Philox
// (libops/random/philox.h): a value depends only on (seed, i, params), never
// on the thread count, and the CUDA backend draws the same numbers.
//
// A functor: `static C op(random::ElementStream& s, C x, C y, const
// ExtraParams& e)`; C is z's compute type. Absent inputs read as 0.
#pragma once

#include "libops/legacy/dispatch.h"
#include "libops/random/distributions.h"
#include "libops/random/philox.h"

namespace libops::legacy::fn {

// extra: [lo = 0, hi = 1]
template <typename C> struct RandomUniform {
  static C op(random::ElementStream& s, C, C, const ExtraParams& e) {
    return random::uniform<C>(s, C(e.get(0, 0.0)), C(e.get(1, 1.0)));
  }
};

}  // namespace libops::legacy::fn

#define LIBOPS_RANDOM_OPS(X) X(0, uniform, fn::RandomUniform, kFloatTypes)
#define LIBOPS_RANDOM_COUNT 1

namespace libops::legacy {
enum class RandomOp : int { LIBOPS_RANDOM_OPS(LIBOPS_TABLE_ENUM_ROW) };
}  // namespace libops::legacy
