// How many threads OpenBLAS runs a call of the CPU backend on.
//
// OpenBLAS keeps a thread pool of its own, sized by OPENBLAS_NUM_THREADS or
// the core count (the pthread build ignores OpenMP's settings), so left
// alone it would not follow the count a user gives libops
// (LIBOPS_NUM_THREADS, ops_set_num_threads): a process limited to one
// thread would still run its matmuls on every core. GEMMs run OpenBLAS
// single-threaded and are split over libops' own threads instead (Note
// [GEMM threads] in gemm_cpu.cpp); potrf and trsm, which libops does not
// split, get libops' count.
#pragma once

namespace libops::blas {

// Call before a GEMM or GEMV: OpenBLAS on the calling thread only.
void blas_single_threaded();

// Call before potrf or trsm: OpenBLAS on libops' current thread count.
void blas_threads_follow_libops();

}  // namespace libops::blas
