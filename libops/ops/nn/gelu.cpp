// gelu: the Gaussian error linear unit, in its exact (erf) form or the tanh
// approximation, as ONNX Gelu (opset 20).
//
//   input   x: float16, bfloat16, float32 or float64, any shape and strides
//   i arg   approximate, optional: 0 "none" (default) or 1 "tanh"
//   output  x's dtype and shape; may run in place
//
//   none:  0.5 x (1 + erf(x / sqrt 2)), computed as 0.5 x erfc(-x / sqrt 2),
//          the same value without the cancellation of 1 + erf for x < 0
//          (the legacy precise_gelu kernel)
//   tanh:  0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), computed as
//          x sigmoid(2 u) (the legacy gelu kernel, Note [Transform special
//          values])
//
// One legacy transform call on block.device(), so CPU and CUDA run the same
// functors; except dense float32 on the CPU, which takes the vectorized
// loop below (Note [Vectorized gelu]).
#include <algorithm>
#include <cmath>
#include <string>

#include "libops/core/cpu_isa.h"
#include "libops/core/fast_math.h"
#include "libops/core/parallel.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/declarable_op.h"

namespace libops::ops::nn {
namespace {

// Note [Vectorized gelu]
// The C library's erfc is a scalar call, several times slower per element
// than memory delivers float32 on one core. For dense float32 on the CPU
// both forms are computed from exp_f32 (Note [Vectorizable exp]), selects
// and arithmetic, which the compiler vectorizes:
//   erf form: Phi(-y) = 0.5 erfc(y / sqrt 2) for y = |x| is written
//     t exp(-y^2 / 2 + Q(t)), t = 1 / (1 + y / 2), Q a degree-10 polynomial
//     in u = 2 t - 1 fitted (Chebyshev least squares against mpmath) to
//     within 7e-8 on y in [0, 14]; evaluated in float its error stays below
//     2e-7, a relative error of the tail. y^2 / 2 enters exactly: y * y is
//     split into its rounded value and the rounding error (a fused
//     multiply-add), and the error joins the reduced argument of one exp
//     (exp_f32_sum), so the tail keeps its relative accuracy where y^2 / 2
//     is large (-98 at y = 14). Beyond
//     y = 14 the tail is below 1e-44 and taken as 0. Phi(x) = tail for
//     x < 0, 1 - tail otherwise (tail <= 1/2: no cancellation).
//   tanh form: x sigmoid(2 u), the legacy functor's formula, with the
//     vectorizable sigmoid.
// Both give -0 at -inf (x * 0 would be NaN), +inf at +inf, NaN for NaN.
// The loop is bound by arithmetic, not memory, so this file is compiled for
// the widest vectors the machine has (LIBOPS_WIDE_VECTOR_SOURCES in
// CMakeLists.txt): on AVX-512, 16M float32 in 31.6 ms instead of 47.5.
constexpr float kQ[] = {-1.0900371574239403f, 0.49286237215666384f, -0.07862890243061364f,
                        -0.035814588179957946f, 0.020945186709658607f, 0.0010708307086682027f,
                        -0.0057267047026708625f, 0.002089417327110821f, 0.0006843823083154232f,
                        -0.0007645837376777526f, 0.00017249523869812222f};

LIBOPS_FORCE_INLINE float gelu_erf_f32(float x) {
  using detail::mul_add_f32;
  using detail::select_f32;
  const float ax = std::fabs(x);
  const float y = select_f32(ax > 14.0f, 14.0f, ax);  // NaN stays NaN (the comparison is false)
  const float t = 1.0f / mul_add_f32(0.5f, y, 1.0f);
  const float u = mul_add_f32(2.0f, t, -1.0f);
  // Horner written out: a loop here keeps the compiler from vectorizing
  // the loop over elements.
  float q = mul_add_f32(kQ[10], u, kQ[9]);
  q = mul_add_f32(q, u, kQ[8]);
  q = mul_add_f32(q, u, kQ[7]);
  q = mul_add_f32(q, u, kQ[6]);
  q = mul_add_f32(q, u, kQ[5]);
  q = mul_add_f32(q, u, kQ[4]);
  q = mul_add_f32(q, u, kQ[3]);
  q = mul_add_f32(q, u, kQ[2]);
  q = mul_add_f32(q, u, kQ[1]);
  q = mul_add_f32(q, u, kQ[0]);
  const float y2 = y * y;
  const float y2_err = std::fma(y, y, -y2);  // y * y = y2 + y2_err exactly
  float tail = t * exp_f32_sum(-0.5f * y2, mul_add_f32(-0.5f, y2_err, q));
  tail = select_f32(ax >= 14.0f, 0.0f, tail);
  const float phi = select_f32(x < 0.0f, tail, 1.0f - tail);
  return select_f32(x == -INFINITY, -0.0f, x * phi);
}

LIBOPS_FORCE_INLINE float gelu_tanh_f32(float x) {
  using legacy::fn::transform_strict::gelu_two_u;
  using legacy::fn::transform_strict::sigmoid_c;
  return detail::select_f32(x == -INFINITY, -0.0f, x * sigmoid_c(gelu_two_u(x)));
}

template <bool kTanh>
void gelu_dense_f32(const float* x, float* z, int64_t n) {
  parallel_for(n, 1 << 15, [&](int64_t begin, int64_t end) {
    // Bound by arithmetic: 512-bit vectors are 1.5x the 256-bit ones (Note
    // [Vector width] in core/cpu_isa.h).
    isa_dispatch<true>([&] {
      for (int64_t i = begin; i < end; ++i) z[i] = kTanh ? gelu_tanh_f32(x[i]) : gelu_erf_f32(x[i]);
    });
  });
}

}  // namespace
}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(gelu, 1, 1, true, 0, 0) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const bool tanh_form = INT_ARG(0) == 1;
  if (block.device().is_cpu() && x->dtype() == DataType::kFloat32 && z->dtype() == DataType::kFloat32 &&
      x->is_c_contiguous() && z->is_c_contiguous() && (z->same_view(*x) || !z->may_overlap(*x))) {
    RETURN_IF_ERROR(sync_for_kernel(block.device(), {x}, *z));
    if (tanh_form) ops::nn::gelu_dense_f32<true>(x->data_as<float>(), z->data_as<float>(), x->length());
    else ops::nn::gelu_dense_f32<false>(x->data_as<float>(), z->data_as<float>(), x->length());
    z->buffer()->mark_host_written();
    return Status::ok();
  }
  legacy::LegacyCall call;
  call.group = OPS_TRANSFORM_STRICT;
  call.num = static_cast<int>(tanh_form ? legacy::TransformStrictOp::gelu : legacy::TransformStrictOp::precise_gelu);
  call.x = x;
  call.z = z;
  call.device = block.device();
  Status s = legacy::exec(call);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

DECLARE_SHAPE_FN(gelu) {
  using namespace libops;
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(gelu) {
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(gelu) {
  args.describe("Gaussian error linear unit: x * Phi(x), exact or with the tanh approximation.");
  args.input("x", "the array");
  args.output("z", "0.5 x (1 + erf(x / sqrt 2)), or the tanh form; x's dtype");
  args.i_arg("approximate", 0, "ONNX's approximate attribute").one_of({{0, "none"}, {1, "tanh"}});
}
