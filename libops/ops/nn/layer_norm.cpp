// layer_norm: normalize over the trailing axes, as ONNX LayerNormalization.
//
//   inputs  x      float16, bfloat16, float32 or float64, rank >= 1
//           scale  optional, the normalized shape x.shape[axis:] (leading 1s
//                  aside), any float dtype
//           bias   optional (only after scale), the same shape
//   i arg   axis, optional, default -1: the first normalized axis; negative
//           counts from the end
//   t arg   epsilon, optional, default 1e-5, >= 0
//   output  x's dtype and shape:
//           (x - mean) / sqrt(var + epsilon) * scale + bias,
//           mean and var (biased) over axes axis .. rank - 1
//
// The row engine of Note [Row normalization] (row_norm.h): on the CPU and
// on every device that registered its kernel. ONNX's optional Mean and
// InvStdDev outputs are not produced.
#include "libops/ops/nn/row_norm.h"
#include "libops/ops/nn/norm_params.h"

CUSTOM_OP_IMPL(layer_norm, -1, 1, true, 0, 0) {
  using namespace libops::ops::nn;
  RowNormDesc d;
  RETURN_IF_ERROR(trailing_norm_desc(block, RowNormKind::kStandardize, d));
  const int n_in = block.num_inputs();
  return row_norm_exec(block, d, *INPUT_VARIABLE(0), n_in > 1 ? INPUT_VARIABLE(1) : nullptr,
                       n_in > 2 ? INPUT_VARIABLE(2) : nullptr, *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(layer_norm) {
  using namespace libops;
  ops::nn::RowNormDesc d;
  RETURN_IF_ERROR(ops::nn::trailing_norm_desc(block, ops::nn::RowNormKind::kStandardize, d));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(layer_norm) {
  // On a device through row_norm_device_kernel (row_norm.cu for CUDA).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(layer_norm) {
  args.describe("Layer normalization over the axes from axis to the end (ONNX LayerNormalization).");
  args.input("x", "the array, rank >= 1");
  args.optional_input("scale", "x.shape[axis:], multiplies the normalized values");
  args.optional_input("bias", "x.shape[axis:], added last (give scale too)");
  args.output("z", "(x - mean) / sqrt(var + epsilon) * scale + bias; x's dtype and shape");
  args.i_arg("axis", -1, "the first normalized axis").axis(0);
  args.t_arg("epsilon", 1e-5, "added to the variance").at_least(0.0).finite();
}

DECLARE_SYN(layernormalization, layer_norm)
DECLARE_SYN(layer_normalization, layer_norm)
DECLARE_SYN(layernorm, layer_norm)
