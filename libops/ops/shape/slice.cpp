// slice: the block of x starting at `begin` with `size` elements per dim
// (TF's slice, libnd4j's slice); a size of -1 takes the rest of the dim.
// begin and size come as i args (rank begins, then rank sizes) or as two
// integer array inputs. The block must lie inside x.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status slice_view(Context& block, NDArray& view) {
  const NDArray& x = *block.input(0);
  const int rank = x.rank();
  std::vector<int64_t> begin, size;
  if (block.num_inputs() == 3) {
    RETURN_IF_ERROR(block.int_values(1, "begin", begin));
    RETURN_IF_ERROR(block.int_values(2, "size", size));
  } else {
    REQUIRE_TRUE(block.num_inputs() == 1, 0, "takes begin and size both as inputs or both as i args");
    const auto& i = block.i_args();
    REQUIRE_TRUE(static_cast<int>(i.size()) == 2 * rank, 0,
                 "begin_size has %zu values for x%s of rank %d: it needs %d (rank begins, then rank sizes)",
                 i.size(), x.shape().str().c_str(), rank, 2 * rank);
    begin.assign(i.begin(), i.begin() + rank);
    size.assign(i.begin() + rank, i.end());
  }
  REQUIRE_TRUE(static_cast<int>(begin.size()) == rank && static_cast<int>(size.size()) == rank, 0,
               "begin has %zu and size %zu values for x%s of rank %d", begin.size(), size.size(),
               x.shape().str().c_str(), rank);
  view = x;
  for (int d = 0; d < rank; ++d) {
    const int64_t n = x.dim(d), b = begin[static_cast<size_t>(d)];
    const int64_t s = size[static_cast<size_t>(d)] == -1 ? n - b : size[static_cast<size_t>(d)];
    REQUIRE_TRUE(b >= 0 && b <= n && s >= 0 && b + s <= n, OPS_ERR_SHAPE,
                 "dim %d of x%s: begin %lld and size %lld reach outside [0, %lld]", d, x.shape().str().c_str(),
                 static_cast<long long>(b), static_cast<long long>(size[static_cast<size_t>(d)]),
                 static_cast<long long>(n));
    RETURN_IF_ERROR(view.slice(d, b, b + s, 1, view));
  }
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(slice, -1, 1, false, 0, 0) {
  libops::NDArray view;
  RETURN_IF_ERROR(libops::ops::slice_view(block, view));
  return libops::ops::assign_on_device(block, *OUTPUT_VARIABLE(0), view);
}

DECLARE_SHAPE_FN(slice) {
  libops::NDArray view;
  RETURN_IF_ERROR(libops::ops::slice_view(block, view));
  shapes.push_back(libops::TensorShape{view.dtype(), view.shape(), 'c'});
  return libops::Status::ok();
}

DECLARE_TYPES(slice) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_PATTERN(slice, kInjective)

DECLARE_ARGS(slice) {
  args.describe("A block of x: begin and size per dim.");
  args.input("x", "any array");
  args.optional_input("begin", "integer vector, one per dim (with size, instead of i args)");
  args.optional_input("size", "integer vector, one per dim; -1 takes the rest");
  args.output("z", "the block, size[d] (or n - begin[d]) along dim d");
  args.i_list("begin_size", "rank begins, then rank sizes (-1: to the end of the dim)");
}
