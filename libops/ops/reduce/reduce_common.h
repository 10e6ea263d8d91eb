// Shared by the reductions (reductions.cpp, logsumexp.cpp, moments.cpp):
// input x; the axes as i args (none = all, negative counts from the end)
// or, as libnd4j and ONNX opset 13 also allow, as an integer array input;
// b arg 0 keep_dims (default false), which libnd4j's older calls give as t
// arg 1.0. The work is done by the legacy reduce tables
// (libops/legacy/ops/reduce_ops.h) on the call's device.
#pragma once

#include <string>
#include <vector>

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

// z = the legacy reduction (group, num) of x over `axes`, on the call's
// device; keep_dims follows from z's rank (legacy::exec). Errors name the op.
inline Status reduce_into(const Context& block, ops_legacy_group_t group, int num, const NDArray& x, const Dims& axes,
                          NDArray& z, const ExtraParams& extra = {}) {
  legacy::LegacyCall call;
  call.group = group;
  call.num = num;
  call.x = &x;
  call.z = &z;
  call.device = block.device();
  call.axes = axes.data();
  call.n_axes = axes.size();
  call.extra = extra;
  Status s = legacy::exec(call);
  // The legacy layer names its own op; say which custom op called it.
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

// x's minimum or maximum (a legacy reduce_same op over every axis) on the
// call's device, read back as a host scalar of x's dtype: the one value
// some ops need to check their data or size their output (bincount,
// confusion_matrix, embedding_lookup).
inline Status reduced_to_host(const Context& block, int reduce_same_op, const NDArray& x, NDArray& scalar) {
  Status s = NDArray::create(x.dtype(), Dims{}, 'c', scalar);
  if (!s.is_ok()) return s.with_prefix(std::string(block.op_name()) + ": ");
  RETURN_IF_ERROR(reduce_into(block, OPS_REDUCE_SAME, reduce_same_op, x, Dims{}, scalar));
  if (scalar.buffer()->host_stale()) s = scalar.buffer()->sync_to_host();
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

// The names of reductions.cpp's table, for tests and tools.
std::vector<std::string> reduction_op_names();

}  // namespace libops::ops
