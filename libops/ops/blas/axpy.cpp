// axpy: z = a * x + y, BLAS's axpy as libnd4j's blas.h documents it
// ("y += a * x"), with inputs in that order:
//
//   inputs  x, y: float arrays of one shape and dtype
//   t arg   0 a, default 1
//   output  a * x + y, x's shape and dtype
//
// libnd4j's own kernel passes y as the pairwise op's first operand, so it
// computes a * y + x; its test has x == y and cannot tell. libops follows
// the documented math (and libnd4j's first implementation of the op).
// Built from multiply and add on the call's device, in float32 (float64
// for float64), so float16 rounds once.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

CUSTOM_OP_IMPL(axpy, 2, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray &x = *INPUT_VARIABLE(0), &y = *INPUT_VARIABLE(1);
  // A float32 (float64) a promotes the product to that dtype.
  const DataType compute = x.dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  NDArray a, ax, sum;
  RETURN_IF_ERROR(ops::with_op_name(block, NDArray::scalar(compute, T_ARG(0), a)));
  RETURN_IF_ERROR(ops::run_nested(block, "multiply", {&x, &a}, {}, ax));
  RETURN_IF_ERROR(ops::run_nested(block, "add", {&ax, &y}, {}, sum));
  return ops::assign_on_device(block, *z, sum);
}

DECLARE_SHAPE_FN(axpy) {
  using namespace libops;
  const NDArray &x = *INPUT_VARIABLE(0), &y = *INPUT_VARIABLE(1);
  REQUIRE_TRUE(x.shape() == y.shape(), OPS_ERR_SHAPE, "x%s and y%s differ in shape: axpy needs one shape",
               x.shape().str().c_str(), y.shape().str().c_str());
  shapes.push_back(TensorShape{x.dtype(), x.shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(axpy) {
  descriptor.allow_inputs(libops::types::kFloat).require_same_type().allow_outputs(libops::types::kFloat);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}

DECLARE_ARGS(axpy) {
  args.describe("z = a * x + y (BLAS axpy, libnd4j's input order).");
  args.input("x", "float array, scaled by a");
  args.input("y", "float array of x's shape and dtype, added");
  args.output("z", "a * x + y, x's shape and dtype");
  args.t_arg("a", 1.0, "the factor of x").finite();
}
