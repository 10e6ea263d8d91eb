// Core engine benchmarks, each beside the reference it is judged against,
// measured in the same binary and run:
//   * element-wise add, exp and a full sum over 16M float32 vs a STREAM
//     triad (a = b + s*c) with the same thread count (1 and 2), and each
//     also vs the plain loop with its own memory traffic: add vs the triad
//     (2 reads, 1 write), exp vs a STREAM scale (a = s*b: 1 read, 1 write),
//     sum vs a read-only pass (a plain 64-lane sum);
//   * sgemm 1024 through the matmul op vs cblas_sgemm called directly and
//     vs oneDNN's matmul primitive (where libops is built with oneDNN),
//     each on 1 and 2 threads;
//   * GEMMs with constant weights (a dense layer, a recurrent step) at the
//     shapes models run: the packed-weights GEMM (PackedGemmF32, which picks
//     libops' panel kernels on AVX2 machines) vs blas::gemm, which each op
//     calls otherwise (OpenBLAS, packing B on every call);
//   * 3x3 stride-1 convolutions at ResNet's layer shapes in 8-lane channel
//     blocks: libops' Winograd kernel (Note [Own Winograd convolution]) vs
//     oneDNN's direct kernel with cached weights, which runs them otherwise
//     on AVX2 machines;
//   * a custom op called by name through the C API on 1-element arrays
//     with preallocated outputs (per-call overhead).
// bench/compare.py turns the JSON output into ratios.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <omp.h>

#include <vector>

#ifdef LIBOPS_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

#include "blas/conv_dnnl.h"
#include "blas/gemm.h"
#include "blas/packed_gemm.h"
#include "blas/winograd_conv.h"
#include "libops/array/ndarray.h"
#include "libops/c_api.h"
#include "libops/core/parallel.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"

using namespace libops;

namespace {

constexpr int64_t kN = 16 * 1024 * 1024;

NDArray filled(int64_t n, float start) {
  NDArray a;
  if (!NDArray::create(DataType::kFloat32, {n}, 'c', a).is_ok()) std::abort();
  float* p = a.data_as<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = start + 1e-6f * static_cast<float>(i % 1000);
  return a;
}

int threads_arg(const benchmark::State& state) { return static_cast<int>(state.range(0)); }

// STREAM triad: the memory-bandwidth reference. Bytes: 2 reads + 1 write.
void BM_StreamTriad(benchmark::State& state) {
  const int threads = threads_arg(state);
  NDArray a = filled(kN, 0), b = filled(kN, 1), c = filled(kN, 2);
  float* pa = a.data_as<float>();
  const float* pb = b.data_as<float>();
  const float* pc = c.data_as<float>();
  const float s = 3.0f;
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < kN; ++i) pa[i] = pb[i] + s * pc[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 3 * int64_t(sizeof(float)));
}

// STREAM scale, the access pattern of a unary op: 1 read + 1 write.
void BM_StreamScale(benchmark::State& state) {
  const int threads = threads_arg(state);
  NDArray a = filled(kN, 0), b = filled(kN, 1);
  float* pa = a.data_as<float>();
  const float* pb = b.data_as<float>();
  const float s = 3.0f;
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < kN; ++i) pa[i] = s * pb[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t(sizeof(float)));
}

// A read-only pass, the access pattern of a full reduction: each thread sums
// its contiguous part in 64 lanes (8 vector accumulators), then the parts are
// added. Bytes: 1 read.
void BM_StreamRead(benchmark::State& state) {
  const int threads = threads_arg(state);
  NDArray b = filled(kN, 1);
  const float* pb = b.data_as<float>();
  constexpr int kLanes = 64;
  static_assert(kN % kLanes == 0, "BM_StreamRead: whole lanes only");
  for (auto _ : state) {
    float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
      const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int64_t begin = kN / kLanes * t / nt * kLanes, end = kN / kLanes * (t + 1) / nt * kLanes;
      float lane[kLanes] = {};
      for (int64_t i = begin; i < end; i += kLanes)
        for (int k = 0; k < kLanes; ++k) lane[k] += pb[i + k];
      for (int k = 0; k < kLanes; ++k) total += lane[k];
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetBytesProcessed(state.iterations() * kN * int64_t(sizeof(float)));
}

void run_legacy(benchmark::State& state, legacy::LegacyCall call, int64_t bytes_per_iter) {
  set_num_threads(threads_arg(state));
  for (auto _ : state) {
    Status s = legacy::exec(call);
    if (!s.is_ok()) state.SkipWithError(s.message().c_str());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * bytes_per_iter);
  set_num_threads(0);
}

void BM_Add(benchmark::State& state) {
  NDArray x = filled(kN, 1), y = filled(kN, 2), z = filled(kN, 0);
  legacy::LegacyCall call;
  call.group = OPS_PAIRWISE;
  call.num = static_cast<int>(legacy::BinaryOp::add);
  call.x = &x;
  call.y = &y;
  call.z = &z;
  run_legacy(state, call, kN * 3 * int64_t(sizeof(float)));
}

void BM_Exp(benchmark::State& state) {
  NDArray x = filled(kN, -1), z = filled(kN, 0);
  legacy::LegacyCall call;
  call.group = OPS_TRANSFORM_STRICT;
  call.num = static_cast<int>(legacy::TransformStrictOp::exp);
  call.x = &x;
  call.z = &z;
  run_legacy(state, call, kN * 2 * int64_t(sizeof(float)));
}

void BM_Sum(benchmark::State& state) {
  NDArray x = filled(kN, 1), z;
  if (!NDArray::create(DataType::kFloat32, {}, 'c', z).is_ok()) std::abort();
  legacy::LegacyCall call;
  call.group = OPS_REDUCE_SAME;
  call.num = static_cast<int>(legacy::ReduceSameOp::sum);
  call.x = &x;
  call.z = &z;
  run_legacy(state, call, kN * int64_t(sizeof(float)));
}

// ---- GEMM ----
constexpr int kGemmN = 1024;

void BM_SgemmCblasDirect(benchmark::State& state) {
  NDArray a = filled(kGemmN * kGemmN, 0.5f), b = filled(kGemmN * kGemmN, 0.25f), c = filled(kGemmN * kGemmN, 0);
  // OpenBLAS threading itself on as many threads as the matmul op gets
  // (libops leaves OpenBLAS single-threaded after its own GEMMs: Note
  // [GEMM threads] in blas/gemm_cpu.cpp).
  openblas_set_num_threads(threads_arg(state));
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kGemmN, kGemmN, kGemmN, 1.0f, a.data_as<float>(), kGemmN,
                b.data_as<float>(), kGemmN, 0.0f, c.data_as<float>(), kGemmN);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * kGemmN * kGemmN * kGemmN * double(state.iterations()),
                                                benchmark::Counter::kIsRate);
  openblas_set_num_threads(1);
}

#ifdef LIBOPS_HAVE_DNNL
// oneDNN's matmul primitive on plain row-major operands, created once, with
// its OpenMP team at the benchmark's thread count: the reference for
// "GEMM at oneDNN's speed" (neither operand is a constant packed ahead).
void BM_SgemmDnnlMatmul(benchmark::State& state) {
  NDArray a = filled(kGemmN * kGemmN, 0.5f), b = filled(kGemmN * kGemmN, 0.25f), c = filled(kGemmN * kGemmN, 0);
  omp_set_num_threads(threads_arg(state));
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const dnnl::memory::desc md({kGemmN, kGemmN}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
  dnnl::matmul mm(dnnl::matmul::primitive_desc(dnnl::matmul::desc(md, md, md), eng));
  dnnl::memory ma(md, eng, a.data_as<float>()), mb(md, eng, b.data_as<float>()), mc(md, eng, c.data_as<float>());
  for (auto _ : state) {
    mm.execute(strm, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
    strm.wait();
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * kGemmN * kGemmN * kGemmN * double(state.iterations()),
                                                benchmark::Counter::kIsRate);
  omp_set_num_threads(get_num_threads());
}
#endif

void BM_SgemmMatmulOp(benchmark::State& state) {
  const int64_t shape[2] = {kGemmN, kGemmN};
  ops_array_t *a = nullptr, *b = nullptr, *c = nullptr;
  std::vector<float> va(size_t(kGemmN) * kGemmN, 0.5f), vb(size_t(kGemmN) * kGemmN, 0.25f);
  ops_array_create_from(OPS_DTYPE_FLOAT32, 2, shape, va.data(), va.size() * 4, &a);
  ops_array_create_from(OPS_DTYPE_FLOAT32, 2, shape, vb.data(), vb.size() * 4, &b);
  ops_array_create(OPS_DTYPE_FLOAT32, 2, shape, 'c', &c);
  ops_array_t* in[2] = {a, b};
  ops_array_t* out[1] = {c};
  ops_op_t* op = nullptr;
  if (ops_op_find("matmul", &op) != OPS_OK) state.SkipWithError("matmul is not registered");
  set_num_threads(threads_arg(state));
  for (auto _ : state) {
    if (op && ops_op_exec(op, in, 2, out, 1, nullptr) != OPS_OK) state.SkipWithError(ops_last_error());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * kGemmN * kGemmN * kGemmN * double(state.iterations()),
                                                benchmark::Counter::kIsRate);
  ops_array_free(a);
  ops_array_free(b);
  ops_array_free(c);
  set_num_threads(0);
}

// ---- GEMM with constant weights: C [m, n] = A [m, k] * W [k, n] ----
// Args: m, n, k, threads. The shapes: an LSTM step at batch 16 (16 x 2048 x
// 512), a recogniser's recurrent step (2 x 384 x 96) and classifier (160 x 97
// x 192), a batch-64 dense layer (64 x 512 x 784), a batch-1 one (1 x 2048 x
// 512), an encoder's FFN (128 x 3072 x 768), a square 512, a SwiGLU
// block's projections (256 x 1376 x 512, 256 x 512 x 1376), and narrow
// heads (Note [Narrow products]): a 4-class classifier over 8,000 n-gram
// counts at batch 64, an 8-output one over 768 features at batch 128, and
// one output of a 512-wide layer at batch 1.
void weights_gemm_args(benchmark::internal::Benchmark* b) {
  for (int threads : {1, 2})
    for (const auto& s : std::vector<std::vector<int64_t>>{
             {16, 2048, 512}, {2, 384, 96}, {160, 97, 192}, {64, 512, 784}, {1, 2048, 512}, {128, 3072, 768},
             {512, 512, 512}, {256, 1376, 512}, {256, 512, 1376}, {64, 4, 8000}, {128, 8, 768}, {1, 1, 512}})
      b->Args({s[0], s[1], s[2], threads});
}

void BM_WeightsGemmPacked(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  NDArray a = filled(m * k, 0.5f), w = filled(k * n, 0.25f), c = filled(m * n, 0);
  set_num_threads(threads);
  blas::PackedGemmF32 g;
  const Status s = g.pack(m, n, k, w.data_as<float>(), n, false, k, n, threads);
  if (!s.is_ok()) state.SkipWithError(s.message().c_str());
  for (auto _ : state) {
    if (s.is_ok()) (void)g.run(a.data_as<float>(), c.data_as<float>());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * double(m * n * k) * double(state.iterations()), benchmark::Counter::kIsRate);
  set_num_threads(0);
}

void BM_WeightsGemmBlas(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  NDArray a = filled(m * k, 0.5f), w = filled(k * n, 0.25f), c = filled(m * n, 0);
  set_num_threads(static_cast<int>(state.range(3)));
  for (auto _ : state) {
    (void)blas::gemm(DataType::kFloat32, false, false, m, n, k, 1.0, a.data(), k, w.data(), n, 0.0, c.data(), n);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * double(m * n * k) * double(state.iterations()), benchmark::Counter::kIsRate);
  set_num_threads(0);
}

// ---- 3x3 stride-1 convolutions, pad 1, NCHWc with 8 lanes ----
// Args: channels (in = out), image side, batch, threads: ResNet-18's four
// stages at batch 1, the first also at batch 8, and two small layers of a
// text classifier's (32 and 48 channels on 24x24 and 12x12 images at batch
// 4: 144 and 36 tiles); Winograd's output tiles of 4x4 and of 2x2.
void conv3x3_args(benchmark::internal::Benchmark* b) {
  for (int threads : {1, 2})
    for (const auto& s : std::vector<std::vector<int64_t>>{{64, 56, 1}, {128, 28, 1}, {256, 14, 1}, {512, 7, 1},
                                                          {64, 56, 8}, {32, 24, 4}, {48, 12, 4}})
      b->Args({s[0], s[1], s[2], threads});
}
void conv3x3_winograd_args(benchmark::internal::Benchmark* b) {
  for (int threads : {1, 2})
    for (const auto& s : std::vector<std::vector<int64_t>>{{64, 56, 1}, {128, 28, 1}, {256, 14, 1}, {512, 7, 1},
                                                          {64, 56, 8}, {32, 24, 4}, {48, 12, 4}})
      for (int tile : {4, 2}) b->Args({s[0], s[1], s[2], threads, tile});
}

struct Conv3x3Case {
  int64_t c, hw, n;
  NDArray x, w, bias, z;
  explicit Conv3x3Case(const benchmark::State& state)
      : c(state.range(0)), hw(state.range(1)), n(state.range(2)), x(filled(n * c * hw * hw, 0.5f)),
        w(filled(c * c * 9, 0.01f)), bias(filled(c, 0.1f)), z(filled(n * c * hw * hw, 0)) {}
  double flops() const { return 2.0 * double(n * c * c * 9 * hw * hw); }
};

void BM_Conv3x3Winograd(benchmark::State& state) {
  Conv3x3Case k(state);
  const int threads = static_cast<int>(state.range(3));
  set_num_threads(threads);
  blas::WinogradConv3x3 conv;
  if (!conv.prepare(static_cast<int>(state.range(4)), k.c, k.c, k.w.data_as<float>(), k.c, k.c))
    state.SkipWithError("needs AVX2 and FMA");
  blas::WinogradGeometry g;
  g.n = k.n, g.c = k.c, g.cout = k.c, g.h = g.w = g.oh = g.ow = k.hw, g.pad_top = g.pad_left = 1;
  for (auto _ : state) {
    conv.run(g, k.x.data_as<float>(), k.bias.data_as<float>(), nullptr, 1, k.z.data_as<float>(), threads);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(k.flops() * double(state.iterations()), benchmark::Counter::kIsRate);
  set_num_threads(0);
}

// The filters' transform and packing, once per node and session (a
// graph's first run pays it).
void BM_Conv3x3WinogradPrepare(benchmark::State& state) {
  Conv3x3Case k(state);
  set_num_threads(static_cast<int>(state.range(3)));
  for (auto _ : state) {
    blas::WinogradConv3x3 conv;
    if (!conv.prepare(static_cast<int>(state.range(4)), k.c, k.c, k.w.data_as<float>(), k.c, k.c))
      state.SkipWithError("needs AVX2 and FMA");
    benchmark::DoNotOptimize(conv);
  }
  set_num_threads(0);
}

void BM_Conv3x3DnnlDirect(benchmark::State& state) {
  Conv3x3Case k(state);
  const int threads = static_cast<int>(state.range(3));
  set_num_threads(threads);
  blas::Conv2dGeometry g;
  g.n = k.n, g.c = k.c, g.cout = k.c, g.h = g.w = g.oh = g.ow = k.hw, g.kh = g.kw = 3, g.pad_top = g.pad_left = 1;
  g.channel_block = 8;
  g.post_op = blas::ConvPostOp::kRelu;
  blas::ConvWeightsCache cache;
  const void* source = k.w.data();
  Status s = blas::dnnl_conv2d_f32(g, k.x.data_as<float>(), k.w.data_as<float>(), k.bias.data_as<float>(),
                                   k.z.data_as<float>(), threads, &cache, source);
  if (!s.is_ok()) state.SkipWithError(s.message().c_str());
  for (auto _ : state) {
    if (s.is_ok())
      s = blas::dnnl_conv2d_f32(g, k.x.data_as<float>(), nullptr, k.bias.data_as<float>(), k.z.data_as<float>(),
                                threads, &cache, source);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(k.flops() * double(state.iterations()), benchmark::Counter::kIsRate);
  set_num_threads(0);
}

// ---- per-call overhead through the C API ----
void BM_CApiAddOneElement(benchmark::State& state) {
  const int64_t shape[1] = {1};
  const float one = 1.0f, two = 2.0f;
  ops_array_t *x = nullptr, *y = nullptr, *z = nullptr;
  ops_array_create_from(OPS_DTYPE_FLOAT32, 1, shape, &one, 4, &x);
  ops_array_create_from(OPS_DTYPE_FLOAT32, 1, shape, &two, 4, &y);
  ops_array_create(OPS_DTYPE_FLOAT32, 1, shape, 'c', &z);
  ops_array_t* in[2] = {x, y};
  ops_array_t* out[1] = {z};
  for (auto _ : state) {
    if (ops_exec("add", in, 2, out, 1, nullptr) != OPS_OK) state.SkipWithError(ops_last_error());
  }
  ops_array_free(x);
  ops_array_free(y);
  ops_array_free(z);
}

}  // namespace

BENCHMARK(BM_StreamTriad)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StreamScale)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StreamRead)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Add)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Exp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Sum)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SgemmCblasDirect)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
#ifdef LIBOPS_HAVE_DNNL
BENCHMARK(BM_SgemmDnnlMatmul)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif
BENCHMARK(BM_SgemmMatmulOp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WeightsGemmPacked)->Apply(weights_gemm_args)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_WeightsGemmBlas)->Apply(weights_gemm_args)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Conv3x3Winograd)->Apply(conv3x3_winograd_args)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Conv3x3WinogradPrepare)->Apply(conv3x3_winograd_args)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Conv3x3DnnlDirect)->Apply(conv3x3_args)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_CApiAddOneElement)->Unit(benchmark::kNanosecond);

BENCHMARK_MAIN();
