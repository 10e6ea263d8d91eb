// dot_product_attention: softmax(scale * q k^T + mask) v over the last two
// axes (scaled dot-product attention; libnd4j's dot_product_attention_v2,
// PyTorch's scaled_dot_product_attention in inference).
//
//   inputs  q [..., Tq, d], k [..., Tk, d], v [..., Tk, dv] (one float
//           dtype; the leading dims broadcast, as matmul's); mask, optional:
//           bool (true = attend) or float (added to the scores),
//           broadcastable to [..., Tq, Tk] (it must not widen the scores)
//   t arg   scale (default 0: 1 / sqrt(d))
//   b args  causal: query i sees keys j <= i + Tk - Tq (the last query sees
//           every key); return_weights: output the attention weights too
//   outputs z [..., Tq, dv]; with return_weights, the weights [..., Tq, Tk]
//
// Built from matmul, multiply, where / add and softmax, called on the
// call's device (nested_call.h), so it runs wherever they do; float32 on
// the CPU without the weights output takes the blocked path of Note
// [Blocked attention]. A query row that may attend to nothing (all
// masked) gets NaN weights, as in PyTorch. Dropout is an inference identity
// and is not an argument.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "blas/gemm.h"
#include "libops/core/fast_math.h"
#include "libops/core/parallel.h"
#include "libops/loops/nd_loop.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"
#include "libops/ops/nn/softmax.h"

namespace libops::ops {
namespace {

// The shapes of z and of the weights; the mask, if any, must broadcast to
// the weights' shape without widening it.
Status attention_shapes(const Context& block, Dims& z_dims, Dims& w_dims) {
  const NDArray& q = *block.input(0);
  const NDArray& k = *block.input(1);
  const NDArray& v = *block.input(2);
  if (q.rank() < 2 || k.rank() < 2 || v.rank() < 2)
    return block.error(StatusCode::kInvalidArgument, "q%s, k%s and v%s need rank >= 2", q.shape().str().c_str(),
                       k.shape().str().c_str(), v.shape().str().c_str());
  const int64_t d = q.dim(q.rank() - 1), tq = q.dim(q.rank() - 2), tk = k.dim(k.rank() - 2);
  if (k.dim(k.rank() - 1) != d || v.dim(v.rank() - 2) != tk)
    return block.error(StatusCode::kInvalidArgument,
                       "q%s, k%s and v%s do not fit [..., Tq, d], [..., Tk, d], [..., Tk, dv]",
                       q.shape().str().c_str(), k.shape().str().c_str(), v.shape().str().c_str());
  Dims qb, kb, vb, b1, batch;
  for (int i = 0; i + 2 < q.rank(); ++i) qb.push_back(q.dim(i));
  for (int i = 0; i + 2 < k.rank(); ++i) kb.push_back(k.dim(i));
  for (int i = 0; i + 2 < v.rank(); ++i) vb.push_back(v.dim(i));
  RETURN_IF_ERROR(broadcast_shapes(block.op_name(), qb, kb, b1));
  RETURN_IF_ERROR(broadcast_shapes(block.op_name(), b1, vb, batch));
  z_dims = w_dims = batch;
  z_dims.push_back(tq);
  z_dims.push_back(v.dim(v.rank() - 1));
  w_dims.push_back(tq);
  w_dims.push_back(tk);
  if (block.num_inputs() > 3) {
    const NDArray& mask = *block.input(3);
    bool fits = mask.rank() <= w_dims.size();
    for (int i = 1; fits && i <= mask.rank(); ++i)
      fits = mask.dim(mask.rank() - i) == 1 || mask.dim(mask.rank() - i) == w_dims[w_dims.size() - i];
    if (!fits)
      return block.error(StatusCode::kInvalidArgument, "mask%s does not broadcast to the scores %s",
                         mask.shape().str().c_str(), w_dims.str().c_str());
  }
  return Status::ok();
}

// Note [Blocked attention]
// Composed from whole ops, attention writes the [.., Tq, Tk] scores to
// memory and reads them back three times (softmax's two passes, the second
// matmul): for 8 heads of 512 x 512 that is 8 MB each way, a third of the
// time on one core. For float32 on the CPU, with q, k and v of the same
// batch dims and no weights output, each task takes a block of kQueryBlock
// query rows of one batch entry instead:
//   S = scale q_blk k^T            one GEMM (scale as its alpha) into a
//                                  per-thread buffer
//   S = S + mask                   a float mask's row added (a bool mask:
//                                  -inf where it is false), read through
//                                  its broadcast strides
//   E = exp(S - rowmax(S))         in place, in cache (causal: keys past
//                                  the row's limit are -inf first)
//   z_blk = (E v) / rowsum(E)      one GEMM into the output, whose rows are
//                                  then divided: dv values a row, not Tk
// GEMMs inside libops' threads run single-threaded (Note [GEMM threads]).
// The same values as softmax then matmul up to rounding. A row with only
// -inf keys gives NaN, as the composition does.
constexpr int64_t kQueryBlock = 256;

bool blocked_attention_applies(const Context& block) {
  if (!block.device().is_cpu() || block.b_arg(1)) return false;
  const NDArray& q = *block.input(0);
  const NDArray& k = *block.input(1);
  const NDArray& v = *block.input(2);
  if (q.dtype() != DataType::kFloat32 || q.rank() != k.rank() || q.rank() != v.rank()) return false;
  for (int i = 0; i + 2 < q.rank(); ++i)
    if (k.dim(i) != q.dim(i) || v.dim(i) != q.dim(i)) return false;  // no broadcast batch dims
  return true;
}

// Where a mask's values sit for the blocked path: batch entry b's [Tq, Tk]
// slice starts at offsets[b], rows and keys step by row and key (0 where
// the mask broadcasts).
struct MaskLayout {
  std::vector<int64_t> offsets;
  int64_t row = 0, key = 0;
};

MaskLayout mask_layout(const NDArray& mask, const Dims& scores) {
  Dims strides;
  int64_t step = 1;
  strides.resize(mask.rank());
  for (int d = mask.rank() - 1; d >= 0; --d) {  // mask is dense: C-order strides
    strides[d] = step;
    step *= mask.dim(d);
  }
  const Dims s = broadcast_strides(mask.shape(), strides, scores);
  const int r = scores.size();
  MaskLayout l;
  l.row = s[r - 2], l.key = s[r - 1];
  int64_t batch = 1;
  for (int d = 0; d + 2 < r; ++d) batch *= scores[d];
  l.offsets.resize(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    int64_t rest = b, off = 0;
    for (int d = r - 3; d >= 0; --d) {
      off += (rest % scores[d]) * s[d];
      rest /= scores[d];
    }
    l.offsets[static_cast<size_t>(b)] = off;
  }
  return l;
}

// s[j] += m[j * step] for one row of scores (step 1, or 0 for one value).
void add_mask_row(float* s, const float* m, int64_t step, int64_t n) {
  if (step == 1) {
    for (int64_t j = 0; j < n; ++j) s[j] += m[j];
    return;
  }
  for (int64_t j = 0; j < n; ++j) s[j] += m[j * step];
}

Status blocked_attention(Context& block, double scale, NDArray& z) {
  NDArray q, k, v;
  RETURN_IF_ERROR(dense_on_device(block, *block.input(0), DataType::kFloat32, q));
  RETURN_IF_ERROR(dense_on_device(block, *block.input(1), DataType::kFloat32, k));
  RETURN_IF_ERROR(dense_on_device(block, *block.input(2), DataType::kFloat32, v));
  const int r = q.rank();
  const int64_t tq = q.dim(r - 2), d = q.dim(r - 1), tk = k.dim(r - 2), dv = v.dim(r - 1);
  int64_t batch = 1;
  for (int i = 0; i + 2 < r; ++i) batch *= q.dim(i);
  const int64_t blocks = (tq + kQueryBlock - 1) / kQueryBlock;
  const bool causal = block.b_arg(0);
  NDArray mask;
  MaskLayout ml;
  const bool masked = block.num_inputs() > 3;
  if (masked) {
    const NDArray& m = *block.input(3);
    const DataType mask_dtype = m.dtype() == DataType::kBool ? DataType::kBool : DataType::kFloat32;
    RETURN_IF_ERROR(dense_on_device(block, m, mask_dtype, mask));
    Dims scores = q.shape();
    scores[r - 1] = tk;
    ml = mask_layout(mask, scores);
  }
  const float* mask_add = masked && mask.dtype() == DataType::kFloat32 ? mask.data_as<float>() : nullptr;
  const bool* mask_keep = masked && mask.dtype() == DataType::kBool ? static_cast<const bool*>(mask.data()) : nullptr;
  const float* qp = q.data_as<float>();
  const float* kp = k.data_as<float>();
  const float* vp = v.data_as<float>();
  float* zp = z.data_as<float>();
  if (z.length() == 0) return Status::ok();
  if (tk == 0) {  // no keys: each output row a sum over none, as the composition's matmul gives
    RETURN_IF_ERROR(with_op_name(block, z.assign_scalar(0.0)));
    return Status::ok();
  }
  std::vector<Status> errors(static_cast<size_t>(batch * blocks));
  parallel_for(batch * blocks, 1, [&](int64_t begin, int64_t end) {
    thread_local std::vector<float> scores, inv_sum;
    scores.resize(static_cast<size_t>(kQueryBlock * tk));
    inv_sum.resize(static_cast<size_t>(kQueryBlock));
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / blocks, r0 = (t % blocks) * kQueryBlock, rows = std::min(kQueryBlock, tq - r0);
      const float* kb = kp + b * tk * d;
      float* zb = zp + (b * tq + r0) * dv;
      Status& st = errors[static_cast<size_t>(t)];
      st = blas::gemm(DataType::kFloat32, false, true, rows, tk, d, scale, qp + (b * tq + r0) * d, d, kb, d, 0.0,
                      scores.data(), tk);
      if (!st.is_ok()) continue;
      for (int64_t i = 0; i < rows; ++i) {
        float* s = scores.data() + i * tk;
        const int64_t at = masked ? ml.offsets[static_cast<size_t>(b)] + (r0 + i) * ml.row : 0;
        if (mask_add != nullptr) add_mask_row(s, mask_add + at, ml.key, tk);
        if (mask_keep != nullptr)
          for (int64_t j = 0; j < tk; ++j) s[j] = mask_keep[at + j * ml.key] ? s[j] : -INFINITY;
        // Causal: query r0 + i sees keys j <= r0 + i + Tk - Tq.
        const int64_t limit = causal ? std::clamp<int64_t>(r0 + i + tk - tq + 1, 0, tk) : tk;
        for (int64_t j = limit; j < tk; ++j) s[j] = -INFINITY;
        inv_sum[static_cast<size_t>(i)] = 1.0f / softmax_exp_row_f32(s, s, tk);
      }
      st = blas::gemm(DataType::kFloat32, false, false, rows, dv, tk, 1.0, scores.data(), tk, vp + b * tk * dv, dv,
                      0.0, zb, dv);
      if (!st.is_ok()) continue;
      for (int64_t i = 0; i < rows; ++i) {
        const float inv = inv_sum[static_cast<size_t>(i)];
        for (int64_t c = 0; c < dv; ++c) zb[i * dv + c] *= inv;
      }
    }
  });
  for (const Status& st : errors) RETURN_IF_ERROR(with_op_name(block, st));
  z.buffer()->mark_host_written();
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(dot_product_attention, -1, -1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray& q = *INPUT_VARIABLE(0);
  const NDArray& k = *INPUT_VARIABLE(1);
  const NDArray& v = *INPUT_VARIABLE(2);
  const int64_t d = q.dim(q.rank() - 1), tq = q.dim(q.rank() - 2), tk = k.dim(k.rank() - 2);
  const double scale = block.t_arg(0) > 0 ? block.t_arg(0) : 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(d, 1)));
  if (blocked_attention_applies(block)) {
    NDArray* out = OUTPUT_VARIABLE(0);
    DeviceOutputStage stage;
    RETURN_IF_ERROR(stage.begin(block, *out, DataType::kFloat32));
    RETURN_IF_ERROR(blocked_attention(block, scale, stage.target()));
    return stage.finish(block, *out);
  }
  NDArray s, qs, scores, weights, z;
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(q.dtype(), scale, s)));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&q, &s}, {}, qs));  // scaling q: Tq*d values, not Tq*Tk
  RETURN_IF_ERROR(run_nested(block, "matmul", {&qs, &k}, {.i = {0, 1}}, scores));
  NDArray neg_inf;
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(q.dtype(), -std::numeric_limits<double>::infinity(), neg_inf)));
  if (block.num_inputs() > 3) {
    const NDArray& mask = *INPUT_VARIABLE(3);
    if (mask.dtype() == DataType::kBool) RETURN_IF_ERROR(run_nested(block, "where", {&mask, &scores, &neg_inf}, {}, scores));
    else RETURN_IF_ERROR(run_nested(block, "add", {&scores, &mask}, {}, scores));
  }
  if (block.b_arg(0)) {  // causal: keys after i + Tk - Tq are hidden from query i
    NDArray keep;
    RETURN_IF_ERROR(with_op_name(block, NDArray::create(DataType::kBool, Dims{tq, tk}, 'c', keep)));
    bool* p = static_cast<bool*>(keep.data());
    for (int64_t i = 0; i < tq; ++i)
      for (int64_t j = 0; j < tk; ++j) p[i * tk + j] = j <= i + tk - tq;
    RETURN_IF_ERROR(run_nested(block, "where", {&keep, &scores, &neg_inf}, {}, scores));
  }
  // In place: the scores are this call's own array (no second [.., Tq, Tk]).
  RETURN_IF_ERROR(run_nested(block, "softmax", {&scores}, {.i = {-1}, .inplace = true}, weights));
  RETURN_IF_ERROR(run_nested(block, "matmul", {&weights, &v}, {}, z));
  RETURN_IF_ERROR(block.store_result(0, z));
  if (block.b_arg(1)) RETURN_IF_ERROR(block.store_result(1, weights));
  return Status::ok();
}

DECLARE_SHAPE_FN(dot_product_attention) {
  using namespace libops;
  Dims z_dims, w_dims;
  RETURN_IF_ERROR(ops::attention_shapes(block, z_dims, w_dims));
  const DataType t = INPUT_VARIABLE(0)->dtype();
  REQUIRE_TRUE(INPUT_VARIABLE(1)->dtype() == t && INPUT_VARIABLE(2)->dtype() == t, 0,
               "q (%s), k (%s) and v (%s) must share one dtype", dtype_name(t), dtype_name(INPUT_VARIABLE(1)->dtype()),
               dtype_name(INPUT_VARIABLE(2)->dtype()));
  if (block.num_inputs() > 3) {
    const DataType m = INPUT_VARIABLE(3)->dtype();
    REQUIRE_TRUE(m == DataType::kBool || m == t, 0, "the mask must be bool or q's dtype %s, not %s", dtype_name(t),
                 dtype_name(m));
  }
  shapes.push_back(TensorShape{t, z_dims, 'c'});
  if (block.b_arg(1)) shapes.push_back(TensorShape{t, w_dims, 'c'});
  return Status::ok();
}

DECLARE_TYPES(dot_product_attention) {
  // Runs the ops it is built from on the call's device.
  descriptor.allow_inputs(libops::types::kFloat).allow_input(3, libops::types::kFloat | libops::types::kBool)
      .runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(dot_product_attention) {
  args.describe("Scaled dot-product attention: softmax(scale * q k^T + mask) v over the last two axes.");
  args.input("q", "queries [..., Tq, d]");
  args.input("k", "keys [..., Tk, d]");
  args.input("v", "values [..., Tk, dv]");
  args.optional_input("mask", "bool (true = attend) or float (added to the scores), broadcastable to [..., Tq, Tk] "
                                "without widening the scores");
  args.outputs_variadic("z, weights", "[..., Tq, dv]; with return_weights also the weights [..., Tq, Tk]");
  args.t_arg("scale", 0.0, "multiplies q k^T; 0 = 1 / sqrt(d)").at_least(0.0).finite();
  args.b_arg("causal", false, "query i attends to keys j <= i + Tk - Tq only");
  args.b_arg("return_weights", false, "output the attention weights too");
}

DECLARE_SYN(scaled_dot_product_attention, dot_product_attention)
