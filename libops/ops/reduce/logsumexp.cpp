// reduce_logsumexp: log(sum(exp(x))) over axes, without overflow: with m the
// maximum over the axes, m + log(sum(exp(x - m))). m is clamped to the
// dtype's finite range first, so a reduction holding +inf gives +inf, one of
// only -inf gives -inf (as scipy's logsumexp), and an empty one gives -inf;
// a NaN gives NaN. Integers give float32 (they are converted first).
// noop_with_empty_axes (b arg 1, ONNX's): an empty axes input reduces no
// axis, each element alone, which gives x (in the float dtype).
//
// Six legacy steps on the call's device (legacy_steps.h): max with kept
// dims, clamp, x - m broadcast, exp, sum with kept dims, log, + m.
#include <limits>

#include "libops/core/half.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/reduce/reduce_common.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

// b arg 1 and an axes input that is empty: reduce each element alone.
bool reduces_no_axis(const Context& block) {
  return block.b_arg(1) && block.num_inputs() > 1 && block.input(1)->length() == 0;
}

double largest_finite(DataType t) {
  switch (t) {
    case DataType::kFloat16: return 65504.0;
    case DataType::kBFloat16: return 3.3895313892515355e38;
    case DataType::kFloat32: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(reduce_logsumexp, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const DataType dt = z->dtype();
  NDArray x = *INPUT_VARIABLE(0);
  if (x.dtype() != dt) {  // integers: in float32
    NDArray f;
    RETURN_IF_ERROR(step_array(block, dt, x.shape(), f));
    RETURN_IF_ERROR(assign_on_device(block, f, x));
    x = f;
  }
  Dims axes;
  if (reduces_no_axis(block)) {  // x with a trailing unit axis, reduced over it
    NDArray unit;
    RETURN_IF_ERROR(x.expand_dims(x.rank(), unit));
    x = unit;
    axes = Dims{x.rank() - 1};
  } else {
    RETURN_IF_ERROR(reduction_axes(block, axes));
  }
  const Dims kept = reduced_shape(x.shape(), axes, true);
  NDArray m, d, s;
  RETURN_IF_ERROR(step_array(block, dt, kept, m));
  RETURN_IF_ERROR(step_array(block, dt, x.shape(), d));
  RETURN_IF_ERROR(step_array(block, dt, kept, s));
  RETURN_IF_ERROR(reduce_into(block, OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::max), x, axes, m));
  const double bounds[2] = {-largest_finite(dt), largest_finite(dt)};
  RETURN_IF_ERROR(legacy_step(block, OPS_TRANSFORM_SAME, static_cast<int>(legacy::TransformSameOp::clip_by_value), m,
                              nullptr, m, ExtraParams::from(bounds, 2)));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::subtract), x, &m, d));
  RETURN_IF_ERROR(legacy_step(block, OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::exp), d, nullptr, d));
  RETURN_IF_ERROR(reduce_into(block, OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::sum), d, axes, s));
  RETURN_IF_ERROR(legacy_step(block, OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::log), s, nullptr, s));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::add), s, &m, s));
  NDArray result;
  RETURN_IF_ERROR(s.reshape(z->shape(), result));
  return assign_on_device(block, *z, result);
}

DECLARE_SHAPE_FN(reduce_logsumexp) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  if (ops::reduces_no_axis(block)) {
    shapes.push_back(TensorShape{float_result_type(x->dtype()), x->shape(), 'c'});
    return Status::ok();
  }
  Dims axes;
  RETURN_IF_ERROR(ops::reduction_axes(block, axes));
  shapes.push_back(TensorShape{float_result_type(x->dtype()), reduced_shape(x->shape(), axes, B_ARG(0)), 'c'});
  return Status::ok();
}

DECLARE_TYPES(reduce_logsumexp) {
  descriptor.allow_input(0, libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_input(1, libops::types::kInt);
}

DECLARE_PATTERN(reduce_logsumexp, kReduction)

DECLARE_ARGS(reduce_logsumexp) {
  args.describe("log(sum(exp(x))) over axes, computed without overflow.");
  libops::ops::reduction_args(args, "the reduction, in x's float dtype");
  args.b_arg("noop_with_empty_axes", false,
             "an empty axes input reduces no axis (ONNX's noop_with_empty_axes): z is x, in its float dtype");
}

DECLARE_SYN(logsumexp, reduce_logsumexp)
