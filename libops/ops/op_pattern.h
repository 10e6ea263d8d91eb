// What an op's outputs are of its inputs (Note [Op patterns]).
//
// Note [Op patterns]
// After TVM's operator patterns, each op may declare, in its own file, what
// its outputs are of its inputs:
//   DECLARE_PATTERN(gelu, kElementwise)
// The graph rewrites read that declaration instead of lists of op names:
// the layout rewrite (graph/optimizer.cpp) moves NHWC and NCHWc values
// through element-wise nodes, working out the value of their padding lanes
// by running them, and lets a reduction with the reduction ops' args pool a
// convolution's output in its layout. The element-wise tables' rows and the
// reduction table declare theirs when they register; `ops-run --list-ops`,
// docs/ops.md and op_signatures.json show them. An op that declares nothing
// is opaque: the rewrites leave it as it is.
// (Kept beside the signature rather than in it: OpSignature is in every
// op's precompiled header and in op libraries' ABI.)
#pragma once

#include <cstdint>

namespace libops {

enum class OpPattern : uint8_t {
  kOpaque,       // none of the below (the default)
  kElementwise,  // z[i] = f(x[i]): one input, z of x's shape (the dtype may change)
  kBroadcast,    // z[i] = f(each input at i), the inputs broadcast to z's shape
  kInjective,    // each z element is one input element, moved or repeated (no arithmetic)
  kReduction,    // z = a reduction of input 0 over axes
};

const char* op_pattern_name(OpPattern pattern);

// The pattern op `op_name` (its registered name, not an alias) declared;
// kOpaque when none.
OpPattern op_pattern(const char* op_name);

// Records op `op_name`'s pattern; true (for static initialisers).
bool declare_op_pattern(const char* op_name, OpPattern pattern);

}  // namespace libops

#define DECLARE_PATTERN(NAME, PATTERN)                 \
  [[maybe_unused]] static const bool libops_pattern_##NAME = \
      ::libops::declare_op_pattern(#NAME, ::libops::OpPattern::PATTERN);
