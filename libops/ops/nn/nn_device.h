// conv2d, deconv2d, maxpool2d, avgpool2d and batchnorm on devices other than
// the CPU: a registry of backend implementations (the op-side staging that
// gives a backend dense arrays on its device is in ops/device_copy.h).
//
// Note [nn ops on devices]
// These ops compute on the CPU themselves. On another device they hand the
// call to the NnDeviceOps that the device type's backend registered when the
// library loaded (cuDNN for CUDA: libops/ops/nn/nn_device_cuda.cpp), so
// core code has no #ifdef. A call runs in three steps:
//   1. *_usable(desc): can the backend run this call at all? The op asks
//      before any data moves. A refusal is an error that names the op, the
//      device, the shapes and the reason (for example a pooling window with
//      dilation, which cuDNN's pooling lacks; conv2d and max pooling first
//      even out SAME padding, Note [Asymmetric padding on devices] in
//      nn_device.cpp).
//      Nothing falls back to the CPU behind the caller's back: the
//      caller chose the device, and only the caller may move the data.
//   2. The op stages the arrays on the device: an input that is a strided
//      view, or of another dtype than the backend takes, is copied into a
//      dense C-order array there (assign_on_device, Note [Copies on a
//      device]); the output is z itself when z is dense C-order in the
//      op's dtype and shares no memory with any input, else a dense scratch
//      array copied into z on the device afterwards.
//   3. The backend function: it makes its inputs current on the device
//      (DataBuffer::sync_to_device), writes the whole output there and marks
//      it written on the device (Note [Host and device copies]).
// A device type that registered no NnDeviceOps, or a null entry for the op,
// gives "<op>: has no <device> implementation (asked to run on <device>)",
// the same error as an op that never runs on devices.
//
// softmax is not here: it has a fused kernel of its own per device
// (ops/nn/softmax.h), and legacy kernels where a device has none.
//
// The descriptions passed to a backend are plain data: Geometry2d and
// Window2d (Note [Window arguments]), extents and dtypes. No backend type
// appears here.
#pragma once

#include <cstdint>
#include <string>

#include "libops/ops/device_copy.h"
#include "libops/ops/nn/conv_utils.h"

namespace libops::ops::nn {

// conv2d: x [N, C, H, W] or [N, H, W, C] (g.nchw), weights with `cout`
// filters of win.kh x win.kw over C / groups channels, an optional bias
// [cout]; all in `dtype`.
struct Conv2dDesc {
  Geometry2d g;
  Window2d win;  // kh and kw resolved from the weights
  int64_t cout = 0;
  int64_t groups = 1;  // weights [cout, g.c / groups, kh, kw] (Note [Grouped convolution] in conv2d.h)
  bool has_bias = false;
  DataType dtype = DataType::kFloat32;
};

// How a pooling window reduces (maxpool2d, avgpool2d's count_include_pad).
enum class PoolMode : uint8_t {
  kMax,                // padding never wins; NaN propagates
  kAvgExcludePadding,  // sum / number of taps inside the input
  kAvgIncludePadding,  // sum / (kH * kW)
};
const char* pool_mode_name(PoolMode mode);

struct Pool2dDesc {
  Geometry2d g;
  Window2d win;
  PoolMode mode = PoolMode::kMax;
  DataType dtype = DataType::kFloat32;
};

// batchnorm with x viewed as [outer, channels, inner] (the channel axis in
// the middle). Its parameters come in float_compute_dtype(dtype): float for
// float16, bfloat16 and float32, double for float64.
struct BatchnormDesc {
  int64_t outer = 1, channels = 0, inner = 1;
  double epsilon = 1e-5;
  DataType dtype = DataType::kFloat32;
};

// What a backend provides for one device type. Every usable function
// returns ok or a kNotImplemented error whose message says why; the op
// prefixes "<op>: ". The run functions get (step 2 of Note [nn ops on
// devices]) dense C-order arrays in desc.dtype (batchnorm's parameters in
// float_compute_dtype(desc.dtype)) and an output that shares no memory with
// them.
struct NnDeviceOps {
  Status (*conv2d_usable)(Device device, const Conv2dDesc& desc);
  // w is [cout, C, kH, kW] for NCHW and [cout, kH, kW, C] for NHWC (the
  // filter layout that matches the data); bias is null when !has_bias.
  Status (*conv2d)(Device device, const Conv2dDesc& desc, const NDArray& x, const NDArray& w, const NDArray* bias,
                   NDArray& z);
  Status (*pool2d_usable)(Device device, const Pool2dDesc& desc);
  Status (*pool2d)(Device device, const Pool2dDesc& desc, const NDArray& x, NDArray& z);
  Status (*batchnorm_usable)(Device device, const BatchnormDesc& desc);
  // x and z [outer, channels, inner]; the parameters [channels] (gamma ones
  // and beta zeros when the call has none).
  Status (*batchnorm)(Device device, const BatchnormDesc& desc, const NDArray& x, const NDArray& mean,
                      const NDArray& variance, const NDArray& gamma, const NDArray& beta, NDArray& z);
  // deconv2d: desc.g holds x's extents (n, c = Cin, h, w) and z's (oh, ow,
  // pad_top, pad_left); cout is z's channels; groups 1. w is [Cin, Cout,
  // kH, kW] for NCHW and [Cin, kH, kW, Cout] for NHWC.
  Status (*deconv2d_usable)(Device device, const Conv2dDesc& desc) = nullptr;
  Status (*deconv2d)(Device device, const Conv2dDesc& desc, const NDArray& x, const NDArray& w, const NDArray* bias,
                     NDArray& z) = nullptr;
};

// Called by a backend when the library loads; `ops` must outlive the
// library (tests may swap in their own and put back what they found).
void register_nn_device_ops(DeviceType type, const NnDeviceOps* ops);
// The registered ops, or nullptr.
const NnDeviceOps* nn_device_ops(DeviceType type);

// "x[1,3,5,5] (NCHW), kernel 2x2, stride 1x1, dilation 1x1, SAME padding":
// the call a window-op message is about.
std::string window_call_str(const Geometry2d& g, const Window2d& win);

// ---- op side (Note [nn ops on devices], steps 1 and 2; the staging is in
// ops/device_copy.h) ----

// maxpool2d / avgpool2d on block.device() (not the CPU); NCHWc pools as
// NHWC.
Status pool2d_device_exec(Context& block, PoolMode mode);

// Note [Asymmetric padding on devices]: rewrites g and win for an input
// extended at the end so that symmetric explicit padding gives the same
// windows; false when the padding is symmetric already (nothing to do).
bool even_out_padding(Geometry2d& g, Window2d& win);
// x extended at the end up to g's extents with `fill`, on block.device().
Status extended_input(Context& block, const NDArray& x, const Geometry2d& g, double fill, NDArray& out);

}  // namespace libops::ops::nn
