// ONNX's transformer operators of opset 23 and later: Attention (with its
// masks, causal bias, grouped KV heads, KV cache, softcap and
// qk_matmul_output), RotaryEmbedding and CausalConvWithState composed of
// libops ops; LinearAttention (opset 27) onto linear_attention. Their decomposition
// follows the operators' definitions (the ONNX reference implementation's
// order of operations: Q and K each scaled by sqrt(scale), softcap before
// the mask), so the graph optimizer's attention rewrite can still fuse the
// common case (Note [Graph rewrites]).
#include <cmath>
#include <limits>

#include "graph/onnx/onnx_convert.h"
#include "graph/onnx/onnx_map_util.h"

namespace libops::graph::onnx {

using namespace map_util;

namespace {

std::vector<int64_t> dims4(int64_t a, int64_t b, int64_t c, int64_t d) { return {a, b, c, d}; }

// Extent `d` of `v` as an int64 [1] vector, computed when the graph runs.
Value extent_of(C& c, Value v, int64_t d) {
  return c.op("shape_of").in(v).arg("start", d).arg("end", d + 1).emit1();
}

// [batch, seq, heads * size] -> [batch, heads, seq, size].
Value split_heads(C& c, Value x, int64_t heads) {
  Value r = c.op("reshape").in(x).arg("shape", dims4(0, 0, heads, -1)).arg("copy_zeros", true).emit1();
  return c.op("permute").in(r).arg("perm", dims4(0, 2, 1, 3)).emit1();
}

// [batch, heads, seq, size] -> [batch, seq, heads * size].
Value merge_heads(C& c, Value x) {
  Value t = c.op("permute").in(x).arg("perm", dims4(0, 2, 1, 3)).emit1();
  return c.op("reshape").in(t).arg("shape", std::vector<int64_t>{0, 0, -1}).arg("copy_zeros", true).emit1();
}

// 0 where `keep` is true, -inf where false, in dtype t.
Value bias_of(C& c, Value keep, DataType t) {
  return c.op("where").in(keep).in(c.constant_scalar(t, 0.0)).in(c.constant_scalar(t, -HUGE_VAL)).emit1();
}

}  // namespace

// Attention (opsets 23, 24). Q, K and V are 4-D [batch, heads, seq, size],
// or 3-D [batch, seq, heads * size] with q_num_heads and kv_num_heads.
Status map_attention(Converter& c) {
  const int64_t is_causal = c.attr_int("is_causal", 0);
  const int64_t q_heads = c.attr_int("q_num_heads", 0), kv_heads = c.attr_int("kv_num_heads", 0);
  const int64_t mode = c.attr_int("qk_matmul_output_mode", 0);
  const double scale_attr = c.attr_float("scale", 0.0), softcap = c.attr_float("softcap", 0.0);
  const int64_t softmax_precision = c.attr_int("softmax_precision", 0);
  const DataType t = c.input_dtype(0);
  if (!dtype_is_float(t)) return c.fail("Q's dtype must be a known float dtype");
  const int rank = c.input_rank(0);
  if (rank != 3 && rank != 4) return c.fail(str_format("Q must be 3-D or 4-D with a known rank (it is %d)", rank));
  if (mode < 0 || mode > 3) return c.fail_attr("qk_matmul_output_mode", "must be 0, 1, 2 or 3");
  DataType softmax_t = t;
  if (softmax_precision != 0) {
    softmax_t = dtype_from_onnx(static_cast<int>(softmax_precision));
    if (!dtype_is_float(softmax_t)) return c.fail_attr("softmax_precision", "is not a float dtype libops supports");
  }
  const bool has_past = c.has_input(4) || c.has_input(5);
  if (has_past && !(c.has_input(4) && c.has_input(5))) return c.fail("past_key and past_value must be given together");

  Value q = c.input(0), k = c.input(1), v = c.input(2);
  if (rank == 3) {
    if (q_heads <= 0 || kv_heads <= 0)
      return c.fail("3-D Q, K and V need q_num_heads and kv_num_heads (attributes, > 0)");
    q = split_heads(c, q, q_heads);
    k = split_heads(c, k, kv_heads);
    v = split_heads(c, v, kv_heads);
  }
  // The KV cache: past and new keys and values along the sequence.
  if (has_past) {
    k = c.op("concat").in(c.input(4)).in(k).arg("axis", int64_t{2}).emit1();
    v = c.op("concat").in(c.input(5)).in(v).arg("axis", int64_t{2}).emit1();
  }
  if (c.num_outputs() > 1 && c.output_used(1)) c.set_output(1, k);
  if (c.num_outputs() > 2 && c.output_used(2)) c.set_output(2, v);

  // Q and K each scaled by sqrt(scale); scale defaults to 1/sqrt(head size).
  Value root_scale;
  const ValueType qt = c.input_type(0);
  const int64_t head_size =
      rank == 4 ? (qt.rank_known ? qt.dims[3] : -1)
                : (qt.rank_known && qt.dims[2] > 0 && q_heads > 0 ? qt.dims[2] / q_heads : -1);
  if (scale_attr != 0.0) {
    root_scale = c.constant_scalar(t, std::sqrt(scale_attr));
  } else if (head_size > 0) {
    root_scale = c.constant_scalar(t, std::pow(static_cast<double>(head_size), -0.25));
  } else {
    Value hs = c.op("cast").in(extent_of(c, q, 3)).arg("dtype", t).emit1();
    root_scale = c.op("pow").in(hs).in(c.constant_scalar(t, -0.25)).emit1();
  }
  Value qs = c.op("multiply").in(q).in(root_scale).emit1();
  Value ks = c.op("multiply").in(k).in(root_scale).emit1();
  // Grouped KV heads: each repeated to serve q_heads / kv_heads query heads,
  // in order ([h0, h0, h1, h1, ...]).
  int64_t qh = rank == 3 ? q_heads : (qt.rank_known ? qt.dims[1] : -1);
  const ValueType kt = c.input_type(1);
  int64_t kh = rank == 3 ? kv_heads : (kt.rank_known ? kt.dims[1] : -1);
  Value vs = v;
  if (qh > 0 && kh > 0) {
    if (qh % kh != 0) return c.fail(str_format("%lld query heads do not divide among %lld KV heads",
                                               static_cast<long long>(qh), static_cast<long long>(kh)));
    if (qh != kh) {
      ks = c.op("repeat").in(ks).arg("axis", int64_t{1}).arg("repeats", std::vector<int64_t>{qh / kh}).emit1();
      vs = c.op("repeat").in(vs).arg("axis", int64_t{1}).arg("repeats", std::vector<int64_t>{qh / kh}).emit1();
    }
  } else {
    Value reps = c.op("divide").in(extent_of(c, q, 1)).in(extent_of(c, k, 1)).emit1();
    ks = c.op("repeat").in(ks).in(reps).arg("axis", int64_t{1}).emit1();
    vs = c.op("repeat").in(vs).in(reps).arg("axis", int64_t{1}).emit1();
  }
  Value scores = c.op("matmul").in(qs).in(ks).arg("transpose_y", int64_t{1}).emit1();
  if (softcap > 0) {
    Value capped = c.op("tanh").in(c.op("divide").in(scores).in(c.constant_scalar(t, softcap)).emit1()).emit1();
    scores = c.op("multiply").in(capped).in(c.constant_scalar(t, softcap)).emit1();
  }
  Value qk_out = scores;  // modes 0 and 1 (the reference gives the softcapped scores for both)

  // The bias: the mask (bool: -inf where false; a shorter last dim padded
  // with -inf), the causal bias, the padding of nonpad_kv_seqlen.
  Value bias;
  auto add_bias = [&](Value b) { bias = bias.valid() ? c.op("add").in(bias).in(b).emit1() : b; };
  Value total = extent_of(c, k, 2);  // keys after the cache: past + new
  if (c.has_input(3)) {
    Value mask = c.input(3);
    const DataType mt = c.input_dtype(3);
    const int mr = c.input_rank(3);
    if (mt == DataType::kInvalid || mr < 1) return c.fail("attn_mask's dtype and rank must be known");
    if (mt != DataType::kBool && mt != t) return c.fail("a float attn_mask must have Q's dtype");
    // Pad the last dim to the total length (mask shorter than the keys).
    Value diff = c.op("subtract").in(total).in(extent_of(c, mask, mr - 1)).emit1();
    Value pads = c.op("concat").in(c.constant_ints(std::vector<int64_t>(static_cast<size_t>(2 * mr - 1), 0))).in(diff)
                     .arg("axis", int64_t{0}).emit1();
    pads = c.op("reshape").in(pads).arg("shape", std::vector<int64_t>{mr, 2}).emit1();
    if (mt == DataType::kBool) {
      mask = c.op("pad").in(mask).in(pads).arg("mode", int64_t{0}).arg("value", 0.0).emit1();
      add_bias(bias_of(c, mask, t));
    } else {
      add_bias(c.op("pad").in(mask).in(pads).arg("mode", int64_t{0}).arg("value", -HUGE_VAL).emit1());
    }
  }
  if (is_causal != 0) {
    // -inf above diagonal past_len of the [q_len, total] scores.
    Value sq = c.op("concat").in(extent_of(c, q, 2)).in(total).arg("axis", int64_t{0}).emit1();
    Value ones = c.op("fill").in(sq).arg("value", 1.0).arg("dtype", DataType::kBool).emit1();
    Value past_len = has_past ? extent_of(c, c.input(4), 2) : c.constant_ints({0});
    Value diag = c.op("add").in(past_len).in(c.constant_ints({1})).emit1();
    diag = c.op("reshape").in(diag).arg("shape", std::vector<int64_t>{}).emit1();
    Value above = c.op("triu").in(ones).in(diag).emit1();
    add_bias(bias_of(c, c.op("logical_not").in(above).emit1(), t));
  }
  if (c.has_input(6)) {
    Value positions = c.op("range").in(c.constant_scalar(DataType::kInt64, 0))
                          .in(c.op("reshape").in(total).arg("shape", std::vector<int64_t>{}).emit1())
                          .in(c.constant_scalar(DataType::kInt64, 1)).emit1();
    Value lens = c.op("cast").in(c.input(6)).arg("dtype", DataType::kInt64).emit1();
    lens = c.op("reshape").in(lens).arg("shape", std::vector<int64_t>{-1, 1}).emit1();
    Value keep = c.op("less").in(positions).in(lens).emit1();  // [batch, total]
    keep = c.op("expand_dims").in(keep).in(c.constant_ints({1, 2})).emit1();  // [batch, 1, 1, total]
    add_bias(bias_of(c, keep, t));
  }
  if (bias.valid()) scores = c.op("add").in(scores).in(bias).emit1();
  if (mode == 2) qk_out = scores;
  Value probs = c.op("softmax").in(cast_to(c, scores, t, softmax_t)).arg("axis", int64_t{-1}).emit1();
  probs = cast_to(c, probs, softmax_t, t);
  if (mode == 3) qk_out = probs;
  Value y = c.op("matmul").in(probs).in(vs).emit1();
  if (rank == 3) y = merge_heads(c, y);
  if (c.num_outputs() > 3 && c.output_used(3)) c.set_output(3, qk_out);
  return done(c, 0, y);
}

// RotaryEmbedding (opset 23): x is [batch, heads, seq, size], or 3-D
// [batch, seq, heads * size] with num_heads; the first rotary_embedding_dim
// values of each head (all by default) are rotated by the cos and sin
// caches, looked up by position_ids when given, as halves or interleaved.
Status map_rotary_embedding(Converter& c) {
  const int64_t interleaved = c.attr_int("interleaved", 0);
  const int64_t rot_dim = c.attr_int("rotary_embedding_dim", 0), heads = c.attr_int("num_heads", 0);
  const int rank = c.input_rank(0);
  if (rank != 3 && rank != 4) return c.fail(str_format("X must be 3-D or 4-D with a known rank (it is %d)", rank));
  Value x = c.input(0);
  // [batch, seq, heads, size]
  if (rank == 4) {
    x = c.op("permute").in(x).arg("perm", dims4(0, 2, 1, 3)).emit1();
  } else {
    if (heads <= 0) return c.fail_attr("num_heads", "must be given (> 0) for a 3-D X");
    x = c.op("reshape").in(x).arg("shape", dims4(0, 0, heads, -1)).arg("copy_zeros", true).emit1();
  }
  Value cos = c.input(1), sin = c.input(2);
  if (c.has_input(3)) {
    cos = c.op("gather").in(cos).in(c.input(3)).arg("axis", int64_t{0}).emit1();
    sin = c.op("gather").in(sin).in(c.input(3)).arg("axis", int64_t{0}).emit1();
  }
  cos = c.op("expand_dims").in(cos).arg("axis", int64_t{2}).emit1();  // [batch, seq, 1, rot / 2]
  sin = c.op("expand_dims").in(sin).arg("axis", int64_t{2}).emit1();
  auto slice_last = [&](Value a, int64_t start, int64_t end, int64_t step) {
    return c.op("slice_axes").in(a).in(c.constant_ints({start})).in(c.constant_ints({end}))
        .in(c.constant_ints({-1})).in(c.constant_ints({step})).emit1();
  };
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  Value rotate = rot_dim > 0 ? slice_last(x, 0, rot_dim, 1) : x;
  Value x1, x2;
  if (interleaved != 0) {
    x1 = slice_last(rotate, 0, kEnd, 2);
    x2 = slice_last(rotate, 1, kEnd, 2);
  } else {
    std::vector<Value> halves = c.op("split").in(rotate).arg("num_split", int64_t{2}).arg("axis", int64_t{-1}).outputs(2).emit();
    if (halves.size() != 2) return reported();
    x1 = halves[0];
    x2 = halves[1];
  }
  Value real = c.op("subtract").in(c.op("multiply").in(cos).in(x1).emit1()).in(c.op("multiply").in(sin).in(x2).emit1()).emit1();
  Value imag = c.op("add").in(c.op("multiply").in(sin).in(x1).emit1()).in(c.op("multiply").in(cos).in(x2).emit1()).emit1();
  Value rotated;
  if (interleaved != 0) {
    Value pairs = c.op("concat").in(c.op("expand_dims").in(real).arg("axis", int64_t{-1}).emit1())
                      .in(c.op("expand_dims").in(imag).arg("axis", int64_t{-1}).emit1()).arg("axis", int64_t{-1}).emit1();
    rotated = c.op("reshape").in(pairs).in(c.op("shape_of").in(rotate).emit1()).emit1();
  } else {
    rotated = c.op("concat").in(real).in(imag).arg("axis", int64_t{-1}).emit1();
  }
  if (rot_dim > 0) rotated = c.op("concat").in(rotated).in(slice_last(x, rot_dim, kEnd, 1)).arg("axis", int64_t{-1}).emit1();
  Value y = rank == 4 ? c.op("permute").in(rotated).arg("perm", dims4(0, 2, 1, 3)).emit1()
                      : c.op("reshape").in(rotated).in(c.op("shape_of").in(c.input(0)).emit1()).emit1();
  return done(c, 0, y);
}

// CausalConvWithState (opset 27): a depthwise convolution over the past
// state (zeros when none) followed by x, with no padding, so that output t
// sees x up to t; bias and SiLU after. present_state is the last k - 1
// positions of that sequence (empty for k = 1).
Status map_causal_conv_with_state(Converter& c) {
  const std::string act = c.attr_string("activation", "none");
  if (act != "none" && act != "silu" && act != "swish")
    return c.fail_attr("activation", "= '" + act + "' is not none, silu or swish");
  const ValueType xt = c.input_type(0), wt = c.input_type(1);
  if (xt.rank() != 3) return c.fail("input must be [batch, channels, length] (rank 3)");
  if (wt.rank() != 3 || wt.dims[0] < 1 || wt.dims[2] < 1)
    return c.fail("weight must be [channels, 1, k] with known channels and k");
  const int64_t channels = wt.dims[0], k = wt.dims[2];
  Value x = c.input(0);
  Value seq = c.has_input(3) ? c.op("concat").in(c.input(3)).in(x).arg("axis", int64_t{2}).emit1()
                             : c.op("pad").in(x).arg("mode", int64_t{0}).arg("value", 0.0)
                                   .arg("paddings", std::vector<int64_t>{0, 0, 0, 0, k - 1, 0}).emit1();
  // [B, C, 1, k - 1 + L] by [C, 1, 1, k] weights, one group a channel.
  Value lifted = c.op("expand_dims").in(seq).arg("axis", int64_t{2}).emit1();
  Value w = c.op("reshape").in(c.input(1)).arg("shape", dims4(channels, 1, 1, k)).emit1();
  OpCall conv = c.op("conv2d");
  conv.in(lifted).in(w);
  if (c.has_input(2)) conv.in(c.input(2));
  Value y = conv.arg("kH", int64_t{1}).arg("kW", k).arg("sH", int64_t{1}).arg("sW", int64_t{1}).arg("pH", int64_t{0})
                .arg("pW", int64_t{0}).arg("dH", int64_t{1}).arg("dW", int64_t{1}).arg("same_mode", int64_t{0})
                .arg("data_format", int64_t{0}).arg("weights_format", int64_t{1}).arg("groups", channels).emit1();
  y = c.op("squeeze").in(y).arg("axes", std::vector<int64_t>{2}).emit1();
  if (act != "none") y = c.op("multiply").in(y).in(c.op("sigmoid").in(y).emit1()).emit1();
  c.set_output(1, c.op("slice_axes").in(seq).in(extent_of(c, x, 2)).in(c.constant_ints({std::numeric_limits<int64_t>::max()}))
                      .in(c.constant_ints({2})).emit1());
  return done(c, 0, y);
}

// LinearAttention (opset 27): linear_attention, its past state zeros when
// none is given (in q's dtype, as present_state then is), decay and beta
// passed as the update rule takes them.
Status map_linear_attention(Converter& c) {
  const int64_t hq = c.attr_int("q_num_heads", 0), hkv = c.attr_int("kv_num_heads", 0);
  if (hq < 1 || hkv < 1 || hq % hkv != 0)
    return c.fail_attr("q_num_heads", "and kv_num_heads must be given, q_num_heads a positive multiple of kv_num_heads");
  c.ignore_attr("chunk_size");  // a tuning hint of chunked kernels; the result is the recurrence's
  const std::string rule = c.attr_string("update_rule", "gated_delta");
  static const char* const kRules[] = {"linear", "gated", "delta", "gated_delta"};
  int64_t code = -1;
  for (int64_t r = 0; r < 4; ++r)
    if (rule == kRules[r]) code = r;
  if (code < 0) return c.fail_attr("update_rule", "= '" + rule + "' is not linear, gated, delta or gated_delta");
  const bool gated = code == 1 || code == 3, delta = code == 2 || code == 3;
  if (gated != c.has_input(4))
    return c.fail(std::string("input 4 (decay) ") + (gated ? "is required" : "must be omitted") + " by update_rule '" +
                  rule + "'");
  if (delta != c.has_input(5))
    return c.fail(std::string("input 5 (beta) ") + (delta ? "is required" : "must be omitted") + " by update_rule '" +
                  rule + "'");
  Value q = c.input(0), k = c.input(1), v = c.input(2);
  Value state;
  if (c.has_input(3)) {
    state = c.input(3);
  } else {
    // [B, Hkv, dk, dv]: dk from q's last dim, dv from v's.
    auto extent = [&](Value a, int64_t d, int64_t heads) {
      return c.op("floor_div").in(extent_of(c, a, d)).in(c.constant_ints({heads})).emit1();
    };
    Value shape = c.op("concat").in(extent_of(c, q, 0)).in(c.constant_ints({hkv})).in(extent(q, 2, hq))
                      .in(extent(v, 2, hkv)).arg("axis", int64_t{0}).emit1();
    state = c.op("fill").in(shape).arg("value", 0.0).arg("dtype", c.input_dtype(0)).emit1();
  }
  OpCall call = c.op("linear_attention");
  call.in(q).in(k).in(v).in(state);
  if (gated) call.in(c.input(4));
  if (delta) call.in(c.input(5));
  const std::vector<Value> outs = call.arg("q_num_heads", hq).arg("kv_num_heads", hkv).arg("update_rule", code)
                                      .arg("scale", c.attr_float("scale", 0.0)).outputs(2).emit();
  if (outs.size() != 2) return reported();
  c.set_output(1, outs[1]);
  return done(c, 0, outs[0]);
}

}  // namespace libops::graph::onnx
