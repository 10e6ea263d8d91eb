// gather_elements and scatter_elements (Note [Indexed elements] in
// indexed_rows.h): ONNX's GatherElements and ScatterElements, numpy's
// take_along_axis / put_along_axis, Nx's gather and scatter.
//   gather_elements(x, indices; axis)             z has indices' shape
//   scatter_elements(x, indices, updates; axis, mode)  z has x's shape
// indices has x's rank and, off the axis, extents at most x's; updates has
// indices' shape. A bad index is an error naming it.
#include "libops/ops/index/index_call.h"

namespace libops::ops {
namespace {

Status elements_plan(Context& block, int axis_arg, IndexedElements& d) {
  const NDArray& x = *block.input(0);
  const NDArray& idx = *block.input(1);
  REQUIRE_TRUE(idx.rank() == x.rank() && x.rank() >= 1, OPS_ERR_SHAPE,
               "indices%s must have x%s's rank (>= 1)", idx.shape().str().c_str(), x.shape().str().c_str());
  const int64_t a = block.i_arg(axis_arg);
  d.rank = x.rank();
  d.axis = static_cast<int>(a < 0 ? a + x.rank() : a);
  d.n = x.dim(d.axis);
  int64_t stride = 1;
  for (int k = x.rank() - 1; k >= 0; --k) {
    d.strides[k] = stride;
    stride *= x.dim(k);
    d.shape[k] = idx.dim(k);
    if (k != d.axis)
      REQUIRE_TRUE(idx.dim(k) <= x.dim(k), OPS_ERR_SHAPE, "indices%s exceed x%s along dim %d",
                   idx.shape().str().c_str(), x.shape().str().c_str(), k);
  }
  return Status::ok();
}

IndexedRows as_rows(const IndexedElements& d) {  // for bad_index_error's message
  IndexedRows r;
  r.k = 1;
  r.dims[0] = d.n;
  return r;
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(gather_elements, 2, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  IndexedElements d;
  RETURN_IF_ERROR(elements_plan(block, 0, d));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray xd, id;
  RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), xd));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), INPUT_VARIABLE(1)->dtype(), id));
  DeviceOutputStage stage;
  RETURN_IF_ERROR(stage.begin(block, *z, x.dtype()));
  int64_t bad = -1;
  if (block.device().is_cpu()) {
    RETURN_IF_ERROR(with_op_name(block, gather_elements_cpu(d, xd, id, stage.target(), &bad)));
    stage.target().buffer()->mark_host_written();
  } else {
    const GatherElementsDeviceFn fn = gather_elements_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, xd, id, stage.target(), &bad)));
  }
  if (bad >= 0) return bad_index_error(block, id, as_rows(d), bad, x, d.axis);
  return stage.finish(block, *z);
}

DECLARE_SHAPE_FN(gather_elements) {
  using namespace libops;
  ops::IndexedElements d;
  RETURN_IF_ERROR(ops::elements_plan(block, 0, d));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(1)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(gather_elements) {
  // On a device through the backend's element kernel (indexed_rows.cu).
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kIndex).runs_on_any_device();
}

DECLARE_ARGS(gather_elements) {
  args.describe("Elements of x picked along an axis, one index per output element.");
  args.input("x", "any array, rank >= 1");
  args.input("indices", "int32 or int64, x's rank; extents at most x's off the axis");
  args.output("z", "indices' shape, x's dtype");
  args.i_arg("axis", 0, "the axis the indices run along").axis(0);
}

DECLARE_SYN(take_along_axis, gather_elements)

CUSTOM_OP_IMPL(scatter_elements, 3, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  IndexedElements d;
  RETURN_IF_ERROR(elements_plan(block, 0, d));
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const auto mode = static_cast<ScatterMode>(INT_ARG(1));
  const DataType ct = scatter_compute_dtype(x.dtype());
  NDArray zc, uc, id;
  RETURN_IF_ERROR(NDArray::create(ct, x.shape(), 'c', zc));
  RETURN_IF_ERROR(assign_on_device(block, zc, x));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(2), ct, uc));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), INPUT_VARIABLE(1)->dtype(), id));
  int64_t bad = -1;
  if (d.count() > 0) {
    if (block.device().is_cpu()) {
      RETURN_IF_ERROR(with_op_name(block, scatter_elements_cpu(d, mode, id, uc, zc, &bad)));
      zc.buffer()->mark_host_written();
    } else {
      const ScatterElementsDeviceFn fn = scatter_elements_device_kernel.get(block.device().type);
      if (fn == nullptr) return no_device_implementation(block);
      RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, mode, id, uc, zc, &bad)));
    }
  }
  if (bad >= 0) return bad_index_error(block, id, as_rows(d), bad, x, d.axis);
  return assign_on_device(block, *z, zc);
}

DECLARE_SHAPE_FN(scatter_elements) {
  using namespace libops;
  ops::IndexedElements d;
  RETURN_IF_ERROR(ops::elements_plan(block, 0, d));
  REQUIRE_TRUE(INPUT_VARIABLE(2)->shape() == INPUT_VARIABLE(1)->shape(), OPS_ERR_SHAPE,
               "updates%s must have indices%s's shape", INPUT_VARIABLE(2)->shape().str().c_str(),
               INPUT_VARIABLE(1)->shape().str().c_str());
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(scatter_elements) {
  descriptor.allow_input(0, libops::types::kNumeric).allow_input(1, libops::types::kIndex);
  descriptor.allow_input(2, libops::types::kNumeric).runs_on_any_device();
}

DECLARE_ARGS(scatter_elements) {
  args.describe("Combines updates into a copy of x, one index along an axis per update.");
  args.input("x", "numeric array, rank >= 1");
  args.input("indices", "int32 or int64, x's rank; extents at most x's off the axis");
  args.input("updates", "indices' shape, converted to x's dtype");
  args.output("z", "x with the updates combined in");
  args.i_arg("axis", 0, "the axis the indices run along").axis(0);
  args.i_arg("mode", 0, "how an update combines with its target; set: the last update wins")
      .one_of({{0, "set"}, {1, "add"}, {2, "subtract"}, {3, "multiply"}, {4, "divide"}, {5, "max"}, {6, "min"}});
}

DECLARE_SYN(put_along_axis, scatter_elements)
