// relu: z = x > threshold ? x : 0 (a thresholded ReLU; plain ReLU at 0).
//
//   input   x: any numeric dtype, any shape and strides
//   t arg   0 threshold, optional, default 0; not NaN
//   output  x's dtype and shape; may run in place
//
// NaN stays NaN, as in PyTorch (Note [Binary NaN policy] in
// legacy/ops/binary_ops.h). Computed by the legacy tables: the transform
// "relu" row without a threshold, the scalar "relu" row with one. The
// threshold is passed as a scalar of x's compute type (Note [Compute
// types]), so no wider type is computed in; for integer x it is
// floor(threshold), which gives the same answer as comparing with the real
// threshold (saturated at the compute type's range).
#include <cmath>

#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops::nn {
namespace {

DataType compute_storage_dtype(ComputeType c) {
  switch (c) {
    case ComputeType::kF32: return DataType::kFloat32;
    case ComputeType::kF64: return DataType::kFloat64;
    case ComputeType::kI32: return DataType::kInt32;
    case ComputeType::kI64: return DataType::kInt64;
    case ComputeType::kU64: break;
  }
  return DataType::kUInt64;
}

}  // namespace
}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(relu, 1, 1, true, 0, 0) {
  using namespace libops;
  NDArray src = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  // A supplied output overlapping x in another layout would be read after
  // being written: work from a copy then.
  if (z->may_overlap(src) && !z->same_view(src)) {
    RETURN_IF_ERROR(src.buffer()->sync_to_host());  // dup copies on the host
    RETURN_IF_ERROR(INPUT_VARIABLE(0)->dup('c', src));
  }
  const double threshold = T_ARG(0);
  legacy::LegacyCall call;
  call.x = &src;
  call.z = z;
  call.device = block.device();
  NDArray y;
  if (threshold == 0.0) {
    call.group = OPS_TRANSFORM_SAME;
    call.num = static_cast<int>(legacy::TransformSameOp::relu);
  } else {
    const DataType yt = ops::nn::compute_storage_dtype(compute_type_of(src.dtype()));
    RETURN_IF_ERROR(NDArray::scalar(yt, dtype_is_float(yt) ? threshold : std::floor(threshold), y));
    call.group = OPS_SCALAR;
    call.num = static_cast<int>(legacy::BinaryOp::relu);
    call.y = &y;
  }
  Status s = legacy::exec(call);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

DECLARE_SHAPE_FN(relu) {
  using namespace libops;
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(relu) {
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kNumeric);
}

DECLARE_PATTERN(relu, kElementwise)

DECLARE_ARGS(relu) {
  args.describe("Rectified linear unit with an optional threshold.");
  args.input("x", "any numeric array");
  args.output("z", "x where x > threshold, else 0; NaN stays NaN");
  args.t_arg("threshold", 0.0, "values at or below it become 0");
}
