// l2_normalize: x divided by its L2 norm over some axes, as TensorFlow's
// tf.math.l2_normalize.
//
//   input   x: float16, bfloat16, float32 or float64, any shape and strides
//   i args  axes, optional list: the axes the norm runs over (negative count
//           from the end); none means all of them
//   t arg   epsilon, optional, default 1e-12, >= 0: the lower bound of the
//           sum of squares
//   output  x's dtype and shape: x / sqrt(max(sum(x^2 over axes), epsilon))
//
// Four legacy kernels on block.device(), so CPU and CUDA run the same
// functors and any set of axes works: s = sum(x^2) over the axes (kept as
// 1s) in the compute dtype (float, double for float64: a float16 x's
// squares would overflow float16 at 256), s = max(s, epsilon),
// s = rsqrt(s), z = x * s broadcast. A NaN in a slice makes the slice NaN
// (max keeps NaN); an inf makes the inf NaN (inf * 0) and the rest 0.
#include <string>
#include <vector>

#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/ops/transform_float_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/nn/conv_utils.h"

CUSTOM_OP_IMPL(l2_normalize, 1, 1, true, 0, 0) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  std::vector<int64_t> axes;
  RETURN_IF_ERROR(block.int_list("axes", axes));
  for (int64_t& a : axes)
    if (a < 0) a += x->rank();
  Dims kept = x->shape();
  if (axes.empty())
    for (int d = 0; d < x->rank(); ++d) kept[d] = 1;
  for (int64_t a : axes) kept[static_cast<int>(a)] = 1;
  const DataType ct = ops::nn::float_compute_dtype(x->dtype());
  NDArray s, eps;
  RETURN_IF_ERROR(NDArray::create(ct, kept, 'c', s));
  RETURN_IF_ERROR(NDArray::scalar(ct, T_ARG(0), eps));
  // A supplied z overlapping x in another layout would be read after being
  // written: the last step reads x, so work from a copy then.
  NDArray src = *x;
  if (z->may_overlap(*x) && !z->same_view(*x)) {
    RETURN_IF_ERROR(x->buffer()->sync_to_host());  // dup copies on the host
    RETURN_IF_ERROR(x->dup('c', src));
  }
  auto call = [&](int group, int num, const NDArray* a, const NDArray* b, NDArray* out, bool reduce) {
    legacy::LegacyCall c;
    c.group = group;
    c.num = num;
    c.x = a;
    c.y = b;
    c.z = out;
    c.device = block.device();
    if (reduce) {
      c.axes = axes.data();
      c.n_axes = static_cast<int>(axes.size());
    }
    Status st = legacy::exec(c);
    return st.is_ok() ? st : st.with_prefix(std::string(block.op_name()) + ": ");
  };
  RETURN_IF_ERROR(call(OPS_REDUCE_FLOAT, static_cast<int>(legacy::ReduceFloatOp::squared_norm), &src, nullptr, &s, true));
  RETURN_IF_ERROR(call(OPS_SCALAR, static_cast<int>(legacy::BinaryOp::max), &s, &eps, &s, false));
  RETURN_IF_ERROR(call(OPS_TRANSFORM_FLOAT, static_cast<int>(legacy::TransformFloatOp::rsqrt), &s, nullptr, &s, false));
  return call(OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::multiply), &src, &s, z, false);
}

DECLARE_SHAPE_FN(l2_normalize) {
  using namespace libops;
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(l2_normalize) {
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(l2_normalize) {
  args.describe("x divided by its L2 norm over some axes (TensorFlow's l2_normalize).");
  args.input("x", "the array");
  args.output("z", "x / sqrt(max(sum(x^2 over axes), epsilon)); x's dtype and shape");
  args.t_arg("epsilon", 1e-12, "the lower bound of the sum of squares").at_least(0.0).finite();
  args.i_list("axes", "the axes of the norm; none = all").axis(0).unique_values();
}

DECLARE_SYN(l2normalize, l2_normalize)
