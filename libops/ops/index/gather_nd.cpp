// gather_nd: slices of x picked by multi-dimensional indices (TF's
// gather_nd, ONNX's GatherND, libnd4j's gather_nd), with batch dims.
//
//   x        [b..., D0, ..., D(K-1), rest...] (b: batch_dims dims)
//   indices  [b..., m..., K], int32 or int64; entry (..., k) indexes D(k),
//            negative counts from the end once
//   z        [b..., m..., rest...]: z[b, m, :] = x[b, indices[b, m], :]
//
// Note [Indexed rows]: x and indices are staged dense, rows of prod(rest)
// elements move by memcpy (or the backend's kernel); a bad index is an
// error naming it.
#include "libops/ops/index/index_call.h"

namespace libops::ops {
namespace {

Status gather_nd_plan(Context& block, IndexedRows& d, Dims& out) {
  const NDArray& x = *block.input(0);
  const NDArray& idx = *block.input(1);
  const int bd = static_cast<int>(INT_ARG(0));
  REQUIRE_TRUE(idx.rank() >= 1 && bd < idx.rank() && bd <= x.rank(), OPS_ERR_SHAPE,
               "indices%s need rank > batch_dims (%d), and x%s rank >= batch_dims", idx.shape().str().c_str(), bd,
               x.shape().str().c_str());
  const int64_t k = idx.dim(idx.rank() - 1);
  REQUIRE_TRUE(k >= 0 && bd + k <= x.rank(), OPS_ERR_SHAPE,
               "indices%s index %lld dims, but x%s has %d dims after its %d batch dims", idx.shape().str().c_str(),
               static_cast<long long>(k), x.shape().str().c_str(), x.rank() - bd, bd);
  for (int d0 = 0; d0 < bd; ++d0)
    REQUIRE_TRUE(x.dim(d0) == idx.dim(d0), OPS_ERR_SHAPE, "batch dim %d differs: x%s, indices%s", d0,
                 x.shape().str().c_str(), idx.shape().str().c_str());
  d.k = k;
  d.batches = 1;
  for (int d0 = 0; d0 < bd; ++d0) d.batches *= x.dim(d0);
  d.count = 1;
  for (int d0 = bd; d0 < idx.rank() - 1; ++d0) d.count *= idx.dim(d0);
  for (int64_t j = 0; j < k; ++j) d.dims[j] = x.dim(bd + static_cast<int>(j));
  d.row = 1;
  for (int d0 = bd + static_cast<int>(k); d0 < x.rank(); ++d0) d.row *= x.dim(d0);
  d.indices_batch_stride = d.count * k;
  out.clear();
  for (int d0 = 0; d0 < idx.rank() - 1; ++d0) out.push_back(idx.dim(d0));
  for (int d0 = bd + static_cast<int>(k); d0 < x.rank(); ++d0) out.push_back(x.dim(d0));
  REQUIRE_TRUE(idx.rank() - 1 + x.rank() - bd - k <= kMaxRank, OPS_ERR_SHAPE, "the result would exceed rank %d",
               kMaxRank);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(gather_nd, 2, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  IndexedRows d;
  Dims out;
  RETURN_IF_ERROR(gather_nd_plan(block, d, out));
  NDArray* z = OUTPUT_VARIABLE(0);
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray xd, id;
  RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), xd));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), INPUT_VARIABLE(1)->dtype(), id));
  if (z->length() == 0 && (d.batches * d.count == 0 || d.row == 0)) return Status::ok();
  DeviceOutputStage stage;
  RETURN_IF_ERROR(stage.begin(block, *z, x.dtype()));
  int64_t bad = -1;
  RETURN_IF_ERROR(run_gather_rows(block, d, xd, id, stage.target(), bad));
  if (bad >= 0) return bad_index_error(block, id, d, bad, x, static_cast<int>(INT_ARG(0)));
  return stage.finish(block, *z);
}

DECLARE_SHAPE_FN(gather_nd) {
  using namespace libops;
  ops::IndexedRows d;
  Dims out;
  RETURN_IF_ERROR(ops::gather_nd_plan(block, d, out));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(gather_nd) {
  // On a device through the backend's row kernel (indexed_rows.cu).
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kIndex).runs_on_any_device();
}

DECLARE_ARGS(gather_nd) {
  args.describe("Slices of x picked by multi-dimensional indices.");
  args.input("x", "[batch..., D0..D(K-1), rest...]");
  args.input("indices", "[batch..., m..., K], int32 or int64");
  args.output("z", "[batch..., m..., rest...], x's dtype");
  args.i_arg("batch_dims", 0, "leading dims x and indices share").range(0, libops::kMaxRank);
}
