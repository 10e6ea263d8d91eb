// matmul: z = op(x) @ op(y) with numpy matmul semantics.
//
//   inputs  x, y: numeric, rank >= 1; mixed dtypes are cast to promote(x, y)
//           (Note [Type promotion]) before multiplying.
//   input   bias, optional: [n], y of rank >= 2, the output's dtype; added
//           to every row of the product (a dense layer's x W + b)
//   i args  transpose_x, transpose_y: 0 or 1, optional (default 0); they swap
//           the last two dims of an input of rank >= 2. A 1-D input is a
//           vector with no orientation, so its flag has no effect.
//           transpose_z (libnd4j's transZ): the result's last two dims
//           swapped. activation: 0 none, 1 relu, 2 relu6, applied after the
//           bias (before transpose_z), NaN kept as the relu ops keep it.
//           epilogue (i list from 4, t list epilogue_values): an
//           element-wise program of z run in place last (Note [Epilogue
//           programs] in elementwise/fused_program.h)
//   output  broadcast(batch dims of x, batch dims of y) + [m] + [n], where a
//           1-D x ([k], seen as [1,k]) drops m and a 1-D y ([k], seen as
//           [k,1]) drops n; two 1-D inputs give a scalar (their dot product).
//
// Note [Matmul epilogue]
// The graph rewrites (Note [Graph rewrites]) fold add(matmul(x, W), b) and
// a relu after it into one matmul node: a dense layer as one node, as ONNX
// Runtime's Gemm with its fused activation. The bias and the activation
// run as the legacy add (broadcast over the rows) and relu / relu6 steps,
// in place on the product while it is in cache and on the call's device:
// the same results as the separate nodes, without their node overhead and
// their pass from memory: the encoder block of bench/compare_models.py,
// whose [128, 2048] bias add took 0.13 ms inside the model, went from
// 8.3 to 7.9 ms at 1 thread; an MLP went from 8 nodes to 3 in the same time.
// A single row multiplied by packed weights gets both in registers from the
// GEMV kernel instead (Note [Packed GEMV]), where a dispatch costs more
// than the work.
//
// The batch dims broadcast (Note [Broadcasting]). Every matrix whose last
// two dims already form a BLAS layout (row-major with a leading dimension,
// or the transpose of one) is passed to the GEMM as it is, strides and all;
// other views are copied to dense C order first. Integer products wrap like
// numpy's (Note [GEMM dtypes] in blas/gemm.h).
#include "blas/gemm.h"
#include "blas/packed_gemm.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "libops/loops/copy.h"
#include "libops/loops/nd_loop.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/elementwise/fused_program.h"
#include "libops/ops/legacy_steps.h"

namespace libops::ops {
namespace {

struct MatmulArgs {
  bool transpose_x = false;
  bool transpose_y = false;
  bool transpose_z = false;
  int64_t activation = 0;  // 0 none, 1 relu, 2 relu6
};

Status matmul_args(Context& block, MatmulArgs& args) {
  args.transpose_x = INT_ARG(0) == 1;
  args.transpose_y = INT_ARG(1) == 1;
  args.transpose_z = INT_ARG(2) == 1;
  args.activation = INT_ARG(3);
  return Status::ok();
}

// The last two dims of `shape` swapped (rank >= 2).
Dims swap_last_two(Dims shape) {
  std::swap(shape[shape.size() - 2], shape[shape.size() - 1]);
  return shape;
}

// Note [Matmul epilogue]: z = act(z + bias) in place on block.device().
Status matmul_epilogue(Context& block, const MatmulArgs& args, const NDArray* bias, NDArray& z) {
  if (z.length() == 0) return Status::ok();
  if (bias != nullptr)
    RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::add), z, bias, z));
  return activation_step(block, args.activation, z);
}

// The leading (batch) dims of an input of rank >= 2; none for a vector.
Dims batch_dims(const Dims& s) {
  Dims b;
  for (int d = 0; d + 2 < s.size(); ++d) b.push_back(s[d]);
  return b;
}

// Rows and columns of op(a) as a matrix (a 1-D x is a row, a 1-D y a column).
void matrix_extents(const Dims& s, bool transpose, bool is_y, int64_t& rows, int64_t& cols) {
  if (s.size() == 1) {
    rows = is_y ? s[0] : 1;
    cols = is_y ? 1 : s[0];
    return;
  }
  rows = s[s.size() - 2];
  cols = s[s.size() - 1];
  if (transpose) std::swap(rows, cols);
}

// op(a) as an array of rank >= 2 (a view): vectors get their unit dim,
// transposes swap the last two dims.
Status as_matrices(const NDArray& a, bool transpose, bool is_y, NDArray& out) {
  if (a.rank() == 1) return a.reshape(is_y ? Dims{a.dim(0), 1} : Dims{1, a.dim(0)}, out);
  if (!transpose) {
    out = a;
    return Status::ok();
  }
  Dims perm;
  for (int d = 0; d < a.rank(); ++d) perm.push_back(d);
  std::swap(perm[a.rank() - 2], perm[a.rank() - 1]);
  return a.permute(perm, out);
}

// How a stack of matrices (last two dims) is handed to the GEMM.
struct BlasLayout {
  bool ok = false;     // false: copy to dense C order first
  bool trans = false;  // stored as the transpose (column-major)
  int64_t ld = 0;
};

BlasLayout blas_layout(const NDArray& a) {
  BlasLayout l;
  const int r = a.rank();
  for (int d = 0; d + 2 < r; ++d)
    if (a.strides()[d] < 0) return l;  // gemm_batched takes non-negative batch strides
  const int64_t rows = a.dim(r - 2), cols = a.dim(r - 1);
  const int64_t rs = a.strides()[r - 2], cs = a.strides()[r - 1];
  // An extent-1 dim is never stepped along, so its stride does not matter.
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= cols)) {
    l.ok = true;
    l.ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
  } else if ((rows == 1 || rs == 1) && (cols == 1 || cs >= rows)) {
    l.ok = true;
    l.trans = true;
    l.ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
  }
  return l;
}

// `a` in dtype `dt`, as it is when it already has it, else a dense copy.
Status cast_to(const NDArray& a, DataType dt, NDArray& out) {
  if (a.dtype() == dt) {
    out = a;
    return Status::ok();
  }
  RETURN_IF_ERROR(NDArray::create(dt, a.shape(), 'c', out));
  copy_into(a, out);
  return Status::ok();
}

// A view of the stack of matrices in `a` that BLAS can read, and its layout.
Status blas_operand(const NDArray& a, NDArray& out, BlasLayout& layout) {
  layout = blas_layout(a);
  if (layout.ok) {
    out = a;
    return Status::ok();
  }
  RETURN_IF_ERROR(a.dup('c', out));
  layout = blas_layout(out);
  return Status::ok();
}

// Note [Packed constant weights]
// In a graph, y is most often a weight matrix: a constant of the graph
// (Context::input_is_constant, Note [Op state]). On the CPU in float32 the
// node then packs it once per session (Note [Packed GEMM] in
// blas/packed_gemm.h: libops' panel GEMM on AVX2 machines, oneDNN's
// blocked layout on AVX-512) and multiplies every later run from the packed
// copy, x seen as one [rows, k] matrix: OpenBLAS would repack y on every
// call. The state is rebuilt when y's buffer or layout or the thread count
// change, or the rows where the plan is for one row count (oneDNN's), and
// remembers a failed packing (oneDNN off on an AVX-512 machine) so the call
// falls back to the plain GEMM without retrying. libops' kernels (the panel
// GEMM; on AVX-512 the single-row GEMV, Note [Packed GEMV] in
// blas/packed_gemm.cpp) also apply the bias and activation (Note [Matmul
// epilogue]): MLP 784-512-512-10 batch 1 36 -> 33 us at 1 thread, 25 -> 21
// us at 2 on AVX-512 (ops-run medians). With the baseline ISA a single row
// on one thread stays with OpenBLAS' gemv, which was 15% faster than
// oneDNN's matmul; on more threads gemv runs on one.

struct PackedWeights : OpState {
  const void* y = nullptr;
  int64_t rows = 0, n = 0, k = 0, ld = 0;
  bool trans = false;
  int threads = 0;
  bool usable = false;
  blas::PackedGemmF32 gemm;
};

// z = x * y from y's packed copy; false when this call does not qualify
// (the caller then runs the plain GEMM). `epilogue_done`: the packed GEMM
// also applied the bias and activation (libops' kernels do).
bool packed_matmul(Context& block, const NDArray& xb, const BlasLayout& xl, const NDArray& yb, const BlasLayout& yl,
                   NDArray& zm, int64_t n, int64_t k, const MatmulArgs& args, const NDArray* bias,
                   bool& epilogue_done) {
  if (!block.device().is_cpu() || zm.dtype() != DataType::kFloat32 || !block.input_is_constant(1) ||
      yb.rank() != 2 || xl.trans || xl.ld != k || !xb.is_c_contiguous() || !zm.is_c_contiguous())
    return false;
  const int64_t rows = xb.length() / k;
  const int threads = get_num_threads();
  if (rows == 1 && threads == 1 && cpu_isa() == CpuIsa::kBaseline) return false;
  auto* st = dynamic_cast<PackedWeights*>(block.op_state());
  // A packing for any row count (the panel GEMM's) serves a new batch size.
  const bool rows_fit = st != nullptr && (st->rows == rows || (st->usable && st->gemm.any_rows()));
  if (st == nullptr || st->y != yb.data() || !rows_fit || st->n != n || st->k != k || st->ld != yl.ld ||
      st->trans != yl.trans || st->threads != threads) {
    auto fresh = std::make_unique<PackedWeights>();
    fresh->y = yb.data(), fresh->rows = rows, fresh->n = n, fresh->k = k, fresh->ld = yl.ld, fresh->trans = yl.trans;
    fresh->threads = threads;
    fresh->usable = fresh->gemm
                        .pack(rows, n, k, static_cast<const float*>(yb.data()), yl.ld, yl.trans, k, n, threads)
                        .is_ok();
    st = fresh.get();
    block.set_op_state(std::move(fresh));
  }
  if (!st->usable) return false;
  blas::GemmEpilogue ep;
  if (st->gemm.applies_epilogue() && (bias == nullptr || bias->is_c_contiguous())) {
    ep.bias = bias != nullptr ? static_cast<const float*>(bias->data()) : nullptr;
    ep.activation = static_cast<int>(args.activation);
  }
  epilogue_done = !ep.empty() || (bias == nullptr && args.activation == 0);
  return st->gemm.run_rows(rows, static_cast<const float*>(xb.data()), static_cast<float*>(zm.data()), ep).is_ok();
}

}  // namespace
}  // namespace libops::ops

namespace libops::ops {
namespace {

// The product, its bias and activation into z (Note [Matmul epilogue]).
Status matmul_product(Context& block) {
  MatmulArgs args;
  RETURN_IF_ERROR(matmul_args(block, args));
  const NDArray* x = INPUT_VARIABLE(0);
  const NDArray* y = INPUT_VARIABLE(1);
  const NDArray* bias = block.num_inputs() >= 3 ? INPUT_VARIABLE(2) : nullptr;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const DataType dt = z->dtype();
  // On a device, dtype casts and relayout copies would run on the host, so
  // the operands must already suit the device GEMM (checked below).
  const Device dev = block.device();
  const bool on_device = !dev.is_cpu();
  REQUIRE_TRUE(!on_device || (x->dtype() == dt && y->dtype() == dt), OPS_ERR_NOT_IMPLEMENTED,
               "on %s, x (%s) and y (%s) must already have the output dtype %s", dev.str().c_str(),
               dtype_name(x->dtype()), dtype_name(y->dtype()), dtype_name(dt));

  NDArray xc, yc, xm, ym;
  RETURN_IF_ERROR(cast_to(*x, dt, xc));
  RETURN_IF_ERROR(cast_to(*y, dt, yc));
  RETURN_IF_ERROR(as_matrices(xc, args.transpose_x, false, xm));
  RETURN_IF_ERROR(as_matrices(yc, args.transpose_y, true, ym));
  const int64_t m = xm.dim(xm.rank() - 2), k = xm.dim(xm.rank() - 1), n = ym.dim(ym.rank() - 1);

  // The product with its matrix dims restored: batch + [m, n].
  Dims out_batch;
  RETURN_IF_ERROR(broadcast_shapes(block.op_name(), batch_dims(xm.shape()), batch_dims(ym.shape()), out_batch));
  Dims zm_shape = out_batch;
  zm_shape.push_back(m);
  zm_shape.push_back(n);
  const bool swap_z = args.transpose_z && x->rank() >= 2 && y->rank() >= 2;
  // Write straight into z when its matrices have a BLAS row-major layout, it
  // shares no memory with the inputs and no transpose follows; otherwise
  // into a dense temporary, copied into z at the end.
  NDArray zm;
  bool direct = !swap_z && !z->may_overlap(*x) && !z->may_overlap(*y) &&
                (bias == nullptr || !z->may_overlap(*bias)) && z->reshape(zm_shape, zm).is_ok();
  if (direct) {
    BlasLayout zl = blas_layout(zm);
    direct = zl.ok && !zl.trans;
  }
  REQUIRE_TRUE(!on_device || direct || swap_z, OPS_ERR_NOT_IMPLEMENTED,
               "on %s, the output must be a dense row-major stack of matrices sharing no memory with the inputs",
               dev.str().c_str());
  if (!direct) RETURN_IF_ERROR(NDArray::create(dt, zm_shape, 'c', zm));
  // The product in zm, then Note [Matmul epilogue], then z from zm.
  auto finish = [&](bool epilogue_done = false) -> Status {
    if (!epilogue_done) RETURN_IF_ERROR(matmul_epilogue(block, args, bias, zm));
    if (direct) return Status::ok();
    NDArray zv;
    if (swap_z) {
      Dims perm;
      for (int d = 0; d < zm.rank(); ++d) perm.push_back(d);
      std::swap(perm[perm.size() - 2], perm[perm.size() - 1]);
      RETURN_IF_ERROR(zm.permute(perm, zv));
    } else {
      // zm is dense, so it views as z's shape (which may lack the unit dims).
      RETURN_IF_ERROR(zm.reshape(z->shape(), zv));
    }
    return assign_on_device(block, *z, zv);
  };

  if (k == 0) {
    RETURN_IF_ERROR(zm.buffer()->sync_to_host());
    RETURN_IF_ERROR(zm.assign_scalar(0.0));  // an empty sum
    zm.buffer()->mark_host_written();
    return finish();
  }
  NDArray xb, yb;
  BlasLayout xl, yl;
  if (on_device) {
    xl = blas_layout(xm);
    yl = blas_layout(ym);
    REQUIRE_TRUE(xl.ok && yl.ok, OPS_ERR_NOT_IMPLEMENTED,
                 "on %s, x%s and y%s need row- or column-major matrices (a copy would run on the host)",
                 dev.str().c_str(), x->shape().str().c_str(), y->shape().str().c_str());
    xb = xm;
    yb = ym;
    RETURN_IF_ERROR(sync_for_kernel(dev, {x, y}, zm));
  } else {
    RETURN_IF_ERROR(blas_operand(xm, xb, xl));
    RETURN_IF_ERROR(blas_operand(ym, yb, yl));
  }
  const BlasLayout zl = blas_layout(zm);
  bool epilogue_done = false;
  if (!on_device && packed_matmul(block, xb, xl, yb, yl, zm, n, k, args, bias, epilogue_done))
    return finish(epilogue_done);

  // Walk the batch dims; runs along the innermost one become one
  // gemm_batched call (all of them, when the batch strides line up).
  const int bd = out_batch.size();
  Dims zs, xs, ys;
  for (int d = 0; d < bd; ++d) zs.push_back(zm.strides()[d]);
  for (int d = 0; d + 2 < xb.rank(); ++d) xs.push_back(xb.strides()[d]);
  for (int d = 0; d + 2 < yb.rank(); ++d) ys.push_back(yb.strides()[d]);
  const int64_t es = static_cast<int64_t>(dtype_size(dt));
  NdLoop<3> loop;
  loop.init(out_batch);
  loop.set_operand(0, on_device ? zm.device_data() : zm.data(), zs, es);
  loop.set_operand(1, on_device ? xb.device_data() : xb.data(),
                   broadcast_strides(batch_dims(xb.shape()), xs, out_batch), es);
  loop.set_operand(2, on_device ? yb.device_data() : yb.data(),
                   broadcast_strides(batch_dims(yb.shape()), ys, out_batch), es);
  loop.coalesce();
  Status st;
  loop.run(0, loop.count(), [&](char* const* p, const int64_t* s, int64_t count) {
    if (!st.is_ok()) return;
    st = blas::gemm_batched_on(dev, dt, xl.trans, yl.trans, m, n, k, 1.0, p[1], xl.ld, s[1] / es, p[2], yl.ld,
                               s[2] / es, 0.0, p[0], zl.ld, s[0] / es, count);
  });
  if (!st.is_ok()) return st.with_prefix(std::string(block.op_name()) + ": ");
  if (on_device) zm.buffer()->mark_device_written();
  return finish();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(matmul, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  FusedProgram epilogue;
  bool has_epilogue = false;
  RETURN_IF_ERROR(read_epilogue(block, OUTPUT_VARIABLE(0)->dtype(), epilogue, has_epilogue));
  RETURN_IF_ERROR(matmul_product(block));
  return has_epilogue ? run_epilogue(block, epilogue, *OUTPUT_VARIABLE(0)) : Status::ok();
}

DECLARE_SYN(mmul, matmul)

DECLARE_SHAPE_FN(matmul) {
  using namespace libops;
  using namespace libops::ops;
  MatmulArgs args;
  RETURN_IF_ERROR(matmul_args(block, args));
  const NDArray* x = INPUT_VARIABLE(0);
  const NDArray* y = INPUT_VARIABLE(1);
  REQUIRE_TRUE(x->rank() >= 1 && y->rank() >= 1, OPS_ERR_SHAPE,
               "cannot multiply x%s by y%s: both inputs need rank >= 1", x->shape().str().c_str(),
               y->shape().str().c_str());
  int64_t xr, xc, yr, yc;
  matrix_extents(x->shape(), args.transpose_x, false, xr, xc);
  matrix_extents(y->shape(), args.transpose_y, true, yr, yc);
  REQUIRE_TRUE(xc == yr, OPS_ERR_SHAPE,
               "cannot multiply x%s by y%s (transpose_x=%d, transpose_y=%d): inner dims %lld and %lld must be equal",
               x->shape().str().c_str(), y->shape().str().c_str(), args.transpose_x ? 1 : 0, args.transpose_y ? 1 : 0,
               static_cast<long long>(xc), static_cast<long long>(yr));
  Dims xb = batch_dims(x->shape()), yb = batch_dims(y->shape()), out;
  Status st = broadcast_shapes("", xb, yb, out);
  REQUIRE_TRUE(st.is_ok(), OPS_ERR_SHAPE,
               "cannot multiply x%s by y%s: batch dims %s and %s do not broadcast (each dim must be equal or 1)",
               x->shape().str().c_str(), y->shape().str().c_str(), xb.str().c_str(), yb.str().c_str());
  if (x->rank() > 1) out.push_back(xr);
  if (y->rank() > 1) out.push_back(yc);
  const DataType dt = promote_types(x->dtype(), y->dtype());
  if (block.num_inputs() >= 3) {
    const NDArray* b = INPUT_VARIABLE(2);
    REQUIRE_TRUE(y->rank() >= 2 && b->rank() == 1 && b->dim(0) == yc, OPS_ERR_SHAPE,
                 "bias%s does not fit x%s times y%s: it must be [%lld], one value per column of a matrix y",
                 b->shape().str().c_str(), x->shape().str().c_str(), y->shape().str().c_str(),
                 static_cast<long long>(yc));
    REQUIRE_TRUE(b->dtype() == dt, OPS_ERR_DTYPE, "bias is %s but the product is %s: they must match",
                 dtype_name(b->dtype()), dtype_name(dt));
  }
  if (args.transpose_z && x->rank() >= 2 && y->rank() >= 2) out = swap_last_two(out);
  FusedProgram epilogue;
  bool has_epilogue = false;
  RETURN_IF_ERROR(read_epilogue(block, dt, epilogue, has_epilogue));
  shapes.push_back(TensorShape{dt, out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(matmul) {
  // On a device: through that device's GEMM (cuBLAS), operands as they are.
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kNumeric);
}

DECLARE_ARGS(matmul) {
  args.describe("Matrix product with numpy.matmul semantics.");
  args.input("x", "numeric, rank >= 1");
  args.input("y", "numeric, rank >= 1; x and y are cast to their promoted dtype");
  args.optional_input("bias", "[n], the product's dtype: added to every row (y of rank >= 2)");
  args.output("z", "act(op(x) @ op(y) + bias), batch dims broadcast (numpy.matmul), transposed with transpose_z");
  args.i_arg("transpose_x", 0, "swap x's last two dims").flag();
  args.i_arg("transpose_y", 0, "swap y's last two dims").flag();
  args.i_arg("transpose_z", 0, "swap the result's last two dims (x and y of rank >= 2; libnd4j's transZ)").flag();
  args.i_arg("activation", 0, "applied after the bias, NaN kept").one_of({{0, "none"}, {1, "relu"}, {2, "relu6"}});
  declare_epilogue_args(args);
}
