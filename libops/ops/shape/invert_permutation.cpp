// invert_permutation: the inverse of a permutation (libnd4j's
// invert_permutation, TF's InvertPermutation): z[x[i]] = i.
//
//   input   x: an integer vector [N] (or libnd4j's [1, N] / [N, 1]) holding
//           each of 0..N-1 once
//   output  x's shape and dtype
//
// Whether x is a permutation depends on its values, so the check runs with
// the data: a value out of [0, N) or one seen before is an error naming its
// position. x is read on the host and the inverse is copied into z on the
// call's device.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/host_reads.h"

CUSTOM_OP_IMPL(invert_permutation, 1, 1, false, 0, 0) {
  using namespace libops;
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  const int64_t n = x.length();
  if (n == 0) return Status::ok();
  RETURN_IF_ERROR(ops::with_op_name(block, x.buffer()->sync_to_host()));
  NDArray inverse;
  RETURN_IF_ERROR(ops::with_op_name(block, NDArray::create(x.dtype(), x.shape(), 'c', inverse)));
  std::vector<int64_t> seen_at(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = x.get_int64(i);
    REQUIRE_TRUE(v >= 0 && v < n, 0, "x[%lld] = %lld is not in [0, %lld): x must hold each of 0..%lld once",
                 static_cast<long long>(i), static_cast<long long>(v), static_cast<long long>(n),
                 static_cast<long long>(n - 1));
    int64_t& first = seen_at[static_cast<size_t>(v)];
    REQUIRE_TRUE(first < 0, 0, "x[%lld] = %lld repeats x[%lld]: x must hold each of 0..%lld once",
                 static_cast<long long>(i), static_cast<long long>(v), static_cast<long long>(first),
                 static_cast<long long>(n - 1));
    first = i;
    inverse.set_double(v, static_cast<double>(i));
  }
  return ops::assign_on_device(block, *z, inverse);
}

DECLARE_SHAPE_FN(invert_permutation) {
  using namespace libops;
  const NDArray& x = *INPUT_VARIABLE(0);
  const bool vector = x.rank() == 1 || (x.rank() == 2 && (x.dim(0) == 1 || x.dim(1) == 1));
  REQUIRE_TRUE(vector, OPS_ERR_SHAPE, "x%s is not a vector: give [N] (or libnd4j's [1, N] or [N, 1])",
               x.shape().str().c_str());
  shapes.push_back(TensorShape{x.dtype(), x.shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(invert_permutation) {
  descriptor.allow_inputs(libops::types::kInt).allow_outputs(libops::types::kInt).runs_on_any_device();
}

DECLARE_ARGS(invert_permutation) {
  args.describe("The inverse permutation: z[x[i]] = i.");
  reads_on_host(args, "x, checked and inverted there; z is copied to the device");
  args.input("x", "integer vector holding each of 0..N-1 once");
  args.output("z", "the inverse, x's shape and dtype");
}

DECLARE_SYN(InvertPermutation, invert_permutation)  // libnd4j's other name
