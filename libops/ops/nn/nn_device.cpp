// The nn device registry and the op-side staging of Note [nn ops on devices].
#include "libops/ops/nn/nn_device.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"


namespace libops::ops::nn {

namespace {
std::atomic<const NnDeviceOps*> g_nn_device_ops[kNumDeviceTypes];
}  // namespace

void register_nn_device_ops(DeviceType type, const NnDeviceOps* ops) {
  g_nn_device_ops[static_cast<int>(type)].store(ops, std::memory_order_release);
}

const NnDeviceOps* nn_device_ops(DeviceType type) {
  return g_nn_device_ops[static_cast<int>(type)].load(std::memory_order_acquire);
}

const char* pool_mode_name(PoolMode mode) {
  switch (mode) {
    case PoolMode::kMax: return "max";
    case PoolMode::kAvgExcludePadding: return "average (padding not counted)";
    case PoolMode::kAvgIncludePadding: return "average (padding counted)";
  }
  return "?";
}

std::string window_call_str(const Geometry2d& g, const Window2d& win) {
  const Dims x = g.nchw ? Dims{g.n, g.c, g.h, g.w} : Dims{g.n, g.h, g.w, g.c};
  std::string s = str_format("x%s (%s), kernel %lldx%lld, stride %lldx%lld, dilation %lldx%lld, ", x.str().c_str(),
                             format_name(g), static_cast<long long>(win.kh), static_cast<long long>(win.kw),
                             static_cast<long long>(win.sh), static_cast<long long>(win.sw),
                             static_cast<long long>(win.dh), static_cast<long long>(win.dw));
  if (win.same) return s + "SAME padding";
  return s + str_format("padding %lldx%lld%s", static_cast<long long>(win.ph), static_cast<long long>(win.pw),
                        win.ceil ? ", ceil mode" : "");
}

namespace {

// Pools x into z (both in desc.g's layout, NCHW or NHWC) on block.device().
Status pool2d_device_run(Context& block, const NnDeviceOps* ops, Pool2dDesc& desc, const NDArray& x_in, NDArray& z) {
  // Max pooling evens out SAME padding with -inf (Note [Asymmetric padding on devices]).
  const bool extend = desc.mode == PoolMode::kMax && desc.win.same && even_out_padding(desc.g, desc.win);
  RETURN_IF_ERROR(with_op_name(block, ops->pool2d_usable(block.device(), desc)));  // before any data moves
  NDArray padded;
  if (extend) RETURN_IF_ERROR(extended_input(block, x_in, desc.g, -std::numeric_limits<double>::infinity(), padded));
  const NDArray& x = extend ? padded : x_in;
  NDArray xd;
  RETURN_IF_ERROR(dense_on_device(block, x, desc.dtype, xd));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, desc.dtype));
  RETURN_IF_ERROR(with_op_name(block, ops->pool2d(block.device(), desc, xd, out.target())));
  return out.finish(block, z);
}

}  // namespace

Status pool2d_device_exec(Context& block, PoolMode mode) {
  const NnDeviceOps* ops = nn_device_ops(block.device().type);
  if (ops == nullptr || ops->pool2d_usable == nullptr || ops->pool2d == nullptr)
    return no_device_implementation(block);
  Pool2dDesc desc;
  RETURN_IF_ERROR(pool2d_geometry(block, desc.win, desc.g));
  NDArray& z = *block.output(0);
  if (z.length() == 0) return Status::ok();
  desc.mode = mode;
  desc.dtype = block.input(0)->dtype();
  if (desc.g.block == 0) return pool2d_device_run(block, ops, desc, *block.input(0), z);
  // NCHWc [N, C / b, H, W, b] pools as NHWC [N * C / b, H, W, b] (Note
  // [Channel-blocked layout] in conv_utils.h): dense views of both.
  Geometry2d& g = desc.g;
  const Dims x4{g.n * (g.c / g.block), g.h, g.w, g.block}, z4{x4[0], g.oh, g.ow, g.block};
  g.n = x4[0], g.c = g.block, g.block = 0, g.nchw = false;
  NDArray xd, xv, zd, zv;
  RETURN_IF_ERROR(dense_on_device(block, *block.input(0), desc.dtype, xd));
  RETURN_IF_ERROR(with_op_name(block, xd.reshape(x4, xv)));
  const bool direct = z.is_c_contiguous() && z.dtype() == desc.dtype;
  if (direct) zd = z;
  else RETURN_IF_ERROR(NDArray::create(desc.dtype, z.shape(), 'c', zd));
  RETURN_IF_ERROR(with_op_name(block, zd.reshape(z4, zv)));
  RETURN_IF_ERROR(pool2d_device_run(block, ops, desc, xv, zv));
  return direct ? Status::ok() : assign_on_device(block, z, zd);
}

// Note [Asymmetric padding on devices]
// cuDNN pads both sides of a dim by the same amount, but SAME padding with
// an odd total (an even kernel, or a stride that leaves a remainder) pads
// one more row or column after than before. On a device such an input is
// first copied (on the device) into an array with that row or column added
// at the end; the backend then gets explicit, symmetric padding of
// pad_top x pad_left and yields the same windows. conv2d adds zeros, which
// are exact for a convolution; max pooling adds -inf, which no window
// picks (every SAME window holds an input element). Average pooling, whose
// divisor counts only the input's taps, keeps its error.

bool even_out_padding(Geometry2d& g, Window2d& win) {
  // The extent for which padding p on both sides gives exactly `out` windows.
  auto symmetric_extent = [](int64_t out, int64_t k, int64_t s, int64_t d, int64_t p) {
    return (out - 1) * s + (k - 1) * d + 1 - 2 * p;
  };
  const int64_t h2 = std::max(g.h, symmetric_extent(g.oh, win.kh, win.sh, win.dh, g.pad_top));
  const int64_t w2 = std::max(g.w, symmetric_extent(g.ow, win.kw, win.sw, win.dw, g.pad_left));
  if (h2 == g.h && w2 == g.w) return false;
  g.h = h2;
  g.w = w2;
  win.same = false;
  win.ph = g.pad_top;
  win.pw = g.pad_left;
  return true;
}

Status extended_input(Context& block, const NDArray& x, const Geometry2d& g, double fill, NDArray& out) {
  const int ah = g.nchw ? 2 : 1, aw = g.nchw ? 3 : 2;
  Dims shape = x.shape();
  shape[ah] = g.h;
  shape[aw] = g.w;
  NDArray value, rows, dst;
  RETURN_IF_ERROR(step_array(block, x.dtype(), shape, out));
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(x.dtype(), fill, value)));
  RETURN_IF_ERROR(assign_on_device(block, out, value));
  RETURN_IF_ERROR(with_op_name(block, out.slice(ah, 0, x.dim(ah), 1, rows)));
  RETURN_IF_ERROR(with_op_name(block, rows.slice(aw, 0, x.dim(aw), 1, dst)));
  return assign_on_device(block, dst, x);
}

}  // namespace libops::ops::nn
