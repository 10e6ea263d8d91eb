// A fused program (Note [Fused element-wise programs] in fused_program.h)
// evaluated one element at a time, in host and device code: what the one
// CUDA kernel of a fused_elementwise node runs per output element
// (fused_elementwise.cu), and what the CPU tests hold to the block program's
// values row by row.
//
// Note [One kernel per fused node]
// On a device a fused_elementwise node is one kernel, instantiated ahead of
// time (per storage dtype: float32, float16, bfloat16), not built per graph:
// the program travels to the device as data (FusedKernelProgram) and each
// thread walks its steps for its element, a switch on the step's row picking
// the legacy functor, the same one the CPU's block kernels run, in float.
// The switch is uniform across the threads (every thread takes the same
// row at a step), so it costs a few instructions a step, where one kernel per
// step wrote and read an array the size of z per step. A 16-bit program
// rounds each step's value to its dtype, as the CPU does. pow with an
// exponent of 2 is x * x (Note [pow of 2] in legacy/legacy.cpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "libops/c_types.h"
#include "libops/core/half.h"
#include "libops/core/host_device.h"
#include "libops/legacy/dispatch.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_float_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/loops/extra_params.h"
#include "libops/ops/elementwise/fused_program.h"

namespace libops::ops {

inline constexpr int kFusedKernelSteps = kMaxFusedSteps;
inline constexpr int kFusedKernelInputs = kMaxFusedInputs;

struct FusedKernelStep {
  int group = 0, num = 0, x = 0, y = -1;  // y: -1 unary, -2 the literal
  float literal = 0;
  ExtraParams extra;
};

// A program as the kernel reads it; rounding: 0 none (float32), 1 float16,
// 2 bfloat16.
struct FusedKernelProgram {
  int n_inputs = 0, n_steps = 0, rounding = 0;
  FusedKernelStep steps[kFusedKernelSteps];
};

namespace fused_detail {

template <template <typename> class F, unsigned kSet>
LIBOPS_HOST_DEVICE inline float unary_row(float x, const ExtraParams& e) {
  if constexpr (legacy::type_set_has<float>(kSet) && std::is_same_v<unary_result_t<F<float>, float>, float>)
    return F<float>::op(x, e);
  else
    return x;  // never taken: decode() refuses rows without a float32 kernel
}

template <template <typename> class F, unsigned kSet>
LIBOPS_HOST_DEVICE inline float binary_row(float x, float y, const ExtraParams& e) {
  if constexpr (legacy::type_set_has<float>(kSet) && std::is_same_v<binary_result_t<F<float>, float>, float>)
    return F<float>::op(x, y, e);
  else
    return x;  // never taken, as above
}

}  // namespace fused_detail

#define LIBOPS_FUSED_UNARY_CASE(NUM, NAME, F, SET) \
  case NUM: return fused_detail::unary_row<F, SET>(x, e);
#define LIBOPS_FUSED_BINARY_CASE(NUM, NAME, F, SET) \
  case NUM: return fused_detail::binary_row<F, SET>(x, y, e);

// Row `num` of transform group `group` at x.
LIBOPS_HOST_DEVICE inline float fused_unary_row(int group, int num, float x, const ExtraParams& e) {
  using namespace ::libops::legacy;  // the tables name their functors and type sets from there
  switch (group) {
    case OPS_TRANSFORM_SAME:
      switch (num) { LIBOPS_TRANSFORM_SAME_OPS(LIBOPS_FUSED_UNARY_CASE) }
      break;
    case OPS_TRANSFORM_FLOAT:
      switch (num) { LIBOPS_TRANSFORM_FLOAT_OPS(LIBOPS_FUSED_UNARY_CASE) }
      break;
    case OPS_TRANSFORM_STRICT:
      switch (num) { LIBOPS_TRANSFORM_STRICT_OPS(LIBOPS_FUSED_UNARY_CASE) }
      break;
    default: break;
  }
  return x;
}

// Row `num` of the binary table at (x, y).
LIBOPS_HOST_DEVICE inline float fused_binary_row(int num, float x, float y, const ExtraParams& e) {
  using namespace ::libops::legacy;
  if (num == static_cast<int>(BinaryOp::pow) && y == 2.0f) return x * x;
  switch (num) { LIBOPS_BINARY_OPS(LIBOPS_FUSED_BINARY_CASE) }
  return x;
}

#undef LIBOPS_FUSED_UNARY_CASE
#undef LIBOPS_FUSED_BINARY_CASE

// v rounded to the program's dtype and back (nothing for float32).
LIBOPS_HOST_DEVICE inline float fused_round(float v, int rounding) {
  if (rounding == 1) return static_cast<float>(float16(v));
  if (rounding == 2) return static_cast<float>(bfloat16(v));
  return v;
}

// Program p as the kernel reads it, for values of dtype dt (float32,
// float16 or bfloat16).
inline FusedKernelProgram kernel_program_of(const FusedProgram& p, DataType dt) {
  FusedKernelProgram k;
  k.n_inputs = p.n_inputs;
  k.n_steps = static_cast<int>(p.steps.size());
  k.rounding = dt == DataType::kFloat16 ? 1 : (dt == DataType::kBFloat16 ? 2 : 0);
  for (size_t t = 0; t < p.steps.size() && t < static_cast<size_t>(kFusedKernelSteps); ++t) {
    const FusedStep& s = p.steps[t];
    k.steps[t] = {s.group, s.num, s.x, s.y, static_cast<float>(s.literal), s.extra};
  }
  return k;
}

// The program's value for one element: v[0, n_inputs) hold the inputs' values
// (float, already rounded to the dtype they are stored in); v has room for
// n_inputs + n_steps values. Returns the last step's value.
LIBOPS_HOST_DEVICE inline float fused_evaluate(const FusedKernelProgram& p, float* v) {
  for (int t = 0; t < p.n_steps; ++t) {
    const FusedKernelStep& s = p.steps[t];
    const float x = v[s.x];
    const float r = s.y == -1 ? fused_unary_row(s.group, s.num, x, s.extra)
                              : fused_binary_row(s.num, x, s.y == -2 ? s.literal : v[s.y], s.extra);
    v[p.n_inputs + t] = fused_round(r, p.rounding);
  }
  return v[p.n_inputs + p.n_steps - 1];
}

}  // namespace libops::ops
