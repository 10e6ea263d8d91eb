// reshape: the elements of x in C order, laid out in a new shape.
//
//   inputs  x: any dtype; shape (optional): the new shape as an integer
//           vector, instead of i args (ONNX's form)
//   i args  the new shape; one extent may be -1 (inferred from the others);
//           none gives a scalar (x must then hold one element)
//   b arg 0 copy_zeros (default false): a 0 in the shape takes x's extent
//           at the same index (ONNX Reshape with allowzero = 0, whose shape
//           may only be known at run time)
//   output  x's dtype in the new shape, a copy of x's data
//
// C order only: element i of x (C order) is element i of the output.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

CUSTOM_OP_IMPL(reshape, -1, 1, false, 0, -2) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  // One copy: into z seen in x's shape when z's layout allows that view,
  // else through a dense copy of x seen in z's shape (on the op's device:
  // Note [Copies on a device]).
  NDArray view;
  if (z->reshape(x->shape(), view).is_ok()) return ops::assign_on_device(block, view, *x);
  NDArray dense;
  RETURN_IF_ERROR(NDArray::create(x->dtype(), x->shape(), 'c', dense));
  RETURN_IF_ERROR(ops::assign_on_device(block, dense, *x));
  RETURN_IF_ERROR(dense.reshape(z->shape(), view));
  return ops::assign_on_device(block, *z, view);
}

DECLARE_SHAPE_FN(reshape) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  thread_local std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("shape", given));
  const int n = static_cast<int>(given.size());
  REQUIRE_TRUE(n <= kMaxRank, 0, "new shape has %d dims; at most %d allowed", n, kMaxRank);
  Dims shape(given.data(), n);
  if (B_ARG(0))
    for (int d = 0; d < n; ++d) {
      if (shape[d] != 0) continue;
      REQUIRE_TRUE(d < x->rank(), OPS_ERR_SHAPE, "cannot reshape x%s to %s: the 0 at dim %d copies a dim x lacks",
                   x->shape().str().c_str(), shape.str().c_str(), d);
      shape[d] = x->dim(d);
    }
  int infer = -1;
  int64_t known = 1;
  for (int d = 0; d < n; ++d) {
    if (shape[d] == -1) {
      REQUIRE_TRUE(infer < 0, OPS_ERR_SHAPE, "cannot reshape x%s to %s: at most one extent may be -1",
                   x->shape().str().c_str(), shape.str().c_str());
      infer = d;
      continue;
    }
    REQUIRE_TRUE(shape[d] >= 0, OPS_ERR_SHAPE, "cannot reshape x%s to %s: extent %lld at dim %d is negative",
                 x->shape().str().c_str(), shape.str().c_str(), static_cast<long long>(shape[d]), d);
    int64_t product = 0;
    REQUIRE_TRUE(!__builtin_mul_overflow(known, shape[d], &product), OPS_ERR_SHAPE,
                 "cannot reshape x%s to %s: element count overflows", x->shape().str().c_str(), shape.str().c_str());
    known = product;
  }
  const int64_t len = x->length();
  if (infer >= 0) {
    REQUIRE_TRUE(known != 0 && len % known == 0, OPS_ERR_SHAPE,
                 "cannot reshape x%s (%lld elements) to %s: the -1 extent cannot be inferred",
                 x->shape().str().c_str(), static_cast<long long>(len), shape.str().c_str());
    shape[infer] = len / known;
    known = len;
  }
  REQUIRE_TRUE(known == len, OPS_ERR_SHAPE, "cannot reshape x%s (%lld elements) to %s (%lld elements)",
               x->shape().str().c_str(), static_cast<long long>(len), shape.str().c_str(),
               static_cast<long long>(known));
  shapes.push_back(TensorShape{x->dtype(), shape, 'c'});
  return Status::ok();
}

DECLARE_TYPES(reshape) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_PATTERN(reshape, kInjective)

DECLARE_ARGS(reshape) {
  args.describe("The elements of x in C order, in a new shape.");
  args.input("x", "any array");
  args.optional_input("shape", "the new shape as an integer vector, instead of i args");
  args.output("z", "x's elements in C order, in the new shape");
  args.b_arg("copy_zeros", false, "a 0 in the shape takes x's extent at that index (ONNX's allowzero = 0)");
  args.i_list("shape", "the new shape; one extent may be -1 (inferred); none = a scalar").at_least(-1).or_input(1);
}
