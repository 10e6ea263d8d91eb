// libops' own packed-weights GEMM for AVX2 machines: op(B) is laid out once
// in panels of 16 columns, then C = A * op(B) (+ a dense layer's bias and
// activation) runs for any number of rows with no packing per call. A leaf
// like gemm.h: pointers and extents, no NDArray.
//
// Note [Panel GEMM]
//  Where oneDNN's matmul is its plain GEMM (machines without AVX-512, Note
//  [Packed GEMM]), nothing read a packed B: the weights of every dense
//  layer and every recurrent step went through OpenBLAS, which packs B on
//  each call. For a few rows that packing is most of the work (an LSTM
//  step of 16 x 512 by 512 x 2048: OpenBLAS 0.69 ms), and oneDNN's plain
//  GEMM, faster on small products, cannot be kept for them alone: which
//  kernel a row met would then depend on how many rows came with it.
//  So B is packed here into ceil(n / 16) panels of k x 16 floats (each
//  panel one sequential stream, the last zero-padded), and one family of
//  FMA kernels multiplies: 6 rows by 16 columns (12 accumulators), the last
//  m % 6 rows beside them panel by panel, and fewer than six rows in all
//  r rows by 16 * p columns with r * p <= 6 (a single row reads six panels
//  at a time). K runs in slices of 256; a slice after the first continues
//  from the partial sums stored in C. A's rows are packed per slice,
//  interleaved for the kernels' broadcasts, and each block of six rows
//  (6 KB of A: L1) passes over a group of eight panels' slices (128 KB:
//  L2) before the next block; every panel's slice under all the rows in
//  turn kept B in L1 but took A's broadcasts from L2, 6-10% slower.
//  Every element of C is therefore the same chain of FMAs, in k order from
//  zero, whichever kernel, row block, slice split or thread computed it:
//  results do not depend on m, on the thread count or on where a row sits
//  in A (the Ray test splits a batch over actors and compares bits).
//
// Note [Narrow products]
//  B of at most 8 columns (a classifier head over a bag of 8,000 n-grams,
//  a regression output) wastes most of a 16-wide panel: four columns did
//  a quarter of useful work, and A was still packed per slice. Such a B is
//  also kept as its columns, each k contiguous floats, and every row of C
//  is n dot products of A's row, read once in place: per step of 8 values
//  of k one load of A and one of each column, 8-lane partial sums (two or
//  four sets where n is small, so that the adds do not wait on each other)
//  summed in a fixed order at the end. Still one chain per element that
//  depends on nothing but the row: the guarantee above holds.
//  bench/core_bench BM_WeightsGemmPacked, medians of 5, panels -> dot
//  products at 1 / 2 threads: [64, 8000] x [8000, 4] 356 / 206 -> 124 / 70
//  us (OpenBLAS 237 / 279), [128, 768] x [768, 8] 55 / 36 -> 25 / 17 us,
//  [1, 512] x [512, 1] 1.6 -> 0.05 us.
#pragma once

#include <cstdint>
#include <memory>

#include "blas/packed_gemm.h"

namespace libops::blas {

class PanelGemmF32 {
 public:
  // Products this narrow run as dot products (Note [Narrow products]).
  static constexpr int64_t kNarrowColumns = 8;

  // The kernels need AVX2 and FMA (cpu_isa() at avx2 or above).
  static bool supported();

  // op(B) is k x n: B stored k x n (ldb >= n), or n x k when trans_b
  // (ldb >= k). B is read now and not kept. false: out of memory.
  bool pack(int64_t n, int64_t k, const float* b, int64_t ldb, bool trans_b);
  // C [m, n] (row stride ldc) = A [m, k] (row stride lda) * op(B), then
  // bias and activation; on up to `threads` threads.
  void run(int64_t m, const float* a, int64_t lda, float* c, int64_t ldc, const GemmEpilogue& epilogue,
           int threads) const;

  int64_t n() const { return n_; }
  int64_t k() const { return k_; }

 private:
  struct FreeDeleter {
    void operator()(float* p) const;
  };
  bool pack_panels(int64_t n, int64_t k, const float* b, int64_t ldb, bool trans_b);
  // C's rows [r0, r1) from columns_ (Note [Narrow products]).
  void run_narrow(int64_t r0, int64_t r1, const float* a, int64_t lda, float* c, int64_t ldc,
                  const GemmEpilogue& epilogue) const;

  int64_t n_ = 0, k_ = 0, panels_ = 0;
  std::unique_ptr<float, FreeDeleter> data_;     // panels_ x k_ x 16, 64-byte aligned
  std::unique_ptr<float, FreeDeleter> columns_;  // n_ x k_ where n_ <= kNarrowColumns, else none
};

}  // namespace libops::blas
