// lrn: local response normalization across channels, as ONNX LRN.
//
//   input   x: float16, bfloat16, float32 or float64, [N, C, ...], rank >= 2
//   i arg   size, required, >= 1: the number of channels in a window
//   t args  alpha (default 1e-4), beta (default 0.75), bias (default 1.0)
//   output  x's dtype and shape:
//           z[n, c, s] = x[n, c, s] / (bias + alpha / size * sq)^beta,
//           sq = sum of x[n, c', s]^2 over c' in [c - floor((size - 1) / 2),
//           c + ceil((size - 1) / 2)] within [0, C)
//
// Computed in float (double for float64) on dense staged arrays
// (ops/device_copy.h): on the CPU here, parallel over (n, c) with the
// positions of a channel as the vectorized inner loop; on a device by the
// kernel registered in lrn_device_kernel (lrn.cu for CUDA).
#include "libops/ops/nn/lrn.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nn/conv_utils.h"

namespace libops::ops::nn {

DeviceKernel<LrnDeviceFn> lrn_device_kernel;

namespace {

Status lrn_desc(Context& block, LrnDesc& d) {
  const NDArray& x = *block.input(0);
  REQUIRE_TRUE(x.rank() >= 2, OPS_ERR_SHAPE, "x%s has rank %d: it must be [N, C, ...], rank >= 2",
               x.shape().str().c_str(), x.rank());
  const int64_t size = block.i_arg(0);
  d.batch = x.dim(0);
  d.channels = x.dim(1);
  d.spatial = 1;
  for (int k = 2; k < x.rank(); ++k) d.spatial *= x.dim(k);
  d.before = (size - 1) / 2;
  d.after = size / 2;  // ceil((size - 1) / 2)
  d.alpha_over_size = block.t_arg(0) / static_cast<double>(size);
  d.beta = block.t_arg(1);
  d.bias = block.t_arg(2);
  return Status::ok();
}

template <typename C>
void lrn_rows(const LrnDesc& d, const C* x, C* z) {
  const int64_t s_len = d.spatial;
  parallel_for(d.batch * d.channels, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, s_len)),
               [&](int64_t begin, int64_t end) {
                 std::vector<C> sq(static_cast<size_t>(s_len));
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t n = r / d.channels, c = r % d.channels;
                   const int64_t lo = std::max<int64_t>(0, c - d.before);
                   const int64_t hi = std::min<int64_t>(d.channels - 1, c + d.after);
                   std::fill(sq.begin(), sq.end(), C(0));
                   for (int64_t k = lo; k <= hi; ++k) {
                     const C* xk = x + (n * d.channels + k) * s_len;
                     for (int64_t s = 0; s < s_len; ++s) sq[s] += xk[s] * xk[s];
                   }
                   const C* xr = x + r * s_len;
                   C* zr = z + r * s_len;
                   const C a = static_cast<C>(d.alpha_over_size), b = static_cast<C>(d.bias);
                   const C e = static_cast<C>(-d.beta);
                   for (int64_t s = 0; s < s_len; ++s) zr[s] = xr[s] * std::pow(b + a * sq[s], e);
                 }
               });
}

}  // namespace

void lrn_cpu(const LrnDesc& desc, DataType ct, const void* x, void* z) {
  if (ct == DataType::kFloat64) lrn_rows(desc, static_cast<const double*>(x), static_cast<double*>(z));
  else lrn_rows(desc, static_cast<const float*>(x), static_cast<float*>(z));
}

}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(lrn, 1, 1, true, 0, 1) {
  using namespace libops;
  using namespace libops::ops;
  nn::LrnDesc d;
  RETURN_IF_ERROR(nn::lrn_desc(block, d));
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray& z = *OUTPUT_VARIABLE(0);
  if (z.length() == 0) return Status::ok();
  const DataType ct = nn::float_compute_dtype(x.dtype());
  NDArray xd;
  RETURN_IF_ERROR(dense_on_device(block, x, ct, xd));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, ct));
  NDArray& t = out.target();
  if (block.device().is_cpu()) {
    RETURN_IF_ERROR(sync_for_kernel(block.device(), {&xd}, t));
    nn::lrn_cpu(d, ct, xd.data(), t.data());
    t.buffer()->mark_host_written();
  } else {
    const nn::LrnDeviceFn fn = nn::lrn_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, xd, t)));
  }
  return out.finish(block, z);
}

DECLARE_SHAPE_FN(lrn) {
  using namespace libops;
  ops::nn::LrnDesc d;
  RETURN_IF_ERROR(ops::nn::lrn_desc(block, d));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(lrn) {
  // On a device through lrn_device_kernel (lrn.cu for CUDA).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(lrn) {
  args.describe("Local response normalization across neighbouring channels of NCHW x (ONNX LRN).");
  args.input("x", "[N, C, ...], rank >= 2");
  args.output("z", "x / (bias + alpha / size * sum of x^2 over the channel window)^beta; x's dtype and shape");
  args.i_arg("size", "the channels in a window, centred (one more after than before when even)").positive();
  args.t_arg("alpha", 1e-4, "the scale of the sum of squares").finite();
  args.t_arg("beta", 0.75, "the exponent").finite();
  args.t_arg("bias", 1.0, "added before the power").finite();
}
