// linear_attention: ONNX's LinearAttention (opset 27), the recurrent
// attention of linear-attention and DeltaNet layers (Note [Linear
// attention] in linear_attention.h).
//
//   inputs  q [B, T, Hq * dk], k [B, T, Hkv * dk], v [B, T, Hkv * dv],
//           past_state [B, Hkv, dk, dv]; then decay [B, T, Hkv] or
//           [B, T, Hkv * dk] (log-space) when the rule gates, then beta
//           [B, T, Hkv] or [B, T, 1] when it corrects by delta
//   i args  q_num_heads, kv_num_heads (dividing it), update_rule (0 linear,
//           1 gated, 2 delta, 3 gated_delta)
//   t arg   scale (0: 1 / sqrt(dk))
//   outputs out [B, T, Hq * dv] in q's dtype; present_state in
//           past_state's dtype and shape
//
// Float inputs, computed in float (double for float64) on dense staged
// arrays: on the CPU here, on a device through
// linear_attention_device_kernel (linear_attention.cu for CUDA).
#include "libops/ops/nn/linear_attention.h"

#include <cmath>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nn/conv_utils.h"

namespace libops::ops::nn {

DeviceKernel<LinearAttentionDeviceFn> linear_attention_device_kernel;

namespace {

const char* const kRules[] = {"linear", "gated", "delta", "gated_delta"};

// The shapes, checked; `d` described from them.
Status describe(const Context& block, LinearAttentionDesc& d) {
  const int64_t hq = block.i_arg(0), hkv = block.i_arg(1), rule = block.i_arg(2);
  REQUIRE_TRUE(rule >= 0 && rule <= 3, 0, "update_rule %lld is not 0 to 3", static_cast<long long>(rule));
  REQUIRE_TRUE(hq >= 1 && hkv >= 1 && hq % hkv == 0, 0,
               "q_num_heads %lld must be a positive multiple of kv_num_heads %lld", static_cast<long long>(hq),
               static_cast<long long>(hkv));
  d.gated = rule == 1 || rule == 3;
  d.delta = rule == 2 || rule == 3;
  const int want = 4 + (d.gated ? 1 : 0) + (d.delta ? 1 : 0);
  REQUIRE_TRUE(block.num_inputs() == want, 0, "update_rule %s takes %d inputs (q, k, v, past_state%s%s), got %d",
               kRules[rule], want, d.gated ? ", decay" : "", d.delta ? ", beta" : "", block.num_inputs());
  const NDArray& q = *block.input(0);
  const NDArray& k = *block.input(1);
  const NDArray& v = *block.input(2);
  const NDArray& s = *block.input(3);
  REQUIRE_TRUE(q.rank() == 3 && k.rank() == 3 && v.rank() == 3, OPS_ERR_SHAPE,
               "q%s, k%s and v%s must be [B, T, heads * size]", q.shape().str().c_str(), k.shape().str().c_str(),
               v.shape().str().c_str());
  d.batch = q.dim(0);
  d.steps = q.dim(1);
  d.q_heads = hq;
  d.kv_heads = hkv;
  REQUIRE_TRUE(q.dim(2) % hq == 0 && v.dim(2) % hkv == 0, OPS_ERR_SHAPE,
               "q%s's last dim must divide by q_num_heads %lld and v%s's by kv_num_heads %lld",
               q.shape().str().c_str(), static_cast<long long>(hq), v.shape().str().c_str(), static_cast<long long>(hkv));
  d.dk = q.dim(2) / hq;
  d.dv = v.dim(2) / hkv;
  const Dims kv_k{d.batch, d.steps, hkv * d.dk}, kv_v{d.batch, d.steps, hkv * d.dv};
  REQUIRE_TRUE(k.shape() == kv_k && v.shape() == kv_v, OPS_ERR_SHAPE,
               "k%s must be %s and v%s %s (q%s, %lld query and %lld KV heads)", k.shape().str().c_str(),
               kv_k.str().c_str(), v.shape().str().c_str(), kv_v.str().c_str(), q.shape().str().c_str(),
               static_cast<long long>(hq), static_cast<long long>(hkv));
  const Dims state{d.batch, hkv, d.dk, d.dv};
  REQUIRE_TRUE(s.shape() == state, OPS_ERR_SHAPE, "past_state%s must be %s", s.shape().str().c_str(),
               state.str().c_str());
  int next = 4;
  if (d.gated) {
    const NDArray& g = *block.input(next++);
    const bool per_head = g.rank() == 3 && g.dim(2) == hkv, per_key = g.rank() == 3 && g.dim(2) == hkv * d.dk;
    REQUIRE_TRUE(g.rank() == 3 && g.dim(0) == d.batch && g.dim(1) == d.steps && (per_head || per_key), OPS_ERR_SHAPE,
                 "decay%s must be [%lld, %lld, %lld] or [%lld, %lld, %lld]", g.shape().str().c_str(),
                 static_cast<long long>(d.batch), static_cast<long long>(d.steps), static_cast<long long>(hkv),
                 static_cast<long long>(d.batch), static_cast<long long>(d.steps), static_cast<long long>(hkv * d.dk));
    d.decay_width = per_head ? 1 : d.dk;
  }
  if (d.delta) {
    const NDArray& b = *block.input(next++);
    REQUIRE_TRUE(b.rank() == 3 && b.dim(0) == d.batch && b.dim(1) == d.steps && (b.dim(2) == hkv || b.dim(2) == 1),
                 OPS_ERR_SHAPE, "beta%s must be [%lld, %lld, %lld] or [%lld, %lld, 1]", b.shape().str().c_str(),
                 static_cast<long long>(d.batch), static_cast<long long>(d.steps), static_cast<long long>(hkv),
                 static_cast<long long>(d.batch), static_cast<long long>(d.steps));
    d.beta_heads = b.dim(2);
  }
  const double scale = block.t_arg(0);
  d.scale = scale != 0.0 ? scale : 1.0 / std::sqrt(static_cast<double>(d.dk));
  return Status::ok();
}

template <typename C>
void run_heads(const LinearAttentionDesc& d, const C* q, const C* k, const C* v, const C* decay, const C* beta, C* state,
               C* out) {
  const int64_t group = d.q_heads / d.kv_heads, dk = d.dk, dv = d.dv;
  const C scale = static_cast<C>(d.scale);
  parallel_for(d.batch * d.kv_heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<C> u(static_cast<size_t>(dv));
    for (int64_t bh = begin; bh < end; ++bh) {
      const int64_t b = bh / d.kv_heads, h = bh % d.kv_heads;
      C* s = state + bh * dk * dv;
      for (int64_t t = 0; t < d.steps; ++t) {
        const int64_t bt = b * d.steps + t;
        const C* kt = k + (bt * d.kv_heads + h) * dk;
        const C* vt = v + (bt * d.kv_heads + h) * dv;
        if (d.gated) {
          const C* g = decay + (bt * d.kv_heads + h) * d.decay_width;
          for (int64_t i = 0; i < dk; ++i) {
            const C e = std::exp(g[d.decay_width == 1 ? 0 : i]);
            for (int64_t m = 0; m < dv; ++m) s[i * dv + m] *= e;
          }
        }
        if (d.delta) {
          const C bt_rate = beta[bt * d.beta_heads + (d.beta_heads == 1 ? 0 : h)];
          for (int64_t m = 0; m < dv; ++m) u[static_cast<size_t>(m)] = 0;
          for (int64_t i = 0; i < dk; ++i)
            for (int64_t m = 0; m < dv; ++m) u[static_cast<size_t>(m)] += s[i * dv + m] * kt[i];
          for (int64_t m = 0; m < dv; ++m) u[static_cast<size_t>(m)] = bt_rate * (vt[m] - u[static_cast<size_t>(m)]);
        } else {
          for (int64_t m = 0; m < dv; ++m) u[static_cast<size_t>(m)] = vt[m];
        }
        for (int64_t i = 0; i < dk; ++i)
          for (int64_t m = 0; m < dv; ++m) s[i * dv + m] += kt[i] * u[static_cast<size_t>(m)];
        for (int64_t j = 0; j < group; ++j) {
          const int64_t hq = h * group + j;
          const C* qt = q + (bt * d.q_heads + hq) * dk;
          C* ot = out + (bt * d.q_heads + hq) * dv;
          for (int64_t m = 0; m < dv; ++m) ot[m] = 0;
          for (int64_t i = 0; i < dk; ++i)
            for (int64_t m = 0; m < dv; ++m) ot[m] += qt[i] * s[i * dv + m];
          for (int64_t m = 0; m < dv; ++m) ot[m] *= scale;
        }
      }
    }
  });
}

template <typename C>
void run_typed(const LinearAttentionDesc& d, const LinearAttentionArgs& a) {
  auto in = [](const NDArray* x) { return x != nullptr ? x->data_as<const C>() : nullptr; };
  run_heads<C>(d, in(a.q), in(a.k), in(a.v), in(a.decay), in(a.beta), a.state->data_as<C>(), a.out->data_as<C>());
}

}  // namespace

void linear_attention_cpu(const LinearAttentionDesc& d, DataType ct, const LinearAttentionArgs& a) {
  if (ct == DataType::kFloat64) run_typed<double>(d, a);
  else run_typed<float>(d, a);
  a.state->buffer()->mark_host_written();
  a.out->buffer()->mark_host_written();
}

}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(linear_attention, -1, 2, false, 0, 2) {
  using namespace libops;
  using namespace libops::ops;
  nn::LinearAttentionDesc d;
  RETURN_IF_ERROR(nn::describe(block, d));
  NDArray& out = *OUTPUT_VARIABLE(0);
  NDArray& present = *OUTPUT_VARIABLE(1);
  const DataType ct = nn::float_compute_dtype(INPUT_VARIABLE(0)->dtype());
  NDArray staged[6];  // q, k, v, past_state, then decay and beta as given
  for (int k = 0; k < block.num_inputs(); ++k) RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(k), ct, staged[k]));
  DeviceOutputStage out_stage, state_stage;
  RETURN_IF_ERROR(out_stage.begin(block, out, ct));
  RETURN_IF_ERROR(state_stage.begin(block, present, ct));
  RETURN_IF_ERROR(assign_on_device(block, state_stage.target(), staged[3]));  // S starts as the past state
  nn::LinearAttentionArgs a;
  a.q = &staged[0];
  a.k = &staged[1];
  a.v = &staged[2];
  int next = 4;
  if (d.gated) a.decay = &staged[next++];
  if (d.delta) a.beta = &staged[next++];
  a.state = &state_stage.target();
  a.out = &out_stage.target();
  if (out.length() > 0 || present.length() > 0) {
    if (block.device().is_cpu()) {
      RETURN_IF_ERROR(sync_for_kernel(block.device(), {a.q, a.k, a.v, a.decay, a.beta, a.state}, *a.out));
      nn::linear_attention_cpu(d, ct, a);
    } else {
      const nn::LinearAttentionDeviceFn fn = nn::linear_attention_device_kernel.get(block.device().type);
      if (fn == nullptr) return no_device_implementation(block);
      RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, ct, a)));
    }
  }
  RETURN_IF_ERROR(out_stage.finish(block, out));
  return state_stage.finish(block, present);
}

DECLARE_SHAPE_FN(linear_attention) {
  using namespace libops;
  ops::nn::LinearAttentionDesc d;
  RETURN_IF_ERROR(ops::nn::describe(block, d));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), Dims{d.batch, d.steps, d.q_heads * d.dv}, 'c'});
  shapes.push_back(TensorShape{INPUT_VARIABLE(3)->dtype(), INPUT_VARIABLE(3)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(linear_attention) {
  // On a device through linear_attention_device_kernel (linear_attention.cu for CUDA).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(linear_attention) {
  args.describe("Recurrent linear attention over a sequence, with gating and delta-rule updates (ONNX "
                "LinearAttention).");
  args.input("q", "[B, T, Hq * dk]");
  args.input("k", "[B, T, Hkv * dk]");
  args.input("v", "[B, T, Hkv * dv]");
  args.input("past_state", "[B, Hkv, dk, dv]: the state before step 0");
  args.optional_input("decay", "the gated rules' decay, [B, T, Hkv] or [B, T, Hkv * dk] in log space; the delta "
                                "rule's beta here");
  args.optional_input("beta", "gated_delta's beta, [B, T, Hkv] or [B, T, 1]: each step's update rate");
  args.output("out", "[B, T, Hq * dv] in q's dtype");
  args.output("present_state", "the state after the last step, in past_state's dtype");
  args.i_arg("q_num_heads", "Hq, a multiple of Hkv").positive();
  args.i_arg("kv_num_heads", "Hkv").positive();
  args.i_arg("update_rule", 3, "how each step updates the state")
      .one_of({{0, "linear"}, {1, "gated"}, {2, "delta"}, {3, "gated_delta"}});
  args.t_arg("scale", 0.0, "the output's scale; 0: 1 / sqrt(dk)").finite();
}
