// strided_slice: TensorFlow's strided slice, with its five masks (libnd4j's
// strided_slice takes the same arguments).
//
//   i args  begin_mask, ellipsis_mask, end_mask, new_axis_mask,
//           shrink_axis_mask, then the spec: n begins, n ends, n strides
//           (or begin, end and strides as three integer vector inputs)
//
// Spec entry j reads bit j of the masks: begin_mask / end_mask ignore
// begin[j] / end[j] (the whole range in the stride's direction);
// ellipsis_mask marks the entry that stands for every dim the spec does not
// name (at most one; without it the unnamed trailing dims are taken whole);
// new_axis_mask inserts an axis of extent 1; shrink_axis_mask takes the
// single element begin[j] and drops the dim (begin must then lie in
// [-n, n)). Begins and ends follow Python's slice rules: negative counts from
// the end, out-of-range values are clamped. A stride of 0 is an error.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

// The sliced view of x (shrunk dims kept as extent 1) and the output shape.
Status strided_view(Context& block, NDArray& view, Dims& out) {
  const NDArray& x = *block.input(0);
  const int64_t begin_mask = INT_ARG(0), ellipsis_mask = INT_ARG(1), end_mask = INT_ARG(2),
                new_axis_mask = INT_ARG(3), shrink_mask = INT_ARG(4);
  std::vector<int64_t> begin, end, strides;
  if (block.num_inputs() == 4) {
    RETURN_IF_ERROR(block.int_values(1, "begin", begin));
    RETURN_IF_ERROR(block.int_values(2, "end", end));
    RETURN_IF_ERROR(block.int_values(3, "strides", strides));
  } else {
    REQUIRE_TRUE(block.num_inputs() == 1, 0, "takes begin, end and strides all as inputs or all as i args");
    const auto& i = block.i_args();
    const size_t spec = i.size() - 5;
    REQUIRE_TRUE(spec % 3 == 0, 0, "the spec after the 5 masks has %zu values: it needs n begins, n ends, n strides",
                 spec);
    const size_t n = spec / 3;
    begin.assign(i.begin() + 5, i.begin() + 5 + static_cast<std::ptrdiff_t>(n));
    end.assign(i.begin() + 5 + static_cast<std::ptrdiff_t>(n), i.begin() + 5 + static_cast<std::ptrdiff_t>(2 * n));
    strides.assign(i.begin() + 5 + static_cast<std::ptrdiff_t>(2 * n), i.end());
  }
  const int n = static_cast<int>(begin.size());
  REQUIRE_TRUE(static_cast<int>(end.size()) == n && static_cast<int>(strides.size()) == n, 0,
               "begin, end and strides have %d, %zu and %zu values: they must have one each per spec entry", n,
               end.size(), strides.size());
  REQUIRE_TRUE(n <= 62, 0, "the spec has %d entries; at most 62", n);
  auto bit = [](int64_t mask, int j) { return ((mask >> j) & 1) != 0; };
  int ellipses = 0, named = 0;
  for (int j = 0; j < n; ++j) {
    if (bit(ellipsis_mask, j)) ++ellipses;
    else if (!bit(new_axis_mask, j)) ++named;
  }
  REQUIRE_TRUE(ellipses <= 1, 0, "ellipsis_mask %lld marks %d entries; at most one", static_cast<long long>(ellipsis_mask),
               ellipses);
  REQUIRE_TRUE(named <= x.rank(), OPS_ERR_SHAPE, "the spec names %d dims, but x%s has %d", named,
               x.shape().str().c_str(), x.rank());
  view = x;
  out.clear();
  Dims kept;  // the view's shape with shrunk dims as 1
  int d = 0;  // the next dim of x
  auto whole = [&](int count) {
    for (int k = 0; k < count; ++k, ++d) {
      out.push_back(x.dim(d));
    }
  };
  for (int j = 0; j < n; ++j) {
    if (bit(ellipsis_mask, j)) {
      whole(x.rank() - named);
      continue;
    }
    if (bit(new_axis_mask, j)) {
      REQUIRE_TRUE(out.size() < kMaxRank, OPS_ERR_SHAPE, "the result would have more than %d dims", kMaxRank);
      out.push_back(1);
      continue;
    }
    const int64_t extent = x.dim(d), stride = strides[static_cast<size_t>(j)];
    REQUIRE_TRUE(stride != 0, 0, "strides[%d] is 0: a stride must not be 0", j);
    if (bit(shrink_mask, j)) {
      int64_t b = begin[static_cast<size_t>(j)];
      REQUIRE_TRUE(b >= -extent && b < extent, OPS_ERR_SHAPE,
                   "spec entry %d shrinks dim %d of x%s to index %lld, outside [%lld, %lld)", j, d,
                   x.shape().str().c_str(), static_cast<long long>(b), static_cast<long long>(-extent),
                   static_cast<long long>(extent));
      if (b < 0) b += extent;
      RETURN_IF_ERROR(view.slice(d, b, b + 1, 1, view));
      ++d;
      continue;
    }
    // Python's slice: None ends are the whole range in the stride's direction.
    const int64_t b = bit(begin_mask, j) ? (stride > 0 ? 0 : extent - 1) : begin[static_cast<size_t>(j)];
    const int64_t e = bit(end_mask, j) ? (stride > 0 ? extent : -extent - 1) : end[static_cast<size_t>(j)];
    RETURN_IF_ERROR(view.slice(d, b, e, stride, view));
    out.push_back(view.dim(d));
    ++d;
  }
  whole(x.rank() - d);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(strided_slice, -1, 1, false, 0, 5) {
  using namespace libops;
  NDArray view, zv;
  Dims out;
  RETURN_IF_ERROR(ops::strided_view(block, view, out));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  // z seen in the view's shape: the two differ only by extent-1 dims.
  RETURN_IF_ERROR(z->reshape(view.shape(), zv));
  return ops::assign_on_device(block, zv, view);
}

DECLARE_SHAPE_FN(strided_slice) {
  using namespace libops;
  NDArray view;
  Dims out;
  RETURN_IF_ERROR(ops::strided_view(block, view, out));
  shapes.push_back(TensorShape{view.dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(strided_slice) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_PATTERN(strided_slice, kInjective)

DECLARE_ARGS(strided_slice) {
  args.describe("TensorFlow's strided slice with begin, end, ellipsis, new-axis and shrink masks.");
  args.input("x", "any array");
  args.optional_input("begin", "integer vector (with end and strides, instead of i args)");
  args.optional_input("end", "integer vector");
  args.optional_input("strides", "integer vector, no zeros");
  args.output("z", "the slice");
  args.i_arg("begin_mask", "bit j: ignore begin[j]").at_least(0);
  args.i_arg("ellipsis_mask", "bit j: entry j stands for the unnamed dims").at_least(0);
  args.i_arg("end_mask", "bit j: ignore end[j]").at_least(0);
  args.i_arg("new_axis_mask", "bit j: insert an axis of extent 1").at_least(0);
  args.i_arg("shrink_axis_mask", "bit j: take index begin[j] and drop the dim").at_least(0);
  args.i_list("spec", "n begins, n ends, n strides (when not given as inputs)");
}
