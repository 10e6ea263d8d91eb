// group_norm and instance_norm: normalize each sample over groups of
// channels and all spatial positions, NCHW (ONNX GroupNormalization,
// opset 21, and InstanceNormalization).
//
//   inputs  x      float16, bfloat16, float32 or float64, [N, C, S...],
//                  rank >= 2 (S may be absent: [N, C])
//           scale  optional, [C] (any float dtype; leading 1s aside)
//           bias   optional (only after scale), [C]
//   i arg   group_norm: num_groups, required, >= 1, dividing C;
//           instance_norm has none (one group per channel)
//   t arg   epsilon, optional, default 1e-5, >= 0
//   output  x's dtype and shape: per sample n and group g of C / G
//           channels, (x - mean) / sqrt(var + epsilon), then per channel c
//           times scale[c] plus bias[c]
//
// The row engine of Note [Row normalization] (row_norm.h): a row is one
// (sample, group), spatial = S.
#include "libops/ops/nn/norm_params.h"
#include "libops/ops/nn/row_norm.h"

namespace libops::ops::nn {

// x [N, C, S...] in G groups; `groups` 0 means one per channel.
Status group_norm_desc(Context& block, int64_t groups, RowNormDesc& d) {
  const NDArray& x = *block.input(0);
  REQUIRE_TRUE(x.rank() >= 2, OPS_ERR_SHAPE, "x%s has rank %d: it must be [N, C, ...], rank >= 2",
               x.shape().str().c_str(), x.rank());
  const int64_t c = x.dim(1);
  if (groups == 0) groups = c;
  REQUIRE_TRUE(c == 0 || c % groups == 0, OPS_ERR_SHAPE,
               "x%s has %lld channels and num_groups is %lld: the channels must be a multiple of num_groups",
               x.shape().str().c_str(), static_cast<long long>(c), static_cast<long long>(groups));
  int64_t spatial = 1;
  for (int k = 2; k < x.rank(); ++k) spatial *= x.dim(k);
  d.kind = RowNormKind::kStandardize;
  d.epsilon = block.t_arg(0);
  d.groups = groups;
  d.rows = x.dim(0) * groups;
  d.n = c == 0 ? 0 : c / groups * spatial;
  d.spatial = spatial == 0 ? 1 : spatial;  // an empty x runs nothing
  static const char* const kNames[] = {"x", "scale", "bias"};
  for (int i = 1; i < block.num_inputs(); ++i)
    RETURN_IF_ERROR(check_param_shape(block, kNames[i], *block.input(i), Dims{c}, 1));
  return Status::ok();
}

}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(group_norm, -1, 1, true, 0, 1) {
  using namespace libops::ops::nn;
  RowNormDesc d;
  RETURN_IF_ERROR(group_norm_desc(block, INT_ARG(0), d));
  const int n_in = block.num_inputs();
  return row_norm_exec(block, d, *INPUT_VARIABLE(0), n_in > 1 ? INPUT_VARIABLE(1) : nullptr,
                       n_in > 2 ? INPUT_VARIABLE(2) : nullptr, *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(group_norm) {
  using namespace libops;
  ops::nn::RowNormDesc d;
  RETURN_IF_ERROR(ops::nn::group_norm_desc(block, INT_ARG(0), d));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(group_norm) {
  // On a device through row_norm_device_kernel (row_norm.cu for CUDA).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(group_norm) {
  args.describe("Group normalization of NCHW x over channel groups and positions (ONNX GroupNormalization).");
  args.input("x", "[N, C, ...], rank >= 2");
  args.optional_input("scale", "[C], per channel");
  args.optional_input("bias", "[C], per channel (give scale too)");
  args.output("z", "(x - mean) / sqrt(var + epsilon) * scale + bias per (sample, group); x's dtype and shape");
  args.i_arg("num_groups", "G, dividing C").positive();
  args.t_arg("epsilon", 1e-5, "added to the variance").at_least(0.0).finite();
}

DECLARE_SYN(groupnormalization, group_norm)
DECLARE_SYN(group_normalization, group_norm)
DECLARE_SYN(groupnorm, group_norm)
