// instance_norm: group_norm with one group per channel (ONNX
// InstanceNormalization): each (sample, channel) of NCHW x normalized over
// its positions. Inputs, arg and output as group_norm's (group_norm.cpp)
// without num_groups.
#include "libops/ops/nn/norm_params.h"

CUSTOM_OP_IMPL(instance_norm, -1, 1, true, 0, 0) {
  using namespace libops::ops::nn;
  RowNormDesc d;
  RETURN_IF_ERROR(group_norm_desc(block, 0, d));
  const int n_in = block.num_inputs();
  return row_norm_exec(block, d, *INPUT_VARIABLE(0), n_in > 1 ? INPUT_VARIABLE(1) : nullptr,
                       n_in > 2 ? INPUT_VARIABLE(2) : nullptr, *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(instance_norm) {
  using namespace libops;
  ops::nn::RowNormDesc d;
  RETURN_IF_ERROR(ops::nn::group_norm_desc(block, 0, d));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(instance_norm) {
  // On a device through row_norm_device_kernel (row_norm.cu for CUDA).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(instance_norm) {
  args.describe("Instance normalization: each channel of each NCHW sample over its positions.");
  args.input("x", "[N, C, ...], rank >= 2");
  args.optional_input("scale", "[C], per channel");
  args.optional_input("bias", "[C], per channel (give scale too)");
  args.output("z", "(x - mean) / sqrt(var + epsilon) * scale + bias per (sample, channel); x's dtype and shape");
  args.t_arg("epsilon", 1e-5, "added to the variance").at_least(0.0).finite();
}

DECLARE_SYN(instancenormalization, instance_norm)
DECLARE_SYN(instance_normalization, instance_norm)
