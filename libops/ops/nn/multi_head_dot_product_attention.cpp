// multi_head_dot_product_attention: attention with per-head projections,
// in libnd4j's feature-major layout (multi_head_dot_product_attention).
//
//   inputs  q [N, Iq, Tq], k [N, Ik, Tk], v [N, Iv, Tk];
//           Wq [H, P, Iq], Wk [H, P, Ik], Wv [H, Pv, Iv], Wo [H * Pv, O];
//           mask [N, Tk], optional: nonzero (true) = the key is seen
//   b args  scaled (default true: scores times 1 / sqrt(P)),
//           return_weights
//   outputs z [N, O, Tq]; with return_weights, the weights [N, H, Tq, Tk]
//
// Per head h: Q = q^T Wq[h]^T [N, Tq, P], K and V alike, then
// dot_product_attention(Q, K, V, mask), the heads' outputs concatenated
// along the features (head-major, Pv each) and projected by Wo. Built from
// matmul, dot_product_attention and copies on the call's device
// (nested_call.h). The weights are [.., Tq, Tk] as dot_product_attention
// gives them, where libnd4j's reference gives [.., Tk, Tq].
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {
namespace {

struct MhaSizes {
  int64_t n = 0, tq = 0, tk = 0, heads = 0, p = 0, pv = 0, o = 0;
};

Status mha_sizes(const Context& block, MhaSizes& s) {
  const NDArray *q = block.input(0), *k = block.input(1), *v = block.input(2);
  const NDArray *wq = block.input(3), *wk = block.input(4), *wv = block.input(5), *wo = block.input(6);
  const DataType t = q->dtype();
  for (int i = 1; i < 7; ++i)
    if (block.input(i)->dtype() != t)
      return block.error(StatusCode::kInvalidArgument, "input %d is %s, not q's %s: q, k, v and the weights share one dtype",
                         i, dtype_name(block.input(i)->dtype()), dtype_name(t));
  for (const NDArray* a : {q, k, v, wq, wk, wv})
    if (a->rank() != 3)
      return block.error(StatusCode::kInvalidArgument,
                         "q%s, k%s, v%s must be [N, I, T] and Wq%s, Wk%s, Wv%s [H, P, I]", q->shape().str().c_str(),
                         k->shape().str().c_str(), v->shape().str().c_str(), wq->shape().str().c_str(),
                         wk->shape().str().c_str(), wv->shape().str().c_str());
  s.n = q->dim(0), s.tq = q->dim(2), s.tk = k->dim(2);
  s.heads = wq->dim(0), s.p = wq->dim(1), s.pv = wv->dim(1);
  const bool ok = k->dim(0) == s.n && v->dim(0) == s.n && v->dim(2) == s.tk && wq->dim(2) == q->dim(1) &&
                  wk->shape() == Dims{s.heads, s.p, k->dim(1)} && wv->dim(0) == s.heads && wv->dim(2) == v->dim(1) &&
                  wo->rank() == 2 && wo->dim(0) == s.heads * s.pv;
  if (!ok)
    return block.error(StatusCode::kInvalidArgument,
                       "q%s, k%s, v%s, Wq%s, Wk%s, Wv%s, Wo%s do not fit [N, Iq, Tq], [N, Ik, Tk], [N, Iv, Tk], "
                       "[H, P, Iq], [H, P, Ik], [H, Pv, Iv], [H * Pv, O]",
                       q->shape().str().c_str(), k->shape().str().c_str(), v->shape().str().c_str(),
                       wq->shape().str().c_str(), wk->shape().str().c_str(), wv->shape().str().c_str(),
                       wo->shape().str().c_str());
  s.o = wo->dim(1);
  if (block.num_inputs() > 7 && block.input(7)->shape() != Dims{s.n, s.tk})
    return block.error(StatusCode::kInvalidArgument, "mask%s must be [N, Tk] = [%lld, %lld]",
                       block.input(7)->shape().str().c_str(), static_cast<long long>(s.n),
                       static_cast<long long>(s.tk));
  return Status::ok();
}

// One projection: a [N, I, T] and W [H, P, I] give [N, H, T, P].
Status project(const Context& block, const NDArray& a, const NDArray& w, NDArray& out) {
  NDArray at, a4, w4;
  RETURN_IF_ERROR(with_op_name(block, a.permute(Dims{0, 2, 1}, at)));                  // [N, T, I]
  RETURN_IF_ERROR(with_op_name(block, at.reshape(Dims{a.dim(0), 1, a.dim(2), a.dim(1)}, a4)));  // [N, 1, T, I]
  RETURN_IF_ERROR(with_op_name(block, w.reshape(Dims{1, w.dim(0), w.dim(1), w.dim(2)}, w4)));   // [1, H, P, I]
  return run_nested(block, "matmul", {&a4, &w4}, {.i = {0, 1}}, out);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(multi_head_dot_product_attention, -1, -1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  MhaSizes s;
  RETURN_IF_ERROR(mha_sizes(block, s));
  NDArray qp, kp, vp, attn, weights, mask;
  RETURN_IF_ERROR(project(block, *INPUT_VARIABLE(0), *INPUT_VARIABLE(3), qp));
  RETURN_IF_ERROR(project(block, *INPUT_VARIABLE(1), *INPUT_VARIABLE(4), kp));
  RETURN_IF_ERROR(project(block, *INPUT_VARIABLE(2), *INPUT_VARIABLE(5), vp));
  const NestedArgs dpa{.t = {block.b_arg(0) ? 0.0 : 1.0}, .b = {false, block.b_arg(1)}};
  std::vector<NDArray> outs;
  if (block.num_inputs() > 7) {
    // libnd4j's numeric mask: nonzero = seen, as a bool [N, 1, 1, Tk].
    NDArray bool_mask;
    RETURN_IF_ERROR(with_op_name(block, NDArray::create(DataType::kBool, Dims{s.n, s.tk}, 'c', bool_mask)));
    RETURN_IF_ERROR(assign_on_device(block, bool_mask, *INPUT_VARIABLE(7)));
    RETURN_IF_ERROR(with_op_name(block, bool_mask.reshape(Dims{s.n, 1, 1, s.tk}, mask)));
    RETURN_IF_ERROR(run_nested_all(block, "dot_product_attention", {&qp, &kp, &vp, &mask}, dpa, outs));
  } else {
    RETURN_IF_ERROR(run_nested_all(block, "dot_product_attention", {&qp, &kp, &vp}, dpa, outs));
  }
  attn = outs[0];                                // [N, H, Tq, Pv]
  if (block.b_arg(1)) weights = outs[1];         // [N, H, Tq, Tk]
  // Heads concatenated along the features: [N, Tq, H, Pv] -> [N, Tq, H * Pv].
  NDArray perm, dense, concat, z, zt;
  RETURN_IF_ERROR(with_op_name(block, attn.permute(Dims{0, 2, 1, 3}, perm)));
  RETURN_IF_ERROR(with_op_name(block, NDArray::create(attn.dtype(), Dims{s.n, s.tq, s.heads, s.pv}, 'c', dense)));
  RETURN_IF_ERROR(assign_on_device(block, dense, perm));
  RETURN_IF_ERROR(with_op_name(block, dense.reshape(Dims{s.n, s.tq, s.heads * s.pv}, concat)));
  RETURN_IF_ERROR(run_nested(block, "matmul", {&concat, INPUT_VARIABLE(6)}, {}, z));  // [N, Tq, O]
  RETURN_IF_ERROR(with_op_name(block, z.permute(Dims{0, 2, 1}, zt)));                // [N, O, Tq]
  RETURN_IF_ERROR(block.store_result(0, zt));
  if (block.b_arg(1)) RETURN_IF_ERROR(block.store_result(1, weights));
  return Status::ok();
}

DECLARE_SHAPE_FN(multi_head_dot_product_attention) {
  using namespace libops;
  ops::MhaSizes s;
  RETURN_IF_ERROR(ops::mha_sizes(block, s));
  const DataType t = INPUT_VARIABLE(0)->dtype();
  shapes.push_back(TensorShape{t, Dims{s.n, s.o, s.tq}, 'c'});
  if (block.b_arg(1)) shapes.push_back(TensorShape{t, Dims{s.n, s.heads, s.tq, s.tk}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(multi_head_dot_product_attention) {
  // Runs matmul, dot_product_attention and copies on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).allow_input(7, libops::types::kAny).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(multi_head_dot_product_attention) {
  args.describe("Multi-head attention with per-head projections, libnd4j's feature-major layout.");
  args.input("q", "queries [N, Iq, Tq]");
  args.input("k", "keys [N, Ik, Tk]");
  args.input("v", "values [N, Iv, Tk]");
  args.input("Wq", "[H, P, Iq]");
  args.input("Wk", "[H, P, Ik]");
  args.input("Wv", "[H, Pv, Iv]");
  args.input("Wo", "[H * Pv, O], rows head-major");
  args.optional_input("mask", "[N, Tk]: nonzero = the key is seen");
  args.outputs_variadic("z, weights", "[N, O, Tq]; with return_weights also the weights [N, H, Tq, Tk]");
  args.b_arg("scaled", true, "scores times 1 / sqrt(P)");
  args.b_arg("return_weights", false, "output the attention weights too");
}
