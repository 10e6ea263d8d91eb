// reverse: x with the order of its elements reversed along each of the
// given axes (numpy.flip, TF's reverse, libnd4j's reverse); no axes
// reverses every axis. A flipped view copied on the call's device.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status reversed_view(Context& block, NDArray& view) {
  const NDArray& x = *block.input(0);
  thread_local std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("axes", given));
  Dims axes;
  RETURN_IF_ERROR(normalize_axes(block.op_name(), given.data(), static_cast<int>(given.size()), x.rank(), true, axes));
  view = x;
  for (int64_t a : axes) RETURN_IF_ERROR(view.flip(static_cast<int>(a), view));
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(reverse, -1, 1, false, 0, 0) {
  libops::NDArray view;
  RETURN_IF_ERROR(libops::ops::reversed_view(block, view));
  return libops::ops::assign_on_device(block, *OUTPUT_VARIABLE(0), view);
}

DECLARE_SHAPE_FN(reverse) {
  libops::NDArray view;
  RETURN_IF_ERROR(libops::ops::reversed_view(block, view));
  shapes.push_back(libops::TensorShape{view.dtype(), view.shape(), 'c'});
  return libops::Status::ok();
}

DECLARE_TYPES(reverse) { descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device(); }

DECLARE_PATTERN(reverse, kInjective)

DECLARE_ARGS(reverse) {
  args.describe("Reverses the order of elements along axes.");
  args.input("x", "any array");
  args.optional_input("axes", "the axes as an integer array, instead of i args");
  args.output("z", "x reversed along the axes");
  args.i_list("axes", "the axes to reverse; none = all").axis(0).unique_values().or_input(1);
}

DECLARE_SYN(flip, reverse)
