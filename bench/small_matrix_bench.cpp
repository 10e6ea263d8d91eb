// Batched products of small matrices (Note [Small matrices] in
// blas/small_gemm.h), measured in one binary
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

#include <cstdint>

#include "bench_util.h"
#include "blas/blas_threads.h"

using namespace libops;
using libops::bench::run_op;
using libops::bench::wave;

namespace {

constexpr int64_t kBatch = int64_t{1} << 20;

void BM_StreamCopy(benchmark::State& state) { libops::bench::stream_copy(state, int64_t{16} << 20); }

// The matmul op on a batch of S x S matrices: range(0) threads, range(1) S.
void BM_MatmulBatched(benchmark::State& state) {
  const int64_t s = state.range(1);
  NDArray x = wave({kBatch, s, s}, 0.f), y = wave({kBatch, s, s}, 2.f), z = wave({kBatch, s, s}, 3.f);
  run_op(state, "matmul", {&x, &y}, {&z}, {}, kBatch * s * s * 3 * int64_t{sizeof(float)});
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

// matrix_determinant of 2^20 S x S float32 matrices (Note [Small
// determinants]: cofactors, where larger matrices take LU factors).
void BM_Determinant(benchmark::State& state) {
  const int64_t s = state.range(1);
  NDArray x = wave({kBatch, s, s}, 0.f), z = wave({kBatch}, 1.f);
  run_op(state, "matrix_determinant", {&x}, {&z}, {}, kBatch * (s * s + 1) * int64_t{sizeof(float)});
}

// matrix_inverse of 2^20 S x S float32 matrices (Note [Small inverses]).
void BM_Inverse(benchmark::State& state) {
  const int64_t s = state.range(1);
  NDArray x = wave({kBatch, s, s}, 0.f), z = wave({kBatch, s, s}, 1.f);
  // Diagonally dominant, so that no matrix is singular.
  float* p = x.data_as<float>();
  for (int64_t i = 0; i < kBatch; ++i)
    for (int64_t d = 0; d < s; ++d) p[(i * s + d) * s + d] += 4.f;
  run_op(state, "matrix_inverse", {&x}, {&z}, {}, kBatch * s * s * 2 * int64_t{sizeof(float)});
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
