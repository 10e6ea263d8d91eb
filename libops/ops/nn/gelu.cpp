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
// loop below (Note [Vectorized gelu] in gelu_math.h), and dense float16 and
// bfloat16 on the CPU, which take it on blocks widened to float32.
#include <algorithm>
#include <cmath>
#include <string>

#include "libops/core/cpu_isa.h"
#include "libops/core/fast_math.h"
#include "libops/core/half.h"
#include "libops/core/parallel.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/nn/gelu_math.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops::nn {
namespace {

template <bool kTanh>
void gelu_dense_f32(const float* x, float* z, int64_t n) {
  parallel_for(n, 1 << 15, [&](int64_t begin, int64_t end) {
#if LIBOPS_HAVE_EXP_F32_X8
    if (!kTanh && cpu_isa() == CpuIsa::kAvx512) return gelu_erf_dense_x16(x + begin, z + begin, end - begin);
#endif
    // Bound by arithmetic: 512-bit vectors are 1.5x the 256-bit ones (Note
    // [Vector width] in core/cpu_isa.h).
    isa_dispatch<true>([&] {
      for (int64_t i = begin; i < end; ++i) z[i] = kTanh ? gelu_tanh_f32(x[i]) : gelu_erf_f32(x[i]);
    });
  });
}

// Dense float16 or bfloat16: blocks converted to float32 (the bulk
// converters), the float32 loop above, and one rounding back, where the
// legacy functor computed each element through the C library's erfc (26 ms
// for 2M float16 at one thread, 3.8x ONNX Runtime's time).
template <bool kTanh>
void gelu_dense_16(DataType dt, const uint16_t* x, uint16_t* z, int64_t n) {
  constexpr int64_t kBlock = 2048;
  parallel_for((n + kBlock - 1) / kBlock, std::max<int64_t>(1, (1 << 15) / kBlock), [&](int64_t begin, int64_t end) {
    float buf[kBlock];
    for (int64_t b = begin; b < end; ++b) {
      const int64_t off = b * kBlock, m = std::min(kBlock, n - off);
      if (dt == DataType::kFloat16) half_to_float_n(x + off, buf, m);
      else bf16_to_float_n(x + off, buf, m);
#if LIBOPS_HAVE_EXP_F32_X8
      if (!kTanh && cpu_isa() == CpuIsa::kAvx512) {
        gelu_erf_dense_x16(buf, buf, m);
      } else
#endif
      {
        isa_dispatch<true>([&] {
          for (int64_t i = 0; i < m; ++i) buf[i] = kTanh ? gelu_tanh_f32(buf[i]) : gelu_erf_f32(buf[i]);
        });
      }
      if (dt == DataType::kFloat16) float_to_half_n(buf, z + off, m);
      else float_to_bf16_n(buf, z + off, m);
    }
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
  const bool sixteen = x->dtype() == DataType::kFloat16 || x->dtype() == DataType::kBFloat16;
  if (block.device().is_cpu() && sixteen && z->dtype() == x->dtype() && x->is_c_contiguous() &&
      z->is_c_contiguous() && (z->same_view(*x) || !z->may_overlap(*x))) {
    RETURN_IF_ERROR(sync_for_kernel(block.device(), {x}, *z));
    const auto* xs = x->data_as<const uint16_t>();
    auto* zs = z->data_as<uint16_t>();
    if (tanh_form) ops::nn::gelu_dense_16<true>(x->dtype(), xs, zs, x->length());
    else ops::nn::gelu_dense_16<false>(x->dtype(), xs, zs, x->length());
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

DECLARE_PATTERN(gelu, kElementwise)

DECLARE_ARGS(gelu) {
  args.describe("Gaussian error linear unit: x * Phi(x), exact or with the tanh approximation.");
  args.input("x", "the array");
  args.output("z", "0.5 x (1 + erf(x / sqrt 2)), or the tanh form; x's dtype");
  args.i_arg("approximate", 0, "ONNX's approximate attribute").one_of({{0, "none"}, {1, "tanh"}});
}
