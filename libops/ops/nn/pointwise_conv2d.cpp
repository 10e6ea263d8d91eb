// pointwise_conv2d: a 1x1 convolution (libnd4j's pointwise_conv2d), conv2d
// with a 1x1 kernel, stride 1 and no padding, called on the call's device.
//
//   inputs  x [N, Cin, H, W] (NCHW) or [N, H, W, Cin] (NHWC); weights by
//           weights_format (0 = [1, 1, Cin, Cout], libnd4j's default;
//           1 = [Cout, Cin, 1, 1]; 2 = [Cout, 1, 1, Cin]); bias [Cout]
//   i args  data_format (0 NCHW, 1 NHWC), weights_format
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {
namespace {

NestedArgs conv_args(const Context& block) {
  // conv2d's i args: kH, kW, sH, sW, pH, pW, dH, dW, same_mode, data_format, weights_format, groups.
  return NestedArgs{.i = {1, 1, 1, 1, 0, 0, 1, 1, 0, block.i_arg(0), block.i_arg(1), 1}};
}

Status pointwise_exec(Context& block) {
  const NDArray& w = *block.input(1);
  if (w.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "weights%s must have rank 4", w.shape().str().c_str());
  const int f = static_cast<int>(block.i_arg(1));
  const bool one_by_one = f == 0 ? w.dim(0) == 1 && w.dim(1) == 1 : f == 1 ? w.dim(2) == 1 && w.dim(3) == 1
                                                                       : w.dim(1) == 1 && w.dim(2) == 1;
  if (!one_by_one)
    return block.error(StatusCode::kInvalidArgument, "weights%s (weights_format %d) are not a 1x1 kernel",
                       w.shape().str().c_str(), f);
  NDArray z;
  if (block.num_inputs() > 2)
    RETURN_IF_ERROR(run_nested(block, "conv2d", {block.input(0), block.input(1), block.input(2)}, conv_args(block), z));
  else
    RETURN_IF_ERROR(run_nested(block, "conv2d", {block.input(0), block.input(1)}, conv_args(block), z));
  return block.store_result(0, z);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(pointwise_conv2d, -1, 1, false, 0, 0) { return libops::ops::pointwise_exec(block); }

DECLARE_SHAPE_FN(pointwise_conv2d) {
  using namespace libops;
  const NDArray& x = *INPUT_VARIABLE(0);
  const NDArray& w = *INPUT_VARIABLE(1);
  REQUIRE_TRUE(x.rank() == 4 && w.rank() == 4, 0, "x%s and weights%s must have rank 4", x.shape().str().c_str(),
               w.shape().str().c_str());
  const int f = static_cast<int>(INT_ARG(1));
  const int64_t cout = f == 0 ? w.dim(3) : w.dim(0), cin = f == 0 ? w.dim(2) : f == 1 ? w.dim(1) : w.dim(3);
  const bool nchw = INT_ARG(0) == 0;
  REQUIRE_TRUE(cin == x.dim(nchw ? 1 : 3), 0, "weights%s (weights_format %d) have %lld input channels, x%s has %lld",
               w.shape().str().c_str(), f, static_cast<long long>(cin), x.shape().str().c_str(),
               static_cast<long long>(x.dim(nchw ? 1 : 3)));
  shapes.push_back(TensorShape{x.dtype(), nchw ? Dims{x.dim(0), cout, x.dim(2), x.dim(3)}
                                               : Dims{x.dim(0), x.dim(1), x.dim(2), cout}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(pointwise_conv2d) {
  // Runs conv2d on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(pointwise_conv2d) {
  args.describe("1x1 convolution with an optional bias (conv2d with a 1x1 kernel).");
  args.input("x", "images, [N, Cin, H, W] (NCHW) or [N, H, W, Cin] (NHWC)");
  args.input("weights", "a 1x1 filter per output channel, in the layout weights_format names");
  args.optional_input("bias", "[Cout]");
  args.output("z", "[N, Cout, H, W] (NCHW) or [N, H, W, Cout] (NHWC), x's dtype");
  args.i_arg("data_format", 0, "layout of x and z").one_of({{0, "NCHW"}, {1, "NHWC"}});
  args.i_arg("weights_format", 0, "layout of the weights (libnd4j's default is 0)")
      .one_of({{0, "[1, 1, Cin, Cout]"}, {1, "[Cout, Cin, 1, 1]"}, {2, "[Cout, 1, 1, Cin]"}});
}
