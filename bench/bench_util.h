// What the benchmark binaries share: test data, a STREAM-style copy as the
// bandwidth reference, and an op called by name once per iteration as a
// graph node would call it.
#pragma once

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"

namespace libops::bench {

// float32 of `shape` holding sin(phase + 0.001 (i mod 100003)).
inline NDArray wave(const Dims& shape, float phase) {
  NDArray a;
  if (!NDArray::create(DataType::kFloat32, shape, 'c', a).is_ok()) std::abort();
  float* p = a.data_as<float>();
  for (int64_t i = 0; i < a.length(); ++i) p[i] = std::sin(phase + 0.001f * static_cast<float>(i % 100003));
  return a;
}

// A copy of n float32 split over state.range(0) threads: one read and one
// write, the bandwidth a one-pass kernel can reach.
inline void stream_copy(benchmark::State& state, int64_t n) {
  set_num_threads(static_cast<int>(state.range(0)));
  NDArray a = wave({n}, 0.f), b = wave({n}, 1.f);
  const float* src = a.data_as<float>();
  float* dst = b.data_as<float>();
  for (auto _ : state) {
    parallel_for(n, 1 << 16, [&](int64_t begin, int64_t end) {
      std::memcpy(dst + begin, src + begin, static_cast<size_t>(end - begin) * sizeof(float));
    });
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 2 * int64_t{sizeof(float)});
  set_num_threads(0);
}

// Runs op `name` once on `in` into `out` (i args `i`, t args `t`): a step of a chain
// of ops a benchmark calls one by one.
inline Status call_op(const char* name, std::initializer_list<NDArray*> in, NDArray* out,
                      std::vector<int64_t> i = {}, std::vector<double> t = {}) {
  Context ctx;
  for (NDArray* a : in) ctx.add_input(a);
  ctx.add_output(out);
  ctx.set_i_args(i.data(), static_cast<int>(i.size()));
  ctx.set_t_args(t.data(), static_cast<int>(t.size()));
  return OpRegistry::instance().find(name)->execute(ctx);
}

// Runs `pass` (one expression or a chain of op calls; returns its Status)
// once per iteration at state.range(0) threads; `bytes` per pass (0: no
// bytes-per-second figure).
template <typename Pass>
void run_passes(benchmark::State& state, int64_t bytes, Pass&& pass) {
  set_num_threads(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const Status st = pass();
    if (!st.is_ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  if (bytes > 0) state.SetBytesProcessed(state.iterations() * bytes);
  set_num_threads(0);
}

// Runs op `name` on `in` into `out` (t args `t`) once per iteration at
// state.range(0) threads; `bytes` per call for the bytes-per-second figure.
inline void run_op(benchmark::State& state, const char* name, std::initializer_list<NDArray*> in,
                   std::initializer_list<NDArray*> out, std::vector<double> t, int64_t bytes) {
  DeclarableOp* op = OpRegistry::instance().find(name);
  if (op == nullptr) {
    state.SkipWithError("op not registered");
    return;
  }
  const std::vector<NDArray*> ins(in), outs(out);
  run_passes(state, bytes, [&] {
    Context ctx;
    for (NDArray* a : ins) ctx.add_input(a);
    for (NDArray* a : outs) ctx.add_output(a);
    ctx.t_args() = t;
    return op->execute(ctx);
  });
}

}  // namespace libops::bench
