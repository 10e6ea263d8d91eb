// adaptive_avg_pool2d and adaptive_max_pool2d: pooling to a given output
// size, the windows chosen to tile the input (PyTorch's AdaptiveAvgPool2d
// and AdaptiveMaxPool2d; Note [Adaptive windows] in adaptive_pool.h).
//
//   input   x: [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC), float, H and W >= 1
//   i args  oH, oW >= 1; data_format 0 = NCHW (default), 1 = NHWC
//   output  [N, C, oH, oW] or [N, oH, oW, C], x's dtype
//
// The mean of each window, or its maximum (a NaN in it gives NaN).
// Computed in float (float32 for float16/bfloat16) or double; on a device
// the backend runs the same loop body (adaptive_pool.cu).
#include "libops/ops/nn/adaptive_pool.h"

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {

DeviceKernel<AdaptivePoolDeviceFn> adaptive_pool_device_kernel;

namespace {

Status adaptive_geometry(const Context& block, bool max, AdaptivePoolDesc& d) {
  const NDArray& x = *block.input(0);
  d.nchw = block.i_arg(2) == 0;
  d.max = max;
  if (x.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, H, W] or [N, H, W, C]",
                       x.shape().str().c_str());
  d.n = x.dim(0);
  d.c = x.dim(d.nchw ? 1 : 3);
  d.h = x.dim(d.nchw ? 2 : 1);
  d.w = x.dim(d.nchw ? 3 : 2);
  d.oh = block.i_arg(0);
  d.ow = block.i_arg(1);
  if (d.h < 1 || d.w < 1)
    return block.error(StatusCode::kInvalidArgument, "x%s (%s) has no rows or columns to pool",
                       x.shape().str().c_str(), d.nchw ? "NCHW" : "NHWC");
  return Status::ok();
}

Dims output_dims(const AdaptivePoolDesc& d) {
  return d.nchw ? Dims{d.n, d.c, d.oh, d.ow} : Dims{d.n, d.oh, d.ow, d.c};
}

template <typename C>
void adaptive_pool_cpu(const AdaptivePoolDesc& d, const C* x, C* z, int64_t n) {
  const int64_t taps = (d.h / d.oh + 2) * (d.w / d.ow + 2);
  parallel_for(n, std::max<int64_t>(1, 16384 / taps), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) adaptive_pool_one(d, x, k, z);
  });
}

Status adaptive_pool_exec(Context& block, bool max) {
  AdaptivePoolDesc d;
  RETURN_IF_ERROR(adaptive_geometry(block, max, d));
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  const DataType ct = block.input(0)->dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  NDArray x;
  RETURN_IF_ERROR(dense_on_device(block, *block.input(0), ct, x));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, ct));
  if (!block.device().is_cpu()) {
    const AdaptivePoolDeviceFn fn = adaptive_pool_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, x, out.target())));
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&x}, out.target())));
  if (ct == DataType::kFloat64) adaptive_pool_cpu(d, x.data_as<double>(), out.target().data_as<double>(), z->length());
  else adaptive_pool_cpu(d, x.data_as<float>(), out.target().data_as<float>(), z->length());
  out.target().buffer()->mark_host_written();
  return out.finish(block, *z);
}

Status adaptive_shape(Context& block, bool max, ShapeList& shapes) {
  AdaptivePoolDesc d;
  RETURN_IF_ERROR(adaptive_geometry(block, max, d));
  shapes.push_back(TensorShape{block.input(0)->dtype(), output_dims(d), 'c'});
  return Status::ok();
}

void adaptive_signature(OpSignature& args, const char* what) {
  args.input("x", "images, [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC), H and W >= 1");
  args.output("z", what);
  args.i_arg("oH", "output height").at_least(1);
  args.i_arg("oW", "output width").at_least(1);
  args.i_arg("data_format", 0, "x's layout").one_of({{0, "NCHW"}, {1, "NHWC"}});
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(adaptive_avg_pool2d, 1, 1, false, 0, 2) { return libops::ops::adaptive_pool_exec(block, false); }

DECLARE_SHAPE_FN(adaptive_avg_pool2d) { return libops::ops::adaptive_shape(block, false, shapes); }

DECLARE_TYPES(adaptive_avg_pool2d) {
  // On a device through the backend's kernel (adaptive_pool.cu).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(adaptive_avg_pool2d) {
  args.describe("2-D average pooling to a given output size (windows that tile the input).");
  libops::ops::adaptive_signature(args, "the mean of each window, [N, C, oH, oW] or [N, oH, oW, C]");
}

CUSTOM_OP_IMPL(adaptive_max_pool2d, 1, 1, false, 0, 2) { return libops::ops::adaptive_pool_exec(block, true); }

DECLARE_SHAPE_FN(adaptive_max_pool2d) { return libops::ops::adaptive_shape(block, true, shapes); }

DECLARE_TYPES(adaptive_max_pool2d) {
  // On a device through the backend's kernel (adaptive_pool.cu).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(adaptive_max_pool2d) {
  args.describe("2-D max pooling to a given output size (windows that tile the input; NaN wins).");
  libops::ops::adaptive_signature(args, "the maximum of each window, [N, C, oH, oW] or [N, oH, oW, C]");
}
