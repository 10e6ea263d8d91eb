// Block kernels of the transform tables (legacy/block_kernels.h).
#include <type_traits>

#include "libops/core/cpu_isa.h"
#include "libops/legacy/block_kernels.h"
#include "libops/legacy/dispatch.h"
#include "libops/legacy/ops/transform_float_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/loops/dense_kernel.h"

namespace libops::legacy {
namespace {

// kWide as the table's kind in its table_*.cpp (transform_strict is bound by
// arithmetic: Note [Vector width]), so the bits match the legacy op's.
template <typename Op, bool kWide>
void block_unary(const float* x, float* z, int64_t n, const ExtraParams& e) {
  isa_dispatch<kWide>([&] {
    if constexpr (DenseKernel<Op>::kHas) {
      DenseKernel<Op>::run(x, z, n, e);
    } else {
      const ExtraParams ep = e;  // read once, not per element (elementwise_unary)
      for (int64_t i = 0; i < n; ++i) z[i] = Op::op(x[i], ep);
    }
  });
}

template <template <typename> class F, unsigned kSet, bool kWide>
constexpr BlockUnaryFn unary_kernel() {
  if constexpr (type_set_has<float>(kSet) && std::is_same_v<unary_result_t<F<float>, float>, float>)
    return &block_unary<F<float>, kWide>;
  else
    return nullptr;
}

#define LIBOPS_BLOCK_CASE(NUM, NAME, F, SET) case NUM: return unary_kernel<F, SET, kWide>();

template <bool kWide>
BlockUnaryFn same_row(int num) {
  switch (num) { LIBOPS_TRANSFORM_SAME_OPS(LIBOPS_BLOCK_CASE) }
  return nullptr;
}
template <bool kWide>
BlockUnaryFn float_row(int num) {
  switch (num) { LIBOPS_TRANSFORM_FLOAT_OPS(LIBOPS_BLOCK_CASE) }
  return nullptr;
}
template <bool kWide>
BlockUnaryFn strict_row(int num) {
  switch (num) { LIBOPS_TRANSFORM_STRICT_OPS(LIBOPS_BLOCK_CASE) }
  return nullptr;
}

#undef LIBOPS_BLOCK_CASE

}  // namespace

BlockUnaryFn block_unary_f32(int group, int num) {
  switch (group) {
    case OPS_TRANSFORM_SAME: return same_row<false>(num);
    case OPS_TRANSFORM_FLOAT: return float_row<false>(num);
    case OPS_TRANSFORM_STRICT: return strict_row<true>(num);
    default: return nullptr;
  }
}

}  // namespace libops::legacy
