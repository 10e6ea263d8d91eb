// The element-at-a-time evaluator of fused programs (Note [One kernel per
// fused node] in libops/ops/elementwise/fused_element.h), run on the host:
// what the CUDA kernel computes per element must be what the CPU's block
// program computes, row by row (every transform row and binary row with a
// float32 kernel), in float32 and rounded to float16 and bfloat16, and for
// a chain with a literal, a one-value input and pow of 2.
#include <cmath>
#include <string>
#include <vector>

#include "libops/core/cpu_isa.h"
#include "libops/legacy/block_kernels.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/elementwise/fused_element.h"
#include "libops/ops/elementwise/fused_program.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;
using libops::ops::FusedKernelProgram;
using libops::ops::FusedProgram;
using libops::ops::FusedStep;

namespace {

// Equal values but for the rounding of one step: both NaN, the same
// infinity, or within 1e-6 relative and 1e-7 absolute in float32 (one ulp
// of a 16-bit dtype). The evaluator's copy of a functor and the block
// kernel's are compiled apart, and the compiler may contract a * b + c into
// an FMA in one and not the other (GCC: hard_sigmoid's alpha x + beta;
// clang: gelu, mish_derivative, and hard_swish near x = -3, where half an
// ulp of x / 6 + 0.5 is many ulps of its small result), as nvcc does on
// the device; the optimizer tests allow the same. A wrong row is far off.
bool same(double g, double w, DataType dt) {
  if (std::isnan(w)) return std::isnan(g);
  if (std::isinf(w) || w == 0) return g == w;
  const double rel = dt == DataType::kFloat32 ? 1e-6 : (dt == DataType::kFloat16 ? 2e-3 : 1.6e-2);
  return std::fabs(g - w) <= 1e-7 + rel * std::fabs(w);
}

// Runs p through the fused_elementwise op (the block program) and through
// fused_evaluate element by element; the inputs are dense and of z's shape
// or one value.
::testing::AssertionResult evaluator_matches(const FusedProgram& p, const std::vector<NDArray>& inputs, DataType dt) {
  std::vector<NDArray*> in;
  for (const NDArray& a : inputs) in.push_back(const_cast<NDArray*>(&a));
  OpCall call;
  call.in = in;
  p.encode(call.i, call.t);
  Context ctx;
  const Status s = run_op("fused_elementwise", call, ctx);
  if (!s.is_ok()) return ::testing::AssertionFailure() << s.message();
  const NDArray& z = *ctx.output(0);
  const FusedKernelProgram k = ops::kernel_program_of(p, dt);
  std::vector<float> in_values(static_cast<size_t>(p.n_inputs * z.length())), got(static_cast<size_t>(z.length()));
  for (int64_t e = 0; e < z.length(); ++e)
    for (int i = 0; i < p.n_inputs; ++i) {
      const NDArray& a = inputs[static_cast<size_t>(i)];
      in_values[static_cast<size_t>(e * p.n_inputs + i)] = static_cast<float>(a.get_double(a.length() == 1 ? 0 : e));
    }
  // Compiled for cpu_isa(), as the block kernels are: GCC contracts a * b + c
  // into an FMA where the ISA has one, in both alike.
  isa_dispatch<true>([&] {
    float v[ops::kFusedKernelInputs + ops::kFusedKernelSteps];
    for (int64_t e = 0; e < z.length(); ++e) {
      for (int i = 0; i < p.n_inputs; ++i) v[i] = in_values[static_cast<size_t>(e * p.n_inputs + i)];
      got[static_cast<size_t>(e)] = ops::fused_evaluate(k, v);
    }
  });
  for (int64_t e = 0; e < z.length(); ++e) {
    if (!same(got[static_cast<size_t>(e)], z.get_double(e), dt))
      return ::testing::AssertionFailure() << "element " << e << ": " << got[static_cast<size_t>(e)]
                                           << ", the block program " << z.get_double(e)
                                           << " (" << p.str() << ")";
  }
  return ::testing::AssertionSuccess();
}

std::vector<double> values_with_specials(int64_t n, double scale, double shift) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = shift + scale * std::sin(0.37 * static_cast<double>(i) + 0.2);
  v[1] = std::nan("");
  v[2] = INFINITY;
  v[3] = -INFINITY;
  v[4] = 0.0;
  v[5] = -0.0;
  return v;
}

TEST(FusedElementEvaluator, EveryRowGivesTheBlockProgramsValues) {
  const int64_t n = 97;
  int unary_rows = 0, binary_rows = 0;
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    const NDArray x = make(dt, {n}, values_with_specials(n, 3.0, 0.0));
    const NDArray y = make(dt, {n}, values_with_specials(n, 1.0, 1.5));  // mostly in (0.5, 2.5)
    for (int group : {OPS_TRANSFORM_SAME, OPS_TRANSFORM_FLOAT, OPS_TRANSFORM_STRICT})
      for (int num = 0; num < 256; ++num) {
        if (legacy::block_unary_f32(group, num) == nullptr) continue;
        FusedProgram p;
        p.n_inputs = 1;
        p.steps = {FusedStep::unary(group, num, 0)};
        EXPECT_TRUE(evaluator_matches(p, {x}, dt));
        unary_rows += dt == DataType::kFloat32;
      }
    for (int num = 0; num < 256; ++num) {
      if (legacy::block_binary_f32(num) == nullptr) continue;
      FusedProgram p;
      p.n_inputs = 2;
      p.steps = {FusedStep::binary(num, 0, 1)};
      EXPECT_TRUE(evaluator_matches(p, {x, y}, dt));
      binary_rows += dt == DataType::kFloat32;
    }
  }
  EXPECT_GE(unary_rows, 70);
  EXPECT_GE(binary_rows, 25);
}

// HardSwish then SiLU with literals and a one-value input, and pow with a
// one-value exponent of 2 (x * x, Note [pow of 2]) and with exponents of
// 2 in a full array.
TEST(FusedElementEvaluator, ChainsLiteralsOneValuesAndPowOfTwo) {
  using legacy::BinaryOp;
  auto binary = [](BinaryOp op, int x, int y, double literal = 0) {
    return FusedStep::binary(static_cast<int>(op), x, y, literal);
  };
  FusedProgram chain;
  chain.n_inputs = 2;
  chain.steps = {binary(BinaryOp::add, 0, ops::kFusedLiteral, 3), binary(BinaryOp::max, 2, ops::kFusedLiteral, 0),
                 binary(BinaryOp::min, 3, ops::kFusedLiteral, 6), binary(BinaryOp::multiply, 0, 4),
                 binary(BinaryOp::divide, 5, 1),
                 FusedStep::unary(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::sigmoid), 6),
                 binary(BinaryOp::multiply, 6, 7)};
  FusedProgram square;
  square.n_inputs = 2;
  square.steps = {binary(BinaryOp::pow, 0, 1)};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    const NDArray x = make(dt, {300}, values_with_specials(300, 5.0, 0.0));
    EXPECT_TRUE(evaluator_matches(chain, {x, make(dt, {}, {6.0})}, dt));
    EXPECT_TRUE(evaluator_matches(square, {x, make(dt, {}, {2.0})}, dt));
    EXPECT_TRUE(evaluator_matches(square, {x, make(dt, {300}, std::vector<double>(300, 2.0))}, dt));
  }
}

}  // namespace
