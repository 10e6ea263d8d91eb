// maxpool3d and avgpool3d: the maximum or mean of each kD x kH x kW window
// of every channel (libnd4j's maxpool3dnew / avgpool3dnew, ONNX MaxPool /
// AveragePool over three spatial dims, PyTorch's MaxPool3d / AvgPool3d).
//
//   input   x [N, C, D, H, W] (NCDHW) or [N, D, H, W, C] (NDHWC), float
//   i args  0..12 the window (Note [3-D windows] in window3d.h); 13
//           count_include_pad for avgpool3d (0: divide by the taps inside x;
//           1: by the taps inside the padded input), unused for maxpool3d
//           (libnd4j's extraParam0 slot); 14 data_format; 15 ceil_mode
//   output  [N, C, oD, oH, oW] (or NDHWC), x's dtype
//
// Padding never wins a max (x is padded with -inf first); a NaN in a
// window gives NaN. A window over no input element (only with dilation)
// gives -inf for the max and 0 for the mean. Ceil mode as conv_utils.h's
// Note [Ceil mode]. Built from pad, unfold, the reductions and
// divide_no_nan on the call's device.
#include <limits>

#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"
#include "libops/ops/nn/window3d.h"

namespace libops::ops::nn3d {
namespace {

Status plan_pool(const Context& block, Window3d& w, Geometry3d& g) {
  w = read_window3d(block);
  RETURN_IF_ERROR(read_input3d(block, *block.input(0), block.i_arg(14) == 0, g));
  if (!w.same)
    for (int a = 0; a < 3; ++a)
      if (w.p[a] >= effective(w, a))
        return block.error(StatusCode::kInvalidArgument, "padding %lld must be smaller than the dilated kernel %lld",
                           static_cast<long long>(w.p[a]), static_cast<long long>(effective(w, a)));
  return forward_geometry(block, w, block.i_arg(15) == 1, g);
}

// x padded by (before, after) per spatial dim with `value` (NCDHW view in).
Status padded(const Context& block, const NDArray& x, const int64_t before[3], const int64_t after[3], double value,
              NDArray& out) {
  std::vector<int64_t> list{0, 0, 0, 0, 0};  // mode constant, then N and C unpadded
  for (int a = 0; a < 3; ++a) {
    list.push_back(before[a]);
    list.push_back(after[a]);
  }
  return run_nested(block, "pad", {&x}, {.t = {value}, .i = list}, out);
}

bool any_padding(const Geometry3d& g) {
  for (int a = 0; a < 3; ++a)
    if (g.before[a] || g.after[a]) return true;
  return false;
}

// [N, C, L] pooled values to the op's output.
Status store_pooled(Context& block, const Geometry3d& g, NDArray& pooled) {
  NDArray z, out;
  RETURN_IF_ERROR(with_op_name(block, pooled.reshape(Dims{g.n, g.c, g.out[0], g.out[1], g.out[2]}, z)));
  RETURN_IF_ERROR(with_op_name(block, from_ncdhw(z, g.ncdhw, out)));
  return block.store_result(0, out);
}

Status maxpool3d_exec(Context& block) {
  Window3d w;
  Geometry3d g;
  RETURN_IF_ERROR(plan_pool(block, w, g));
  if (block.output(0)->length() == 0) return Status::ok();
  const int64_t none[3] = {0, 0, 0};
  NDArray x, xp, cols, pooled;
  RETURN_IF_ERROR(with_op_name(block, as_ncdhw(*block.input(0), g.ncdhw, x)));
  xp = x;
  if (any_padding(g))
    RETURN_IF_ERROR(padded(block, x, g.before, g.after, -std::numeric_limits<double>::infinity(), xp));
  RETURN_IF_ERROR(run_nested(block, "unfold", {&xp}, {.i = window_list3d(w, none, none)}, cols));
  RETURN_IF_ERROR(run_nested(block, "reduce_max", {&cols}, {.i = {2}, .b = {false}}, pooled));
  return store_pooled(block, g, pooled);
}

Status avgpool3d_exec(Context& block) {
  Window3d w;
  Geometry3d g;
  RETURN_IF_ERROR(plan_pool(block, w, g));
  if (block.output(0)->length() == 0) return Status::ok();
  NDArray x, cols, sums;
  RETURN_IF_ERROR(with_op_name(block, as_ncdhw(*block.input(0), g.ncdhw, x)));
  RETURN_IF_ERROR(run_nested(block, "unfold", {&x}, {.i = window_list3d(w, g.before, g.after)}, cols));
  if (!any_padding(g)) {  // every window whole
    NDArray mean;
    RETURN_IF_ERROR(run_nested(block, "reduce_mean", {&cols}, {.i = {2}, .b = {false}}, mean));
    return store_pooled(block, g, mean);
  }
  RETURN_IF_ERROR(run_nested(block, "reduce_sum", {&cols}, {.i = {2}, .b = {false}}, sums));
  // Each window's divisor: its taps over ones that cover x, or x and its
  // padding (count_include_pad; the windows ceil mode adds past the padding
  // still count only what they cover).
  NDArray ones, one, mask, mask_cols, counts, mean;
  RETURN_IF_ERROR(with_op_name(block, NDArray::create(x.dtype(), Dims{1, 1, g.in[0], g.in[1], g.in[2]}, 'c', ones)));
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(x.dtype(), 1.0, one)));
  RETURN_IF_ERROR(assign_on_device(block, ones, one));
  int64_t before[3], after[3];
  mask = ones;
  if (block.i_arg(13) == 1) {
    int64_t pad_after[3];
    for (int a = 0; a < 3; ++a) pad_after[a] = w.same ? g.after[a] : w.p[a];
    RETURN_IF_ERROR(padded(block, ones, g.before, pad_after, 1.0, mask));
    for (int a = 0; a < 3; ++a) before[a] = 0, after[a] = g.after[a] - pad_after[a];
  } else {
    for (int a = 0; a < 3; ++a) before[a] = g.before[a], after[a] = g.after[a];
  }
  RETURN_IF_ERROR(run_nested(block, "unfold", {&mask}, {.i = window_list3d(w, before, after)}, mask_cols));
  RETURN_IF_ERROR(run_nested(block, "reduce_sum", {&mask_cols}, {.i = {2}, .b = {false}}, counts));  // [1, 1, L]
  RETURN_IF_ERROR(run_nested(block, "divide_no_nan", {&sums, &counts}, {.inplace = true}, mean));
  return store_pooled(block, g, mean);
}

Status pool_shape(Context& block, ShapeList& shapes) {
  Window3d w;
  Geometry3d g;
  RETURN_IF_ERROR(plan_pool(block, w, g));
  shapes.push_back(TensorShape{block.input(0)->dtype(), output_dims3d(g, g.c), 'c'});
  return Status::ok();
}

void pool3d_signature(OpSignature& args, const char* result, const char* slot13) {
  args.input("x", "volumes, [N, C, D, H, W] (NCDHW) or [N, D, H, W, C] (NDHWC)");
  args.output("z", result);
  window3d_signature(args, false);
  if (slot13 == nullptr)
    args.i_arg("count_include_pad", 0, "1: divide by the taps inside the padded input; 0: by those inside x").flag();
  else
    args.i_arg("unused", 0, slot13);
  data_format3d_arg(args);
  args.i_arg("ceil_mode", 0, "1: round the output extent up (Note [Ceil mode] in conv_utils.h)").flag();
}

}  // namespace
}  // namespace libops::ops::nn3d

CUSTOM_OP_IMPL(maxpool3d, 1, 1, false, 0, 13) { return libops::ops::nn3d::maxpool3d_exec(block); }

DECLARE_SHAPE_FN(maxpool3d) { return libops::ops::nn3d::pool_shape(block, shapes); }

DECLARE_TYPES(maxpool3d) {
  // Runs pad, unfold and reduce_max on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(maxpool3d) {
  args.describe("3-D max pooling.");
  libops::ops::nn3d::pool3d_signature(args, "the maximum of each window, [N, C, oD, oH, oW] or NDHWC",
                                      "ignored: libnd4j's extraParam0 slot, as avgpool3d's count_include_pad");
}

DECLARE_SYN(maxpool3dnew, maxpool3d)

CUSTOM_OP_IMPL(avgpool3d, 1, 1, false, 0, 13) { return libops::ops::nn3d::avgpool3d_exec(block); }

DECLARE_SHAPE_FN(avgpool3d) { return libops::ops::nn3d::pool_shape(block, shapes); }

DECLARE_TYPES(avgpool3d) {
  // Runs pad, unfold, reductions and divide_no_nan on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(avgpool3d) {
  args.describe("3-D average pooling.");
  libops::ops::nn3d::pool3d_signature(args, "the mean of each window, [N, C, oD, oH, oW] or NDHWC", nullptr);
}

DECLARE_SYN(avgpool3dnew, avgpool3d)
