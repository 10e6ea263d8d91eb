// tri: a matrix with ones on and below a diagonal and zeros above it
// (libnd4j's tri, numpy.tri).
//
//   i args  0 rows, 1 cols (default -1: rows), 2 diag (default 0): ones
//           where col - row <= diag; diag > 0 reaches above the main
//           diagonal, < 0 stays below it
//   d arg   0 the dtype, default float32
//   output  [rows, cols]
//
// A one broadcast to [rows, cols], through tril on the call's device.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

CUSTOM_OP_IMPL(tri, 0, 1, false, 0, 1) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  NDArray one, ones, lower;
  RETURN_IF_ERROR(ops::with_op_name(block, NDArray::scalar(z->dtype(), 1.0, one)));
  RETURN_IF_ERROR(ops::with_op_name(block, one.broadcast_to(z->shape(), ones)));
  RETURN_IF_ERROR(ops::run_nested(block, "tril", {&ones}, {.i = {INT_ARG(2)}}, lower));
  return ops::assign_on_device(block, *z, lower);
}

DECLARE_SHAPE_FN(tri) {
  using namespace libops;
  const DataType t = D_ARG(0);
  REQUIRE_TRUE(types::kNumeric.contains(t), 0, "dtype %s is not numeric: tri gives a matrix of 0s and 1s",
               dtype_name(t));
  const int64_t rows = INT_ARG(0), cols = INT_ARG(1) < 0 ? rows : INT_ARG(1);
  shapes.push_back(TensorShape{t, Dims{rows, cols}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(tri) { descriptor.allow_outputs(libops::types::kNumeric).runs_on_any_device(); }

DECLARE_ARGS(tri) {
  args.describe("A matrix of ones on and below a diagonal, zeros above it (numpy.tri).");
  args.output("z", "[rows, cols]: 1 where col - row <= diag, else 0");
  args.i_arg("rows", "the number of rows").range(0, 1 << 30);
  args.i_arg("cols", -1, "the number of columns; -1 = rows").range(-1, 1 << 30);
  args.i_arg("diag", 0, "the highest diagonal of ones: 0 main, > 0 above, < 0 below");
  args.d_arg("dtype", libops::DataType::kFloat32, "z's dtype");
}
