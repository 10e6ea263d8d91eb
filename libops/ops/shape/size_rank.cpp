// libnd4j's shape scalars (parity_ops.h, shape.h): size, rank and size_at.
//
//   size     x's element count, an int64 scalar (TF's Size)
//   rank     x's rank, an int32 scalar (TF's Rank; libnd4j's tests expect int32)
//   size_at  x's extent along i arg 0 (dim, negative counts from the end), an
//            int64 scalar
//
// Only x's shape is read, never its data. The value is known on the host;
// it is copied into z on the call's device, so that z's newest copy is
// where the call ran (a kernel there may read it next).
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

Status store_scalar(Context& block, double value) {
  NDArray v;
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(block.output(0)->dtype(), value, v)));
  return assign_on_device(block, *block.output(0), v);
}

Status scalar_shape(DataType t, ShapeList& shapes) {
  shapes.push_back(TensorShape{t, Dims{}, 'c'});
  return Status::ok();
}

void shape_scalar_types(OpDescriptor& descriptor, DataType out) {
  // x's data is never read, so x may be anywhere.
  descriptor.allow_inputs(types::kAny).allow_outputs({out}).runs_on_any_device();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(size, 1, 1, false, 0, 0) {
  return libops::ops::store_scalar(block, static_cast<double>(INPUT_VARIABLE(0)->length()));
}
DECLARE_SHAPE_FN(size) { return libops::ops::scalar_shape(libops::DataType::kInt64, shapes); }
DECLARE_TYPES(size) { libops::ops::shape_scalar_types(descriptor, libops::DataType::kInt64); }
DECLARE_ARGS(size) {
  args.describe("x's element count, as an int64 scalar.");
  args.input("x", "any array; only its shape is read");
  args.output("z", "int64 scalar: the product of x's extents");
}

CUSTOM_OP_IMPL(rank, 1, 1, false, 0, 0) {
  return libops::ops::store_scalar(block, static_cast<double>(INPUT_VARIABLE(0)->rank()));
}
DECLARE_SHAPE_FN(rank) { return libops::ops::scalar_shape(libops::DataType::kInt32, shapes); }
DECLARE_TYPES(rank) { libops::ops::shape_scalar_types(descriptor, libops::DataType::kInt32); }
DECLARE_ARGS(rank) {
  args.describe("x's rank, as an int32 scalar.");
  args.input("x", "any array; only its shape is read");
  args.output("z", "int32 scalar: the number of x's dims");
}

CUSTOM_OP_IMPL(size_at, 1, 1, false, 0, 1) {
  const libops::NDArray& x = *INPUT_VARIABLE(0);
  const int64_t d = INT_ARG(0) < 0 ? INT_ARG(0) + x.rank() : INT_ARG(0);  // an axis of x (the signature checked)
  return libops::ops::store_scalar(block, static_cast<double>(x.dim(static_cast<int>(d))));
}
DECLARE_SHAPE_FN(size_at) { return libops::ops::scalar_shape(libops::DataType::kInt64, shapes); }
DECLARE_TYPES(size_at) { libops::ops::shape_scalar_types(descriptor, libops::DataType::kInt64); }
DECLARE_ARGS(size_at) {
  args.describe("x's extent along one dim, as an int64 scalar.");
  args.input("x", "any array, rank >= 1; only its shape is read");
  args.output("z", "int64 scalar: x.dim(dim)");
  args.i_arg("dim", "the dim; negative counts from the end").axis(0);
}
