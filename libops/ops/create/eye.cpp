// eye: identity matrices, [batch..., rows, cols] with ones where row ==
// col (numpy.eye, libnd4j's eye). i args: rows, cols (default rows), then
// any batch dims; the dtype is d arg 0 (default float32). Zeros everywhere,
// then ones along the diagonal, seen as a strided view of z: two copies on
// the call's device.
#include "libops/ops/create/diagonal.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"


CUSTOM_OP_IMPL(eye, 0, 1, false, 0, 1) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  NDArray dense = *z, zero, one, diag;
  if (!z->is_c_contiguous()) RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', dense));
  RETURN_IF_ERROR(NDArray::scalar(z->dtype(), 0.0, zero));
  RETURN_IF_ERROR(NDArray::scalar(z->dtype(), 1.0, one));
  RETURN_IF_ERROR(ops::assign_on_device(block, dense, zero));
  RETURN_IF_ERROR(ops::diagonal_view(dense, diag));
  RETURN_IF_ERROR(ops::assign_on_device(block, diag, one));
  return dense.same_view(*z) ? Status::ok() : ops::assign_on_device(block, *z, dense);
}

DECLARE_SHAPE_FN(eye) {
  using namespace libops;
  const auto& i = block.i_args();
  Dims s;
  for (size_t k = 2; k < i.size(); ++k) s.push_back(i[k]);
  REQUIRE_TRUE(s.size() + 2 <= kMaxRank, OPS_ERR_SHAPE, "%d batch dims: the result would exceed rank %d", s.size(),
               kMaxRank);
  s.push_back(i[0]);
  s.push_back(i[1] < 0 ? i[0] : i[1]);
  shapes.push_back(TensorShape{D_ARG(0), s, 'c'});
  return Status::ok();
}

DECLARE_TYPES(eye) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(eye) {
  args.describe("Identity matrices: ones on the main diagonal.");
  args.output("z", "[batch..., rows, cols]");
  args.i_arg("rows", "rows of each matrix").range(0, 1 << 30);
  args.i_arg("cols", -1, "columns of each matrix; -1 = rows").range(-1, 1 << 30);
  args.i_list("batch", "leading batch dims").at_least(0);
  args.d_arg("dtype", libops::DataType::kFloat32, "z's dtype");
}
