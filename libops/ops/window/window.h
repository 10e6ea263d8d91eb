// Sliding windows over the last K dims of an array: the geometry unfold and
// fold share, the index arithmetic their kernels share (host and device),
// and the kernels a backend registers for them.
//
// Note [Sliding windows]
// unfold and fold follow the window ops of Nx's backend interface (PyTorch's
// nn.functional.unfold/fold generalised to K spatial dims, without folding a
// channel dim into the taps: every dim before the last K is a leading dim,
// kept as it is).
//   unfold: x (leading..., S0, ..., S(K-1)) -> (leading..., taps, L)
//   fold:   x (leading..., taps, L)         -> (leading..., S0, ..., S(K-1))
// with, per spatial dim d, kernel k, stride s, dilation r and padding
// (before b, after a) of zeros:
//   windows  n = floor((S + b + a - r * (k - 1) - 1) / s) + 1, which needs
//            S + b + a >= r * (k - 1) + 1 (the dilated kernel fits)
//   taps     = k0 * ... * k(K-1), the kernel offsets (j0, ..., j(K-1)) in
//            row-major order (the last kernel dim varies fastest)
//   L        = n0 * ... * n(K-1), the windows (w0, ..., w(K-1)) in row-major
//            order (the last spatial dim varies fastest)
//   unfold(x)[..., tap, window] = x[..., p0, ..., p(K-1)], p = w * s + j * r - b,
//            or 0 where some p falls outside [0, S) (in the padding)
// The args are one int list (a list takes every remaining i position,
// Note [Positional arguments]): K kernel sizes, K strides, K dilations,
// then a (before, after) padding pair per spatial dim, so K = values / 5;
// fold puts its K output sizes first (K = values / 6).
//
// fold is the adjoint: each element (leading..., p) of z is the sum of the
// entries of x whose tap and window land on p (none: 0). So
// fold(unfold(x)) = x * (how many windows cover each element).
//
// fold gathers: every output element visits the taps in ascending order
// and adds the entries that land on it, in x's compute type (Note [Compute
// types]; integers wrap). No atomics, so the sum's order is fixed and a
// device gives the CPU's bits, floats included.
//
// The ops stage their arrays dense in C order (unfold: x's dtype, moved by
// element size; fold: the compute dtype); the leading dims then collapse to
// one count, `batch`.
#pragma once

#include <cstdint>
#include <type_traits>

#include "libops/array/dims.h"
#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/context.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

// One unfold or fold call, resolved against its input (Note [Sliding windows]).
struct WindowGeometry {
  int k = 0;            // spatial dims
  int64_t batch = 1;    // product of the leading dims
  int64_t taps = 1;     // product of the kernel sizes
  int64_t windows = 1;  // L
  int64_t volume = 1;   // elements of one image: product of `spatial`
  int64_t spatial[kMaxRank] = {};  // the image's extents: x's for unfold, z's for fold
  int64_t kernel[kMaxRank] = {}, stride[kMaxRank] = {}, dilation[kMaxRank] = {}, pad_before[kMaxRank] = {};
  int64_t counts[kMaxRank] = {};   // windows along each spatial dim
};

// Where tap `tap` of window `window` reads in one image (C order), or -1
// when it lands in the padding.
LIBOPS_HOST_DEVICE inline int64_t window_tap_offset(const WindowGeometry& g, int64_t tap, int64_t window) {
  int64_t offset = 0, scale = 1;
  for (int d = g.k - 1; d >= 0; --d) {
    const int64_t j = tap % g.kernel[d], w = window % g.counts[d];
    tap /= g.kernel[d];
    window /= g.counts[d];
    const int64_t p = w * g.stride[d] + j * g.dilation[d] - g.pad_before[d];
    if (p < 0 || p >= g.spatial[d]) return -1;
    offset += p * scale;
    scale *= g.spatial[d];
  }
  return offset;
}

// The window whose tap `tap` lands on image position `pos` (one coordinate
// per spatial dim), or -1 when none does.
LIBOPS_HOST_DEVICE inline int64_t window_covering(const WindowGeometry& g, const int64_t* pos, int64_t tap) {
  int64_t window = 0, scale = 1;
  for (int d = g.k - 1; d >= 0; --d) {
    const int64_t j = tap % g.kernel[d];
    tap /= g.kernel[d];
    const int64_t q = pos[d] + g.pad_before[d] - j * g.dilation[d];  // w * stride for the window w
    if (q < 0 || q % g.stride[d] != 0 || q / g.stride[d] >= g.counts[d]) return -1;
    window += q / g.stride[d] * scale;
    scale *= g.counts[d];
  }
  return window;
}

// a + b wrapping for integers (no signed overflow), plain for floats.
template <typename C>
LIBOPS_HOST_DEVICE inline C window_add(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// Output element i of fold (C order over batch x volume): the sum over the
// taps, in ascending order, of the entries of x (batch, taps, windows) that
// land on it.
template <typename C>
LIBOPS_HOST_DEVICE inline C fold_element(const WindowGeometry& g, const C* x, int64_t i) {
  const int64_t n = i / g.volume;
  int64_t rest = i - n * g.volume, pos[kMaxRank];
  for (int d = g.k - 1; d >= 0; --d) {
    pos[d] = rest % g.spatial[d];
    rest /= g.spatial[d];
  }
  const C* xn = x + n * g.taps * g.windows;
  C acc = C(0);
  for (int64_t t = 0; t < g.taps; ++t) {
    const int64_t w = window_covering(g, pos, t);
    if (w >= 0) acc = window_add(acc, xn[t * g.windows + w]);
  }
  return acc;
}

// Parses and checks the op's window list (unfold: 5K values; fold: K output
// sizes, then the same 5K) against input 0 and gives the output's shape.
// The shape functions and the bodies both call it; errors name the op.
Status window_geometry(const Context& block, bool fold, WindowGeometry& g, Dims& out_shape);

// The dtype fold sums in (Note [Compute types]): float32 for float16,
// bfloat16 and float32, float64, int32, int64 or uint64.
DataType fold_compute_dtype(DataType t);

// The kernels, on dense C-order arrays. unfold moves elements of
// `elem_size` bytes (1, 2, 4 or 8) from x (batch, spatial...) to z (batch,
// taps, windows); fold sums x (batch, taps, windows) into z (batch,
// spatial...), both of the compute dtype `dt` (float32, float64, int32,
// int64 or uint64).
void unfold_cpu(const WindowGeometry& g, size_t elem_size, const void* x, void* z);
void fold_cpu(const WindowGeometry& g, DataType dt, const void* x, void* z);

using UnfoldDeviceFn = Status (*)(Device device, const WindowGeometry& g, const NDArray& x, NDArray& z);
using FoldDeviceFn = Status (*)(Device device, const WindowGeometry& g, const NDArray& x, NDArray& z);
extern DeviceKernel<UnfoldDeviceFn> unfold_device_kernel;
extern DeviceKernel<FoldDeviceFn> fold_device_kernel;

}  // namespace libops::ops
