// Running one declarable op in a test: describe the call in an OpCall, hand
// it to run_op with a fresh Context, then read the outputs from the Context.
//
//   Context ctx;
//   ASSERT_OK(run_op("gather", {.in = {&x, &idx}, .i = {0}}, ctx));
//   EXPECT_TRUE(all_close(*ctx.output(0), {...}));
//
// This lives apart from test_util.h on purpose: test_util.h serves every
// test (arrays, loops, legacy ops, graphs, the C API) and needs only the
// array layer, while this header pulls in the op layer (OpRegistry, Context,
// DeclarableOp), which only the tests of declarable ops need.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "test_util.h"

namespace libops::test {

// One call of a declarable op. Designated initializers must name the fields
// in this order: in, out, t, i, b, d, inplace. Leave out what the call
// does not use (every field has a default initializer, so that leaving one
// out is not a -Wmissing-field-initializers warning).
struct OpCall {
  std::vector<NDArray*> in = {};
  std::vector<NDArray*> out = {};  // supplied outputs; the op allocates the ones not given
  std::vector<double> t = {};      // float args
  std::vector<int64_t> i = {};     // integer args
  std::vector<bool> b = {};        // bool args
  std::vector<DataType> d = {};    // dtype args
  bool inplace = false;            // the op writes its result into its input 0
};

// Finds op `name` in OpRegistry, fills `ctx` from `call` and executes the
// op. An unknown name fails the test (at the caller's line) and returns
// kUnknownOp. `ctx` must be fresh: everything about the call comes from
// `call`, so that nothing set on the Context by hand is silently mixed in or
// overwritten; a used Context fails the test and the op is not run.
// `file` and `line` default to the caller's (std::source_location would
// do the same, but clang 14, which the sanitizer builds use, lacks it).
inline Status run_op(const char* name, const OpCall& call, Context& ctx,
                     const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  DeclarableOp* op = OpRegistry::instance().find(name);
  if (op == nullptr) {
    ADD_FAILURE_AT(file, line)
        << "run_op: no op named \"" << name << "\" in OpRegistry";
    return Status::error(StatusCode::kUnknownOp, "run_op: no op named \"%s\"", name);
  }
  if (ctx.num_inputs() != 0 || ctx.num_outputs() != 0 || ctx.num_t_args() != 0 || ctx.num_i_args() != 0 ||
      ctx.num_b_args() != 0 || ctx.num_d_args() != 0 || ctx.inplace()) {
    ADD_FAILURE_AT(file, line)
        << "run_op(\"" << name << "\"): the Context is not fresh; describe the whole call in the OpCall";
    return Status::error(StatusCode::kInvalidArgument, "run_op: %s: the Context is not fresh", name);
  }
  for (NDArray* a : call.in) ctx.add_input(a);
  for (NDArray* a : call.out) ctx.add_output(a);
  ctx.t_args() = call.t;
  ctx.i_args() = call.i;
  ctx.b_args() = call.b;
  ctx.d_args() = call.d;
  ctx.set_inplace(call.inplace);
  return op->execute(ctx);
}

}  // namespace libops::test
