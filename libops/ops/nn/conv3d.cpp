// conv3d and deconv3d: 3-D convolution and its transpose (libnd4j's
// conv3dnew / deconv3d, ONNX Conv / ConvTranspose over three spatial dims,
// PyTorch's Conv3d / ConvTranspose3d), grouped, with an optional bias.
//
//   conv3d    x [N, Cin, D, H, W] (NCDHW) or [N, D, H, W, Cin] (NDHWC);
//             weights by weights_format: 1 = [Cout, Cin/G, kD, kH, kW]
//             (default: ONNX's, PyTorch's), 0 = [kD, kH, kW, Cin/G, Cout]
//             (libnd4j's), 2 = [Cout, kD, kH, kW, Cin/G]; bias [Cout]
//             i args 0..12 the window (Note [3-D windows] in window3d.h),
//             13 data_format, 14 weights_format, 15 groups
//             z [N, Cout, oD, oH, oW] (or NDHWC), oD as conv2d's oH
//   deconv3d  weights 1 = [Cin, Cout/G, kD, kH, kW] (default: ONNX's),
//             0 = [kD, kH, kW, Cout/G, Cin] (libnd4j's), 2 = [Cin, kD, kH,
//             kW, Cout/G]; i args 0..12 the window of the convolution it
//             transposes, 13 data_format, 14 weights_format, 15..17 output
//             padding opD, opH, opW (each below its stride or dilation),
//             18 groups
//             oD = (D - 1) sD + (kD - 1) dD + 1 - 2 pD + opD (SAME: D sD + opD)
//
// As im2col + GEMM on the call's device: conv3d = W [G, Cout/G, Cin/G k]
// times unfold(x) [N, G, Cin/G k, L]; deconv3d = fold(W^T x), fold summing
// each column back where unfold would have read it (window/window.h).
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"
#include "libops/ops/nn/window3d.h"

namespace libops::ops::nn3d {
namespace {

struct ConvPlan {
  Window3d w;
  Geometry3d g;
  int64_t cin = 0, cout = 0, groups = 1;
  int64_t op[3] = {0, 0, 0};  // deconv3d's output padding
};

// The weights as [Cout, Cin/G, kD, kH, kW] (conv3d) or [Cin, Cout/G, kD, kH,
// kW] (deconv3d): format 1 as it is, 0 and 2 permuted (the same axes for
// both ops).
Status canonical_weights(const NDArray& w, int format, NDArray& out) {
  if (format == 0) return w.permute(Dims{4, 3, 0, 1, 2}, out);
  if (format == 2) return w.permute(Dims{0, 4, 1, 2, 3}, out);
  out = w;
  return Status::ok();
}

Status plan_conv(const Context& block, bool transposed, ConvPlan& c) {
  const NDArray& x = *block.input(0);
  const NDArray& w = *block.input(1);
  c.w = read_window3d(block);
  RETURN_IF_ERROR(read_input3d(block, x, block.i_arg(13) == 0, c.g));
  c.groups = block.i_arg(transposed ? 18 : 15);
  c.cin = c.g.c;
  if (w.rank() != 5)
    return block.error(StatusCode::kInvalidArgument, "weights%s must have rank 5", w.shape().str().c_str());
  NDArray wc;
  RETURN_IF_ERROR(with_op_name(block, canonical_weights(w, static_cast<int>(block.i_arg(14)), wc)));
  // wc: conv [Cout, Cin/G, k...], deconv [Cin, Cout/G, k...].
  const bool channels_ok = c.cin % c.groups == 0 &&
                           (transposed ? wc.dim(0) == c.cin : wc.dim(1) * c.groups == c.cin);
  c.cout = transposed ? wc.dim(1) * c.groups : wc.dim(0);
  if (!channels_ok || c.cout % c.groups != 0)
    return block.error(StatusCode::kInvalidArgument,
                       "weights%s (weights_format %lld) do not fit x%s with %lld channels in %lld groups",
                       w.shape().str().c_str(), static_cast<long long>(block.i_arg(14)), x.shape().str().c_str(),
                       static_cast<long long>(c.cin), static_cast<long long>(c.groups));
  for (int a = 0; a < 3; ++a) {
    if (c.w.k[a] == 0) c.w.k[a] = wc.dim(2 + a);
    if (c.w.k[a] != wc.dim(2 + a))
      return block.error(StatusCode::kInvalidArgument, "kernel %lldx%lldx%lld does not match weights%s",
                         static_cast<long long>(c.w.k[0]), static_cast<long long>(c.w.k[1]),
                         static_cast<long long>(c.w.k[2]), w.shape().str().c_str());
  }
  if (block.num_inputs() > 2 && block.input(2)->shape() != Dims{c.cout})
    return block.error(StatusCode::kInvalidArgument, "bias%s must be [Cout] = [%lld]",
                       block.input(2)->shape().str().c_str(), static_cast<long long>(c.cout));
  for (int k = 1; k < block.num_inputs(); ++k)
    if (block.input(k)->dtype() != x.dtype())
      return block.error(StatusCode::kInvalidArgument, "input %d is %s, not x's %s: the inputs share one dtype", k,
                         dtype_name(block.input(k)->dtype()), dtype_name(x.dtype()));
  if (!transposed) return forward_geometry(block, c.w, false, c.g);
  // The transpose: output extents from the input's, the padding the
  // convolution it transposes would have (SAME: smaller half before).
  for (int a = 0; a < 3; ++a) {
    c.op[a] = block.i_arg(15 + a);
    const int64_t eff = effective(c.w, a), in = c.g.in[a];
    if (c.op[a] >= c.w.s[a] && c.op[a] >= c.w.d[a])
      return block.error(StatusCode::kInvalidArgument, "output padding %lld must be below its stride %lld or dilation %lld",
                         static_cast<long long>(c.op[a]), static_cast<long long>(c.w.s[a]),
                         static_cast<long long>(c.w.d[a]));
    if (c.w.same) {
      const int64_t total = std::max<int64_t>(0, eff - c.w.s[a]);
      c.g.before[a] = total / 2;
      c.g.after[a] = total - c.g.before[a];
      c.g.out[a] = in * c.w.s[a] + c.op[a];
    } else {
      c.g.before[a] = c.g.after[a] = c.w.p[a];
      c.g.out[a] = (in - 1) * c.w.s[a] + eff - 2 * c.w.p[a] + c.op[a];
    }
    if (c.g.out[a] < 1)
      return block.error(StatusCode::kInvalidArgument, "the padding (%lld) leaves no output along spatial dim %d",
                         static_cast<long long>(c.w.p[a]), a);
  }
  return Status::ok();
}

// The weights dense in the canonical layout, seen as [1, G, rows, cols].
Status weight_matrix(const Context& block, const ConvPlan& c, int64_t rows, int64_t cols, NDArray& out) {
  NDArray wc, dense;
  RETURN_IF_ERROR(with_op_name(block, canonical_weights(*block.input(1), static_cast<int>(block.i_arg(14)), wc)));
  RETURN_IF_ERROR(dense_on_device(block, wc, wc.dtype(), dense));
  return with_op_name(block, dense.reshape(Dims{1, c.groups, rows, cols}, out));
}

// z (NCDHW [N, Cout, oD, oH, oW]) plus the bias, stored in the call's layout.
Status finish(Context& block, const ConvPlan& c, NDArray& z) {
  if (block.num_inputs() > 2) {
    NDArray b;
    RETURN_IF_ERROR(with_op_name(block, block.input(2)->reshape(Dims{c.cout, 1, 1, 1}, b)));
    RETURN_IF_ERROR(run_nested(block, "add", {&z, &b}, {.inplace = true}, z));
  }
  NDArray out;
  RETURN_IF_ERROR(with_op_name(block, from_ncdhw(z, c.g.ncdhw, out)));
  return block.store_result(0, out);
}

Status conv3d_exec(Context& block) {
  ConvPlan c;
  RETURN_IF_ERROR(plan_conv(block, false, c));
  if (block.output(0)->length() == 0) return Status::ok();
  const int64_t taps = c.w.k[0] * c.w.k[1] * c.w.k[2], L = c.g.out[0] * c.g.out[1] * c.g.out[2];
  const int64_t cg = c.cin / c.groups;
  NDArray x, cols, cols4, w4, y, z;
  RETURN_IF_ERROR(with_op_name(block, as_ncdhw(*block.input(0), c.g.ncdhw, x)));
  RETURN_IF_ERROR(run_nested(block, "unfold", {&x}, {.i = window_list3d(c.w, c.g.before, c.g.after)}, cols));
  RETURN_IF_ERROR(with_op_name(block, cols.reshape(Dims{c.g.n, c.groups, cg * taps, L}, cols4)));
  RETURN_IF_ERROR(weight_matrix(block, c, c.cout / c.groups, cg * taps, w4));
  RETURN_IF_ERROR(run_nested(block, "matmul", {&w4, &cols4}, {}, y));  // [N, G, Cout/G, L]
  RETURN_IF_ERROR(with_op_name(block, y.reshape(Dims{c.g.n, c.cout, c.g.out[0], c.g.out[1], c.g.out[2]}, z)));
  return finish(block, c, z);
}

Status deconv3d_exec(Context& block) {
  ConvPlan c;
  RETURN_IF_ERROR(plan_conv(block, true, c));
  if (block.output(0)->length() == 0) return Status::ok();
  const int64_t taps = c.w.k[0] * c.w.k[1] * c.w.k[2], L = c.g.in[0] * c.g.in[1] * c.g.in[2];
  const int64_t cg = c.cin / c.groups, og = c.cout / c.groups;
  NDArray xv, x, x4, w4, cols, cols4, z;
  RETURN_IF_ERROR(with_op_name(block, as_ncdhw(*block.input(0), c.g.ncdhw, xv)));
  RETURN_IF_ERROR(dense_on_device(block, xv, xv.dtype(), x));
  RETURN_IF_ERROR(with_op_name(block, x.reshape(Dims{c.g.n, c.groups, cg, L}, x4)));
  RETURN_IF_ERROR(weight_matrix(block, c, cg, og * taps, w4));
  RETURN_IF_ERROR(run_nested(block, "matmul", {&w4, &x4}, {.i = {1, 0}}, cols));  // [N, G, Cout/G k, L]
  RETURN_IF_ERROR(with_op_name(block, cols.reshape(Dims{c.g.n, c.cout, taps, L}, cols4)));
  // The output padding extends the output at the end: fold crops `after`
  // less of the full extent there, and rows past the full extent (when the
  // output padding exceeds the padding) are zeros appended after the fold.
  int64_t after[3], extra[3];
  for (int a = 0; a < 3; ++a) {
    after[a] = std::max<int64_t>(0, c.g.after[a] - c.op[a]);
    extra[a] = std::max<int64_t>(0, c.op[a] - c.g.after[a]);
  }
  std::vector<int64_t> list{c.g.out[0] - extra[0], c.g.out[1] - extra[1], c.g.out[2] - extra[2]};
  for (int64_t v : window_list3d(c.w, c.g.before, after)) list.push_back(v);
  RETURN_IF_ERROR(run_nested(block, "fold", {&cols4}, {.i = list}, z));
  if (extra[0] || extra[1] || extra[2]) {
    NDArray grown;
    RETURN_IF_ERROR(run_nested(block, "pad", {&z}, {.t = {0.0}, .i = {0, 0, 0, 0, 0, 0, extra[0], 0, extra[1], 0,
                                                                       extra[2]}}, grown));
    z = grown;
  }
  return finish(block, c, z);
}

Status conv_shape(Context& block, bool transposed, ShapeList& shapes) {
  ConvPlan c;
  RETURN_IF_ERROR(plan_conv(block, transposed, c));
  shapes.push_back(TensorShape{block.input(0)->dtype(), output_dims3d(c.g, c.cout), 'c'});
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops::nn3d

CUSTOM_OP_IMPL(conv3d, -1, 1, false, 0, 13) { return libops::ops::nn3d::conv3d_exec(block); }

DECLARE_SHAPE_FN(conv3d) { return libops::ops::nn3d::conv_shape(block, false, shapes); }

DECLARE_TYPES(conv3d) {
  // Runs unfold, matmul and add on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(conv3d) {
  args.describe("3-D convolution (cross-correlation) with an optional bias; grouped with groups.");
  using namespace libops::ops::nn3d;
  args.input("x", "volumes, [N, Cin, D, H, W] (NCDHW) or [N, D, H, W, Cin] (NDHWC)");
  args.input("weights", "filters in the layout weights_format names; Cin / groups channels each");
  args.optional_input("bias", "[Cout]");
  args.output("z", "[N, Cout, oD, oH, oW] (NCDHW) or [N, oD, oH, oW, Cout] (NDHWC), x's dtype");
  window3d_signature(args, true);
  data_format3d_arg(args);
  args.i_arg("weights_format", 1, "layout of the weights (libnd4j's default is 0)")
      .one_of({{0, "[kD, kH, kW, Cin/G, Cout]"}, {1, "[Cout, Cin/G, kD, kH, kW]"}, {2, "[Cout, kD, kH, kW, Cin/G]"}});
  args.i_arg("groups", 1, "channel groups: Cin and Cout split into this many runs").range(1, 2147483647.0);
}

DECLARE_SYN(conv3dnew, conv3d)

CUSTOM_OP_IMPL(deconv3d, -1, 1, false, 0, 13) { return libops::ops::nn3d::deconv3d_exec(block); }

DECLARE_SHAPE_FN(deconv3d) { return libops::ops::nn3d::conv_shape(block, true, shapes); }

DECLARE_TYPES(deconv3d) {
  // Runs matmul, fold and add on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(deconv3d) {
  args.describe("3-D transposed convolution (ONNX ConvTranspose) with an optional bias; grouped with groups.");
  using namespace libops::ops::nn3d;
  args.input("x", "volumes, [N, Cin, D, H, W] (NCDHW) or [N, D, H, W, Cin] (NDHWC)");
  args.input("weights", "filters in the layout weights_format names");
  args.optional_input("bias", "[Cout]");
  args.output("z", "[N, Cout, oD, oH, oW] (NCDHW) or NDHWC, x's dtype; oD = (D - 1) * sD + (kD - 1) * dD + 1 - "
                   "2 * pD + opD (SAME: D * sD + opD)");
  window3d_signature(args, true);
  data_format3d_arg(args);
  args.i_arg("weights_format", 1, "layout of the weights (libnd4j's default is 0)")
      .one_of({{0, "[kD, kH, kW, Cout/G, Cin]"}, {1, "[Cin, Cout/G, kD, kH, kW]"}, {2, "[Cin, kD, kH, kW, Cout/G]"}});
  args.i_arg("opD", 0, "output padding after the depth, below sD or dD").range(0, 2147483647.0);
  args.i_arg("opH", 0, "output padding after the height, below sH or dH").range(0, 2147483647.0);
  args.i_arg("opW", 0, "output padding after the width, below sW or dW").range(0, 2147483647.0);
  args.i_arg("groups", 1, "channel groups: Cin and Cout split into this many runs").range(1, 2147483647.0);
}
