// slice_axes: ONNX's Slice. Along each listed axis, the elements from start
// towards end (not included) in steps of step; the other axes whole.
//
//   inputs  x: any dtype; starts, ends: integer vectors of n values;
//           axes (optional): n distinct axes of x, negative from the end
//           (default 0 .. n-1); steps (optional): n non-zero steps
//           (default 1). All four may be known only at run time.
//   output  x's dtype; each listed axis of extent
//           max(0, ceil((end - start) / step)) after clamping
//
// Clamping follows ONNX, not Python: a negative start or end counts from
// the axis' end; then with a positive step start and end are clamped to
// [0, extent], with a negative step start to [0, extent - 1] and end to
// [-1, extent - 1] (-1 meaning "through element 0"). Python's slice clamps a
// negative step's start to -1 instead, so a start below -extent takes no
// element there and one element here.
//
// The slice is a strided view of x, copied on the op's device (Note [Copies
// on a device]); starts, ends, axes and steps are read on the host (small
// shape inputs, as reshape's shape).
#include <algorithm>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status slice_axes_view(Context& block, NDArray& view) {
  const NDArray& x = *block.input(0);
  thread_local std::vector<int64_t> starts, ends, axes, steps;
  RETURN_IF_ERROR(block.int_values(1, "starts", starts));
  RETURN_IF_ERROR(block.int_values(2, "ends", ends));
  const size_t n = starts.size();
  REQUIRE_TRUE(ends.size() == n, 0, "starts has %zu values and ends %zu: they must match", n, ends.size());
  if (block.num_inputs() > 3 && block.input(3)->length() > 0) {
    RETURN_IF_ERROR(block.int_values(3, "axes", axes));
    REQUIRE_TRUE(axes.size() == n, 0, "axes has %zu values for %zu starts", axes.size(), n);
  } else {
    REQUIRE_TRUE(static_cast<int>(n) <= x.rank(), OPS_ERR_SHAPE, "%zu starts for x%s of rank %d", n,
                 x.shape().str().c_str(), x.rank());
    axes.resize(n);
    for (size_t k = 0; k < n; ++k) axes[k] = static_cast<int64_t>(k);
  }
  if (block.num_inputs() > 4 && block.input(4)->length() > 0) {
    RETURN_IF_ERROR(block.int_values(4, "steps", steps));
    REQUIRE_TRUE(steps.size() == n, 0, "steps has %zu values for %zu starts", steps.size(), n);
  } else {
    steps.assign(n, 1);
  }
  view = x;
  uint64_t seen = 0;
  for (size_t k = 0; k < n; ++k) {
    const int r = x.rank();
    int64_t axis = axes[k];
    REQUIRE_TRUE(axis >= -r && axis < r, OPS_ERR_SHAPE, "axes[%zu] = %lld is outside [%d, %d) for x%s", k,
                 static_cast<long long>(axis), -r, r, x.shape().str().c_str());
    if (axis < 0) axis += r;
    REQUIRE_TRUE(!(seen >> axis & 1), 0, "axis %lld is listed twice", static_cast<long long>(axis));
    seen |= uint64_t{1} << axis;
    const int64_t step = steps[k], extent = x.dim(static_cast<int>(axis));
    REQUIRE_TRUE(step != 0, 0, "steps[%zu] is 0: a step must not be 0", k);
    int64_t start = starts[k], end = ends[k];
    // Negative counts from the end; the sums cannot overflow once clamped
    // to a range far beyond any extent.
    constexpr int64_t kFar = int64_t{1} << 62;
    start = std::clamp(start, -kFar, kFar);
    end = std::clamp(end, -kFar, kFar);
    if (start < 0) start += extent;
    if (end < 0) end += extent;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, extent);
      end = std::clamp<int64_t>(end, 0, extent);
    } else {
      start = std::clamp<int64_t>(start, 0, std::max<int64_t>(extent - 1, 0));
      end = std::clamp<int64_t>(end, -1, extent - 1);
      if (extent == 0) end = start;        // nothing to take
      else if (end == -1) end = -extent - 1;  // through element 0, in Python's terms
    }
    RETURN_IF_ERROR(view.slice(static_cast<int>(axis), start, end, step, view));
  }
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(slice_axes, -1, 1, false, 0, 0) {
  using namespace libops;
  NDArray view;
  RETURN_IF_ERROR(ops::slice_axes_view(block, view));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  return ops::assign_on_device(block, *z, view);
}

DECLARE_SHAPE_FN(slice_axes) {
  using namespace libops;
  NDArray view;
  RETURN_IF_ERROR(ops::slice_axes_view(block, view));
  shapes.push_back(TensorShape{view.dtype(), view.shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(slice_axes) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_PATTERN(slice_axes, kInjective)

DECLARE_ARGS(slice_axes) {
  args.describe("ONNX's Slice: along listed axes, start to end (clamped as ONNX does) in steps.");
  args.input("x", "any array");
  args.input("starts", "integer vector, one per listed axis; negative counts from the end");
  args.input("ends", "integer vector, not included; negative counts from the end");
  args.optional_input("axes", "integer vector of distinct axes (default 0 .. n-1)");
  args.optional_input("steps", "integer vector, no zeros (default 1)");
  args.output("z", "the slice");
}
