// squeeze: x without the given axes of extent 1 (numpy.squeeze); no axes
// drops every extent-1 axis. An axis of another extent is an error.
#include <algorithm>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status squeezed_shape(Context& block, Dims& out) {
  const NDArray& x = *block.input(0);
  thread_local std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("axes", given));
  Dims axes;
  RETURN_IF_ERROR(normalize_axes(block.op_name(), given.data(), static_cast<int>(given.size()), x.rank(), false, axes));
  out.clear();
  for (int d = 0; d < x.rank(); ++d) {
    const bool named = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (named)
      REQUIRE_TRUE(x.dim(d) == 1, OPS_ERR_SHAPE, "axis %d of x%s has extent %lld: only extent-1 axes can be squeezed", d,
                   x.shape().str().c_str(), static_cast<long long>(x.dim(d)));
    if (axes.empty() ? x.dim(d) != 1 : !named) out.push_back(x.dim(d));
  }
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(squeeze, -1, 1, false, 0, 0) {
  libops::NDArray view;
  RETURN_IF_ERROR(INPUT_VARIABLE(0)->reshape(OUTPUT_VARIABLE(0)->shape(), view));  // dropping extent-1 axes is always a view
  return libops::ops::assign_on_device(block, *OUTPUT_VARIABLE(0), view);
}

DECLARE_SHAPE_FN(squeeze) {
  libops::Dims out;
  RETURN_IF_ERROR(libops::ops::squeezed_shape(block, out));
  shapes.push_back(libops::TensorShape{INPUT_VARIABLE(0)->dtype(), out, 'c'});
  return libops::Status::ok();
}

DECLARE_TYPES(squeeze) { descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device(); }

DECLARE_PATTERN(squeeze, kInjective)

DECLARE_ARGS(squeeze) {
  args.describe("Removes axes of extent 1.");
  args.input("x", "any array");
  args.optional_input("axes", "the axes as an integer array, instead of i args");
  args.output("z", "x without the squeezed axes");
  args.i_list("axes", "the extent-1 axes to remove; none = every extent-1 axis").axis(0).unique_values().or_input(1);
}
