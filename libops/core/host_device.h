// LIBOPS_HOST_DEVICE marks code that runs on the CPU and, compiled by nvcc,
// on CUDA devices too: the legacy functors, half/bfloat16 conversion, the
// random streams. In a plain C++ build it expands to nothing.
#pragma once

#if defined(__CUDACC__)
#define LIBOPS_HOST_DEVICE __host__ __device__
#else
#define LIBOPS_HOST_DEVICE
#endif
