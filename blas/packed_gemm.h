// A GEMM whose B stays the same over many calls (weights): B is reordered
// once into the layout oneDNN's matmul kernels read best, then
// C = A * op(B) runs as often as wanted without repacking. A leaf like
// gemm.h: pointers and extents, no NDArray.
//
// Note [Packed GEMM]
//  OpenBLAS packs both operands on every call. For small M (a recurrent
//  layer's state, [batch, H] times [H, 4H], or a batch-1 MLP) packing the
//  weights costs as much as the multiply itself: an LSTM step with batch 16
//  and H = 512 spent 19% of its time in OpenBLAS' sgemm_incopy. oneDNN's
//  matmul with weights in format `any` names a blocked layout; B is
//  reordered into it once (pack) and each run() multiplies from it. The
//  primitive is planned for one M and one thread count, fixed at pack().
//  Only oneDNN's blocked kernels (brgemm, AVX-512 and up) read a packed B:
//  where its matmul is its plain GEMM ("gemm:jit", as on AVX2 machines)
//  pack() fails and callers use blas::gemm. On one thread of an AVX2 AMD
//  EPYC that matmul took 14.4 ms on 128x768x3072 with B packed, OpenBLAS
//  8.9 (ONNX Runtime 8.9 in the same session).
//  A single row (M = 1) on AVX-512 runs libops' own panel GEMV instead
//  (Note [Packed GEMV] in packed_gemm.cpp), which also applies a dense
//  layer's bias and activation as it stores C. float32 only; oneDNN turned off
//  (LIBOPS_DNNL=0) or absent from the build makes pack() fail, and callers
//  use blas::gemm instead.
#pragma once

#include <cstdint>
#include <memory>

#include "libops/core/status.h"

namespace libops::blas {

// c = act(c + bias) on each row of C as it is stored: a dense layer's
// epilogue. The activations keep NaN, as the relu ops do.
struct GemmEpilogue {
  const float* bias = nullptr;  // [n], or null
  int activation = 0;           // 0 none, 1 relu max(x, 0), 2 relu6 min(max(x, 0), 6)
  bool empty() const { return bias == nullptr && activation == 0; }
};

class PackedGemmF32 {
 public:
  PackedGemmF32();
  ~PackedGemmF32();
  PackedGemmF32(const PackedGemmF32&) = delete;
  PackedGemmF32& operator=(const PackedGemmF32&) = delete;

  // op(B) is k x n: B stored k x n (ldb >= n), or n x k when trans_b
  // (ldb >= k). B is read now and not kept. Later runs multiply A [m, k]
  // (lda >= k) into C [m, n] (ldc >= n) on `threads` threads.
  Status pack(int64_t m, int64_t n, int64_t k, const float* b, int64_t ldb, bool trans_b, int64_t lda, int64_t ldc,
              int threads);
  // c = a * op(B), with pack()'s extents and leading dimensions, then the
  // epilogue where applies_epilogue() (an epilogue it cannot apply is an
  // error, not ignored).
  Status run(const float* a, float* c, const GemmEpilogue& epilogue = {});
  // Whether run() applies an epilogue: the single-row kernel does, in
  // registers; oneDNN's matmul leaves it to the caller.
  bool applies_epilogue() const;
  bool packed() const { return impl_ != nullptr; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace libops::blas
