// standardize: x shifted and scaled to mean 0 and standard deviation 1 over
// some axes (libnd4j's standardize, transforms.h):
//
//   z = (x - mean) / (stdev + 1e-12)
//
// mean and stdev over the axes, stdev over n (biased), as libnd4j; the
// 1e-12 keeps a constant slice at 0 instead of 0/0.
//
//   input   x: float; input 1, optional: the axes as an integer vector
//   i args  the axes (at least one; negative counts from the end), when
//           input 1 does not give them
//   output  x's shape and dtype
//
// libnd4j then replaces every NaN of z by 0; libops leaves a NaN of x to
// show (a NaN anywhere in a slice makes that slice NaN).
//
// Built from moments and element-wise ops on the call's device, in float32
// for float16 and bfloat16.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {
namespace {

Status standardize_axes(const Context& block, Dims& axes) {
  std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("axes", given));
  REQUIRE_TRUE(!given.empty(), 0, "no axes: give the axes to standardize over as i args or as input 1");
  return normalize_axes(block.op_name(), given.data(), static_cast<int>(given.size()), block.input(0)->rank(), false,
                        axes);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(standardize, -1, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  Dims axes;
  RETURN_IF_ERROR(ops::standardize_axes(block, axes));
  NDArray x = *INPUT_VARIABLE(0);
  if (x.dtype() == DataType::kFloat16 || x.dtype() == DataType::kBFloat16) {
    const int64_t f32 = static_cast<int64_t>(DataType::kFloat32);
    RETURN_IF_ERROR(ops::run_nested(block, "cast", {INPUT_VARIABLE(0)}, {.i = {f32}}, x));
  }
  std::vector<NDArray> stats;  // mean, variance, keeping the reduced dims
  const std::vector<int64_t> over(axes.begin(), axes.end());
  RETURN_IF_ERROR(ops::run_nested_all(block, "moments", {&x}, {.i = over, .b = {true}}, stats));
  NDArray sd, eps, centred, scaled;
  RETURN_IF_ERROR(ops::run_nested(block, "sqrt", {&stats[1]}, {}, sd));
  RETURN_IF_ERROR(ops::with_op_name(block, NDArray::scalar(sd.dtype(), 1e-12, eps)));
  RETURN_IF_ERROR(ops::run_nested(block, "add", {&sd, &eps}, {}, sd));
  RETURN_IF_ERROR(ops::run_nested(block, "subtract", {&x, &stats[0]}, {}, centred));
  RETURN_IF_ERROR(ops::run_nested(block, "divide", {&centred, &sd}, {}, scaled));
  return ops::assign_on_device(block, *z, scaled);
}

DECLARE_SHAPE_FN(standardize) {
  using namespace libops;
  Dims axes;
  RETURN_IF_ERROR(ops::standardize_axes(block, axes));
  const NDArray& x = *INPUT_VARIABLE(0);
  shapes.push_back(TensorShape{x.dtype(), x.shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(standardize) {
  descriptor.allow_input(0, libops::types::kFloat).allow_input(1, libops::types::kInt).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(standardize) {
  args.describe("(x - mean) / (stdev + 1e-12) over axes (libnd4j's standardize; stdev over n).");
  args.input("x", "float array");
  args.optional_input("axes", "the axes as an integer vector, instead of i args");
  args.output("z", "x standardized, x's shape and dtype");
  args.i_list("axes", "the axes the mean and stdev run over (at least one); negative counts from the end")
      .axis(0)
      .unique_values()
      .or_input(1);
}
