// gru_cell: one GRU step in libnd4j's gruCell form, with the weights of x
// and h stacked in one matrix per gate group:
//
//   inputs  x [N, I], h0 [N, H], Wru [I + H, 2H] (reset r, then update u),
//           Wc [I + H, H], bru [2H], bc [H]; one float dtype
//   outputs r, u, c, h, each [N, H]:
//           [r, u] = sigmoid([x, h0] Wru + bru)
//           c      = tanh([x, r * h0] Wc + bc)
//           h      = u * h0 + (1 - u) * c
//
// (ONNX's GRU gate math with linear_before_reset 0; gru_layer runs whole
// sequences.) Built from concat, matmul, add, sigmoid, tanh, multiply and
// subtract on the call's device (nested_call.h).
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {
namespace {

Status gru_cell_sizes(const Context& block, int64_t& n, int64_t& h) {
  const NDArray* in[6];
  for (int k = 0; k < 6; ++k) in[k] = block.input(k);
  const DataType t = in[0]->dtype();
  for (int k = 1; k < 6; ++k)
    if (in[k]->dtype() != t)
      return block.error(StatusCode::kInvalidArgument, "input %d is %s, not x's %s: the inputs share one dtype", k,
                         dtype_name(in[k]->dtype()), dtype_name(t));
  if (in[0]->rank() != 2 || in[1]->rank() != 2)
    return block.error(StatusCode::kInvalidArgument, "x%s and h0%s must be [N, I] and [N, H]",
                       in[0]->shape().str().c_str(), in[1]->shape().str().c_str());
  n = in[0]->dim(0);
  h = in[1]->dim(1);
  const int64_t i = in[0]->dim(1);
  const bool ok = in[1]->dim(0) == n && in[2]->shape() == Dims{i + h, 2 * h} && in[3]->shape() == Dims{i + h, h} &&
                  in[4]->shape() == Dims{2 * h} && in[5]->shape() == Dims{h};
  if (!ok)
    return block.error(StatusCode::kInvalidArgument,
                       "x%s, h0%s, Wru%s, Wc%s, bru%s and bc%s do not fit [N, I], [N, H], [I + H, 2H], [I + H, H], "
                       "[2H] and [H]",
                       in[0]->shape().str().c_str(), in[1]->shape().str().c_str(), in[2]->shape().str().c_str(),
                       in[3]->shape().str().c_str(), in[4]->shape().str().c_str(), in[5]->shape().str().c_str());
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(gru_cell, 6, 4, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  int64_t n = 0, h = 0;
  RETURN_IF_ERROR(gru_cell_sizes(block, n, h));
  const NDArray& x = *INPUT_VARIABLE(0);
  const NDArray& h0 = *INPUT_VARIABLE(1);
  NDArray xh, ru, r, u, rh, xrh, c, diff, hn;
  RETURN_IF_ERROR(run_nested(block, "concat", {&x, &h0}, {.i = {1}}, xh));
  RETURN_IF_ERROR(run_nested(block, "matmul", {&xh, INPUT_VARIABLE(2)}, {}, ru));
  RETURN_IF_ERROR(run_nested(block, "add", {&ru, INPUT_VARIABLE(4)}, {.inplace = true}, ru));
  RETURN_IF_ERROR(run_nested(block, "sigmoid", {&ru}, {.inplace = true}, ru));
  RETURN_IF_ERROR(with_op_name(block, ru.slice(1, 0, h, 1, r)));
  RETURN_IF_ERROR(with_op_name(block, ru.slice(1, h, 2 * h, 1, u)));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&r, &h0}, {}, rh));
  RETURN_IF_ERROR(run_nested(block, "concat", {&x, &rh}, {.i = {1}}, xrh));
  RETURN_IF_ERROR(run_nested(block, "matmul", {&xrh, INPUT_VARIABLE(3)}, {}, c));
  RETURN_IF_ERROR(run_nested(block, "add", {&c, INPUT_VARIABLE(5)}, {.inplace = true}, c));
  RETURN_IF_ERROR(run_nested(block, "tanh", {&c}, {.inplace = true}, c));
  // h = c + u * (h0 - c)
  RETURN_IF_ERROR(run_nested(block, "subtract", {&h0, &c}, {}, diff));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&diff, &u}, {.inplace = true}, diff));
  RETURN_IF_ERROR(run_nested(block, "add", {&diff, &c}, {.inplace = true}, hn));
  RETURN_IF_ERROR(block.store_result(0, r));
  RETURN_IF_ERROR(block.store_result(1, u));
  RETURN_IF_ERROR(block.store_result(2, c));
  return block.store_result(3, hn);
}

DECLARE_SHAPE_FN(gru_cell) {
  using namespace libops;
  int64_t n = 0, h = 0;
  RETURN_IF_ERROR(ops::gru_cell_sizes(block, n, h));
  for (int k = 0; k < 4; ++k) shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), Dims{n, h}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(gru_cell) {
  // Runs the ops it is built from on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(gru_cell) {
  args.describe("One GRU step in libnd4j's gruCell form (x and h weights stacked per gate group).");
  args.input("x", "[N, I]");
  args.input("h0", "[N, H], the previous state");
  args.input("Wru", "[I + H, 2H]: the reset gate's columns, then the update gate's");
  args.input("Wc", "[I + H, H]: the candidate's weights");
  args.input("bru", "[2H]");
  args.input("bc", "[H]");
  args.output("r", "the reset gate [N, H]");
  args.output("u", "the update gate [N, H]");
  args.output("c", "the candidate [N, H]");
  args.output("h", "the new state u * h0 + (1 - u) * c, [N, H]");
}

DECLARE_SYN(gruCell, gru_cell)
