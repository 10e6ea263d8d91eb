// bias_add: z = x + b, with b added along x's channel axis.
//
//   inputs  x: numeric, rank >= 1, any strides
//           b: [C], x's dtype, C = x's extent along the axis
//   i arg   0 axis, optional: default -1 (the last axis: NHWC, and the
//           features of [N, F] after a dense layer); 1 for NCHW; negative
//           counts from the end
//   output  x's dtype and shape; may run in place
//
// b is viewed as [C, 1, ..., 1] (one 1 per axis after the channel axis), so
// numpy broadcasting (Note [Broadcasting]) lines it up with the axis, and
// the legacy pairwise "add" row adds in the compute type.
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops::nn {
namespace {

Status bias_add_axis(Context& block, int& axis) {
  const NDArray& x = *block.input(0);
  const NDArray& b = *block.input(1);
  const int64_t a = INT_ARG(0);  // an axis of x (the signature checked it)
  axis = static_cast<int>(a < 0 ? a + x.rank() : a);
  REQUIRE_TRUE(b.rank() == 1 && b.dim(0) == x.dim(axis), OPS_ERR_SHAPE,
               "bias b%s does not match x%s at axis %d: b must be [%lld]", b.shape().str().c_str(),
               x.shape().str().c_str(), axis, static_cast<long long>(x.dim(axis)));
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(bias_add, 2, 1, true, 0, 0) {
  using namespace libops;
  int axis = 0;
  RETURN_IF_ERROR(ops::nn::bias_add_axis(block, axis));
  NDArray x = *INPUT_VARIABLE(0);
  NDArray b = *INPUT_VARIABLE(1);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  // Inputs that a supplied output overlaps (other than x itself, in place)
  // would be read after being written: work from copies then.
  // (dup copies on the host: bring a device-side input home first.)
  if (z->may_overlap(x) && !z->same_view(x)) {
    RETURN_IF_ERROR(x.buffer()->sync_to_host());
    RETURN_IF_ERROR(INPUT_VARIABLE(0)->dup('c', x));
  }
  if (z->may_overlap(b)) {
    RETURN_IF_ERROR(b.buffer()->sync_to_host());
    RETURN_IF_ERROR(INPUT_VARIABLE(1)->dup('c', b));
  }
  Dims b_shape{b.dim(0)};
  for (int d = axis + 1; d < x.rank(); ++d) b_shape.push_back(1);
  NDArray bv;
  RETURN_IF_ERROR(b.reshape(b_shape, bv));
  legacy::LegacyCall call;
  call.group = OPS_PAIRWISE;
  call.num = static_cast<int>(legacy::BinaryOp::add);
  call.x = &x;
  call.y = &bv;
  call.z = z;
  call.device = block.device();
  Status s = legacy::exec(call);
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

DECLARE_SHAPE_FN(bias_add) {
  using namespace libops;
  int axis = 0;
  RETURN_IF_ERROR(libops::ops::nn::bias_add_axis(block, axis));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(bias_add) {
  descriptor.allow_inputs(libops::types::kNumeric).require_same_type().runs_on_any_device();
  descriptor.allow_outputs(libops::types::kNumeric);
}

DECLARE_PATTERN(bias_add, kBroadcast)

DECLARE_ARGS(bias_add) {
  args.describe("Adds a bias vector along a channel axis.");
  args.input("x", "the array, rank >= 1");
  args.input("b", "the bias, [C] with C = x's extent along axis");
  args.output("z", "x + b along axis");
  args.i_arg("axis", -1, "x's channel axis: -1 for NHWC and [N, F], 1 for NCHW").axis(0);
}
