// The shared driver of the element-wise kernels (loops/elementwise.h).
#include "libops/loops/elementwise.h"

namespace libops::detail {
namespace {

// The common case as one flat run, without an NdLoop: z dense (C or F
// order) and every input laid out exactly like z or a single element
// (stride 0). Setting up an NdLoop costs more than a whole add on a few
// elements, which is what graph nodes on small arrays pay per call.
// Fills p and s (bytes) for z and the inputs; false when it does not apply.
template <int N>
bool flat_operands(NDArray& z, const NDArray* const* inputs, char** p, int64_t* s) {
  if (!z.is_contiguous()) return false;
  p[0] = static_cast<char*>(z.data());
  s[0] = static_cast<int64_t>(z.element_size());
  for (int k = 1; k < N; ++k) {
    const NDArray& a = *inputs[k - 1];
    p[k] = static_cast<char*>(a.data());
    if (a.length() == 1) s[k] = 0;
    else if (a.shape() == z.shape() && a.strides() == z.strides()) s[k] = static_cast<int64_t>(a.element_size());
    else return false;
  }
  return true;
}

}  // namespace

template <int N>
void run_elementwise_erased(NDArray& z, const NDArray* const* inputs, InnerFn fn, const void* ctx) {
  char* p[N];
  int64_t s[N];
  if (flat_operands<N>(z, inputs, p, s)) {
    parallel_for(z.length(), kElementwiseGrain, [&](int64_t b, int64_t end) {
      char* q[N];
      for (int k = 0; k < N; ++k) q[k] = p[k] + b * s[k];
      fn(ctx, q, s, end - b);
      stream_fence();  // Note [Streaming stores]: once per thread's part
    });
    return;
  }
  NdLoop<N> loop = make_elementwise_loop<N>(z, inputs);
  parallel_for(loop.count(), kElementwiseGrain, [&](int64_t b, int64_t end) {
    loop.run(b, end, [&](char* const* q, const int64_t* qs, int64_t n) { fn(ctx, q, qs, n); });
    stream_fence();
  });
}

template void run_elementwise_erased<2>(NDArray&, const NDArray* const*, InnerFn, const void*);
template void run_elementwise_erased<3>(NDArray&, const NDArray* const*, InnerFn, const void*);
// The fused_elementwise op: z and up to 8 inputs (ops/elementwise/fused_program.h).
template void run_elementwise_erased<9>(NDArray&, const NDArray* const*, InnerFn, const void*);

}  // namespace libops::detail
