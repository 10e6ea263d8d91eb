// Block kernels of the binary table (legacy/block_kernels.h).
#include <type_traits>

#include "libops/core/cpu_isa.h"
#include "libops/legacy/block_kernels.h"
#include "libops/legacy/dispatch.h"
#include "libops/legacy/ops/binary_ops.h"

namespace libops::legacy {
namespace {

// The loops of elementwise_binary's dense runs: both operands dense, or one
// of them a single value read once.
template <typename Op>
void block_binary(const float* x, int64_t sx, const float* y, int64_t sy, float* z, int64_t n,
                  const ExtraParams& e) {
  if constexpr (std::is_same_v<Op, fn::binary::Pow<float>>) {
    // Note [pow of 2] in legacy.cpp: x * x, as the legacy call runs it.
    if (sy == 0 && *y == 2.0f) return block_binary<fn::binary::Multiply<float>>(x, sx, x, sx, z, n, e);
  }
  isa_dispatch([&] {
    if (sx != 0 && sy != 0) {
      for (int64_t i = 0; i < n; ++i) z[i] = Op::op(x[i], y[i], e);
    } else if (sx != 0) {
      const float yv = *y;
      for (int64_t i = 0; i < n; ++i) z[i] = Op::op(x[i], yv, e);
    } else if (sy != 0) {
      const float xv = *x;
      for (int64_t i = 0; i < n; ++i) z[i] = Op::op(xv, y[i], e);
    } else {
      const float v = Op::op(*x, *y, e);
      for (int64_t i = 0; i < n; ++i) z[i] = v;
    }
  });
}

template <template <typename> class F, unsigned kSet>
constexpr BlockBinaryFn binary_kernel() {
  if constexpr (type_set_has<float>(kSet) && std::is_same_v<binary_result_t<F<float>, float>, float>)
    return &block_binary<F<float>>;
  else
    return nullptr;
}

}  // namespace

BlockBinaryFn block_binary_f32(int num) {
#define LIBOPS_BLOCK_CASE(NUM, NAME, F, SET) case NUM: return binary_kernel<F, SET>();
  switch (num) { LIBOPS_BINARY_OPS(LIBOPS_BLOCK_CASE) }
#undef LIBOPS_BLOCK_CASE
  return nullptr;
}

}  // namespace libops::legacy
