#include "libops/ops/nested_call.h"

#include <string>
#include <utility>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"

namespace libops::ops {

Status run_nested_all(const Context& block, const char* op, std::initializer_list<const NDArray*> inputs,
                      const NestedArgs& args, std::vector<NDArray>& outs) {
  DeclarableOp* callee = OpRegistry::instance().find(op);
  if (callee == nullptr) return block.error(StatusCode::kInternal, "needs op '%s', which is not registered", op);
  Context sub;
  for (const NDArray* a : inputs) sub.add_input(const_cast<NDArray*>(a));
  sub.t_args() = args.t;
  sub.i_args() = args.i;
  sub.b_args() = args.b;
  sub.set_inplace(args.inplace);
  sub.set_device(block.device());
  const Status s = callee->execute(sub);
  if (!s.is_ok()) return Status::error(s.code(), "%s: %s", block.op_name(), s.message().c_str());
  outs.clear();
  for (int k = 0; k < sub.num_outputs(); ++k) outs.push_back(*sub.output(k));
  return Status::ok();
}

Status run_nested(const Context& block, const char* op, std::initializer_list<const NDArray*> inputs,
                  const NestedArgs& args, NDArray& out) {
  std::vector<NDArray> outs;
  RETURN_IF_ERROR(run_nested_all(block, op, inputs, args, outs));
  out = std::move(outs[0]);
  return Status::ok();
}

}  // namespace libops::ops
