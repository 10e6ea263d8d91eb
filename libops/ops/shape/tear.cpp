// tear: splits x into every sub-tensor spanning the given dims (libnd4j's
// tensors along dimension), one output each.
//
//   input   x: any dtype
//   i args  dims (one or more; negative counts from the end; no repeats)
//   outputs one per position of the other dims, in C order over them; each
//           has the extents of x at `dims` (in increasing dim order)
//
// E.g. x [2,3,4] torn along dims {2} gives 6 outputs of shape [4]; along
// {0, 2}, 3 outputs of shape [2,4]: output j is x[:, j, :].
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

// Splits x's dims into the torn ones (`dims`, sorted) and the rest.
Status tear_dims(Context& block, const NDArray& x, Dims& dims, Dims& rest) {
  RETURN_IF_ERROR(normalize_axes(block.op_name(), block.i_args().data(), block.num_i_args(), x.rank(), false, dims));
  rest.clear();
  int j = 0;
  for (int d = 0; d < x.rank(); ++d) {
    if (j < dims.size() && dims[j] == d) ++j;
    else rest.push_back(d);
  }
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(tear, 1, -1, false, 0, -1) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  Dims dims, rest;
  RETURN_IF_ERROR(ops::tear_dims(block, *x, dims, rest));
  // View x as [rest..., dims...]; output t is the sub-array at position t
  // (C order) of the leading dims.
  Dims perm = rest, tad_shape;
  for (int d = 0; d < dims.size(); ++d) {
    perm.push_back(dims[d]);
    tad_shape.push_back(x->dim(static_cast<int>(dims[d])));
  }
  NDArray p;
  RETURN_IF_ERROR(x->permute(perm, p));
  for (int t = 0; t < block.num_outputs(); ++t) {
    NDArray* z = OUTPUT_VARIABLE(t);
    if (z->length() == 0) continue;
    NDArray part = p;
    int64_t rem = t;
    for (int d = rest.size() - 1; d >= 0; --d) {
      const int64_t i = rem % p.dim(d);
      rem /= p.dim(d);
      RETURN_IF_ERROR(part.slice(d, i, i + 1, 1, part));
    }
    RETURN_IF_ERROR(part.reshape(tad_shape, part));
    RETURN_IF_ERROR(ops::assign_on_device(block, *z, part));
  }
  return Status::ok();
}

DECLARE_SHAPE_FN(tear) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  Dims dims, rest;
  RETURN_IF_ERROR(ops::tear_dims(block, *x, dims, rest));
  int64_t count = 1;
  for (int d = 0; d < rest.size(); ++d) count *= x->dim(static_cast<int>(rest[d]));
  REQUIRE_TRUE(count > 0, OPS_ERR_SHAPE, "x%s has no sub-tensors along dims %s: another dim has extent 0",
               x->shape().str().c_str(), dims.str().c_str());
  REQUIRE_TRUE(count <= (1 << 20), OPS_ERR_SHAPE,
               "tearing x%s along dims %s gives %lld outputs; at most %d supported", x->shape().str().c_str(),
               dims.str().c_str(), static_cast<long long>(count), 1 << 20);
  TensorShape s{x->dtype(), Dims{}, 'c'};
  for (int d = 0; d < dims.size(); ++d) s.dims.push_back(x->dim(static_cast<int>(dims[d])));
  shapes.assign(static_cast<size_t>(count), s);
  return Status::ok();
}

DECLARE_TYPES(tear) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(tear) {
  args.describe("Splits x into every sub-tensor spanning the given dims.");
  args.input("x", "any array");
  args.outputs_variadic("parts", "one per position of the other dims, in C order; each spans x's extents at dims");
  args.i_list("dims", "the dims each part spans").axis(0).unique_values().count(1, libops::kMaxRank);
}
