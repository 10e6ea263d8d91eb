// Legacy (XYZ) ops: element-wise and reduction kernels named by
// (group, number), after libnd4j's legacy_ops.h.
//
// Each op is a tiny functor in libops/legacy/ops/<table>_ops.h; each table is
// one X-macro list there giving number, name and functor, from which the
// enum, the name list and the dispatch switch are generated. Scalar,
// pairwise and broadcast groups of one flavour share a table (so SCALAR 0,
// PAIRWISE 0 and BROADCAST 0 are all "add").
//
// Numbers are stable: never reuse or renumber one; retire it instead.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/c_types.h"
#include "libops/core/device.h"
#include "libops/loops/extra_params.h"

namespace libops::legacy {

// One call of a legacy op. Unused fields stay null/zero.
struct LegacyCall {
  // An int, not ops_legacy_group_t: a caller's out-of-range number must be
  // checkable without loading an invalid enum value.
  int group = OPS_TRANSFORM_SAME;
  int num = 0;
  const NDArray* x = nullptr;
  const NDArray* y = nullptr;   // pairwise/broadcast/scalar/reduce3; optional for random
  NDArray* z = nullptr;         // output, allocated by the caller
  const int64_t* axes = nullptr;  // reductions; broadcast: the dims of x that y spans
  int n_axes = 0;
  ExtraParams extra;            // op parameters (see each functor)
  uint64_t seed = 0;            // random group
  // Where the kernel runs. The arrays are synced there first and z is marked
  // written there after (Note [Host and device copies] in data_buffer.h); a
  // group with no kernels on the device is an error naming it.
  Device device;
};

// Checks the call (dtypes, shapes, numbers) and runs it. Reductions read
// keep_dims from z's rank: z has x's rank (reduced dims are 1) or x's rank
// minus the number of reduced axes. An empty axis list reduces all axes.
Status exec(const LegacyCall& call);

// exec for a call of the plain pairwise group (OPS_PAIRWISE) whose arrays
// the caller has already checked: x, y and z are non-null and hold data,
// z has the broadcast shape of x and y (Note [Broadcasting]) and `num` is
// an op of the group. A custom op's shape function and
// DeclarableOp::execute prove exactly that (ops/arith/broadcastable.h), so
// the call is not validated twice. What no shape function covers is still
// checked: z is not a broadcast view and overlaps neither input unless it
// is the same view. A call that fails those checks, or of another group,
// goes through exec, which reports the error.
Status exec_pairwise_prechecked(const LegacyCall& call);

struct LegacyOpInfo {
  int num;
  const char* name;
};
// The ops of a group, in number order; returns their count.
int list_ops(ops_legacy_group_t group, const LegacyOpInfo** ops);
// The op's name, or nullptr for an unknown (group, number).
const char* op_name(ops_legacy_group_t group, int num);
// The op's number for a name, or -1.
int find_op(ops_legacy_group_t group, const char* name);
const char* group_name(ops_legacy_group_t group);
bool group_is_valid(int group);

}  // namespace libops::legacy
