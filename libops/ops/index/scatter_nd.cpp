// scatter_nd: a new array of zeros of the given shape with update slices
// added at multi-dimensional indices (TF's scatter_nd, libnd4j's
// scatter_nd): duplicates add up. indices [m..., K], updates
// [m..., shape[K:]...], z of updates' dtype. The shape comes as an integer
// vector input or as i args. Note [Indexed rows].
#include <vector>

#include "libops/ops/index/index_call.h"

namespace libops::ops {
namespace {

Status scatter_nd_plan(Context& block, IndexedRows& d, Dims& shape) {
  const NDArray& idx = *block.input(0);
  const NDArray& upd = *block.input(1);
  std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("shape", given));
  REQUIRE_TRUE(!given.empty() && given.size() <= static_cast<size_t>(kMaxRank), OPS_ERR_SHAPE,
               "shape has %zu dims: give 1 to %d", given.size(), kMaxRank);
  shape = Dims(given.data(), static_cast<int>(given.size()));
  for (int j = 0; j < shape.size(); ++j)
    REQUIRE_TRUE(shape[j] >= 0, OPS_ERR_SHAPE, "shape %s has a negative extent", shape.str().c_str());
  REQUIRE_TRUE(idx.rank() >= 1 && idx.dim(idx.rank() - 1) <= shape.size(), OPS_ERR_SHAPE,
               "indices%s: the last dim (K) must be at most the rank of shape %s", idx.shape().str().c_str(),
               shape.str().c_str());
  d.k = idx.dim(idx.rank() - 1);
  d.count = d.k == 0 ? 0 : idx.length() / d.k;
  Dims want;
  for (int j = 0; j + 1 < idx.rank(); ++j) want.push_back(idx.dim(j));
  d.row = 1;
  for (int64_t j = 0; j < d.k; ++j) d.dims[j] = shape[static_cast<int>(j)];
  for (int j = static_cast<int>(d.k); j < shape.size(); ++j) {
    want.push_back(shape[j]);
    d.row *= shape[j];
  }
  REQUIRE_TRUE(upd.shape() == want, OPS_ERR_SHAPE, "updates%s do not fit indices%s and shape %s: they must be %s",
               upd.shape().str().c_str(), idx.shape().str().c_str(), shape.str().c_str(), want.str().c_str());
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(scatter_nd, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  IndexedRows d;
  Dims shape;
  RETURN_IF_ERROR(scatter_nd_plan(block, d, shape));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const DataType ct = scatter_compute_dtype(z->dtype());
  NDArray uc, id, zero;
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), ct, uc));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(0), INPUT_VARIABLE(0)->dtype(), id));
  // On the CPU the indices are checked before z is touched, so the sums
  // can go straight into z when it is dense in the compute type and a bad
  // index still leaves z as it was. Devices report a bad index after
  // their kernel ran, so they sum into a copy.
  if (block.device().is_cpu() && d.count > 0 && d.row > 0) {
    const int64_t bad = first_bad_row_index(d, id);
    if (bad >= 0) return bad_index_error(block, id, d, bad, *z, 0);
  }
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, ct, block.device().is_cpu()));
  NDArray& zc = out.target();
  int64_t bad = -1;
  if (block.device().is_cpu() && d.count > 0 && d.row > 0) {
    // The kernel writes the zeros itself (Note [Scatter into zeros]).
    RETURN_IF_ERROR(with_op_name(block, scatter_rows_cpu(d, ScatterMode::kAdd, id, uc, zc, &bad, true)));
    zc.buffer()->mark_host_written();
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(NDArray::scalar(ct, 0.0, zero));
  RETURN_IF_ERROR(assign_on_device(block, zc, zero));
  if (d.count > 0 && d.row > 0) RETURN_IF_ERROR(run_scatter_rows(block, d, ScatterMode::kAdd, id, uc, zc, bad));
  if (bad >= 0) return bad_index_error(block, id, d, bad, zc, 0);
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(scatter_nd) {
  using namespace libops;
  ops::IndexedRows d;
  Dims shape;
  RETURN_IF_ERROR(ops::scatter_nd_plan(block, d, shape));
  shapes.push_back(TensorShape{INPUT_VARIABLE(1)->dtype(), shape, 'c'});
  return Status::ok();
}

DECLARE_TYPES(scatter_nd) {
  descriptor.allow_input(0, libops::types::kIndex).allow_input(1, libops::types::kNumeric);
  descriptor.allow_input(2, libops::types::kInt).runs_on_any_device();
}

DECLARE_ARGS(scatter_nd) {
  args.describe("Zeros of a shape with update slices added at multi-dimensional indices.");
  args.input("indices", "[m..., K], int32 or int64");
  args.input("updates", "[m..., shape[K:]...]");
  args.optional_input("shape", "the output shape as an integer vector, instead of i args");
  args.output("z", "the given shape, updates' dtype");
  args.i_list("shape", "the output shape").or_input(2);
}
