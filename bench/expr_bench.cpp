// The chain z = tanh(x * 2 + 1) * x over 16M float32 (Note [Expressions]
// in libops/expr/expr.h), measured in one binary at 1 and 2 threads
// (bench/compare_expr.py adds numpy's time and the ratios):
//   * as one C++ expression, one pass over memory;
//   * as the graph's fused node runs it (the fused_elementwise op);
//   * as its four ops called one by one through the registry (multiply,
//     add, tanh, multiply), as a graph without fusion runs them;
//   * tanh alone (one pass with the legacy op's 16-lane kernel): the floor
//     for any pass that computes a tanh per element;
//   * the clip op with scalar bounds (one expression on the CPU);
//   * a reduction with a prologue, the row sums of (x * 2 + 1)^2 over
//     [4096, 4096]: one expression (Note [Reductions]) against the ops one
//     by one (multiply, add, square, reduce_sum: four passes);
//   * a STREAM-style copy of the same 64 MiB: the bandwidth a one-read,
//     one-write pass can reach;
//   * hard_swish written three ways (a hand loop, four op calls, one
//     expression: docs/cpp-authoring.md) beside the hard_swish op.
//   * the chain after a convolution (3x3, 32 -> 32 channels over
//     [8, 32, 56, 56]) and after a matmul ([1024, 512] x [512, 1024]): the
//     op then a fused_elementwise node, as the graph ran it before, against
//     the op with the chain as its epilogue program (Note [Epilogue
//     programs] in libops/ops/elementwise/fused_program.h).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench_util.h"
#include "libops/expr/expr.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/elementwise/fused_program.h"

using namespace libops;
using libops::bench::call_op;
using libops::bench::run_passes;
using libops::bench::run_op;

namespace {

constexpr int64_t kN = int64_t{16} << 20;
constexpr int64_t kOnePass = kN * 2 * int64_t{sizeof(float)};  // one read, one write

NDArray wave(float phase) { return libops::bench::wave({kN}, phase); }

void BM_StreamCopy(benchmark::State& state) { libops::bench::stream_copy(state, kN); }

// One expression: reads x, writes z.
void BM_ChainExpression(benchmark::State& state) {
  NDArray x = wave(0.f), z = wave(1.f);
  using namespace libops::expr;
  run_passes(state, kOnePass, [&] { return (out(z) = tanh(in<float>(x) * 2.f + 1.f) * in<float>(x)).run(); });
}

// The same four ops one by one, each a pass over memory.
void BM_ChainOps(benchmark::State& state) {
  NDArray x = wave(0.f), t = wave(1.f), z = wave(2.f);
  NDArray two, one;
  if (!NDArray::scalar(DataType::kFloat32, 2.0, two).is_ok() || !NDArray::scalar(DataType::kFloat32, 1.0, one).is_ok())
    std::abort();
  run_passes(state, kOnePass, [&] {
    Status st = call_op("multiply", {&x, &two}, &t);
    if (st.is_ok()) st = call_op("add", {&t, &one}, &t);
    if (st.is_ok()) st = call_op("tanh", {&t}, &t);
    return st.is_ok() ? call_op("multiply", {&t, &x}, &z) : st;
  });
}

// The chain as a program of one input, z: tanh(2 z + 1) z.
ops::FusedProgram chain_program() {
  using legacy::BinaryOp;
  ops::FusedProgram p;
  p.n_inputs = 1;
  p.steps = {ops::FusedStep::binary(static_cast<int>(BinaryOp::multiply), 0, ops::kFusedLiteral, 2),
             ops::FusedStep::binary(static_cast<int>(BinaryOp::add), 1, ops::kFusedLiteral, 1),
             ops::FusedStep::unary(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::tanh), 2),
             ops::FusedStep::binary(static_cast<int>(BinaryOp::multiply), 3, 0)};
  return p;
}

// The chain as the graph's fused node runs it: the fused_elementwise op,
// block by block (Note [Fused element-wise programs]).
void BM_ChainFusedOp(benchmark::State& state) {
  NDArray x = wave(0.f), z = wave(1.f);
  std::vector<int64_t> i;
  std::vector<double> t;
  chain_program().encode(i, t);
  run_passes(state, kOnePass, [&] { return call_op("fused_elementwise", {&x}, &z, i, t); });
}

// tanh alone, one pass (the legacy op with its 16-lane kernel): the
// chain's arithmetic floor, since the chain computes a tanh per element.
void BM_TanhOp(benchmark::State& state) {
  NDArray x = wave(0.f), z = wave(1.f);
  run_op(state, "tanh", {&x}, {&z}, {}, kOnePass);
}

// clip(x, -0.5, 0.5): an op built on an expression (one pass on the CPU).
void BM_ClipOp(benchmark::State& state) {
  NDArray x = wave(0.f), z = wave(1.f);
  run_op(state, "clip", {&x}, {&z}, {-0.5, 0.5}, kOnePass);
}

// Row sums of (x * 2 + 1)^2 as one expression: reads x once.
void BM_RowSumExpression(benchmark::State& state) {
  NDArray x = libops::bench::wave({4096, 4096}, 0.f), z = libops::bench::wave({4096}, 1.f);
  using namespace libops::expr;
  run_passes(state, kN * int64_t{sizeof(float)}, [&] {  // one read
    auto e = in<float>(x) * 2.f + 1.f;
    return (out(z) = sum(e * e, {1})).run();
  });
}

// The same as ops one by one: three element-wise passes and a reduction.
void BM_RowSumOps(benchmark::State& state) {
  NDArray x = libops::bench::wave({4096, 4096}, 0.f), t = libops::bench::wave({4096, 4096}, 1.f);
  NDArray z = libops::bench::wave({4096}, 1.f);
  NDArray two, one;
  if (!NDArray::scalar(DataType::kFloat32, 2.0, two).is_ok() || !NDArray::scalar(DataType::kFloat32, 1.0, one).is_ok())
    std::abort();
  run_passes(state, kN * int64_t{sizeof(float)}, [&] {
    Status st = call_op("multiply", {&x, &two}, &t);
    if (st.is_ok()) st = call_op("add", {&t, &one}, &t);
    if (st.is_ok()) st = call_op("square", {&t}, &t);
    return st.is_ok() ? call_op("reduce_sum", {&t}, &z, {1}) : st;
  });
}

// hard_swish = x * relu6(x + 3) / 6 written three ways, as the ops of
// docs/cpp-authoring.md's hard_swish_three_ways program write it, beside
// libops' own hard_swish op (a legacy table row, its dense loop).
void BM_HardSwishHandLoop(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  NDArray x = wave(0.f), z = wave(1.f);
  const float* xs = x.data_as<const float>();
  float* zs = z.data_as<float>();
  for (auto _ : state) {
    parallel_for(kN, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) zs[i] = xs[i] * std::min(std::max(xs[i] + 3.f, 0.f), 6.f) / 6.f;
    });
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kOnePass);
  set_num_threads(0);
}

void BM_HardSwishOpCalls(benchmark::State& state) {
  NDArray x = wave(0.f), t = wave(1.f), u = wave(2.f), z = wave(3.f);
  NDArray three, six;
  if (!NDArray::scalar(DataType::kFloat32, 3.0, three).is_ok() || !NDArray::scalar(DataType::kFloat32, 6.0, six).is_ok())
    std::abort();
  run_passes(state, kOnePass, [&] {
    Status st = call_op("add", {&x, &three}, &t);
    if (st.is_ok()) st = call_op("relu6", {&t}, &t);
    if (st.is_ok()) st = call_op("multiply", {&x, &t}, &u);
    return st.is_ok() ? call_op("divide", {&u, &six}, &z) : st;
  });
}

void BM_HardSwishExpression(benchmark::State& state) {
  NDArray x = wave(0.f), z = wave(1.f);
  using namespace libops::expr;
  run_passes(state, kOnePass, [&] {
    const auto v = in(x);
    return (out(z) = v * min(max(v + 3.f, 0.f), 6.f) / 6.f).run();
  });
}

void BM_HardSwishOp(benchmark::State& state) {
  NDArray x = wave(0.f), z = wave(1.f);
  run_op(state, "hard_swish", {&x}, {&z}, {}, kOnePass);
}

// The op `name` on `in` (i args `i`) then the chain: as a fused node after
// it (`epilogue` false) or as its epilogue.
void op_then_chain(benchmark::State& state, const char* name, std::initializer_list<NDArray*> in, NDArray& z,
                   std::vector<int64_t> i, bool epilogue) {
  std::vector<int64_t> program_i;
  std::vector<double> program_t;
  chain_program().encode(program_i, program_t);
  NDArray y = libops::bench::wave(z.shape(), 3.f);
  if (epilogue) i.insert(i.end(), program_i.begin(), program_i.end());
  run_passes(state, 0, [&] {
    if (epilogue) return call_op(name, in, &z, i, program_t);
    const Status st = call_op(name, in, &y, i);
    return st.is_ok() ? call_op("fused_elementwise", {&y}, &z, program_i, program_t) : st;
  });
}

const std::vector<int64_t> kConv3x3 = {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0};  // NCHW, pad 1

void conv_then_chain(benchmark::State& state, bool epilogue) {
  NDArray x = libops::bench::wave({8, 32, 56, 56}, 0.f), w = libops::bench::wave({32, 32, 3, 3}, 1.f);
  NDArray z = libops::bench::wave({8, 32, 56, 56}, 2.f);
  op_then_chain(state, "conv2d", {&x, &w}, z, kConv3x3, epilogue);
}
void BM_ConvThenChainNode(benchmark::State& state) { conv_then_chain(state, false); }
void BM_ConvChainEpilogue(benchmark::State& state) { conv_then_chain(state, true); }

void matmul_then_chain(benchmark::State& state, bool epilogue) {
  NDArray a = libops::bench::wave({1024, 512}, 0.f), b = libops::bench::wave({512, 1024}, 1.f);
  NDArray z = libops::bench::wave({1024, 1024}, 2.f);
  op_then_chain(state, "matmul", {&a, &b}, z, {0, 0, 0, 0}, epilogue);
}
void BM_MatmulThenChainNode(benchmark::State& state) { matmul_then_chain(state, false); }
void BM_MatmulChainEpilogue(benchmark::State& state) { matmul_then_chain(state, true); }

}  // namespace

BENCHMARK(BM_ConvThenChainNode)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ConvChainEpilogue)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MatmulThenChainNode)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MatmulChainEpilogue)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HardSwishHandLoop)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HardSwishOpCalls)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HardSwishExpression)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HardSwishOp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StreamCopy)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ChainExpression)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ChainFusedOp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ChainOps)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TanhOp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ClipOp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RowSumExpression)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RowSumOps)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
