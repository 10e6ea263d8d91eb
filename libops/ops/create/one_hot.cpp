// one_hot: for each index, a vector of depth values that is on at the
// index and off elsewhere (TF's one_hot, libnd4j's onehot), inserted as a
// new axis of the indices' shape. An index outside [0, depth) gives all
// off values, as in TensorFlow.
//
// The indices, seen with an extent-1 axis where the new one goes, are
// compared with 0, 1, ..., depth - 1 (broadcast), and the select kernel
// picks on or off: every step on the call's device.
#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/select/where.h"

namespace libops::ops {
namespace {

Status one_hot_geometry(Context& block, int& axis, int64_t& depth) {
  const NDArray& idx = *block.input(0);
  depth = INT_ARG(1);
  if (block.num_inputs() > 1) {
    std::vector<int64_t> v;
    RETURN_IF_ERROR(block.int_values(1, "depth", v));
    REQUIRE_TRUE(v.size() == 1, 0, "depth given as input 1 must hold one value, got %zu", v.size());
    depth = v[0];
  }
  REQUIRE_TRUE(depth >= 0 && depth <= (int64_t{1} << 31), 0, "depth is %lld: give it (>= 0) as i arg 1 or input 1",
               static_cast<long long>(depth));
  const int64_t a = INT_ARG(0), r = idx.rank();
  REQUIRE_TRUE(a >= -r - 1 && a <= r, 0, "axis %lld is out of range for indices%s: it must be in [%lld, %lld]",
               static_cast<long long>(a), idx.shape().str().c_str(), static_cast<long long>(-r - 1),
               static_cast<long long>(r));
  REQUIRE_TRUE(r < kMaxRank, OPS_ERR_SHAPE, "indices%s: the result would exceed rank %d", idx.shape().str().c_str(),
               kMaxRank);
  axis = static_cast<int>(a < 0 ? a + r + 1 : a);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(one_hot, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  int axis = 0;
  int64_t depth = 0;
  RETURN_IF_ERROR(one_hot_geometry(block, axis, depth));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& idx = *INPUT_VARIABLE(0);
  Dims idx_shape, iota_shape;  // indices with 1 at the axis; 1s with depth at it
  for (int d = 0; d <= idx.rank(); ++d) {
    if (d == axis) {
      idx_shape.push_back(1);
      iota_shape.push_back(depth);
    }
    if (d < idx.rank()) {
      idx_shape.push_back(idx.dim(d));
      iota_shape.push_back(1);
    }
  }
  NDArray iv, iota, hit, on, off;
  RETURN_IF_ERROR(idx.reshape_copy(idx_shape, iv));  // inserting extent 1: a view
  RETURN_IF_ERROR(step_array(block, DataType::kFloat64, iota_shape, iota));
  RETURN_IF_ERROR(iota_into(block, iota));
  RETURN_IF_ERROR(step_array(block, DataType::kBool, z->shape(), hit));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE_BOOL, static_cast<int>(legacy::BinaryBoolOp::equals), iv, &iota, hit));
  RETURN_IF_ERROR(NDArray::scalar(z->dtype(), T_ARG(0), on));
  RETURN_IF_ERROR(NDArray::scalar(z->dtype(), T_ARG(1), off));
  return select_into(block, hit, on, off, *z);
}

DECLARE_SHAPE_FN(one_hot) {
  using namespace libops;
  int axis = 0;
  int64_t depth = 0;
  RETURN_IF_ERROR(ops::one_hot_geometry(block, axis, depth));
  const NDArray* idx = INPUT_VARIABLE(0);
  Dims out;
  for (int d = 0; d <= idx->rank(); ++d) {
    if (d == axis) out.push_back(depth);
    if (d < idx->rank()) out.push_back(idx->dim(d));
  }
  shapes.push_back(TensorShape{D_ARG(0), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(one_hot) { descriptor.allow_inputs(libops::types::kInt).runs_on_any_device(); }

DECLARE_ARGS(one_hot) {
  args.describe("One-hot vectors of indices along a new axis.");
  args.input("indices", "integer array");
  args.optional_input("depth", "integer scalar, instead of i arg 1");
  args.output("z", "indices' shape with depth inserted at axis, in dtype");
  args.i_arg("axis", -1, "where the new axis goes, in the output's dims");
  args.i_arg("depth", -1, "the length of each vector (when not given as input 1)");
  args.t_arg("on", 1.0, "the value at the index").nan_allowed();
  args.t_arg("off", 0.0, "the value elsewhere").nan_allowed();
  args.d_arg("dtype", libops::DataType::kFloat32, "z's dtype");
}

DECLARE_SYN(onehot, one_hot)
