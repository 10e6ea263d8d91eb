// bincount: how often each non-negative integer occurs in x, or the sum of
// its weights (numpy.bincount, TF's bincount, libnd4j's bincount). z has
// length max(max(x) + 1, minlength), capped at maxlength when that is >= 0
// (values past the cap are dropped); it is read from x on the call's device.
// A negative value is an error. Counts are int64 without weights; with
// weights z has their dtype. A scatter-add of the weights (or ones) into
// zeros (Note [Indexed rows]).
#include <algorithm>
#include <vector>

#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/data_sized.h"
#include "libops/ops/index/index_call.h"
#include "libops/ops/reduce/reduce_common.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {
namespace {

Status bincount_length(Context& block, int64_t& length) {
  const NDArray& x = *block.input(0);
  int64_t top = -1;
  if (x.length() > 0) {
    NDArray m;
    RETURN_IF_ERROR(reduced_to_host(block, static_cast<int>(legacy::ReduceSameOp::max), x, m));
    // Ids are int64 inside; a uint64 id past that range is refused here
    // rather than wrapped into a negative one.
    const bool past_int64 = m.get_double(0) >= 0x1p63;
    REQUIRE_TRUE(!past_int64 || x.dtype() != DataType::kUInt64, OPS_ERR_SHAPE,
                 "x holds an id of 2^63 or more: bincount counts ids up to 2^63 - 1");
    // The largest id, saturated: INT64_MAX needs more bins than the limit
    // below allows, unless maxlength caps them.
    top = past_int64 ? INT64_MAX : m.get_int64(0);
  }
  length = std::max<int64_t>(top == INT64_MAX ? INT64_MAX : top + 1, INT_ARG(0));
  if (INT_ARG(1) >= 0) length = std::min<int64_t>(length, INT_ARG(1));
  // Past minlength the length comes from the data (Note [Outputs sized by data]).
  if (length > INT_ARG(0)) RETURN_IF_ERROR(check_data_sized(block, "the largest id in x", top, length, 1));
  if (block.num_inputs() > 1)
    REQUIRE_TRUE(block.input(1)->shape() == x.shape(), OPS_ERR_SHAPE, "weights%s must have x%s's shape",
                 block.input(1)->shape().str().c_str(), x.shape().str().c_str());
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(bincount, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  int64_t length = 0;
  RETURN_IF_ERROR(bincount_length(block, length));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& x = *INPUT_VARIABLE(0);
  const DataType ct = scatter_compute_dtype(z->dtype());
  NDArray zc, w, id, zero;
  RETURN_IF_ERROR(NDArray::create(ct, Dims{length, 1}, 'c', zc));
  RETURN_IF_ERROR(NDArray::scalar(ct, 0.0, zero));
  RETURN_IF_ERROR(assign_on_device(block, zc, zero));
  RETURN_IF_ERROR(NDArray::create(ct, Dims{x.length(), 1}, 'c', w));
  if (block.num_inputs() > 1) {
    NDArray wv;
    RETURN_IF_ERROR(INPUT_VARIABLE(1)->reshape_copy(Dims{x.length(), 1}, wv));
    RETURN_IF_ERROR(assign_on_device(block, w, wv));
  } else {
    NDArray one;
    RETURN_IF_ERROR(NDArray::scalar(ct, 1.0, one));
    RETURN_IF_ERROR(assign_on_device(block, w, one));
  }
  // The row kernels read int32 or 64-bit ids; narrower ones are widened.
  const DataType id_type = x.dtype() == DataType::kInt32 || x.dtype() == DataType::kUInt64 ? x.dtype() : DataType::kInt64;
  RETURN_IF_ERROR(dense_on_device(block, x, id_type, id));
  IndexedRows d;
  d.k = 1;
  d.dims[0] = length;
  d.count = x.length();
  d.out_of_range = OutOfRange::kDropAbove;  // past maxlength: dropped; negative: an error
  int64_t bad = -1;
  RETURN_IF_ERROR(run_scatter_rows(block, d, ScatterMode::kAdd, id, w, zc, bad));
  if (bad >= 0 && id.buffer()->host_stale()) RETURN_IF_ERROR(id.buffer()->sync_to_host());  // the error path only
  if (bad >= 0)
    return block.error(StatusCode::kInvalidArgument, "x holds %lld at position %lld: bincount counts values >= 0",
                       static_cast<long long>(id.get_int64(bad)), static_cast<long long>(bad));
  NDArray flat;
  RETURN_IF_ERROR(zc.reshape(Dims{length}, flat));
  return assign_on_device(block, *z, flat);
}

DECLARE_SHAPE_FN(bincount) {
  using namespace libops;
  int64_t length = 0;
  RETURN_IF_ERROR(ops::bincount_length(block, length));
  const DataType t = block.num_inputs() > 1 ? INPUT_VARIABLE(1)->dtype() : DataType::kInt64;
  shapes.push_back(TensorShape{t, Dims{length}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(bincount) {
  descriptor.allow_input(0, libops::types::kInt).allow_input(1, libops::types::kNumeric).runs_on_any_device();
}

DECLARE_ARGS(bincount) {
  args.describe("Counts (or weight sums) of each non-negative integer in x.");
  reads_on_host(args, "the largest id in x (z's length)");
  args.input("x", "non-negative integers, any shape");
  args.optional_input("weights", "x's shape; z then sums them and has their dtype");
  args.output("z", "[length], int64 counts or weight sums");
  args.i_arg("minlength", 0, "at least this many bins").at_least(0);
  args.i_arg("maxlength", -1, "at most this many bins (values past them dropped); -1: no cap").at_least(-1);
}
