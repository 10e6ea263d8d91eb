// conv1d: 1-D convolution (libnd4j's conv1d, ONNX's 1-D Conv), run as
// conv2d over a height of 1 (the same engine: oneDNN or im2col + GEMM on
// the CPU, cuDNN on CUDA).
//
//   inputs  x: [N, Cin, W] (data_format 0, NCW) or [N, W, Cin] (1, NWC);
//           weights in the layout weights_format names; bias [Cout], optional
//   i args  kW (0: from the weights), sW, pW (each side), dW, same_mode,
//           data_format, weights_format (0 [kW, Cin/groups, Cout] libnd4j's,
//           1 [Cout, Cin/groups, kW] ONNX's and the default, 2
//           [Cout, kW, Cin/groups]), groups
//   output  [N, Cout, oW] or [N, oW, Cout], x's dtype
//
// x, the weights and z are viewed with a unit height ([N, C, 1, W],
// [1, kW, Cin, Cout] ...): no copy; errors come from conv2d's checks with
// the op named conv1d and the shapes of those views.
#include "libops/ops/declarable_op.h"
#include "libops/ops/nn/conv_utils.h"
#include "libops/ops/registry.h"

namespace libops::ops::nn {
namespace {

// The 2-D views and conv2d's i args for this call.
Status conv1d_as_2d(const Context& block, NDArray views[3], std::vector<int64_t>& iargs) {
  const NDArray& x = *block.input(0);
  const NDArray& w = *block.input(1);
  const bool ncw = block.i_arg(5) == 0;
  const int64_t wf = block.i_arg(6);
  if (x.rank() != 3)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, W] (NCW) or [N, W, C] (NWC)",
                       x.shape().str().c_str());
  if (w.rank() != 3)
    return block.error(StatusCode::kInvalidArgument, "the weights%s must have rank 3 (%s)", w.shape().str().c_str(),
                       wf == 0 ? "[kW, Cin, Cout]" : (wf == 1 ? "[Cout, Cin, kW]" : "[Cout, kW, Cin]"));
  RETURN_IF_ERROR(x.reshape(ncw ? Dims{x.dim(0), x.dim(1), 1, x.dim(2)} : Dims{x.dim(0), 1, x.dim(1), x.dim(2)},
                            views[0]));
  const Dims ws = wf == 0 ? Dims{1, w.dim(0), w.dim(1), w.dim(2)}
                          : (wf == 1 ? Dims{w.dim(0), w.dim(1), 1, w.dim(2)} : Dims{w.dim(0), 1, w.dim(1), w.dim(2)});
  RETURN_IF_ERROR(w.reshape(ws, views[1]));
  iargs = {1, block.i_arg(0), 1, block.i_arg(1), 0, block.i_arg(2), 1, block.i_arg(3), block.i_arg(4),
           ncw ? 0 : 1, wf, block.i_arg(7)};
  return Status::ok();
}

// A conv2d call on the views, on this call's device.
void conv2d_call(const Context& block, NDArray views[3], const std::vector<int64_t>& iargs, Context& sub) {
  sub.set_op_name("conv2d");
  sub.add_input(&views[0]);
  sub.add_input(&views[1]);
  if (block.num_inputs() > 2) sub.add_input(block.input(2));
  sub.set_i_args(iargs.data(), static_cast<int>(iargs.size()));
  sub.set_device(block.device());
}

Status renamed(const Context& block, Status s) {
  if (s.is_ok()) return s;
  std::string m = s.message();
  if (m.rfind("conv2d: ", 0) == 0) m = m.substr(8);
  return Status::error(s.code(), "%s: %s", block.op_name(), m.c_str());
}

DeclarableOp* conv2d_op() { return OpRegistry::instance().find("conv2d"); }

}  // namespace
}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(conv1d, -1, 1, false, 0, 4) {
  using namespace libops;
  using namespace libops::ops::nn;
  NDArray views[3];
  std::vector<int64_t> iargs;
  RETURN_IF_ERROR(conv1d_as_2d(block, views, iargs));
  NDArray* z = OUTPUT_VARIABLE(0);
  const bool ncw = block.i_arg(5) == 0;
  RETURN_IF_ERROR(z->reshape(ncw ? Dims{z->dim(0), z->dim(1), 1, z->dim(2)} : Dims{z->dim(0), 1, z->dim(1), z->dim(2)},
                             views[2]));
  Context sub;
  conv2d_call(block, views, iargs, sub);
  sub.add_output(&views[2]);
  return renamed(block, conv2d_op()->execute(sub));
}

DECLARE_SHAPE_FN(conv1d) {
  using namespace libops;
  using namespace libops::ops::nn;
  NDArray views[3];
  std::vector<int64_t> iargs;
  RETURN_IF_ERROR(conv1d_as_2d(block, views, iargs));
  Context sub;
  conv2d_call(block, views, iargs, sub);
  ShapeList s2;
  RETURN_IF_ERROR(renamed(block, conv2d_op()->infer_shapes(sub, s2)));
  const Dims& d = s2[0].dims;  // [N, Cout, 1, oW] or [N, 1, oW, Cout]
  const bool ncw = block.i_arg(5) == 0;
  shapes.push_back(TensorShape{s2[0].dtype, ncw ? Dims{d[0], d[1], d[3]} : Dims{d[0], d[2], d[3]}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(conv1d) {
  // Runs conv2d on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).require_same_type().runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(conv1d) {
  args.describe("1-D convolution with an optional bias, run as conv2d over a unit height.");
  args.input("x", "sequences, [N, Cin, W] (NCW) or [N, W, Cin] (NWC)");
  args.input("weights", "filters in the layout weights_format names; Cin / groups channels each");
  args.optional_input("bias", "[Cout]");
  args.output("z", "[N, Cout, oW] (NCW) or [N, oW, Cout] (NWC), x's dtype");
  args.i_arg("kW", "kernel width; 0 = from the weights").at_least(0);
  args.i_arg("sW", "stride").positive();
  args.i_arg("pW", "padding on each side (when same_mode is 0)").at_least(0);
  args.i_arg("dW", "dilation").positive();
  args.i_arg("same_mode", 0, "1: SAME padding (output ceil(W / sW)), pW ignored").flag();
  args.i_arg("data_format", 0, "layout of x and z").one_of({{0, "NCW"}, {1, "NWC"}});
  args.i_arg("weights_format", 1, "layout of the weights (libnd4j's default is 0)")
      .one_of({{0, "[kW, Cin, Cout]"}, {1, "[Cout, Cin, kW]"}, {2, "[Cout, kW, Cin]"}});
  args.i_arg("groups", 1, "channel groups, as conv2d's").positive();
}
