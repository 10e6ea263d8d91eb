// LIBOPS_HOST_DEVICE marks code that runs on the CPU and, compiled by nvcc,
// on CUDA devices too: the legacy functors, half/bfloat16 conversion, the
// random streams. In a plain C++ build it expands to nothing.
#pragma once

#if defined(__CUDACC__)
#define LIBOPS_HOST_DEVICE __host__ __device__
#else
#define LIBOPS_HOST_DEVICE
#endif

// LIBOPS_FORCE_INLINE for small math helpers that must inline into the
// vectorized loops: left to its heuristics, GCC sometimes keeps such a
// helper a call inside a large kernel file, and the loop then runs scalar.
#if defined(__CUDACC__)
#define LIBOPS_FORCE_INLINE __forceinline__
#elif defined(__GNUC__)
#define LIBOPS_FORCE_INLINE inline __attribute__((always_inline))
#else
#define LIBOPS_FORCE_INLINE inline
#endif
