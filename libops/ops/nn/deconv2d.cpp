// deconv2d: 2-D transposed convolution (ONNX ConvTranspose, PyTorch
// ConvTranspose2d, TF conv2d_transpose, libnd4j deconv2d): each input pixel
// scatters its channels, through the filters, over a window of the output.
//
//   inputs  x        [N, Cin, H, W] (NCHW), [N, H, W, Cin] (NHWC) or
//                    [N, ceil(Cin / b), H, W, b] (NCHWc: Note
//                    [Channel-blocked layout] in conv_utils.h)
//           weights  in the layout weights_format names:
//                    1 = [Cin, Cout, kH, kW] (the default: ONNX's and
//                    PyTorch's), 0 = [kH, kW, Cout, Cin] (libnd4j's
//                    default, TF's), 2 = [Cin, kH, kW, Cout]
//           bias     optional, [Cout]
//           all of one dtype: float16, bfloat16, float32 or float64
//   i args  0..8  kH, kW, sH, sW, pH, pW, dH, dW, same_mode (Note [Window
//                 arguments] in conv_utils.h, read as for the convolution
//                 this one transposes); kH or kW = 0: from the weights
//           9     data_format: 0 = NCHW (default), 1 = NHWC, 2 = NCHWc
//                 (float32 through oneDNN, else through NCHW copies)
//           10    weights_format (above)
//           11, 12  output padding along H and W (ONNX output_padding):
//                 rows and columns added at the bottom and right (the
//                 padding cropped there shrinks by as much; rows past it
//                 get only the bias); each below its stride or dilation
//   output  [N, Cout, oH, oW] (NCHW), [N, oH, oW, Cout] (NHWC) or
//           [N, ceil(Cout / b), oH, oW, b] (NCHWc), x's dtype
//           explicit: oH = (H - 1) * sH + (kH - 1) * dH + 1 - 2 * pH + opH
//           SAME:     oH = H * sH + opH; the padding that makes it,
//                     max((H - 1) * sH + eff_kH - H * sH, 0), is taken with
//                     the smaller half on top, as conv2d's SAME does
//
//   z[n, co, oh, ow] = bias[co] + sum over ci, ih, iw, kh, kw with
//       oh = ih*sH - pad_top + kh*dH and ow = iw*sW - pad_left + kw*dW of
//       x[n, ci, ih, iw] * w[ci, co, kh, kw]
//
// On the CPU, float32 goes to oneDNN's deconvolution where it takes the
// case (not with output padding). Otherwise, and as the reference: per
// image, one GEMM gives cols = w^T x ([Cout*kH*kW, H*W]
// for NCHW, [H*W, Cout*kH*kW] for NHWC) in the compute type (float for
// float16/bfloat16/float32, double for float64), and each output pixel
// then gathers the columns that land on it (no two threads write one
// pixel). On another device: the backend's deconv2d (cuDNN's backward-data
// convolution for CUDA), which refuses what it cannot express (Note [nn
// ops on devices]).
#include <algorithm>

#include "blas/conv_dnnl.h"
#include "blas/gemm.h"
#include "libops/core/log.h"
#include "libops/core/parallel.h"
#include "libops/ops/nn/conv2d.h"
#include "libops/ops/nn/conv_utils.h"
#include "libops/ops/nn/nn_device.h"
#include "libops/ops/shape/block_channels.h"

namespace libops::ops::nn {
namespace {

constexpr int64_t kPixelGrain = 256;  // output rows' pixels one task gathers, at least

struct DeconvPlan {
  NDArray w;  // [Cin, Cout, kH, kW], whatever weights_format
  Window2d win;
  Geometry2d g;  // n, c (= Cin), h, w of x; oh, ow, pad_top, pad_left of z
  int64_t cout = 0;
  bool has_bias = false;
};

const char* const kLayouts[3] = {"[kH, kW, Cout, Cin]", "[Cin, Cout, kH, kW]", "[Cin, kH, kW, Cout]"};

// Output extent and padding before along one dim (header comment).
Status deconv_extent(Context& block, const char* dim_name, const NDArray& x, int64_t in, int64_t k, int64_t s,
                     int64_t p, int64_t d, int64_t out_pad, bool same, int64_t& out, int64_t& pad_before) {
  const int64_t eff = (k - 1) * d + 1;
  REQUIRE_TRUE(out_pad >= 0 && (out_pad < s || out_pad < d), OPS_ERR_SHAPE,
               "output padding %lld along the %s with x%s: it must be below the stride %lld or the dilation %lld",
               static_cast<long long>(out_pad), dim_name, x.shape().str().c_str(), static_cast<long long>(s),
               static_cast<long long>(d));
  if (same) {
    out = in * s + out_pad;
    pad_before = std::max<int64_t>((in - 1) * s + eff - in * s, 0) / 2;
    return Status::ok();
  }
  out = (in - 1) * s + eff - 2 * p + out_pad;
  REQUIRE_TRUE(in == 0 || out >= 1, OPS_ERR_SHAPE,
               "padding too large with x%s: the %s would be (%lld - 1) * %lld + %lld - 2 * %lld + %lld = %lld",
               x.shape().str().c_str(), dim_name, static_cast<long long>(in), static_cast<long long>(s),
               static_cast<long long>(eff), static_cast<long long>(p), static_cast<long long>(out_pad),
               static_cast<long long>(out));
  if (in == 0) out = std::max<int64_t>(out, 0);
  pad_before = p;
  return Status::ok();
}

Status deconv2d_plan(Context& block, DeconvPlan& plan) {
  Window2d& win = plan.win;
  window_args(block, win);
  const int64_t format = INT_ARG(10);
  const char* layout = kLayouts[format];
  const NDArray& x = *block.input(0);
  const NDArray& given = *block.input(1);
  REQUIRE_TRUE(given.rank() == 4, OPS_ERR_SHAPE, "weights%s has rank %d: it must be rank 4 (%s)",
               given.shape().str().c_str(), given.rank(), layout);
  switch (format) {
    case 0: RETURN_IF_ERROR(given.permute(Dims{3, 2, 0, 1}, plan.w)); break;  // [kH, kW, Cout, Cin]
    case 2: RETURN_IF_ERROR(given.permute(Dims{0, 3, 1, 2}, plan.w)); break;  // [Cin, kH, kW, Cout]
    default: plan.w = given; break;
  }
  Geometry2d& g = plan.g;
  RETURN_IF_ERROR(window_input(block, x, INT_ARG(9), g));
  const NDArray& w = plan.w;
  if (g.block > 0) {
    // NCHWc carries the padded channel count; the weights give the real one.
    REQUIRE_TRUE((w.dim(0) + g.block - 1) / g.block == x.dim(1), OPS_ERR_SHAPE,
                 "channel mismatch with x%s (NCHWc, %lld blocks of %lld channels) and weights%s (%s): the weights "
                 "expect %lld input channels",
                 x.shape().str().c_str(), static_cast<long long>(x.dim(1)), static_cast<long long>(g.block),
                 given.shape().str().c_str(), layout, static_cast<long long>(w.dim(0)));
    g.c = w.dim(0);
  }
  REQUIRE_TRUE(w.dim(0) == g.c, OPS_ERR_SHAPE,
               "channel mismatch with x%s (%s) and weights%s: x has %lld input channels, weights %s expect %lld",
               x.shape().str().c_str(), format_name(g), given.shape().str().c_str(), static_cast<long long>(g.c),
               layout, static_cast<long long>(w.dim(0)));
  plan.cout = w.dim(1);
  RETURN_IF_ERROR(window_kernel_from_weights(block, w, given, layout, win));
  plan.has_bias = block.num_inputs() == 3;
  if (plan.has_bias) {
    const NDArray& b = *block.input(2);
    REQUIRE_TRUE(b.rank() == 1 && b.dim(0) == plan.cout, OPS_ERR_SHAPE,
                 "bias%s does not match weights%s (%s): bias must be [Cout] = [%lld]", b.shape().str().c_str(),
                 given.shape().str().c_str(), layout, static_cast<long long>(plan.cout));
  }
  RETURN_IF_ERROR(deconv_extent(block, "height", x, g.h, win.kh, win.sh, win.ph, win.dh, INT_ARG(11), win.same, g.oh,
                                g.pad_top));
  return deconv_extent(block, "width", x, g.w, win.kw, win.sw, win.pw, win.dw, INT_ARG(12), win.same, g.ow,
                       g.pad_left);
}

// z of image n from its columns (header comment): every output pixel sums
// the taps (ih, kh) with ih * sH - pad_top + kh * dH = oh, likewise for w.
template <typename C>
void gather_columns(const DeconvPlan& plan, const C* cols, const C* bias, C* z) {
  const Geometry2d& g = plan.g;
  const Window2d& win = plan.win;
  const int64_t taps = win.kh * win.kw, pix = g.h * g.w, cout = plan.cout;
  // Strides of cols over (co, kh, kw) taps and (ih, iw) pixels, and of z.
  const int64_t tap_stride = g.nchw ? pix : 1, pix_stride = g.nchw ? 1 : cout * taps;
  const int64_t z_ch = g.nchw ? g.oh * g.ow : 1, z_px = g.nchw ? 1 : cout;
  parallel_for(g.oh, std::max<int64_t>(1, kPixelGrain / std::max<int64_t>(1, g.ow * cout)), [&](int64_t b, int64_t e) {
    for (int64_t oh = b; oh < e; ++oh)
      for (int64_t ow = 0; ow < g.ow; ++ow)
        for (int64_t co = 0; co < cout; ++co) {
          C acc = bias != nullptr ? bias[co] : C(0);
          for (int64_t kh = 0; kh < win.kh; ++kh) {
            const int64_t th = oh + g.pad_top - kh * win.dh;
            if (th < 0 || th % win.sh != 0 || th / win.sh >= g.h) continue;
            const int64_t ih = th / win.sh;
            for (int64_t kw = 0; kw < win.kw; ++kw) {
              const int64_t tw = ow + g.pad_left - kw * win.dw;
              if (tw < 0 || tw % win.sw != 0 || tw / win.sw >= g.w) continue;
              const int64_t iw = tw / win.sw;
              acc += cols[((co * win.kh + kh) * win.kw + kw) * tap_stride + (ih * g.w + iw) * pix_stride];
            }
          }
          z[co * z_ch + (oh * g.ow + ow) * z_px] = acc;
        }
  });
}

template <typename C>
Status deconv2d_compute(Context& block, const DeconvPlan& plan, const C* x, const C* w, const C* bias, C* z) {
  const Geometry2d& g = plan.g;
  const int64_t pix = g.h * g.w, m = plan.cout * plan.win.kh * plan.win.kw, out_pix = g.oh * g.ow;
  C* cols = ALLOCATE(C, std::max<int64_t>(1, m * pix));
  REQUIRE_TRUE(cols != nullptr, OPS_ERR_OUT_OF_MEMORY, "cannot allocate the %lld x %lld column buffer",
               static_cast<long long>(m), static_cast<long long>(pix));
  Status s = Status::ok();
  for (int64_t n = 0; n < g.n && s.is_ok(); ++n) {
    const C* xn = x + n * g.c * pix;
    if (g.c == 0 || pix == 0) {
      std::fill(cols, cols + m * pix, C(0));
    } else if (g.nchw) {
      // cols [m, pix] = w^T [m, Cin] x x_n [Cin, pix]
      s = blas::gemm(dtype_of_v<C>, true, false, m, pix, g.c, 1.0, w, m, xn, pix, 0.0, cols, pix);
    } else {
      // cols [pix, m] = x_n [pix, Cin] x w [Cin, m]
      s = blas::gemm(dtype_of_v<C>, false, false, pix, m, g.c, 1.0, xn, g.c, w, m, 0.0, cols, m);
    }
    if (s.is_ok()) gather_columns(plan, cols, bias, z + n * plan.cout * out_pix);
  }
  RELEASE(cols);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

// deconv2d of x into z on block.device(), not the CPU (Note [nn ops on
// devices]), NCHW or NHWC.
Status deconv2d_device(Context& block, const DeconvPlan& plan, const NDArray& x, NDArray& z) {
  const NnDeviceOps* ops = nn_device_ops(block.device().type);
  if (ops == nullptr || ops->deconv2d_usable == nullptr || ops->deconv2d == nullptr)
    return no_device_implementation(block);
  if (z.length() == 0) return Status::ok();
  Conv2dDesc desc;  // the convolution this one transposes: z-shaped input, x-shaped output
  desc.g = plan.g;
  desc.win = plan.win;
  desc.cout = plan.cout;
  desc.has_bias = plan.has_bias;
  desc.dtype = x.dtype();
  RETURN_IF_ERROR(with_op_name(block, ops->deconv2d_usable(block.device(), desc)));
  NDArray xd, wd, bd;
  RETURN_IF_ERROR(dense_on_device(block, x, desc.dtype, xd));
  if (plan.g.nchw) {
    RETURN_IF_ERROR(dense_on_device(block, plan.w, desc.dtype, wd));
  } else {
    NDArray wp;  // [Cin, kH, kW, Cout], the filter layout of NHWC data
    RETURN_IF_ERROR(plan.w.permute(Dims{0, 2, 3, 1}, wp));
    RETURN_IF_ERROR(dense_on_device(block, wp, desc.dtype, wd));
  }
  if (plan.has_bias) RETURN_IF_ERROR(dense_on_device(block, *block.input(2), desc.dtype, bd));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, desc.dtype));
  RETURN_IF_ERROR(with_op_name(
      block, ops->deconv2d(block.device(), desc, xd, wd, plan.has_bias ? &bd : nullptr, out.target())));
  return out.finish(block, z);
}

}  // namespace
}  // namespace libops::ops::nn

namespace libops::ops::nn {
namespace {

Status deconv2d_run(Context& block, const DeconvPlan& plan, const NDArray& x, NDArray& z);

// An NCHWc call oneDNN does not take (another dtype, output padding,
// oneDNN off, another device) runs on an NCHW copy of x, and its result is
// blocked into z (Note [Channel-blocked layout] in conv_utils.h).
Status deconv2d_nchwc_by_nchw(Context& block, const DeconvPlan& plan, const NDArray& x, NDArray& z) {
  const Geometry2d& g = plan.g;
  DeconvPlan flat = plan;
  flat.g.block = 0;
  flat.g.nchw = true;
  NDArray xn, zn;
  RETURN_IF_ERROR(NDArray::create(x.dtype(), Dims{g.n, g.c, g.h, g.w}, 'c', xn));
  RETURN_IF_ERROR(unblock_channels_into(block, x, xn));
  RETURN_IF_ERROR(NDArray::create(z.dtype(), Dims{g.n, plan.cout, g.oh, g.ow}, 'c', zn));
  RETURN_IF_ERROR(deconv2d_run(block, flat, xn, zn));
  return block_channels_into(block, zn, z);
}

Status deconv2d_run(Context& block, const DeconvPlan& plan, const NDArray& x, NDArray& z_out) {
  if (!block.device().is_cpu()) {
    if (plan.g.block > 0) return deconv2d_nchwc_by_nchw(block, plan, x, z_out);
    return deconv2d_device(block, plan, x, z_out);
  }
  NDArray* z = &z_out;
  if (z->length() == 0) return Status::ok();
  const DataType dt = float_compute_dtype(x.dtype());
  NDArray xd, wd, bd;
  RETURN_IF_ERROR(dense_as(x, dt, xd));
  if (plan.has_bias) RETURN_IF_ERROR(dense_as(*block.input(2), dt, bd));
  OutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, dt, false));
  const Geometry2d& g = plan.g;
  const Window2d& win = plan.win;
  const bool padded_after = (g.h - 1) * win.sh + (win.kh - 1) * win.dh + 1 - g.pad_top < g.oh ||
                            (g.w - 1) * win.sw + (win.kw - 1) * win.dw + 1 - g.pad_left < g.ow;
  if (dt == DataType::kFloat32 && blas::dnnl_enabled() && !padded_after) {
    // oneDNN's deconvolution (Note [oneDNN convolution]); output padding,
    // which it cannot express, takes the path below.
    blas::Conv2dGeometry geo{g.n,    g.c,    g.h,       g.w,        plan.cout, win.kh, win.kw, win.sh,
                             win.sw, win.dh, win.dw,    g.pad_top,  g.pad_left, g.oh,  g.ow,   !g.nchw};
    geo.nhwc = !g.nchw && g.block == 0;
    geo.channel_block = g.block;
    geo.transposed = true;
    const void* source = nullptr;
    blas::ConvWeightsCache* cache = constant_weights_cache(block, source);
    const int threads = get_num_threads();
    const bool cached = cache != nullptr && cache->holds(source, geo, threads);
    if (!cached) RETURN_IF_ERROR(dense_as(plan.w, dt, wd));
    const Status s = blas::dnnl_conv2d_f32(geo, xd.data_as<float>(), cached ? nullptr : wd.data_as<float>(),
                                           plan.has_bias ? bd.data_as<float>() : nullptr,
                                           out.target().data_as<float>(), threads, cache, source);
    if (s.is_ok()) return out.finish(*z);
    log_debug("deconv2d: own path, oneDNN declined: %s", s.message().c_str());
  }
  if (g.block > 0) return deconv2d_nchwc_by_nchw(block, plan, x, *z);
  if (wd.is_null()) RETURN_IF_ERROR(dense_as(plan.w, dt, wd));  // [Cin, Cout, kH, kW] = [Cin, Cout*kH*kW]
  auto run = [&](auto c) {
    using C = decltype(c);
    return deconv2d_compute<C>(block, plan, xd.data_as<C>(), wd.data_as<C>(),
                               plan.has_bias ? bd.data_as<C>() : nullptr, out.target().data_as<C>());
  };
  RETURN_IF_ERROR(dt == DataType::kFloat64 ? run(double{}) : run(float{}));
  return out.finish(*z);
}

}  // namespace
}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(deconv2d, -1, 1, false, 0, 9) {
  using namespace libops;
  using namespace libops::ops::nn;
  DeconvPlan plan;
  RETURN_IF_ERROR(deconv2d_plan(block, plan));
  return deconv2d_run(block, plan, *INPUT_VARIABLE(0), *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(deconv2d) {
  using namespace libops;
  using namespace libops::ops::nn;
  DeconvPlan plan;
  RETURN_IF_ERROR(deconv2d_plan(block, plan));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), window_output_dims(plan.g, plan.cout), 'c'});
  return Status::ok();
}

DECLARE_TYPES(deconv2d) {
  // On a device: through the backend's deconv2d (Note [nn ops on devices]).
  descriptor.allow_inputs(libops::types::kFloat).require_same_type().runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(deconv2d) {
  args.describe("2-D transposed convolution (ONNX ConvTranspose) with an optional bias.");
  using namespace libops::ops::nn;
  args.input("x", "images, [N, Cin, H, W] (NCHW), [N, H, W, Cin] (NHWC) or [N, Cin / b, H, W, b] (NCHWc)");
  args.input("weights", "filters in the layout weights_format names, whatever the data format");
  args.optional_input("bias", "[Cout]");
  args.output("z", "[N, Cout, oH, oW] (NCHW), [N, oH, oW, Cout] (NHWC) or [N, Cout / b, oH, oW, b] (NCHWc), x's "
                   "dtype; oH = (H - 1) * sH + (kH - 1) * dH + 1 - 2 * pH + opH (SAME: H * sH + opH)");
  window_signature(args, true);
  data_format_arg(args, true);
  args.i_arg("weights_format", 1, "layout of the weights (libnd4j's default is 0)")
      .one_of({{0, "[kH, kW, Cout, Cin]"}, {1, "[Cin, Cout, kH, kW]"}, {2, "[Cin, kH, kW, Cout]"}});
  args.i_arg("opH", 0, "output padding at the bottom, below sH or dH").range(0, std::numeric_limits<int32_t>::max());
  args.i_arg("opW", 0, "output padding at the right, below sW or dW").range(0, std::numeric_limits<int32_t>::max());
}
