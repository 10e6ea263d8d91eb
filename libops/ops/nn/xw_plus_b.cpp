// xw_plus_b: z = x w + b, a dense layer's affine part (libnd4j's and TF's
// xw_plus_b). x [M, K], w [K, N] ([N, K] with transpose_w, the layout of a
// PyTorch Linear), b [N]; one float dtype. A matmul and an add on the call's
// device (nested_call.h), the add in place in the product.
#include "libops/ops/declarable_op.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {
namespace {

Status xw_shape(const Context& block, Dims& out) {
  const NDArray& x = *block.input(0);
  const NDArray& w = *block.input(1);
  const NDArray& b = *block.input(2);
  const bool tw = block.b_arg(0);
  if (x.rank() != 2 || w.rank() != 2 || b.rank() != 1)
    return block.error(StatusCode::kInvalidArgument, "x%s, w%s and b%s must be [M, K], %s and [N]",
                       x.shape().str().c_str(), w.shape().str().c_str(), b.shape().str().c_str(),
                       tw ? "[N, K]" : "[K, N]");
  const int64_t k = tw ? w.dim(1) : w.dim(0), n = tw ? w.dim(0) : w.dim(1);
  if (k != x.dim(1) || b.dim(0) != n)
    return block.error(StatusCode::kInvalidArgument, "x%s, w%s and b%s do not fit [M, K], %s and [N]",
                       x.shape().str().c_str(), w.shape().str().c_str(), b.shape().str().c_str(),
                       tw ? "[N, K]" : "[K, N]");
  const DataType t = x.dtype();
  if (w.dtype() != t || b.dtype() != t)
    return block.error(StatusCode::kInvalidArgument, "x (%s), w (%s) and b (%s) must share one dtype", dtype_name(t),
                       dtype_name(w.dtype()), dtype_name(b.dtype()));
  out = Dims{x.dim(0), n};
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(xw_plus_b, 3, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NDArray xw, z;
  RETURN_IF_ERROR(run_nested(block, "matmul", {INPUT_VARIABLE(0), INPUT_VARIABLE(1)},
                             {.i = {0, block.b_arg(0) ? 1 : 0}}, xw));
  RETURN_IF_ERROR(run_nested(block, "add", {&xw, INPUT_VARIABLE(2)}, {.inplace = true}, z));
  return block.store_result(0, z);
}

DECLARE_SHAPE_FN(xw_plus_b) {
  using namespace libops;
  Dims out;
  RETURN_IF_ERROR(ops::xw_shape(block, out));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(xw_plus_b) {
  // Runs matmul and add on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(xw_plus_b) {
  args.describe("A dense layer's affine part: x w + b.");
  args.input("x", "[M, K]");
  args.input("w", "[K, N], or [N, K] with transpose_w");
  args.input("b", "[N]");
  args.output("z", "[M, N]");
  args.b_arg("transpose_w", false, "w is [N, K] (PyTorch Linear's layout)");
}
