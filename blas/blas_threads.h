// libops' thread count for the BLAS and LAPACK calls of the CPU backend.
//
// OpenBLAS keeps a thread pool of its own, sized by OPENBLAS_NUM_THREADS or
// the core count (the pthread build ignores OpenMP's settings), so without
// this the count a user gives libops (LIBOPS_NUM_THREADS,
// ops_set_num_threads) would not reach GEMM, potrf or trsm: a process
// limited to one thread would still run its matmuls on every core.
#pragma once

namespace libops::blas {

// Hands OpenBLAS libops' current thread count when it differs from the one
// last handed over; call before each BLAS or LAPACK call (an atomic load
// when nothing changed).
void follow_libops_threads();

}  // namespace libops::blas
