// cast: x converted to another dtype.
//
//   input   x: any dtype
//   args    the target dtype: d arg 0, or else i arg 0 holding its
//           ops_dtype_t number (include/libops/c_types.h)
//   output  x's shape in the target dtype
//
// Conversions follow loops/convert.h: float to integer truncates toward zero
// and saturates at the integer's range, NaN becomes 0; anything to bool is
// v != 0; integer narrowing wraps; float to float16/bfloat16 rounds to
// nearest even, overflowing to inf.
#include "libops/loops/copy.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status cast_target(Context& block, DataType& target) {
  target = block.d_arg(0);  // valid or "not given" (the signature checked it)
  if (target == DataType::kInvalid) target = static_cast<DataType>(block.i_arg(0));
  REQUIRE_TRUE(target != DataType::kInvalid, 0,
               "no target dtype: give it as d arg 0 (dtype) or as i arg 0 (dtype_number, an ops_dtype_t number)");
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(cast, 1, 1, false, 0, 0) {
  using namespace libops;
  return ops::assign_on_device(block, *OUTPUT_VARIABLE(0), *INPUT_VARIABLE(0));  // converts
}

DECLARE_SHAPE_FN(cast) {
  using namespace libops;
  DataType target = DataType::kInvalid;
  RETURN_IF_ERROR(ops::cast_target(block, target));
  shapes.push_back(TensorShape{target, INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(cast) {
  descriptor.allow_inputs(libops::types::kAny);
  descriptor.allow_outputs(libops::types::kAny);
  descriptor.runs_on_any_device();  // Note [Copies on a device]
}

DECLARE_PATTERN(cast, kElementwise)

DECLARE_ARGS(cast) {
  args.describe("Converts x to another dtype.");
  args.input("x", "any array");
  args.output("z", "x converted to the target dtype");
  args.d_arg("dtype", libops::DataType::kInvalid, "the target dtype");
  args.i_arg("dtype_number", 0, "the target as its ops_dtype_t number, when no d arg is given")
      .range(0, libops::kNumDataTypes - 1);
}
