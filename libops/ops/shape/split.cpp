// split and split_v: x cut along an axis into consecutive parts.
//   split    num_split equal parts (the axis extent must divide evenly);
//            i args num_split, axis (libnd4j's order)
//   split_v  parts of the given sizes (one may be -1: the rest); the sizes
//            as i args after the axis, or as an integer vector input
//            (TF's split with size_splits, ONNX's Split)
// Each part is one copy on the call's device.
#include <numeric>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status copy_parts(Context& block, int axis) {
  const NDArray& x = *block.input(0);
  int64_t at = 0;
  for (int i = 0; i < block.num_outputs(); ++i) {
    NDArray* z = block.output(i);
    const int64_t n = z->dim(axis);
    if (z->length() > 0) {
      NDArray part;
      RETURN_IF_ERROR(x.slice(axis, at, at + n, 1, part));
      RETURN_IF_ERROR(assign_on_device(block, *z, part));
    }
    at += n;
  }
  return Status::ok();
}

int axis_of(const Context& block, int64_t a) { return static_cast<int>(a < 0 ? a + block.input(0)->rank() : a); }

Status part_sizes(Context& block, std::vector<int64_t>& sizes) {
  const NDArray& x = *block.input(0);
  const int axis = axis_of(block, INT_ARG(0));
  RETURN_IF_ERROR(block.int_list("sizes", sizes));
  REQUIRE_TRUE(!sizes.empty() && sizes.size() <= (1u << 20), 0, "sizes has %zu values: give 1 to %d", sizes.size(),
               1 << 20);
  const int64_t n = x.dim(axis);
  int64_t known = 0, infer = -1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == -1) {
      REQUIRE_TRUE(infer < 0, 0, "sizes has more than one -1");
      infer = static_cast<int64_t>(k);
      continue;
    }
    REQUIRE_TRUE(sizes[k] >= 0, 0, "sizes[%zu] is %lld: sizes are >= 0, or -1 once", k, static_cast<long long>(sizes[k]));
    known += sizes[k];
  }
  if (infer >= 0) {
    REQUIRE_TRUE(known <= n, OPS_ERR_SHAPE, "sizes add up to %lld, more than axis %d of x%s (%lld)",
                 static_cast<long long>(known), axis, x.shape().str().c_str(), static_cast<long long>(n));
    sizes[static_cast<size_t>(infer)] = n - known;
    known = n;
  }
  REQUIRE_TRUE(known == n, OPS_ERR_SHAPE, "sizes add up to %lld, but axis %d of x%s has %lld",
               static_cast<long long>(known), axis, x.shape().str().c_str(), static_cast<long long>(n));
  return Status::ok();
}

void parts_of(const NDArray& x, int axis, const std::vector<int64_t>& sizes, ShapeList& shapes) {
  for (int64_t s : sizes) {
    Dims d = x.shape();
    d[axis] = s;
    shapes.push_back(TensorShape{x.dtype(), d, 'c'});
  }
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(split, 1, -1, false, 0, 1) {
  return libops::ops::copy_parts(block, libops::ops::axis_of(block, INT_ARG(1)));
}

DECLARE_SHAPE_FN(split) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  const int axis = ops::axis_of(block, INT_ARG(1));
  const int64_t parts = INT_ARG(0), n = x->dim(axis);
  REQUIRE_TRUE(n % parts == 0, OPS_ERR_SHAPE, "axis %d of x%s has %lld positions, which %lld parts cannot share equally",
               axis, x->shape().str().c_str(), static_cast<long long>(n), static_cast<long long>(parts));
  ops::parts_of(*x, axis, std::vector<int64_t>(static_cast<size_t>(parts), n / parts), shapes);
  return Status::ok();
}

DECLARE_TYPES(split) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_PATTERN(split, kInjective)

DECLARE_ARGS(split) {
  args.describe("Cuts x into equal parts along an axis.");
  args.input("x", "any array, rank >= 1");
  args.outputs_variadic("parts", "num_split arrays");
  args.i_arg("num_split", "the number of parts").range(1, 1 << 20);
  args.i_arg("axis", 0, "the axis to cut").axis(0);
}

CUSTOM_OP_IMPL(split_v, -1, -1, false, 0, 0) {
  return libops::ops::copy_parts(block, libops::ops::axis_of(block, INT_ARG(0)));
}

DECLARE_SHAPE_FN(split_v) {
  using namespace libops;
  std::vector<int64_t> sizes;
  RETURN_IF_ERROR(ops::part_sizes(block, sizes));
  ops::parts_of(*INPUT_VARIABLE(0), ops::axis_of(block, INT_ARG(0)), sizes, shapes);
  return Status::ok();
}

DECLARE_TYPES(split_v) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_ARGS(split_v) {
  args.describe("Cuts x along an axis into parts of given sizes.");
  args.input("x", "any array, rank >= 1");
  args.optional_input("sizes", "the part sizes as an integer vector, instead of i args");
  args.outputs_variadic("parts", "one array per size");
  args.i_arg("axis", 0, "the axis to cut").axis(0);
  args.i_list("sizes", "the sizes of the parts along the axis; one may be -1 (the rest)").or_input(1);
}
