// Ops built from other ops: one registered op called from inside another's
// compute, on the caller's device, with args by position as that op's
// signature orders them. Errors come back under the caller's name.
#pragma once

#include <initializer_list>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/ops/context.h"

namespace libops::ops {

struct NestedArgs {
  std::vector<double> t = {};
  std::vector<int64_t> i = {};
  std::vector<bool> b = {};
  bool inplace = false;  // write into input 0 (for ops that can)
};

// out = op(inputs...) on block.device(); `out` receives the op's output 0
// (allocated by it, or input 0 itself with args.inplace).
Status run_nested(const Context& block, const char* op, std::initializer_list<const NDArray*> inputs,
                  const NestedArgs& args, NDArray& out);

// The same call, keeping every output of the op (outs[k] = output k).
Status run_nested_all(const Context& block, const char* op, std::initializer_list<const NDArray*> inputs,
                      const NestedArgs& args, std::vector<NDArray>& outs);

}  // namespace libops::ops
