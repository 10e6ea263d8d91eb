// embedding_lookup: the rows of a table picked by integer ids (TF's and
// libnd4j's embedding_lookup with one table). params [V, ...], ids of any
// shape with every id in [0, V); z = ids.shape + params.shape[1:].
// gather along axis 0 on the call's device, after a check that no id is
// negative (gather itself would count a negative id from the end): one
// reduction read back as a scalar. An id >= V is gather's error, naming it.
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/nested_call.h"
#include "libops/ops/reduce/reduce_common.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {
namespace {

Status check_no_negative_id(const Context& block, const NDArray& ids) {
  if (ids.length() == 0 || !dtype_is_signed_int(ids.dtype())) return Status::ok();
  NDArray lo;
  RETURN_IF_ERROR(reduced_to_host(block, static_cast<int>(legacy::ReduceSameOp::min), ids, lo));
  if (lo.get_int64(0) < 0)
    return block.error(StatusCode::kInvalidArgument, "ids%s hold %lld: ids are rows of params, in [0, %lld)",
                       ids.shape().str().c_str(), static_cast<long long>(lo.get_int64(0)),
                       static_cast<long long>(block.input(0)->dim(0)));
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(embedding_lookup, 2, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  RETURN_IF_ERROR(check_no_negative_id(block, *INPUT_VARIABLE(1)));
  NDArray z;
  RETURN_IF_ERROR(run_nested(block, "gather", {INPUT_VARIABLE(0), INPUT_VARIABLE(1)}, {.i = {0, 0}}, z));
  return block.store_result(0, z);
}

DECLARE_SHAPE_FN(embedding_lookup) {
  using namespace libops;
  const NDArray& params = *INPUT_VARIABLE(0);
  const NDArray& ids = *INPUT_VARIABLE(1);
  REQUIRE_TRUE(params.rank() >= 1, 0, "params%s must have rank >= 1 ([V, ...])", params.shape().str().c_str());
  REQUIRE_TRUE(ids.rank() + params.rank() - 1 <= kMaxRank, 0, "ids%s and params%s give a result of rank %d: at most %d",
               ids.shape().str().c_str(), params.shape().str().c_str(), ids.rank() + params.rank() - 1, kMaxRank);
  Dims out(ids.shape().begin(), ids.rank());
  for (int k = 1; k < params.rank(); ++k) out.push_back(params.dim(k));
  shapes.push_back(TensorShape{params.dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(embedding_lookup) {
  // Runs gather (and a min reduction) on the call's device.
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_ARGS(embedding_lookup) {
  args.describe("Rows of an embedding table picked by id.");
  reads_on_host(args, "the smallest and largest id, checked against the table");
  args.input("params", "the table [V, ...]");
  args.input("ids", "integers in [0, V), any shape");
  args.output("z", "ids.shape + params.shape[1:]");
}
