// max_pool_with_argmax: maxpool2d, and where each maximum came from (TF's
// and libnd4j's max_pool_with_argmax, ONNX MaxPool's Indices output).
//
//   input   x: [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC), float
//   i args  maxpool2d's: 0..8 the window (Note [Window arguments] in
//           conv_utils.h), 9 unused, 10 data_format, 11 ceil_mode
//   outputs z: maxpool2d's values; indices: int64 of z's shape, the C-order
//           offset in x of the tap each maximum was taken from (batch and
//           channel included: ONNX's NCHW indices, TF's NHWC ones with
//           include_batch_in_index)
//
// The first tap in the window's row-major order that holds the maximum is
// the one named; a NaN beats every number, the first NaN wins (numpy's
// argmax). A window over no input element (only with dilation) gives 0 and
// index -1. Computed in float (float32 for float16/bfloat16) or double; on a
// device the backend runs the same loop body (max_pool_with_argmax.cu).
#include "libops/ops/nn/max_pool_with_argmax.h"

#include "libops/core/parallel.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nn/conv_utils.h"

namespace libops::ops {

DeviceKernel<ArgmaxPoolDeviceFn> argmax_pool_device_kernel;

namespace {

ArgmaxPoolDesc describe(const nn::Window2d& win, const nn::Geometry2d& g) {
  ArgmaxPoolDesc d;
  d.n = g.n, d.c = g.c, d.h = g.h, d.w = g.w, d.oh = g.oh, d.ow = g.ow;
  d.kh = win.kh, d.kw = win.kw, d.sh = win.sh, d.sw = win.sw, d.dh = win.dh, d.dw = win.dw;
  d.pad_top = g.pad_top, d.pad_left = g.pad_left;
  d.nchw = g.nchw;
  return d;
}

template <typename C>
void argmax_pool_cpu(const ArgmaxPoolDesc& d, const C* x, C* z, int64_t* idx, int64_t n) {
  parallel_for(n, std::max<int64_t>(1, 8192 / std::max<int64_t>(d.kh * d.kw, 1)), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) argmax_pool_one(d, x, k, z, idx);
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(max_pool_with_argmax, 1, 2, false, 0, 9) {
  using namespace libops;
  using namespace libops::ops;
  nn::Window2d win;
  nn::Geometry2d g;
  RETURN_IF_ERROR(nn::pool2d_geometry(block, win, g));
  NDArray* z = OUTPUT_VARIABLE(0);
  NDArray* indices = OUTPUT_VARIABLE(1);
  if (z->length() == 0) return Status::ok();
  const ArgmaxPoolDesc d = describe(win, g);
  const DataType ct = INPUT_VARIABLE(0)->dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  NDArray x;
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(0), ct, x));
  DeviceOutputStage zs, is;
  RETURN_IF_ERROR(zs.begin(block, *z, ct));
  RETURN_IF_ERROR(is.begin(block, *indices, DataType::kInt64));
  if (!block.device().is_cpu()) {
    const ArgmaxPoolDeviceFn fn = argmax_pool_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, x, zs.target(), is.target())));
  } else {
    RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&x}, zs.target())));
    RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {}, is.target())));
    int64_t* idx = is.target().data_as<int64_t>();
    if (ct == DataType::kFloat64) argmax_pool_cpu(d, x.data_as<double>(), zs.target().data_as<double>(), idx, z->length());
    else argmax_pool_cpu(d, x.data_as<float>(), zs.target().data_as<float>(), idx, z->length());
    zs.target().buffer()->mark_host_written();
    is.target().buffer()->mark_host_written();
  }
  RETURN_IF_ERROR(zs.finish(block, *z));
  return is.finish(block, *indices);
}

DECLARE_SHAPE_FN(max_pool_with_argmax) {
  using namespace libops;
  using namespace libops::ops::nn;
  Window2d win;
  Geometry2d g;
  RETURN_IF_ERROR(pool2d_geometry(block, win, g));
  const Dims out = window_output_dims(g, g.c);
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), out, 'c'});
  shapes.push_back(TensorShape{DataType::kInt64, out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(max_pool_with_argmax) {
  // On a device through the backend's kernel (max_pool_with_argmax.cu).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
}

DECLARE_ARGS(max_pool_with_argmax) {
  args.describe("2-D max pooling that also gives each maximum's offset in x.");
  using namespace libops::ops::nn;
  pool2d_signature(args, "the maximum of each window, [N, C, oH, oW] or [N, oH, oW, C]");
  args.output("indices", "int64, z's shape: the C-order offset in x of each maximum (first on ties, NaN wins; -1 "
                         "for a window over no input)");
  args.i_arg("unused", 0, "ignored: libnd4j's extraParam0 slot, as in maxpool2d");
  data_format_arg(args);
  args.i_arg("ceil_mode", 0, "1: round the output extent up (Note [Ceil mode] in conv_utils.h)").flag();
}
