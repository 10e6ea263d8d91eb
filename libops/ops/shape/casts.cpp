// libnd4j's fixed-target casts (datatypes.h): to_double, to_float16,
// to_float32, to_int32, to_int64, to_uint32 and to_uint64. Each is cast
// with its target built in:
//
//   input   x: any dtype
//   output  x's shape in the op's dtype
//
// The conversion rules are cast's (loops/convert.h): float to integer
// truncates toward zero and saturates, NaN becomes 0, integer narrowing
// wraps, float16 rounds to nearest even. The copy runs on the call's
// device (Note [Copies on a device]).
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

Status fixed_cast_shape(Context& block, DataType target, ShapeList& shapes) {
  shapes.push_back(TensorShape{target, block.input(0)->shape(), 'c'});
  return Status::ok();
}

Status fixed_cast_run(Context& block) { return assign_on_device(block, *block.output(0), *block.input(0)); }

void fixed_cast_types(OpDescriptor& descriptor, DataType target) {
  descriptor.allow_inputs(types::kAny).allow_outputs({target}).runs_on_any_device();
}

void fixed_cast_args(OpSignature& args, const char* what) {
  args.describe(what);
  args.input("x", "any array");
  args.output("z", "x converted, in x's shape");
}

}  // namespace
}  // namespace libops::ops

using libops::DataType;

CUSTOM_OP_IMPL(to_double, 1, 1, false, 0, 0) { return libops::ops::fixed_cast_run(block); }
DECLARE_SHAPE_FN(to_double) { return libops::ops::fixed_cast_shape(block, DataType::kFloat64, shapes); }
DECLARE_TYPES(to_double) { libops::ops::fixed_cast_types(descriptor, DataType::kFloat64); }
DECLARE_ARGS(to_double) { libops::ops::fixed_cast_args(args, "Converts x to float64 (libnd4j's to_double)."); }

CUSTOM_OP_IMPL(to_float16, 1, 1, false, 0, 0) { return libops::ops::fixed_cast_run(block); }
DECLARE_SHAPE_FN(to_float16) { return libops::ops::fixed_cast_shape(block, DataType::kFloat16, shapes); }
DECLARE_TYPES(to_float16) { libops::ops::fixed_cast_types(descriptor, DataType::kFloat16); }
DECLARE_ARGS(to_float16) { libops::ops::fixed_cast_args(args, "Converts x to float16, rounding to nearest even."); }

CUSTOM_OP_IMPL(to_float32, 1, 1, false, 0, 0) { return libops::ops::fixed_cast_run(block); }
DECLARE_SHAPE_FN(to_float32) { return libops::ops::fixed_cast_shape(block, DataType::kFloat32, shapes); }
DECLARE_TYPES(to_float32) { libops::ops::fixed_cast_types(descriptor, DataType::kFloat32); }
DECLARE_ARGS(to_float32) { libops::ops::fixed_cast_args(args, "Converts x to float32."); }

CUSTOM_OP_IMPL(to_int32, 1, 1, false, 0, 0) { return libops::ops::fixed_cast_run(block); }
DECLARE_SHAPE_FN(to_int32) { return libops::ops::fixed_cast_shape(block, DataType::kInt32, shapes); }
DECLARE_TYPES(to_int32) { libops::ops::fixed_cast_types(descriptor, DataType::kInt32); }
DECLARE_ARGS(to_int32) {
  libops::ops::fixed_cast_args(args, "Converts x to int32; floats truncate toward zero and saturate, NaN gives 0.");
}

CUSTOM_OP_IMPL(to_int64, 1, 1, false, 0, 0) { return libops::ops::fixed_cast_run(block); }
DECLARE_SHAPE_FN(to_int64) { return libops::ops::fixed_cast_shape(block, DataType::kInt64, shapes); }
DECLARE_TYPES(to_int64) { libops::ops::fixed_cast_types(descriptor, DataType::kInt64); }
DECLARE_ARGS(to_int64) {
  libops::ops::fixed_cast_args(args, "Converts x to int64; floats truncate toward zero and saturate, NaN gives 0.");
}

CUSTOM_OP_IMPL(to_uint32, 1, 1, false, 0, 0) { return libops::ops::fixed_cast_run(block); }
DECLARE_SHAPE_FN(to_uint32) { return libops::ops::fixed_cast_shape(block, DataType::kUInt32, shapes); }
DECLARE_TYPES(to_uint32) { libops::ops::fixed_cast_types(descriptor, DataType::kUInt32); }
DECLARE_ARGS(to_uint32) {
  libops::ops::fixed_cast_args(args, "Converts x to uint32; floats truncate toward zero and saturate, NaN gives 0.");
}

CUSTOM_OP_IMPL(to_uint64, 1, 1, false, 0, 0) { return libops::ops::fixed_cast_run(block); }
DECLARE_SHAPE_FN(to_uint64) { return libops::ops::fixed_cast_shape(block, DataType::kUInt64, shapes); }
DECLARE_TYPES(to_uint64) { libops::ops::fixed_cast_types(descriptor, DataType::kUInt64); }
DECLARE_ARGS(to_uint64) {
  libops::ops::fixed_cast_args(args, "Converts x to uint64; floats truncate toward zero and saturate, NaN gives 0.");
}
