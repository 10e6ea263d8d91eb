// depthwise_conv2d: each input channel convolved with its own
// `multiplier` filters (libnd4j's and TF's depthwise_conv2d).
//
//   inputs  x        [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC)
//           weights  in the layout weights_format names:
//                    0 = [kH, kW, C, mult] (the default: libnd4j's and TF's),
//                    1 = [mult, C, kH, kW], 2 = [mult, kH, kW, C]
//           bias     optional, [C * mult]
//           all of one dtype: float16, bfloat16, float32 or float64
//   i args  0..8  kH, kW, sH, sW, pH, pW, dH, dW, same_mode (Note [Window
//                 arguments] in conv_utils.h); kH or kW = 0: from the weights
//           9     data_format: 0 = NCHW (default), 1 = NHWC
//           10    weights_format (above)
//           11..  epilogue (with the t list epilogue_values): Note
//                 [Epilogue programs] in elementwise/fused_program.h
//   output  [N, C * mult, oH, oW] (NCHW) or [N, oH, oW, C * mult] (NHWC);
//           output channel c * mult + m is channel c under filter m
//
// It is conv2d with groups = C (Note [Grouped convolution] in conv2d.h):
// the weights are laid out as [C * mult, 1, kH, kW] and the one engine of
// conv2d.h runs the call (oneDNN's depthwise kernels for float32 on the CPU,
// else libops' NHWC depthwise kernel where mult is 1, cuDNN's grouped
// convolution on CUDA). ONNX's and PyTorch's depthwise
// convolution is conv2d with groups, whose weights already have that layout.
#include "libops/ops/nn/conv2d.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/elementwise/fused_program.h"

namespace libops::ops::nn {
namespace {

const char* const kDepthwiseLayouts[3] = {"[kH, kW, C, mult]", "[mult, C, kH, kW]", "[mult, kH, kW, C]"};

// The weights as conv2d's [C * mult, 1, kH, kW]: shape-only when the
// weights are (a shape function), else a dense copy on the call's device.
Status depthwise_plan(Context& block, ConvPlan& plan) {
  Window2d win;
  window_args(block, win);
  const NDArray& x = *block.input(0);
  const NDArray& given = *block.input(1);
  const bool nhwc = INT_ARG(9) == 1;
  const int64_t format = INT_ARG(10);
  const char* layout = kDepthwiseLayouts[format];
  REQUIRE_TRUE(given.rank() == 4, OPS_ERR_SHAPE, "weights%s has rank %d: it must be rank 4, %s",
               given.shape().str().c_str(), given.rank(), layout);
  Geometry2d g;
  RETURN_IF_ERROR(window_input(block, x, !nhwc, g));
  REQUIRE_TRUE(g.c > 0, OPS_ERR_SHAPE, "x%s (%s) has no channels: a depthwise convolution needs at least one",
               x.shape().str().c_str(), format_name(g.nchw));
  static const Dims kToChannelsFirst[3] = {Dims{2, 3, 0, 1}, Dims{1, 0, 2, 3}, Dims{3, 0, 1, 2}};
  NDArray view;  // [C, mult, kH, kW]
  RETURN_IF_ERROR(given.permute(kToChannelsFirst[format], view));
  REQUIRE_TRUE(view.dim(0) == g.c, OPS_ERR_SHAPE,
               "channel mismatch with x%s (%s) and weights%s: x has %lld channels, weights %s expect %lld",
               x.shape().str().c_str(), format_name(g.nchw), given.shape().str().c_str(), static_cast<long long>(g.c),
               layout, static_cast<long long>(view.dim(0)));
  const Dims grouped{view.dim(0) * view.dim(1), 1, view.dim(2), view.dim(3)};
  NDArray w;
  if (!view.has_data()) {
    w = NDArray::shape_only(TensorShape{view.dtype(), grouped, 'c'});
  } else {
    NDArray dense;
    if (block.device().is_cpu()) RETURN_IF_ERROR(dense_as(view, view.dtype(), dense));
    else RETURN_IF_ERROR(dense_on_device(block, view, view.dtype(), dense));
    RETURN_IF_ERROR(dense.reshape(grouped, w));
  }
  return conv2d_check(block, x, w, given, layout, block.num_inputs() == 3 ? block.input(2) : nullptr,
                      g.c, nhwc ? 1 : 0, win, plan);
}

}  // namespace
}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(depthwise_conv2d, -1, 1, false, 0, 9) {
  using namespace libops;
  using namespace libops::ops::nn;
  ConvPlan plan;
  RETURN_IF_ERROR(depthwise_plan(block, plan));
  return conv2d_run_with_epilogue(block, plan, *INPUT_VARIABLE(0), plan.has_bias ? INPUT_VARIABLE(2) : nullptr);
}

DECLARE_SHAPE_FN(depthwise_conv2d) {
  using namespace libops;
  using namespace libops::ops::nn;
  ConvPlan plan;
  RETURN_IF_ERROR(depthwise_plan(block, plan));
  RETURN_IF_ERROR(conv2d_check_epilogue(block));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), window_output_dims(plan.g, plan.cout), 'c'});
  return Status::ok();
}

DECLARE_TYPES(depthwise_conv2d) {
  // On a device: through the backend's conv2d (Note [nn ops on devices]).
  descriptor.allow_inputs(libops::types::kFloat).require_same_type().runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(depthwise_conv2d) {
  args.describe("Depthwise 2-D convolution: each channel with its own filters (conv2d with groups = channels).");
  using namespace libops::ops::nn;
  args.input("x", "images, [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC)");
  args.input("weights", "C x mult filters in the layout weights_format names");
  args.optional_input("bias", "[C * mult]");
  args.output("z", "[N, C * mult, oH, oW] (NCHW) or [N, oH, oW, C * mult] (NHWC), x's dtype; channel c * mult + m "
                   "is channel c under filter m");
  window_signature(args, true);
  data_format_arg(args);
  args.i_arg("weights_format", 0, "layout of the weights (libnd4j's and TF's is 0)")
      .one_of({{0, "[kH, kW, C, mult]"}, {1, "[mult, C, kH, kW]"}, {2, "[mult, kH, kW, C]"}});
  libops::ops::declare_epilogue_args(args);
}
