// The fused_elementwise op (Note [Fused element-wise programs]) on cuda:0,
// where it runs one kernel for the node (Note [One kernel per fused node];
// one legacy kernel per step past rank 8), against its one-pass CPU
// evaluation: a HardSwish-then-SiLU chain with a literal, a one-value input
// and a broadcast one, and a chain that starts from one-value inputs, in
// float32, float16 and bfloat16; conv2d and matmul with an epilogue
// program.
#include <cmath>
#include <string>

#include "cuda_test_util.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/elementwise/fused_program.h"
#include "op_test_util.h"

namespace libops {
namespace {

using legacy::BinaryOp;
using ops::FusedProgram;
using ops::FusedStep;
using ops::kFusedLiteral;

FusedStep binary(BinaryOp op, int x, int y, double literal = 0) {
  return FusedStep::binary(static_cast<int>(op), x, y, literal);
}
FusedStep strict(legacy::TransformStrictOp op, int x) {
  return FusedStep::unary(OPS_TRANSFORM_STRICT, static_cast<int>(op), x);
}

std::vector<double> wave(int64_t n, double scale) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = scale * std::sin(0.731 * static_cast<double>(k) + 0.3);
  return v;
}

TEST(CudaFusedElementwise, ProgramsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  // x [3, 1000]: h = x * clip(x + 3, 0, 6) / six, then (h * sigmoid(h)) + bias[1000].
  FusedProgram chain;
  chain.n_inputs = 3;
  chain.steps = {binary(BinaryOp::add, 0, kFusedLiteral, 3), binary(BinaryOp::max, 3, kFusedLiteral, 0),
                 binary(BinaryOp::min, 4, kFusedLiteral, 6), binary(BinaryOp::multiply, 0, 5),
                 binary(BinaryOp::divide, 6, 1),             strict(legacy::TransformStrictOp::sigmoid, 7),
                 binary(BinaryOp::multiply, 7, 8),           binary(BinaryOp::add, 9, 2)};
  // exp(s) * x, with s one value.
  FusedProgram scaled;
  scaled.n_inputs = 2;
  scaled.steps = {strict(legacy::TransformStrictOp::exp, 1), binary(BinaryOp::multiply, 2, 0)};
  struct Case {
    const FusedProgram* program;
    std::vector<Dims> shapes;
  };
  const Case cases[] = {{&chain, {{3, 1000}, {}, {1000}}},
                        {&scaled, {{4097}, {1}}},
                        {&chain, {{2, 1, 3, 1, 2, 1, 1, 5, 7}, {}, {7}}}};  // rank 9: the steps
  // float16 and bfloat16 programs too: on the GPU each step's kernel
  // stores its dtype, on the CPU each step is rounded to it.
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16})
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + c.program->str());
      std::vector<NDArray> host;
      for (size_t k = 0; k < c.shapes.size(); ++k)
        host.push_back(test::make(dt, c.shapes[k], wave(c.shapes[k].product(), 5.0 / double(k + 1))));
      test::OpCall call;
      c.program->encode(call.i, call.t);
      Context cpu, gpu;
      ASSERT_OK(test::run_on_cpu_and_gpu("fused_elementwise", host, call, cpu, gpu));
      NDArray& z = *gpu.output(0);
      EXPECT_EQ(z.dtype(), dt);
      EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kDeviceNewer);
      ASSERT_OK(z.buffer()->sync_to_host());
      EXPECT_EQ(z.shape(), cpu.output(0)->shape());
      const double tol = dt == DataType::kFloat32 ? 1e-5 : (dt == DataType::kFloat16 ? 2e-3 : 1.6e-2);
      EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(0)), tol, tol / 10));
    }
}

// Note [Epilogue programs]: conv2d (cuDNN) and matmul (cuBLAS) given an
// epilogue program run it on the GPU in place on z (the fused kernel),
// against the CPU's evaluation of the same call.
TEST(CudaFusedElementwise, EpilogueProgramsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  FusedProgram p;  // tanh(2 z + 1) z
  p.n_inputs = 1;
  p.steps = {binary(BinaryOp::multiply, 0, kFusedLiteral, 2), binary(BinaryOp::add, 1, kFusedLiteral, 1),
             strict(legacy::TransformStrictOp::tanh, 2), binary(BinaryOp::multiply, 3, 0)};
  struct Case {
    const char* op;
    std::vector<Dims> shapes;
    std::vector<int64_t> i;
  };
  const Case cases[] = {{"conv2d", {{2, 3, 9, 9}, {4, 3, 3, 3}, {4}}, {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0}},
                        {"matmul", {{5, 7}, {7, 6}, {6}}, {0, 0, 0, 1}}};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16})
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + c.op);
      std::vector<NDArray> host;
      for (size_t k = 0; k < c.shapes.size(); ++k)
        host.push_back(test::make(dt, c.shapes[k], wave(c.shapes[k].product(), 1.0 / double(k + 1))));
      test::OpCall call;
      p.encode(call.i, call.t);
      call.i.insert(call.i.begin(), c.i.begin(), c.i.end());
      Context cpu, gpu;
      ASSERT_OK(test::run_on_cpu_and_gpu(c.op, host, call, cpu, gpu));
      NDArray& z = *gpu.output(0);
      ASSERT_OK(z.buffer()->sync_to_host());
      const double tol = dt == DataType::kFloat32 ? 1e-5 : 4e-3;
      EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(0)), tol, tol / 10));
    }
}

// fused_reduce on the GPU (the program step by step, then the legacy
// reduction) against the CPU's one pass: every kind over the last axis and
// over all, kept and dropped, in float32 and float16.
TEST(CudaFusedReduce, ReductionsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  FusedProgram p;  // (x - w)^2 * tanh(x)
  p.n_inputs = 2;
  p.steps = {binary(BinaryOp::subtract, 0, 1), binary(BinaryOp::multiply, 2, 2),
             strict(legacy::TransformStrictOp::tanh, 0), binary(BinaryOp::multiply, 3, 4)};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16})
    for (int kind = 0; kind < 4; ++kind)
      for (const std::vector<int64_t>& axes : {std::vector<int64_t>{-1}, std::vector<int64_t>{}})
        for (int keep : {0, 1}) {
          SCOPED_TRACE(std::string(dtype_name(dt)) + " kind " + std::to_string(kind) + " axes " +
                       std::to_string(axes.size()) + " keep " + std::to_string(keep));
          std::vector<NDArray> host = {test::make(dt, {7, 300}, wave(2100, 3.0)), test::make(dt, {300}, wave(300, 1.0))};
          test::OpCall call;
          p.encode(call.i, call.t);
          call.i.push_back(kind);
          call.i.push_back(keep);
          call.i.insert(call.i.end(), axes.begin(), axes.end());
          Context cpu, gpu;
          ASSERT_OK(test::run_on_cpu_and_gpu("fused_reduce", host, call, cpu, gpu));
          NDArray& z = *gpu.output(0);
          ASSERT_OK(z.buffer()->sync_to_host());
          EXPECT_EQ(z.shape(), cpu.output(0)->shape());
          EXPECT_EQ(z.dtype(), dt);
          // float16: the GPU's reduction adds in float and rounds once, the CPU's in double.
          const double tol = dt == DataType::kFloat32 ? 1e-5 : 2e-3;
          EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(0)), tol, tol));
        }
}

}  // namespace
}  // namespace libops
