// Element-wise draws of Note [Threefry random numbers] (threefry.h): what
// random_uniform, random_normal and random_bernoulli fill their output with,
// and random_shuffle's sort keys. The CPU loop is in draw.cpp; a backend
// registers its kernel (draw.cu) in draw_device_kernel. Both call
// draw_value, so they compute the same lines.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/context.h"
#include "libops/ops/device_kernel.h"
#include "libops/ops/random/samplers.h"

namespace libops::ops {

enum class DrawKind : int { kBits32, kUniform, kNormal, kBernoulli };

struct DrawDesc {
  DrawKind kind = DrawKind::kUniform;
  rng::Precision precision = rng::Precision::kFloat32;  // uniform and normal
  rng::ThreefryKey key;
  int64_t n = 0;
  // uniform and normal: the uniform's lo and span, values of the precision
  // (uniform_bounds, normal_bounds); normal: mean and stddev, values of the
  // compute type; bernoulli: p.
  double lo = 0, span = 0, mean = 0, stddev = 0;
  float p = 0;
};

// Element i of a uniform, normal or bernoulli draw, in the compute type.
template <rng::Precision P>
LIBOPS_HOST_DEVICE inline rng::compute_t<P> draw_value(const DrawDesc& d, int64_t i) {
  using C = rng::compute_t<P>;
  switch (d.kind) {
    case DrawKind::kUniform: return rng::uniform<P>(d.key, i, C(d.lo), C(d.span));
    case DrawKind::kNormal: return rng::normal<P>(d.key, i, C(d.lo), C(d.span), C(d.mean), C(d.stddev));
    default: return rng::bernoulli(d.key, i, d.p) ? C(1) : C(0);
  }
}

// What a draw writes: uint32 bits, float64 for float64 draws, else float32
// (a 16-bit draw's values are exact there).
DataType draw_storage_dtype(const DrawDesc& d);

// out: dense C-order, draw_storage_dtype(d), d.n elements, on the device.
using DrawDeviceFn = Status (*)(Device device, const DrawDesc& d, NDArray& out);
extern DeviceKernel<DrawDeviceFn> draw_device_kernel;

// Fills z (any dtype and layout; d.n = z.length()) with d's draws on
// block.device(): element i goes to z's C-order position i.
Status draw_into(const Context& block, const DrawDesc& d, NDArray& z);

// The precision of a float dtype.
rng::Precision draw_precision(DataType t);

// d.lo and d.span of a uniform over [min, max) at dtype t, rounded as Note
// [Threefry random numbers] says; an error naming the op when either bound
// or the span is not finite in t, or min > max.
Status uniform_bounds(const Context& block, DataType t, double min, double max, DrawDesc& d);
// d.lo, d.span, d.mean and d.stddev of a normal at dtype t.
void normal_bounds(DataType t, double mean, double stddev, DrawDesc& d);

// The output shape of random_uniform, random_normal and random_bernoulli:
// their "shape" int list (i args, or input 0 as an integer vector).
Status draw_shape(const Context& block, Dims& shape);

}  // namespace libops::ops
