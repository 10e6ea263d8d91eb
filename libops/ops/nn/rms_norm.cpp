// rms_norm: divide by the root mean square over the trailing axes, as ONNX
// RMSNormalization.
//
//   inputs  x      float16, bfloat16, float32 or float64, rank >= 1
//           scale  optional, the normalized shape x.shape[axis:] (leading 1s
//                  aside), any float dtype
//   i arg   axis, optional, default -1: the first normalized axis; negative
//           counts from the end
//   t arg   epsilon, optional, default 1e-5, >= 0
//   output  x's dtype and shape: x / sqrt(mean(x^2) + epsilon) * scale, the
//           mean over axes axis .. rank - 1
//
// The row engine of Note [Row normalization] (row_norm.h), kind kRms.
#include "libops/ops/nn/norm_params.h"
#include "libops/ops/nn/row_norm.h"

CUSTOM_OP_IMPL(rms_norm, -1, 1, true, 0, 0) {
  using namespace libops::ops::nn;
  RowNormDesc d;
  RETURN_IF_ERROR(trailing_norm_desc(block, RowNormKind::kRms, d));
  return row_norm_exec(block, d, *INPUT_VARIABLE(0), block.num_inputs() > 1 ? INPUT_VARIABLE(1) : nullptr, nullptr,
                       *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(rms_norm) {
  using namespace libops;
  ops::nn::RowNormDesc d;
  RETURN_IF_ERROR(ops::nn::trailing_norm_desc(block, ops::nn::RowNormKind::kRms, d));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(rms_norm) {
  // On a device through row_norm_device_kernel (row_norm.cu for CUDA).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(rms_norm) {
  args.describe("Root-mean-square normalization over the axes from axis to the end (ONNX RMSNormalization).");
  args.input("x", "the array, rank >= 1");
  args.optional_input("scale", "x.shape[axis:], multiplies the normalized values");
  args.output("z", "x / sqrt(mean(x^2) + epsilon) * scale; x's dtype and shape");
  args.i_arg("axis", -1, "the first normalized axis").axis(0);
  args.t_arg("epsilon", 1e-5, "added to the mean square").at_least(0.0).finite();
}

DECLARE_SYN(rmsnormalization, rms_norm)
DECLARE_SYN(rms_normalization, rms_norm)
DECLARE_SYN(rmsnorm, rms_norm)
