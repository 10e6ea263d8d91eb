// Shared by the reduce_* custom ops: input x; the axes as i args (none =
// all, negative counts from the end) or, as libnd4j and ONNX opset 13 also
// allow, as an integer array input; b arg 0 keep_dims (default false), which
// libnd4j's older calls give as t arg 1.0. The work is done by the legacy
// reduce tables (libops/legacy/ops/reduce_ops.h).
#pragma once

#include <string>

#include "libops/legacy/legacy.h"
#include "libops/ops/declarable_op.h"

namespace libops::ops {

// The signature of every reduce_* op; `result` says what z is.
inline void reduction_args(OpSignature& args, const char* result) {
  args.input("x", "the array to reduce");
  args.optional_input("axes", "the axes as an integer scalar or vector, instead of i args");
  args.output("z", result);
  args.i_list("axes", "the axes to reduce; none = all; negative counts from the end")
      .axis(0)
      .unique_values()
      .or_input(1);
  args.b_arg("keep_dims", false, "keep each reduced axis as extent 1").or_t_arg(0);
}

// The call's axes, normalised and sorted (none given = all of x's axes).
inline Status reduction_axes(Context& block, Dims& axes) {
  thread_local std::vector<int64_t> given;  // reused: no allocation per call
  RETURN_IF_ERROR(block.int_list("axes", given));
  return normalize_axes(block.op_name(), given.data(), static_cast<int>(given.size()), block.input(0)->rank(), true,
                        axes);
}

// Output 0 = the legacy reduction (group, num) of input 0 over the i-arg
// axes; keep_dims follows from the output's rank (legacy::exec).
inline Status reduce_exec(Context& block, ops_legacy_group_t group, int num) {
  legacy::LegacyCall call;
  call.group = group;
  call.num = num;
  call.x = block.input(0);
  call.z = block.output(0);
  call.device = block.device();
  Dims axes;
  RETURN_IF_ERROR(reduction_axes(block, axes));
  call.axes = axes.data();
  call.n_axes = axes.size();
  Status s = legacy::exec(call);
  // The legacy layer names its own op; say which custom op called it.
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

}  // namespace libops::ops
