// fill: an array of a given shape with every element `value` (TF's fill,
// ONNX's ConstantOfShape, libnd4j's fill). The shape comes as an integer
// vector input or as i args; the dtype as d arg 0 (default float32).
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

CUSTOM_OP_IMPL(fill, -2, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  NDArray value;
  RETURN_IF_ERROR(NDArray::scalar(z->dtype(), T_ARG(0), value));
  return ops::assign_on_device(block, *z, value);  // broadcasts the scalar
}

DECLARE_SHAPE_FN(fill) {
  using namespace libops;
  thread_local std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("shape", given));
  REQUIRE_TRUE(given.size() <= static_cast<size_t>(kMaxRank), OPS_ERR_SHAPE, "shape has %zu dims; at most %d",
               given.size(), kMaxRank);
  Dims shape(given.data(), static_cast<int>(given.size()));
  for (int d = 0; d < shape.size(); ++d)
    REQUIRE_TRUE(shape[d] >= 0, OPS_ERR_SHAPE, "shape %s has a negative extent", shape.str().c_str());
  shapes.push_back(TensorShape{D_ARG(0), shape, 'c'});
  return Status::ok();
}

DECLARE_TYPES(fill) { descriptor.allow_inputs(libops::types::kInt).runs_on_any_device(); }

DECLARE_ARGS(fill) {
  args.describe("An array of a given shape, every element one value.");
  args.optional_input("shape", "the shape as an integer vector, instead of i args");
  args.output("z", "the filled array, in dtype");
  args.i_list("shape", "the shape").or_input(0);
  args.t_arg("value", 0.0, "every element's value, converted to dtype").nan_allowed();
  args.d_arg("dtype", libops::DataType::kFloat32, "the dtype of z");
}
