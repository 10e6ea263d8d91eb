// expand_dims: x with a new axis of extent 1 inserted at `axis`, counted in
// the output's dims (numpy.expand_dims): in [-rank - 1, rank]. Given as
// input 1, the axes may be several (ONNX Unsqueeze, which may compute them
// at run time): each counted in the output's dims, all inserted at once.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(expand_dims, -1, 1, false, 0, 0) {
  libops::NDArray view;
  RETURN_IF_ERROR(INPUT_VARIABLE(0)->reshape(OUTPUT_VARIABLE(0)->shape(), view));  // inserting extent 1: a view
  return libops::ops::assign_on_device(block, *OUTPUT_VARIABLE(0), view);
}

DECLARE_SHAPE_FN(expand_dims) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  std::vector<int64_t> axes{INT_ARG(0)};
  if (block.num_inputs() > 1) {
    RETURN_IF_ERROR(block.int_values(1, "axis", axes));
    REQUIRE_TRUE(!axes.empty(), 0, "axis given as input 1 holds no value");
  }
  const int64_t out_rank = x->rank() + static_cast<int64_t>(axes.size());
  REQUIRE_TRUE(out_rank <= kMaxRank, OPS_ERR_SHAPE, "x%s has rank %d; with %zu new axes it would exceed the maximum %d",
               x->shape().str().c_str(), x->rank(), axes.size(), kMaxRank);
  uint64_t inserted = 0;
  for (int64_t axis : axes) {
    REQUIRE_TRUE(axis >= -out_rank && axis < out_rank, 0,
                 "axis %lld is out of range for x%s: it must be in [%lld, %lld]", static_cast<long long>(axis),
                 x->shape().str().c_str(), static_cast<long long>(-out_rank), static_cast<long long>(out_rank - 1));
    if (axis < 0) axis += out_rank;
    REQUIRE_TRUE(!(inserted >> axis & 1), 0, "axis %lld is given twice", static_cast<long long>(axis));
    inserted |= uint64_t{1} << axis;
  }
  Dims out;
  for (int64_t d = 0, from = 0; d < out_rank; ++d) out.push_back(inserted >> d & 1 ? 1 : x->dim(static_cast<int>(from++)));
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(expand_dims) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_PATTERN(expand_dims, kInjective)

DECLARE_ARGS(expand_dims) {
  args.describe("Inserts an axis of extent 1.");
  args.input("x", "any array");
  args.optional_input("axis", "the axis (or several, ONNX Unsqueeze) as integers, instead of the i arg");
  args.output("z", "x with one more axis");
  args.i_arg("axis", 0, "where the new axis goes, in the output's dims; negative counts from the end");
}

DECLARE_SYN(unsqueeze, expand_dims)
