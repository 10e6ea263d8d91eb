// Shared by the broadcastable arithmetic ops (add, subtract, multiply,
// divide, ...): numpy broadcasting (Note [Broadcasting]) and type promotion
// (Note [Type promotion]), computed by the legacy pairwise kernels.
#pragma once

#include "libops/legacy/ops/binary_ops.h"
#include "libops/ops/declarable_op.h"

namespace libops::ops {

// The signature every broadcastable binary op shares; `result` says what z is.
inline void broadcastable_args(OpSignature& args, const char* result) {
  args.input("x", "left operand");
  args.input("y", "right operand, broadcast against x (Note [Broadcasting])");
  args.output("z", result);
}

// Output: promote(x, y) with the broadcast shape of x and y.
inline Status broadcastable_shape(Context& block, ShapeList& shapes) {
  const NDArray* x = block.input(0);
  const NDArray* y = block.input(1);
  TensorShape out;
  out.dtype = promote_types(x->dtype(), y->dtype());
  RETURN_IF_ERROR(broadcast_shapes(block.op_name(), x->shape(), y->shape(), out.dims));
  shapes.push_back(out);
  return Status::ok();
}

// z = x <op> y through the legacy pairwise table entry `op`. The op's call
// checks and broadcastable_shape proved what legacy::exec would check of
// x, y and z's shape, so the call goes through the prechecked entry.
inline Status broadcastable_exec(Context& block, legacy::BinaryOp op) {
  legacy::LegacyCall call;
  call.group = OPS_PAIRWISE;
  call.num = static_cast<int>(op);
  call.x = block.input(0);
  call.y = block.input(1);
  call.z = block.output(0);
  call.device = block.device();
  Status s = legacy::exec_pairwise_prechecked(call);
  if (s.is_ok()) return Status::ok();
  // The legacy layer names its own op; say which custom op called it.
  return Status(s.code(), std::string(block.op_name()) + ": " + s.message());
}

}  // namespace libops::ops
