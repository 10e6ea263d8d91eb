// Batched products of small matrices (Note [Small matrices] in
// libops/blas/small_gemm.h), measured in one binary
// (bench/compare_small_matrix.py adds numpy's batched matmul and the
// ratios):
//   * the matmul op on [2^20, S, S] x [2^20, S, S] float32, S = 2, 3, 4, 8,
//     called by name as a graph node would be, at 1 and 2 threads;
//   * OpenBLAS called once per matrix (cblas_sgemm) on the same data: what
//     the batch cost before the small-matrix kernels;
//   * matrix_determinant and matrix_inverse of 2^20 2x2 and 3x3 float32
//     matrices (Note [Small determinants], Note [Small inverses]);
//   * a STREAM-style copy of 64 MiB at the same thread count: the bandwidth
//     the product can reach, counted as the bytes it must move (A and B
//     read, C written).
#include <benchmark/benchmark.h>

#include <cblas.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/blas/blas_threads.h"
#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"

using namespace libops;

namespace {

constexpr int64_t kBatch = int64_t{1} << 20;

NDArray wave(const Dims& shape, float phase) {
  NDArray a;
  if (!NDArray::create(DataType::kFloat32, shape, 'c', a).is_ok()) std::abort();
  float* p = a.data_as<float>();
  for (int64_t i = 0; i < a.length(); ++i) p[i] = std::sin(phase + 0.001f * static_cast<float>(i % 100003));
  return a;
}

void BM_StreamCopy(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  constexpr int64_t n = int64_t{16} << 20;
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

// The matmul op on a batch of S x S matrices: range(0) threads, range(1) S.
void BM_MatmulBatched(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  const int64_t s = state.range(1);
  NDArray x = wave({kBatch, s, s}, 0.f), y = wave({kBatch, s, s}, 2.f), z = wave({kBatch, s, s}, 3.f);
  DeclarableOp* op = OpRegistry::instance().find("matmul");
  for (auto _ : state) {
    Context ctx;
    ctx.add_input(&x);
    ctx.add_input(&y);
    ctx.add_output(&z);
    const Status st = op->execute(ctx);
    if (!st.is_ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kBatch * s * s * 3 * int64_t{sizeof(float)});
  set_num_threads(0);
}

// One cblas_sgemm per matrix, OpenBLAS on one thread (libops' setting).
void BM_BlasPerMatrix(benchmark::State& state) {
  const int s = static_cast<int>(state.range(1));
  NDArray x = wave({kBatch, s, s}, 0.f), y = wave({kBatch, s, s}, 2.f), z = wave({kBatch, s, s}, 3.f);
  const float* a = x.data_as<float>();
  const float* b = y.data_as<float>();
  float* c = z.data_as<float>();
  blas::blas_single_threaded();
  for (auto _ : state) {
    for (int64_t i = 0; i < kBatch; ++i)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s, s, s, 1.f, a + i * s * s, s, b + i * s * s, s, 0.f,
                  c + i * s * s, s);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kBatch * s * s * 3 * int64_t{sizeof(float)});
}

// matrix_determinant of 2^20 3 x 3 float32 matrices (Note [Small
// determinants]: cofactors, where larger matrices take LU factors).
void BM_Determinant(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  const int64_t s = state.range(1);
  NDArray x = wave({kBatch, s, s}, 0.f), z = wave({kBatch}, 1.f);
  DeclarableOp* op = OpRegistry::instance().find("matrix_determinant");
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
  state.SetBytesProcessed(state.iterations() * kBatch * (s * s + 1) * int64_t{sizeof(float)});
  set_num_threads(0);
}

// matrix_inverse of 2^20 3 x 3 float32 matrices (Note [Small inverses]).
void BM_Inverse(benchmark::State& state) {
  set_num_threads(static_cast<int>(state.range(0)));
  const int64_t s = state.range(1);
  NDArray x = wave({kBatch, s, s}, 0.f), z = wave({kBatch, s, s}, 1.f);
  // Diagonally dominant, so that no matrix is singular.
  float* p = x.data_as<float>();
  for (int64_t i = 0; i < kBatch; ++i)
    for (int64_t d = 0; d < s; ++d) p[(i * s + d) * s + d] += 4.f;
  DeclarableOp* op = OpRegistry::instance().find("matrix_inverse");
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
  state.SetBytesProcessed(state.iterations() * kBatch * s * s * 2 * int64_t{sizeof(float)});
  set_num_threads(0);
}

}  // namespace

BENCHMARK(BM_StreamCopy)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MatmulBatched)
    ->ArgsProduct({{1, 2}, {2, 3, 4, 8}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Determinant)->ArgsProduct({{1}, {2, 3}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Inverse)->ArgsProduct({{1}, {2, 3}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_BlasPerMatrix)->ArgsProduct({{1}, {2, 3, 4, 8}})->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
