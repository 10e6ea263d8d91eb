// The general tensor ops against their references, measured in one binary
// and run (bench/compare_ops.py adds numpy's timings and the ratios):
//   * bandwidth-bound ops over 16M float32 (64 MiB) vs a STREAM-style copy
//     with the same thread count (1 and 2): gather of rows, scatter_nd of
//     rows, slice and pad of a 4096 x 4096 matrix, each counted as the bytes
//     it must move (one read and one write of its output's size);
//   * argmax (one read) and cumsum (one read, one write) vs the add op
//     (two reads, one write), all as bytes per second;
//   * gelu over 16M float32 and layer_norm of [8192, 1024] float32 (one
//     read, one write each) vs the add op and StreamCopy; a bias add and a
//     layer_norm over rows of 64 (many short streamed runs);
//   * exp and sigmoid over 16M float32 and softmax over the rows of a 4096 x
//     4096 matrix, on ordinary values and on saturated ones (results
//     subnormal or 0, a causal mask of float32's lowest), which used to cost
//     a microcode assist per value (Note [Subnormal exps without assists]);
//   * sort of 16M float32 (and argsort, float64, int32, shorter rows), and
//     qr and svd of a 512 x 512 float64 matrix, timed for numpy.sort /
//     argsort and numpy.linalg.qr / svd beside them.
// Every op is called by name through the registry with preallocated
// outputs, as a graph node would be.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "bench_util.h"
#include "libops/array/ndarray.h"
#include "libops/core/parallel.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/elementwise/fused_program.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"

using namespace libops;

namespace {

constexpr int64_t kN = 16 * 1024 * 1024;
constexpr int64_t kCols = 64, kRows = kN / kCols;  // gather and scatter_nd move rows of 256 bytes
constexpr int64_t kSide = 4096;                     // slice and pad: a 4096 x 4096 matrix

NDArray array(DataType dt, const Dims& shape) {
  NDArray a;
  if (!NDArray::create(dt, shape, 'c', a).is_ok()) std::abort();
  return a;
}

NDArray wave(const Dims& shape) {
  NDArray a = array(DataType::kFloat32, shape);
  float* p = a.data_as<float>();
  for (int64_t i = 0; i < a.length(); ++i) p[i] = std::sin(0.001f * static_cast<float>(i % 100003));
  return a;
}

// A random permutation of 0 .. n-1 as int64 [n, extra...].
NDArray permutation(int64_t n, const Dims& shape) {
  NDArray a = array(DataType::kInt64, shape);
  int64_t* p = a.data_as<int64_t>();
  std::iota(p, p + n, int64_t{0});
  std::shuffle(p, p + n, std::mt19937_64(20261125));
  return a;
}

struct Call {
  const char* op;
  std::vector<NDArray*> in;
  std::vector<NDArray*> out;
  std::vector<int64_t> i = {};
  std::vector<double> t = {};
  std::vector<bool> b = {};
};

// Runs `call` once per iteration at `threads` threads; `bytes` per call.
void run(benchmark::State& state, const Call& call, int64_t bytes) {
  DeclarableOp* op = OpRegistry::instance().find(call.op);
  if (op == nullptr) {
    state.SkipWithError("op not registered");
    return;
  }
  libops::bench::run_passes(state, bytes, [&] {
    Context ctx;
    for (NDArray* a : call.in) ctx.add_input(a);
    for (NDArray* a : call.out) ctx.add_output(a);
    ctx.i_args() = call.i;
    ctx.t_args() = call.t;
    ctx.b_args() = call.b;
    return op->execute(ctx);
  });
}

// ---- references ----

// A copy of 16M float32 split over the threads: the bandwidth a data-moving
// op can reach (1 read + 1 write).
void BM_StreamCopy(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  NDArray a = wave({kN}), b = array(DataType::kFloat32, {kN});
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

void BM_Add(benchmark::State& state) {
  NDArray x = wave({kN}), y = wave({kN}), z = array(DataType::kFloat32, {kN});
  run(state, {"add", {&x, &y}, {&z}}, kN * 3 * int64_t{sizeof(float)});
}

// A bias per column over rows of 64 (a linear layer's bias add on a batch of
// 262,144): the loop runs row by row, 262,144 runs of 256 bytes, each one
// streamed. One read and one write of x's size. With a store fence per run
// (Note [Streaming stores]) this took 50 ms at one thread.
void BM_AddRowBias(benchmark::State& state) {
  NDArray x = wave({kRows, kCols}), b = wave({kCols}), z = array(DataType::kFloat32, {kRows, kCols});
  run(state, {"add", {&x, &b}, {&z}}, kN * 2 * int64_t{sizeof(float)});
}

// A plain sum reads the same 64 MB as argmax and writes nothing: the
// read-only stream argmax is also held to.
void BM_Sum(benchmark::State& state) {
  NDArray x = wave({kN}), z = array(DataType::kFloat32, {});
  run(state, {"reduce_sum", {&x}, {&z}}, kN * int64_t{sizeof(float)});
}

// ---- bandwidth-bound ops ----

void BM_Argmax(benchmark::State& state) {
  NDArray x = wave({kN}), z = array(DataType::kInt64, {});
  run(state, {"argmax", {&x}, {&z}}, kN * int64_t{sizeof(float)});
}

void BM_Cumsum(benchmark::State& state) {
  NDArray x = wave({kN}), z = array(DataType::kFloat32, {kN});
  run(state, {"cumsum", {&x}, {&z}, {0, 0, 0}}, kN * 2 * int64_t{sizeof(float)});
}

void BM_GatherRows(benchmark::State& state) {
  NDArray x = wave({kRows, kCols}), idx = permutation(kRows, {kRows}), z = array(DataType::kFloat32, {kRows, kCols});
  run(state, {"gather", {&x, &idx}, {&z}, {0}}, kN * 2 * int64_t{sizeof(float)});
}

void BM_ScatterNdRows(benchmark::State& state) {
  NDArray idx = permutation(kRows, {kRows, 1}), upd = wave({kRows, kCols}), shape = array(DataType::kInt64, {2});
  shape.data_as<int64_t>()[0] = kRows;
  shape.data_as<int64_t>()[1] = kCols;
  NDArray z = array(DataType::kFloat32, {kRows, kCols});
  run(state, {"scatter_nd", {&idx, &upd, &shape}, {&z}}, kN * 2 * int64_t{sizeof(float)});
}

void BM_Slice(benchmark::State& state) {
  NDArray x = wave({kSide, kSide}), z = array(DataType::kFloat32, {kSide - 2, kSide - 2});
  run(state, {"slice", {&x}, {&z}, {1, 1, kSide - 2, kSide - 2}}, (kSide - 2) * (kSide - 2) * 2 * 4);
}

void BM_Pad(benchmark::State& state) {
  NDArray x = wave({kSide - 2, kSide - 2}), pads = array(DataType::kInt64, {2, 2});
  for (int k = 0; k < 4; ++k) pads.data_as<int64_t>()[k] = 1;
  NDArray z = array(DataType::kFloat32, {kSide, kSide});
  run(state, {"pad", {&x, &pads}, {&z}, {0}}, kSide * kSide * 2 * 4);
}

// ---- activations and normalization (as bytes per second, against the add
// op's two reads and a write and StreamCopy's read and write) ----

// gelu (erf form) over 16M float32: one read, one write.
void BM_Gelu(benchmark::State& state) {
  NDArray x = wave({kN}), z = array(DataType::kFloat32, {kN});
  run(state, {"gelu", {&x}, {&z}, {0}}, kN * 2 * int64_t{sizeof(float)});
}

// layer_norm of [8192, 1024] float32 with scale and bias over the last
// axis: one read of x, one write of z (the parameters stay in cache).
void BM_LayerNorm(benchmark::State& state) {
  constexpr int64_t kRowsLn = 8192, kColsLn = 1024;
  NDArray x = wave({kRowsLn, kColsLn}), scale = wave({kColsLn}), bias = wave({kColsLn});
  NDArray z = array(DataType::kFloat32, {kRowsLn, kColsLn});
  run(state, {"layer_norm", {&x, &scale, &bias}, {&z}, {-1}}, kRowsLn * kColsLn * 2 * int64_t{sizeof(float)});
}

// layer_norm over rows of 64 (16M float32): a streamed row every 256 bytes.
void BM_LayerNormShortRows(benchmark::State& state) {
  NDArray x = wave({kRows, kCols}), scale = wave({kCols}), bias = wave({kCols});
  NDArray z = array(DataType::kFloat32, {kRows, kCols});
  run(state, {"layer_norm", {&x, &scale, &bias}, {&z}, {-1}}, kN * 2 * int64_t{sizeof(float)});
}

// huber_loss summed, over [4096, 1024] float32 predictions and labels with
// a weight per row (Note [Loss formulas]): one read of each, no output
// array. Before the losses were expressions this was ten nested ops with
// nine temporaries of x's size (41.0 ms at one thread, 19.1 at two; 3.9
// and 1.6 ms after).
void BM_HuberLossSum(benchmark::State& state) {
  constexpr int64_t kRowsL = 4096, kColsL = 1024;
  NDArray p = wave({kRowsL, kColsL}), y = wave({kRowsL, kColsL}), w = wave({kRowsL, 1});
  NDArray z = array(DataType::kFloat32, {});
  run(state, {"huber_loss", {&p, &w, &y}, {&z}, {1}, {0.5}}, kRowsL * kColsL * 2 * int64_t{sizeof(float)});
}

// float16 element-wise work over 16M values: an add (each operand converted
// to float in blocks and the sum back, by the bulk converters: 130 ms per
// node at one thread before they were used), and z = sigmoid(x * 2 + 1) * x
// as the one fused_elementwise node the graph optimizer makes of it, every
// step rounded to float16 as its node would store it.
NDArray wave16(const Dims& shape) {
  NDArray w = wave(shape), a = array(DataType::kFloat16, shape);
  if (!a.assign(w).is_ok()) std::abort();
  return a;
}

void BM_AddFloat16(benchmark::State& state) {
  NDArray x = wave16({kN}), y = wave16({kN}), z = array(DataType::kFloat16, {kN});
  run(state, {"add", {&x, &y}, {&z}}, kN * 3 * 2);
}

void BM_SigmoidChainFloat16Fused(benchmark::State& state) {
  NDArray x = wave16({kN}), two = array(DataType::kFloat16, {}), one = array(DataType::kFloat16, {});
  if (!two.assign_scalar(2).is_ok() || !one.assign_scalar(1).is_ok()) std::abort();
  NDArray z = array(DataType::kFloat16, {kN});
  using legacy::BinaryOp;
  ops::FusedProgram p;  // t0 = x0 * x1; t1 = t0 + x2; t2 = sigmoid(t1); t3 = t2 * x0
  p.n_inputs = 3;
  p.steps = {ops::FusedStep::binary(static_cast<int>(BinaryOp::multiply), 0, 1),
             ops::FusedStep::binary(static_cast<int>(BinaryOp::add), 3, 2),
             ops::FusedStep::unary(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::sigmoid), 4),
             ops::FusedStep::binary(static_cast<int>(BinaryOp::multiply), 5, 0)};
  Call call{"fused_elementwise", {&x, &two, &one}, {&z}};
  p.encode(call.i, call.t);
  run(state, call, kN * 2 * 2);
}

void BM_SigmoidChainFloat16Ops(benchmark::State& state) {
  NDArray x = wave16({kN}), two = array(DataType::kFloat16, {}), one = array(DataType::kFloat16, {});
  if (!two.assign_scalar(2).is_ok() || !one.assign_scalar(1).is_ok()) std::abort();
  NDArray t = array(DataType::kFloat16, {kN}), z = array(DataType::kFloat16, {kN});
  using libops::bench::call_op;
  libops::bench::run_passes(state, kN * 2 * 2, [&] {
    Status st = call_op("multiply", {&x, &two}, &t);
    if (st.is_ok()) st = call_op("add", {&t, &one}, &t);
    if (st.is_ok()) st = call_op("sigmoid", {&t}, &t);
    return st.is_ok() ? call_op("multiply", {&t, &x}, &z) : st;
  });
}

// Saturated inputs (Note [Subnormal exps without assists] in
// core/fast_math.h): 16M float32 values whose exp is subnormal or 0, beside
// the same op on ordinary values. `value` 0 means wave()'s [-1, 1].
NDArray filled(float value) {
  NDArray a = value == 0 ? wave({kN}) : array(DataType::kFloat32, {kN});
  if (value != 0) std::fill(a.data_as<float>(), a.data_as<float>() + kN, value);
  return a;
}

void BM_ExpOf(benchmark::State& state, float value) {
  NDArray x = filled(value), z = array(DataType::kFloat32, {kN});
  run(state, {"exp", {&x}, {&z}}, kN * 2 * 4);
}

void BM_SigmoidOf(benchmark::State& state, float value) {
  NDArray x = filled(value), z = array(DataType::kFloat32, {kN});
  run(state, {"sigmoid", {&x}, {&z}}, kN * 2 * 4);
}

// softmax over the rows of a [4096, 4096] matrix, the entries above the
// diagonal masked as exporters write a causal attention mask (float32's
// lowest), or none masked.
void BM_SoftmaxRows(benchmark::State& state, bool causal_mask) {
  NDArray x = wave({kSide, kSide}), z = array(DataType::kFloat32, {kSide, kSide});
  float* p = x.data_as<float>();
  if (causal_mask)
    for (int64_t r = 0; r < kSide; ++r)
      std::fill(p + r * kSide + r + 1, p + (r + 1) * kSide, std::numeric_limits<float>::lowest());
  run(state, {"softmax", {&x}, {&z}, {-1}}, kN * 2 * 4);
}

// gelu over 16M float16: blocks widened to float32 for the vectorized loop
// (the legacy functor's erfc per element before).
void BM_GeluFloat16(benchmark::State& state) {
  NDArray x = wave16({kN}), z = array(DataType::kFloat16, {kN});
  run(state, {"gelu", {&x}, {&z}}, kN * 2 * 2);
}

// A float16 matmul [256, 512] x [512, 512] (Note [16-bit GEMMs]: float32
// GEMM on widened copies; the portable kernel ran it at 15 GFLOP/s).
void BM_MatmulFloat16(benchmark::State& state) {
  NDArray a = wave16({256, 512}), b = wave16({512, 512}), z = array(DataType::kFloat16, {256, 512});
  run(state, {"matmul", {&a, &b}, {&z}}, 0);
}

// A bidirectional LSTM the shape of bench/compare_exported.py's ocr_rec
// (T 80, N 2, I 128, H 96; ONNX's layout, each direction on its own axis):
// at two threads its directions run side by side (Note [Directions side by
// side] in libops/ops/rnn/recurrent.cpp). One Context for every call, with
// W, R and b marked constant, as a graph session runs the node: R is packed
// on the first call and kept (Note [Packed recurrent weights]).
void BM_LstmBidirectional(benchmark::State& state) {
  NDArray x = wave({80, 2, 128}), w = wave({2, 384, 128}), r = wave({2, 384, 96}), b = wave({2, 768});
  // Weights at a trained layer's scale: gates of a few units, not the
  // hundreds whose exp falls into subnormals (slow on every engine).
  for (NDArray* a : {&w, &r})
    for (int64_t i = 0; i < a->length(); ++i) a->data_as<float>()[i] *= 0.05f;
  NDArray y = array(DataType::kFloat32, {80, 2, 2, 96});
  DeclarableOp* op = OpRegistry::instance().find("lstm_layer");
  Context ctx;
  for (NDArray* a : {&x, &w, &r, &b}) ctx.add_input(a);
  ctx.add_output(&y);
  ctx.i_args() = {3, 4, 2, 0, 0, 1};  // y [T, 2, N, H]; ONNX's weights
  ctx.b_args() = {true, false, false, false, false, true, false, false};
  ctx.set_constant_inputs({false, true, true, true});
  libops::bench::run_passes(state, 0, [&] { return op->execute(ctx); });
}

// ---- timed against numpy ----

void BM_Sort(benchmark::State& state) {
  NDArray x = wave({kN}), z = array(DataType::kFloat32, {kN});
  // sin of a long wave has many ties; shuffle it so the sort has work to do.
  std::shuffle(x.data_as<float>(), x.data_as<float>() + kN, std::mt19937(7));
  run(state, {"sort", {&x}, {&z}}, 0);
}

// argsort of the same data: 32-bit keys with their positions.
void BM_Argsort(benchmark::State& state) {
  NDArray x = wave({kN}), z = array(DataType::kInt64, {kN});
  std::shuffle(x.data_as<float>(), x.data_as<float>() + kN, std::mt19937(7));
  run(state, {"argsort", {&x}, {&z}}, 0);
}

// The same values as float64: 64-bit keys.
void BM_SortF64(benchmark::State& state) {
  NDArray w = wave({kN}), x = array(DataType::kFloat64, {kN}), z = array(DataType::kFloat64, {kN});
  std::shuffle(w.data_as<float>(), w.data_as<float>() + kN, std::mt19937(7));
  for (int64_t i = 0; i < kN; ++i) x.data_as<double>()[i] = w.data_as<float>()[i];
  run(state, {"sort", {&x}, {&z}}, 0);
}

// int32 spread over the whole range.
void BM_SortI32(benchmark::State& state) {
  NDArray x = array(DataType::kInt32, {kN}), z = array(DataType::kInt32, {kN});
  std::mt19937 rng(7);
  for (int64_t i = 0; i < kN; ++i) x.data_as<int32_t>()[i] = static_cast<int32_t>(rng());
  run(state, {"sort", {&x}, {&z}}, 0);
}

// Shorter rows: one of 1M, and 16K rows of 1024 (rows in parallel).
void BM_Sort1M(benchmark::State& state) {
  NDArray x = wave({1 << 20}), z = array(DataType::kFloat32, {1 << 20});
  std::shuffle(x.data_as<float>(), x.data_as<float>() + (1 << 20), std::mt19937(7));
  run(state, {"sort", {&x}, {&z}}, 0);
}

void BM_SortRows(benchmark::State& state) {
  NDArray x = wave({kN / 1024, 1024}), z = array(DataType::kFloat32, {kN / 1024, 1024});
  std::shuffle(x.data_as<float>(), x.data_as<float>() + kN, std::mt19937(7));
  run(state, {"sort", {&x}, {&z}, {-1}}, 0);
}

NDArray random_matrix(int64_t n) {
  NDArray a = array(DataType::kFloat64, {n, n});
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t i = 0; i < n * n; ++i) a.data_as<double>()[i] = u(rng);
  return a;
}

constexpr int64_t kMatrix = 512;

void BM_Qr512(benchmark::State& state) {
  NDArray a = random_matrix(kMatrix), q = array(DataType::kFloat64, {kMatrix, kMatrix}),
          r = array(DataType::kFloat64, {kMatrix, kMatrix});
  run(state, {"qr", {&a}, {&q, &r}}, 0);
}

void BM_Svd512(benchmark::State& state) {
  NDArray a = random_matrix(kMatrix), s = array(DataType::kFloat64, {kMatrix}),
          u = array(DataType::kFloat64, {kMatrix, kMatrix}), v = array(DataType::kFloat64, {kMatrix, kMatrix});
  run(state, {"svd", {&a}, {&s, &u, &v}}, 0);
}

}  // namespace

#define LIBOPS_THREADS(b) b->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()
LIBOPS_THREADS(BENCHMARK(BM_StreamCopy));
LIBOPS_THREADS(BENCHMARK(BM_Add));
LIBOPS_THREADS(BENCHMARK(BM_AddRowBias));
LIBOPS_THREADS(BENCHMARK(BM_Sum));
LIBOPS_THREADS(BENCHMARK(BM_Argmax));
LIBOPS_THREADS(BENCHMARK(BM_Cumsum));
LIBOPS_THREADS(BENCHMARK(BM_GatherRows));
LIBOPS_THREADS(BENCHMARK(BM_ScatterNdRows));
LIBOPS_THREADS(BENCHMARK(BM_Slice));
LIBOPS_THREADS(BENCHMARK(BM_Pad));
LIBOPS_THREADS(BENCHMARK(BM_Gelu));
LIBOPS_THREADS(BENCHMARK(BM_LayerNorm));
LIBOPS_THREADS(BENCHMARK(BM_LayerNormShortRows));
LIBOPS_THREADS(BENCHMARK(BM_HuberLossSum));
LIBOPS_THREADS(BENCHMARK(BM_AddFloat16));
LIBOPS_THREADS(BENCHMARK_CAPTURE(BM_ExpOf, ordinary, 0.0f));
LIBOPS_THREADS(BENCHMARK_CAPTURE(BM_ExpOf, subnormal_results, -95.0f));
LIBOPS_THREADS(BENCHMARK_CAPTURE(BM_ExpOf, zero_results, -1000.0f));
LIBOPS_THREADS(BENCHMARK_CAPTURE(BM_SigmoidOf, ordinary, 0.0f));
LIBOPS_THREADS(BENCHMARK_CAPTURE(BM_SigmoidOf, saturated_high, 95.0f));
LIBOPS_THREADS(BENCHMARK_CAPTURE(BM_SigmoidOf, saturated_low, -95.0f));
LIBOPS_THREADS(BENCHMARK_CAPTURE(BM_SoftmaxRows, unmasked, false));
LIBOPS_THREADS(BENCHMARK_CAPTURE(BM_SoftmaxRows, causal_mask, true));
LIBOPS_THREADS(BENCHMARK(BM_SigmoidChainFloat16Fused));
LIBOPS_THREADS(BENCHMARK(BM_SigmoidChainFloat16Ops));
LIBOPS_THREADS(BENCHMARK(BM_MatmulFloat16));
LIBOPS_THREADS(BENCHMARK(BM_LstmBidirectional));
LIBOPS_THREADS(BENCHMARK(BM_GeluFloat16));
LIBOPS_THREADS(BENCHMARK(BM_Sort));
LIBOPS_THREADS(BENCHMARK(BM_Argsort));
LIBOPS_THREADS(BENCHMARK(BM_SortF64));
LIBOPS_THREADS(BENCHMARK(BM_SortI32));
LIBOPS_THREADS(BENCHMARK(BM_Sort1M));
LIBOPS_THREADS(BENCHMARK(BM_SortRows));
LIBOPS_THREADS(BENCHMARK(BM_Qr512));
LIBOPS_THREADS(BENCHMARK(BM_Svd512));

BENCHMARK_MAIN();
