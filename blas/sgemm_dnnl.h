// float32 GEMM through oneDNN's matmul primitives (Note [GEMM by matmul
// primitives] in sgemm_dnnl.cpp), whose kernels are generated at run time
// for the machine it runs on. A leaf like gemm.h: pointers and dims.
// blas/gemm_cpu.cpp sends float32 GEMMs here when OpenBLAS runs kernels
// below the machine's, and large ones always (Note [OpenBLAS core type]
// and Note [GEMM threads] there).
#pragma once

#include <cstdint>

namespace libops::blas {

// c = alpha * op(a) * op(b) + beta * c, row-major with gemm.h's
// conventions, on `threads` OpenMP threads led by the calling one. False,
// with c untouched, where oneDNN is absent from the build, turned off
// (LIBOPS_DNNL=0) or failed.
bool sgemm_dnnl(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                const float* b, int64_t ldb, float beta, float* c, int64_t ldc, int threads = 1);

}  // namespace libops::blas
