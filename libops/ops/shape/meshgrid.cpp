// meshgrid: coordinate grids from N coordinate vectors (libnd4j's meshgrid,
// numpy.meshgrid, TF's meshgrid).
//
//   inputs  N >= 1 arrays of one dtype; each is read as the vector of its
//           elements in C order (libnd4j takes any shape: a scalar is a
//           vector of one)
//   i arg   0 swap_first_2_dims (libnd4j's swapFirst2Dims), default 1:
//           1 is numpy's indexing='xy' (the first two dims swapped),
//           0 is 'ij'
//   output  N arrays, each [len_0, len_1, ..., len_{N-1}] ('ij') or
//           [len_1, len_0, len_2, ...] ('xy'): output k holds input k's
//           values along the dim of input k, repeated along the others
//
// Each output is its input seen as a view with its values along one dim and
// extent 1 elsewhere, broadcast into z by one copy on the call's device.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {
namespace {

// The output dim that input k's values run along.
int grid_axis(const Context& block, int k) {
  const bool swap = block.i_arg(0) != 0 && block.num_inputs() >= 2;
  return swap && k < 2 ? 1 - k : k;
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(meshgrid, -1, -1, false, 0, 0) {
  using namespace libops;
  for (int k = 0; k < block.num_inputs(); ++k) {
    NDArray* z = OUTPUT_VARIABLE(k);
    if (z->length() == 0) continue;
    const NDArray& x = *INPUT_VARIABLE(k);
    NDArray flat, along;
    if (!x.reshape(Dims{x.length()}, flat).is_ok())  // a view unless x's strides forbid one
      RETURN_IF_ERROR(ops::run_nested(block, "reshape", {&x}, {.i = {x.length()}}, flat));
    Dims shape;
    for (int d = 0; d < z->rank(); ++d) shape.push_back(d == ops::grid_axis(block, k) ? x.length() : 1);
    RETURN_IF_ERROR(ops::with_op_name(block, flat.reshape(shape, along)));
    RETURN_IF_ERROR(ops::assign_on_device(block, *z, along));  // broadcasts along the other dims
  }
  return Status::ok();
}

DECLARE_SHAPE_FN(meshgrid) {
  using namespace libops;
  const int n = block.num_inputs();
  REQUIRE_TRUE(n <= kMaxRank, OPS_ERR_SHAPE, "%d inputs would give grids of rank %d; at most %d inputs", n, n,
               kMaxRank);
  Dims grid;
  grid.resize(n);
  for (int k = 0; k < n; ++k) grid[ops::grid_axis(block, k)] = INPUT_VARIABLE(k)->length();
  shapes.assign(static_cast<size_t>(n), TensorShape{INPUT_VARIABLE(0)->dtype(), grid, 'c'});
  return Status::ok();
}

DECLARE_TYPES(meshgrid) {
  descriptor.allow_inputs(libops::types::kAny).require_same_type().runs_on_any_device();
}

DECLARE_ARGS(meshgrid) {
  args.describe("Coordinate grids from coordinate vectors (numpy.meshgrid).");
  args.inputs_variadic("xs", "arrays of one dtype, each read as the vector of its elements");
  args.outputs_variadic("grids", "one per input, each of rank N: input k's values along its dim");
  args.i_arg("swap_first_2_dims", 1, "1: numpy's indexing='xy' (dims 0 and 1 swapped); 0: 'ij'").flag();
}
