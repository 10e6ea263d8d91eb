// permute: reorders the dims of x (numpy.transpose); output dim d is input
// dim perm[d].
//
//   inputs  x: any dtype; perm (optional): the permutation as an integer
//           vector, instead of i args
//   i args  the permutation, one entry per dim of x (negative counts from
//           the end); none reverses the dims
//   output  a dense copy of the permuted view
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

#include <vector>
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

Status permute_axes(Context& block, const NDArray& x, Dims& perm) {
  perm.clear();
  const int rank = x.rank();
  thread_local std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("perm", given));
  if (given.empty()) {
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
    return Status::ok();
  }
  const int n = static_cast<int>(given.size());
  REQUIRE_TRUE(n == rank, 0, "permutation %s has %d entries for x%s of rank %d",
               Dims(given.data(), std::min(n, kMaxRank)).str().c_str(), n, x.shape().str().c_str(), rank);
  bool seen[kMaxRank] = {};
  for (int d = 0; d < rank; ++d) {
    const int64_t a = given[static_cast<size_t>(d)] < 0 ? given[static_cast<size_t>(d)] + rank : given[static_cast<size_t>(d)];
    REQUIRE_TRUE(a >= 0 && a < rank && !seen[a], 0, "%s is not a permutation of the %d dims of x%s",
                 Dims(given.data(), rank).str().c_str(), rank, x.shape().str().c_str());
    seen[a] = true;
    perm.push_back(a);
  }
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(permute, -1, 1, false, 0, -2) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  Dims perm;
  RETURN_IF_ERROR(ops::permute_axes(block, *x, perm));
  NDArray view;
  RETURN_IF_ERROR(x->permute(perm, view));
  return ops::assign_on_device(block, *OUTPUT_VARIABLE(0), view);
}

DECLARE_SHAPE_FN(permute) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  Dims perm;
  RETURN_IF_ERROR(ops::permute_axes(block, *x, perm));
  Dims out;
  for (int d = 0; d < perm.size(); ++d) out.push_back(x->dim(static_cast<int>(perm[d])));
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_SYN(transpose, permute)

DECLARE_TYPES(permute) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_PATTERN(permute, kInjective)

DECLARE_ARGS(permute) {
  args.describe("Reorders the dims of x (numpy.transpose).");
  args.input("x", "any array");
  args.optional_input("perm", "the permutation as an integer vector, instead of i args");
  args.output("z", "a dense copy of x with its dims reordered: output dim d is input dim perm[d]");
  args.i_list("perm", "the permutation, one entry per dim of x; none reverses the dims").or_input(1);
}
