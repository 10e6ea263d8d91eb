// triangular_solve: x with op(A) * x = b for triangular A.
//
//   inputs  a: float32 or float64, [..., n, n] (rank >= 2), any strides;
//           b: a's dtype, [..., n, k] (rank >= 2), any strides. a's leading
//           (batch) dims equal b's, or a has rank 2: one matrix for every
//           system of b
//   b args  upper (optional, default false: A is lower triangular),
//           transpose (optional, default false: op(A) = A, else A^T),
//           unit_diag (optional, default false: A's diagonal is taken as
//           ones and not read)
//   output  x: b's dtype and shape
//
// Only A's triangle (the diagonal too, unless unit_diag) is read. A zero on
// the diagonal gives inf or NaN, not an error, as LAPACK's trsm and
// PyTorch's solve_triangular do. n == 0, k == 0 or an empty batch give an
// empty output.
//
// x is solved in place in a dense C-order copy of b (blas::trsm_batched_on:
// cblas on the CPU, the backend's solver elsewhere), with a made dense
// where it is not; both copies run on the call's device.
#include <cstdint>
#include <string>

#include "blas/linalg.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

struct TriangularSolveArgs {
  bool upper = false;
  bool transpose = false;
  bool unit_diag = false;
};

Status triangular_solve_args(Context& block, TriangularSolveArgs& args) {
  args.upper = block.b_arg(0);
  args.transpose = block.b_arg(1);
  args.unit_diag = block.b_arg(2);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(triangular_solve, 2, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  TriangularSolveArgs args;
  RETURN_IF_ERROR(triangular_solve_args(block, args));
  const NDArray* a = INPUT_VARIABLE(0);
  const NDArray* b = INPUT_VARIABLE(1);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const Device dev = block.device();
  const DataType dt = b->dtype();
  const int64_t n = b->dim(b->rank() - 2), k = b->dim(b->rank() - 1);
  const int64_t batch = b->length() / (n * k);
  // A rank-2 a serves every system (the shape function allows nothing else
  // when the batch dims differ).
  const int64_t stride_a = a->rank() == 2 ? 0 : n * n;

  NDArray ad;
  RETURN_IF_ERROR(dense_on_device(block, *a, dt, ad));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, dt));
  NDArray& x = out.target();
  RETURN_IF_ERROR(assign_on_device(block, x, *b));

  RETURN_IF_ERROR(sync_for_kernel(dev, {&ad}, x));
  const bool cpu = dev.is_cpu();
  RETURN_IF_ERROR(with_op_name(
      block, blas::trsm_batched_on(dev, dt, !args.upper, args.transpose, args.unit_diag, n, k,
                                   cpu ? ad.data() : ad.device_data(), n, stride_a,
                                   cpu ? x.data() : x.device_data(), k, n * k, batch)));
  if (!cpu) x.buffer()->mark_device_written();
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(triangular_solve) {
  using namespace libops;
  ops::TriangularSolveArgs args;
  RETURN_IF_ERROR(ops::triangular_solve_args(block, args));
  const NDArray* a = INPUT_VARIABLE(0);
  const NDArray* b = INPUT_VARIABLE(1);
  const std::string as = a->shape().str(), bs = b->shape().str();
  REQUIRE_TRUE(a->dtype() == b->dtype(), OPS_ERR_DTYPE, "a (%s%s) and b (%s%s) must share one dtype",
               dtype_name(a->dtype()), as.c_str(), dtype_name(b->dtype()), bs.c_str());
  REQUIRE_TRUE(a->rank() >= 2 && b->rank() >= 2, OPS_ERR_SHAPE,
               "cannot solve with a%s and b%s: both need rank >= 2 (stacks of matrices)", as.c_str(), bs.c_str());
  const int ar = a->rank(), br = b->rank();
  const int64_t n = a->dim(ar - 1);
  REQUIRE_TRUE(a->dim(ar - 2) == n, OPS_ERR_SHAPE,
               "cannot solve with a%s and b%s: a's matrices must be square, not %lld x %lld", as.c_str(), bs.c_str(),
               static_cast<long long>(a->dim(ar - 2)), static_cast<long long>(n));
  REQUIRE_TRUE(b->dim(br - 2) == n, OPS_ERR_SHAPE,
               "cannot solve with a%s and b%s: b's matrices must have n = %lld rows, not %lld", as.c_str(), bs.c_str(),
               static_cast<long long>(n), static_cast<long long>(b->dim(br - 2)));
  bool same_batch = ar == br;
  for (int d = 0; same_batch && d + 2 < ar; ++d) same_batch = a->dim(d) == b->dim(d);
  REQUIRE_TRUE(ar == 2 || same_batch, OPS_ERR_SHAPE,
               "cannot solve with a%s and b%s: a's leading dims must equal b's, or a must be one matrix (rank 2)",
               as.c_str(), bs.c_str());
  shapes.push_back(TensorShape{b->dtype(), b->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(triangular_solve) {
  // On a device: the copies through legacy kernels there, the solve through
  // the backend's trsm (blas/linalg.h).
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(triangular_solve) {
  args.describe("Solves triangular systems op(a) x = b.");
  args.input("a", "triangular matrices [..., n, n]; only the triangle named by upper is read");
  args.input("b", "right-hand sides [..., n, k], a's dtype; a's batch dims equal b's, or a is one matrix");
  args.output("x", "the solutions of op(a) x = b, b's shape");
  args.b_arg("upper", false, "a is upper triangular (else lower)");
  args.b_arg("transpose", false, "solve with a^T");
  args.b_arg("unit_diag", false, "take a's diagonal as ones, unread");
}
