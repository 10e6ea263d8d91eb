// matrix_inverse: the inverse of each square matrix (numpy.linalg.inv,
// libnd4j's matrix_inverse).
//
//   input   a: float32 or float64, [..., n, n] (rank >= 2), any strides
//   output  a's dtype and shape
//
// LU with partial pivoting, then a solve against the identity (getrf and
// getrs: LAPACK on the CPU, cuSOLVER on CUDA; Note [Factoring the
// transpose] in lu_factors.h). A singular matrix (an exact zero pivot) is
// an error naming it; a nearly singular one gives large values, as numpy.
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/linalg/lu_factors.h"
#include "libops/ops/linalg/matrix_staging.h"

CUSTOM_OP_IMPL(matrix_inverse, 1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray* a = INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, a->dtype()));
  RETURN_IF_ERROR(inverse_into(block, *a, out.target()));
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(matrix_inverse) {
  using namespace libops;
  const NDArray* a = INPUT_VARIABLE(0);
  RETURN_IF_ERROR(ops::check_matrix_stack(block, *a, "a", true));
  shapes.push_back(TensorShape{a->dtype(), a->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(matrix_inverse) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(matrix_inverse) {
  args.describe("The inverse of each square matrix; a singular one is an error.");
  args.input("a", "square matrices [..., n, n]");
  args.output("inverse", "a^-1, [..., n, n]");
}
