// bitcast: x's bytes read as another dtype, nothing converted (ONNX's
// BitCast; TensorFlow's and libnd4j's bitcast).
//
//   input   x: any dtype with a size
//   d arg   dtype: z's dtype
//   output  z: the same shape when the sizes agree; a narrower dtype adds a
//           last dim of size ratio, a wider one takes a last dim of that
//           size away (NDArray::bitcast)
//
// x is made dense on the op's device, viewed as dtype, and copied into z:
// a device path with no kernel of its own.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace {

libops::Status bitcast_view(const libops::Context& block, const libops::NDArray& x, libops::NDArray& out) {
  using namespace libops;
  const DataType to = block.d_arg(0);
  REQUIRE_TRUE(dtype_is_valid(to), OPS_ERR_DTYPE, "no target dtype is given (d arg 0)");
  return ops::with_op_name(block, x.bitcast(to, out));
}

}  // namespace

CUSTOM_OP_IMPL(bitcast, 1, 1, false, 0, 0) {
  using namespace libops;
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray dense, view;
  RETURN_IF_ERROR(ops::dense_on_device(block, x, x.dtype(), dense));
  RETURN_IF_ERROR(bitcast_view(block, dense, view));
  return ops::assign_on_device(block, *OUTPUT_VARIABLE(0), view);  // the same dtype: a copy of the bytes
}

DECLARE_SHAPE_FN(bitcast) {
  using namespace libops;
  const NDArray& x = *INPUT_VARIABLE(0);
  // A dense stand-in of x's shape: NDArray::bitcast reads only the layout.
  const NDArray probe = NDArray::shape_only(TensorShape{x.dtype(), x.shape(), 'c'});
  NDArray view;
  RETURN_IF_ERROR(bitcast_view(block, probe, view));
  shapes.push_back(TensorShape{view.dtype(), view.shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(bitcast) {
  descriptor.allow_inputs(libops::types::kAny);
  descriptor.allow_outputs(libops::types::kAny);
  descriptor.runs_on_any_device();  // Note [Copies on a device]
}

DECLARE_ARGS(bitcast) {
  args.describe("Reads x's bytes as another dtype, converting nothing.");
  args.input("x", "any array of a dtype with a size");
  args.output("z", "x's bytes as dtype: the same shape for the same size; a narrower dtype adds a last dim of the "
                   "size ratio, a wider one takes such a last dim away");
  args.d_arg("dtype", libops::DataType::kInvalid, "z's dtype");
}
