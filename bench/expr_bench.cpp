// The chain z = tanh(x * 2 + 1) * x over 16M float32 (Note [Expressions]
// in libops/expr/expr.h), measured in one binary at 1 and 2 threads
// (bench/compare_expr.py adds numpy's time and the ratios):
//   * as one C++ expression, one pass over memory;
//   * as its four ops called one by one through the registry (multiply,
//     add, tanh, multiply), as a graph without fusion runs them;
//   * tanh alone (one pass with the legacy op's 16-lane kernel): the floor
//     for any pass that computes a tanh per element;
//   * the clip op with scalar bounds (one expression on the CPU);
//   * a STREAM-style copy of the same 64 MiB: the bandwidth a one-read,
//     one-write pass can reach.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "libops/array/ndarray.h"
#include "libops/core/parallel.h"
#include "libops/expr/expr.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"

using namespace libops;

namespace {

constexpr int64_t kN = int64_t{16} << 20;

NDArray wave(float phase) {
  NDArray a;
  if (!NDArray::create(DataType::kFloat32, {kN}, 'c', a).is_ok()) std::abort();
  float* p = a.data_as<float>();
  for (int64_t i = 0; i < kN; ++i) p[i] = std::sin(phase + 0.001f * static_cast<float>(i % 100003));
  return a;
}

void BM_StreamCopy(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  NDArray a = wave(0.f), b = wave(1.f);
  const float* src = a.data_as<float>();
  float* dst = b.data_as<float>();
  for (auto _ : state) {
    parallel_for(kN, 1 << 16, [&](int64_t begin, int64_t end) {
      std::memcpy(dst + begin, src + begin, static_cast<size_t>(end - begin) * sizeof(float));
    });
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t{sizeof(float)});
  set_num_threads(0);
}

// One expression: reads x, writes z.
void BM_ChainExpression(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  NDArray x = wave(0.f), z = wave(1.f);
  using namespace libops::expr;
  for (auto _ : state) {
    const Status st = (out(z) = tanh(in<float>(x) * 2.f + 1.f) * in<float>(x)).run();
    if (!st.is_ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t{sizeof(float)});
  set_num_threads(0);
}

// The same four ops one by one, each a pass over memory.
void BM_ChainOps(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  NDArray x = wave(0.f), t = wave(1.f), z = wave(2.f);
  NDArray two, one;
  if (!NDArray::create(DataType::kFloat32, {}, 'c', two).is_ok() ||
      !NDArray::create(DataType::kFloat32, {}, 'c', one).is_ok())
    std::abort();
  two.set_double(0, 2.0);
  one.set_double(0, 1.0);
  auto call = [](const char* name, std::initializer_list<NDArray*> in, NDArray* out) {
    Context ctx;
    for (NDArray* a : in) ctx.add_input(a);
    ctx.add_output(out);
    return OpRegistry::instance().find(name)->execute(ctx);
  };
  for (auto _ : state) {
    Status st = call("multiply", {&x, &two}, &t);
    if (st.is_ok()) st = call("add", {&t, &one}, &t);
    if (st.is_ok()) st = call("tanh", {&t}, &t);
    if (st.is_ok()) st = call("multiply", {&t, &x}, &z);
    if (!st.is_ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t{sizeof(float)});
  set_num_threads(0);
}

// tanh alone, one pass (the legacy op with its 16-lane kernel): the
// chain's arithmetic floor, since the chain computes a tanh per element.
void BM_TanhOp(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  NDArray x = wave(0.f), z = wave(1.f);
  DeclarableOp* op = OpRegistry::instance().find("tanh");
  for (auto _ : state) {
    Context ctx;
    ctx.add_input(&x);
    ctx.add_output(&z);
    const Status st = op->execute(ctx);
    if (!st.is_ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t{sizeof(float)});
  set_num_threads(0);
}

// clip(x, -0.5, 0.5): an op built on an expression (one pass on the CPU).
void BM_ClipOp(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  NDArray x = wave(0.f), z = wave(1.f);
  DeclarableOp* op = OpRegistry::instance().find("clip");
  for (auto _ : state) {
    Context ctx;
    ctx.add_input(&x);
    ctx.add_output(&z);
    ctx.t_args() = {-0.5, 0.5};
    const Status st = op->execute(ctx);
    if (!st.is_ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t{sizeof(float)});
  set_num_threads(0);
}

}  // namespace

BENCHMARK(BM_StreamCopy)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ChainExpression)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ChainOps)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TanhOp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ClipOp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
