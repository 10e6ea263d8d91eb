// A GEMM whose B stays the same over many calls (weights): B is reordered
// once into the layout oneDNN's matmul kernels read best, then
// C = A * op(B) runs as often as wanted without repacking. A leaf like
// gemm.h: pointers and extents, no NDArray.
//
// Note [Packed GEMM]
//  OpenBLAS packs both operands on every call. For small M (a recurrent
//  layer's state, [batch, H] times [H, 4H], or a batch-1 MLP) packing the
//  weights costs as much as the multiply itself: an LSTM step with batch 16
//  and H = 512 spent 19% of its time in OpenBLAS' sgemm_incopy. So B is
//  reordered once (pack) and each run() multiplies from it, by the kernels
//  each machine does best:
//  - AVX2 machines (no AVX-512): libops' panel GEMM (Note [Panel GEMM] in
//    panel_gemm.h), for any M, oneDNN or not. oneDNN's matmul there is its
//    plain GEMM ("gemm:jit"), which reads no packed B: on one thread of an
//    AVX2 AMD EPYC it took 14.4 ms on 128x768x3072, OpenBLAS 8.9.
//  - AVX-512: oneDNN's matmul with weights in format `any` (its blocked
//    brgemm kernels), planned for one M and one thread count, fixed at
//    pack(); a single row (M = 1) runs libops' own panel GEMV instead
//    (Note [Packed GEMV] in packed_gemm.cpp).
//  The panel kernels apply a dense layer's bias and activation as they
//  store C. float32 only. Where neither applies (oneDNN turned off with
//  LIBOPS_DNNL=0 or absent, on a machine that is not AVX2, or the baseline
//  ISA forced), pack() fails and callers use blas::gemm instead.
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
  // The same for m rows of A (lda and ldc as packed): any m where
  // any_rows(), else pack()'s m only.
  Status run_rows(int64_t m, const float* a, float* c, const GemmEpilogue& epilogue = {});
  // Whether the plan takes any row count: libops' panel GEMM does (its
  // packing does not depend on m); oneDNN's matmul and the single-row GEMV
  // are planned for pack()'s m.
  bool any_rows() const;
  // Whether run() applies an epilogue: libops' kernels do, in registers;
  // oneDNN's matmul leaves it to the caller.
  bool applies_epilogue() const;
  bool packed() const { return impl_ != nullptr; }
  // The plan: "panels", "gemv", "onednn", or "none" before a pack().
  const char* kind() const;

  struct Impl;  // the plan, opaque

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace libops::blas
