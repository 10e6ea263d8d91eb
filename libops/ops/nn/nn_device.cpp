// The nn device registry and the op-side staging of Note [nn ops on devices].
#include "libops/ops/nn/nn_device.h"

#include <atomic>


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
                             format_name(g.nchw), static_cast<long long>(win.kh), static_cast<long long>(win.kw),
                             static_cast<long long>(win.sh), static_cast<long long>(win.sw),
                             static_cast<long long>(win.dh), static_cast<long long>(win.dw));
  if (win.same) return s + "SAME padding";
  return s + str_format("padding %lldx%lld%s", static_cast<long long>(win.ph), static_cast<long long>(win.pw),
                        win.ceil ? ", ceil mode" : "");
}

Status pool2d_device_exec(Context& block, PoolMode mode) {
  const NnDeviceOps* ops = nn_device_ops(block.device().type);
  if (ops == nullptr || ops->pool2d_usable == nullptr || ops->pool2d == nullptr)
    return no_device_implementation(block);
  Pool2dDesc desc;
  RETURN_IF_ERROR(pool2d_geometry(block, desc.win, desc.g));
  const NDArray& x = *block.input(0);
  NDArray& z = *block.output(0);
  if (z.length() == 0) return Status::ok();
  desc.mode = mode;
  desc.dtype = x.dtype();
  RETURN_IF_ERROR(with_op_name(block, ops->pool2d_usable(block.device(), desc)));
  NDArray xd;
  RETURN_IF_ERROR(dense_on_device(block, x, desc.dtype, xd));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, desc.dtype));
  RETURN_IF_ERROR(with_op_name(block, ops->pool2d(block.device(), desc, xd, out.target())));
  return out.finish(block, z);
}

}  // namespace libops::ops::nn
