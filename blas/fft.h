// Batched one-dimensional discrete Fourier transforms on raw memory.
//
// Like gemm.h and linalg.h this is a leaf: pointers and extents, no NDArray.
// A complex number is an interleaved (real, imaginary) pair of float or
// double, the layout of std::complex, cufftComplex and numpy's complex64 /
// complex128. Data is a dense C-order block [outer, n, inner]: outer * inner
// signals of length n along the middle dimension, so one call transforms
// any one axis of a dense array. float32 and float64 only; other dtypes are
// kNotImplemented.
//
// Note [DFT conventions]
// Forward:  X[k] = sum_t x[t] * exp(-2 pi i t k / n)
// Inverse:  x[t] = scale * sum_k X[k] * exp(+2 pi i t k / n)
// The ops pass scale = 1 / n to the inverse, numpy's default ("backward")
// normalisation. A real signal's spectrum is conjugate-symmetric, X[n - k] =
// conj(X[k]), so the real transforms keep only bins k = 0 .. n / 2, that is
// h = n / 2 + 1 of them. The complex-to-real transform reads those bins and
// takes the others as their conjugates; the imaginary parts of bin 0 and
// (n even) bin n / 2 cannot reach a real result and are ignored, as numpy
// does.
#pragma once

#include <cstdint>

#include "libops/core/device.h"
#include "libops/core/dtype.h"
#include "libops/core/status.h"

namespace libops::blas {

// The number of bins a real transform of length n keeps.
constexpr int64_t real_fft_bins(int64_t n) { return n / 2 + 1; }

// Complex to complex: `in` to `out`, both complex [outer, n, inner], the
// forward transform or the inverse one, each output multiplied by `scale`.
// n >= 1. in == out transforms in place; otherwise they do not overlap and
// `in` is not written.
Status fft_c2c_on(Device device, DataType dtype, bool inverse, int64_t outer, int64_t n, int64_t inner, const void* in,
                  void* out, double scale);

// Real to complex, forward: `in` real [outer, n, inner] to `out` complex
// [outer, h, inner], h = real_fft_bins(n). n >= 1; in and out do not overlap.
Status fft_r2c_on(Device device, DataType dtype, int64_t outer, int64_t n, int64_t inner, const void* in, void* out);

// Complex to real, inverse: `in` complex [outer, m, inner] holds bins 0 ..
// m - 1 (m >= 1); the first min(m, h) are used and missing ones are zeros
// (numpy's cropping and padding for an output length n). `out` real
// [outer, n, inner] gets the inverse times `scale`. n >= 1; `in` is not
// written; in and out do not overlap.
Status fft_c2r_on(Device device, DataType dtype, int64_t outer, int64_t m, int64_t n, int64_t inner, const void* in,
                  void* out, double scale);

// What a device backend provides (blas/fft_cuda.cu: cuFFT), with the same
// contracts, memory on device `device_index`.
struct DeviceFft {
  Status (*c2c)(int device_index, DataType dtype, bool inverse, int64_t outer, int64_t n, int64_t inner,
                const void* in, void* out, double scale);
  Status (*r2c)(int device_index, DataType dtype, int64_t outer, int64_t n, int64_t inner, const void* in,
                void* out);
  Status (*c2r)(int device_index, DataType dtype, int64_t outer, int64_t m, int64_t n, int64_t inner, const void* in,
                void* out, double scale);
};
// Called by a backend when the library loads; `fns` must outlive the
// library (tests may swap in their own and put back what they found).
void register_device_fft(DeviceType type, const DeviceFft* fns);
const DeviceFft* device_fft(DeviceType type);

}  // namespace libops::blas
