// The ONNX mapping table: one small function per ONNX op type (and opset
// range, where the op's semantics or its inputs changed), mapping a node
// onto registered libops ops with args by name, as their signatures declare
// them (docs/ops.md). To support an op: write its function below and add one
// row to kTable; docs/onnx.md is generated from the rows (run
// `ops-run --list-onnx > docs/onnx.md`).
//
// A function either maps the node exactly or fails naming what it cannot
// map (Converter::fail / fail_attr). Attributes, inputs and used outputs
// that it does not read are refused for it (Note [Nothing ignored] in
// onnx_convert.h), so a row is only as permissive as its function.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>

#include "graph/graph.h"
#include "graph/onnx/onnx_convert.h"
#include "graph/onnx/onnx_map_util.h"
#include "libops/core/half.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"

namespace libops::graph::onnx {
namespace {

using C = Converter;
using namespace map_util;

// Legacy op groups and numbers used here (docs/ops.md, "Legacy ops").
constexpr int kBroadcast = 11;
constexpr int kBroadcastLeakyRelu = 26, kBroadcastElu = 27;

Status unary(C& c, const char* op) { return done(c, 0, c.op(op).in(c.input(0)).emit1()); }
Status binary(C& c, const char* op) { return done(c, 0, c.op(op).in(c.input(0)).in(c.input(1)).emit1()); }

// Min, Max, Sum: a chain of binary ops over every input.
Status variadic(C& c, const char* op) {
  Value acc = c.input(0);
  for (int k = 1; k < c.num_inputs(); ++k) acc = c.op(op).in(acc).in(c.input(k)).emit1();
  if (c.num_inputs() == 1) {
    // One input: the result is the input itself.
    c.set_output(0, acc);
    return Status::ok();
  }
  return done(c, 0, acc);
}

Status map_identity(C& c) {
  std::vector<Value> elements;
  Value list, stacked;
  ValueKind kind;
  ValueType st;
  if (c.input_run_list(0, list, kind)) {  // Note [Run-time sequences]
    c.set_output_run_list(0, list, kind);
  } else if (c.input_stacked_sequence(0, stacked, st)) {
    c.set_output_stacked_sequence(0, stacked);
  } else if (c.input_is_sequence(0)) {  // Note [Import-time sequences]
    c.input_sequence(0, elements);
    c.set_output_sequence(0, std::move(elements));
  } else if (c.input_is_optional(0)) {
    bool present = false;
    Value v;
    c.input_optional(0, present, v);
    c.set_output_optional(0, present, v);
  } else {
    c.set_output(0, c.input(0));
  }
  return Status::ok();
}

Status map_mean(C& c) {
  Value sum = c.input(0);
  for (int k = 1; k < c.num_inputs(); ++k) sum = c.op("add").in(sum).in(c.input(k)).emit1();
  if (c.num_inputs() == 1) return map_identity(c);
  return done(c, 0, c.op("divide").in(sum).in(c.constant_scalar(c.input_dtype(0), c.num_inputs())).emit1());
}

Status map_pow(C& c) {
  // Pow's exponent may have another dtype than its base; the result has the
  // base's dtype, while libops' pow promotes: cast the exponent first.
  Value x = c.input(0), y = c.input(1);
  const DataType tx = c.input_dtype(0), ty = c.input_dtype(1);
  if (tx != ty) {
    if (tx == DataType::kInvalid || ty == DataType::kInvalid)
      return c.fail("the dtypes of the base and the exponent are not known, and Pow keeps the base's dtype");
    y = c.op("cast").in(y).arg("dtype", tx).emit1();
  }
  return done(c, 0, c.op("pow").in(x).in(y).emit1());
}

Status map_mod(C& c) {
  return binary(c, c.attr_int("fmod", 0) ? "mod" : "floor_mod");
}

Status map_leaky_relu(C& c) {
  const double alpha = c.attr_float("alpha", 0.01);
  Value x = c.input(0);
  return done(c, 0, c.legacy(kBroadcast, kBroadcastLeakyRelu, {x, c.constant_scalar(c.input_dtype(0), alpha)}));
}

Status map_prelu(C& c) {
  return done(c, 0, c.legacy(kBroadcast, kBroadcastLeakyRelu, {c.input(0), c.input(1)}));
}

Status map_elu(C& c) {
  const double alpha = c.attr_float("alpha", 1.0);
  Value x = c.input(0);
  return done(c, 0, c.legacy(kBroadcast, kBroadcastElu, {x, c.constant_scalar(c.input_dtype(0), alpha)}));
}

Status map_selu(C& c) {
  // libops' selu has the fixed constants; ONNX's defaults are the same
  // numbers rounded to float. Other constants: gamma * elu(x, alpha).
  const double alpha = c.attr_float("alpha", 1.67326319217681884765625);
  const double gamma = c.attr_float("gamma", 1.05070102214813232421875);
  if (static_cast<float>(alpha) == 1.67326319217681884765625f && static_cast<float>(gamma) == 1.05070102214813232421875f)
    return unary(c, "selu");
  const DataType t = c.input_dtype(0);
  Value e = c.legacy(kBroadcast, kBroadcastElu, {c.input(0), c.constant_scalar(t, alpha)});
  return done(c, 0, c.op("multiply").in(e).in(c.constant_scalar(t, gamma)).emit1());
}

// HardSigmoid and HardSwish: one node each, their ops' single functors (one
// pass over memory, where multiply, add, clip (and multiply) made three or
// four), element-wise for the layout rewrite as those were.
Status map_hard_sigmoid(C& c) {
  const double alpha = c.attr_float("alpha", 0.2), beta = c.attr_float("beta", 0.5);
  return done(c, 0, c.op("hard_sigmoid").in(c.input(0)).arg("alpha", alpha).arg("beta", beta).emit1());
}

Status map_hard_swish(C& c) { return done(c, 0, c.op("hard_swish").in(c.input(0)).emit1()); }

// Gelu: the gelu op, whose dense float32 CPU path is vectorized (Note
// [Vectorized gelu]); it computes the same functors as the legacy
// precise_gelu / gelu kernels elsewhere. Mapped to those kernels directly,
// a transformer's exact Gelu took 2.2 ms per node where the op takes 0.23.
Status map_gelu(C& c) {
  const std::string approx = c.attr_string("approximate", "none");
  if (approx != "none" && approx != "tanh")
    return c.fail_attr("approximate", "= '" + approx + "' is not supported: 'none' or 'tanh'");
  return done(c, 0, c.op("gelu").in(c.input(0)).arg("approximate", int64_t{approx == "tanh" ? 1 : 0}).emit1());
}

// IsInf: libops' is_inf detects both signs; one sign is that and the sign.
Status map_is_inf(C& c) {
  const bool negative = c.attr_int("detect_negative", 1) != 0, positive = c.attr_int("detect_positive", 1) != 0;
  if (negative && positive) return unary(c, "is_inf");
  Value x = c.input(0);
  Value zero = c.constant_scalar(c.input_dtype(0), 0.0);
  Value r = c.op("is_inf").in(x).emit1();
  if (!negative) r = c.op("logical_and").in(r).in(c.op("greater").in(x).in(zero).emit1()).emit1();
  if (!positive) r = c.op("logical_and").in(r).in(c.op("less").in(x).in(zero).emit1()).emit1();
  return done(c, 0, r);
}

Status map_clip_attr(C& c) {
  const double lo = c.attr_float("min", -std::numeric_limits<double>::infinity());
  const double hi = c.attr_float("max", std::numeric_limits<double>::infinity());
  return done(c, 0, c.op("clip").in(c.input(0)).arg("lo", lo).arg("hi", hi).emit1());
}

// A scalar of dtype t holding its lowest (or highest) value: -inf / inf for
// floats, the exact integer limits otherwise (no round trip through double).
Tensor extreme_scalar(DataType t, bool highest) {
  Tensor out;
  out.dtype = t;
  out.onnx_type = dtype_to_onnx(t);
  out.data.resize(dtype_size(t));
  auto put = [&](auto v) { std::memcpy(out.data.data(), &v, sizeof v); };
  auto limit = [&](auto zero) {
    using T = decltype(zero);
    put(highest ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest());
  };
  switch (t) {
    case DataType::kInt8: limit(int8_t{}); break;
    case DataType::kInt16: limit(int16_t{}); break;
    case DataType::kInt32: limit(int32_t{}); break;
    case DataType::kInt64: limit(int64_t{}); break;
    case DataType::kUInt8: limit(uint8_t{}); break;
    case DataType::kUInt16: limit(uint16_t{}); break;
    case DataType::kUInt32: limit(uint32_t{}); break;
    case DataType::kUInt64: limit(uint64_t{}); break;
    case DataType::kFloat64: put(highest ? HUGE_VAL : -HUGE_VAL); break;
    case DataType::kFloat32: put(highest ? HUGE_VALF : -HUGE_VALF); break;
    case DataType::kFloat16: put(float16(highest ? HUGE_VALF : -HUGE_VALF)); break;
    case DataType::kBFloat16: put(bfloat16(highest ? HUGE_VALF : -HUGE_VALF)); break;
    default: out.data.assign(out.data.size(), 0); break;
  }
  return out;
}

Status map_clip(C& c) {
  double bounds[2] = {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  bool constant = true;
  for (int k = 1; k <= 2; ++k) {
    if (!c.has_input(k)) continue;
    const Tensor* t = c.constant_input(k);
    std::vector<double> v;
    if (t == nullptr || !t->to_doubles(v) || v.size() != 1) {
      constant = false;
      continue;
    }
    bounds[k - 1] = v[0];
  }
  if (constant) return done(c, 0, c.op("clip").in(c.input(0)).arg("lo", bounds[0]).arg("hi", bounds[1]).emit1());
  // A bound computed at run time: clip takes both as inputs, so an omitted
  // one becomes x's dtype's lowest or highest value (infinity for floats).
  const DataType t = c.input_dtype(0);
  if (t == DataType::kInvalid) return c.fail("a bound is computed at run time and x's dtype is not known");
  auto bound = [&](int k) { return c.has_input(k) ? c.input(k) : c.constant(extreme_scalar(t, k == 2)); };
  Value lo = bound(1), hi = bound(2);
  return done(c, 0, c.op("clip").in(c.input(0)).in(lo).in(hi).emit1());
}

Status map_gemm(C& c) {
  const int64_t ta = c.attr_int("transA", 0), tb = c.attr_int("transB", 0);
  const double alpha = c.attr_float("alpha", 1.0), beta = c.attr_float("beta", 1.0);
  if (c.opset() < 9) c.ignore_attr("broadcast");  // opset 7-8: C broadcasts either way
  const DataType t = c.input_dtype(0);
  Value y = c.op("matmul").in(c.input(0)).in(c.input(1)).arg("transpose_x", ta ? 1 : 0).arg("transpose_y", tb ? 1 : 0).emit1();
  if (alpha != 1.0) y = c.op("multiply").in(y).in(c.constant_scalar(t, alpha)).emit1();
  if (c.has_input(2) && beta != 0.0) {
    Value bias = c.input(2);
    if (beta != 1.0) bias = c.op("multiply").in(bias).in(c.constant_scalar(t, beta)).emit1();
    y = c.op("add").in(y).in(bias).emit1();
  } else if (c.has_input(2)) {
    c.input(2);  // beta 0: C does not count
  }
  return done(c, 0, y);
}

// ---- convolution and pooling ----

struct Window {
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;  // explicit pads
  int same = 0;                            // libops SAME mode (= ONNX SAME_UPPER)
  // A 1-D window over [N, C, W]: run as 2-D over [N, C, 1, W] (kh = 1),
  // the input lifted by expand_dims and the result squeezed back.
  bool one_d = false;
};

Value lift(C& c, Value v, const Window& w) {
  return w.one_d ? c.op("expand_dims").in(v).arg("axis", int64_t{2}).emit1() : v;
}

Value unlift(C& c, Value v, const Window& w) {
  return w.one_d ? c.op("squeeze").in(v).arg("axes", std::vector<int64_t>{2}).emit1() : v;
}

// Reads kernel_shape, strides, dilations, pads and auto_pad for a 2-D
// window. `kernel` gives the kernel dims when the attribute is absent.
Status read_window(C& c, Window& w, const std::vector<int64_t>& kernel_from_weights, bool dilations) {
  std::vector<int64_t> k, s, d, p;
  if (!c.attr_ints("kernel_shape", k)) k = kernel_from_weights;
  const int rank_x = c.input_rank(0);
  w.one_d = k.size() == 1 && (rank_x < 0 || rank_x == 3);
  const size_t n = w.one_d ? 1 : 2;
  // A 1-D attribute as the 2-D one of a unit height: `unit` for the height.
  auto as_2d = [&](std::vector<int64_t>& v, int64_t unit) {
    if (w.one_d) v.insert(v.begin(), unit);
  };
  if (k.size() != n || (rank_x >= 0 && rank_x != (w.one_d ? 3 : 4)))
    return c.fail(str_format("only 1-D and 2-D windows over 3-D NCW and 4-D NCHW inputs are supported; kernel_shape "
                             "%s, input rank %d", ints_str(k).c_str(), rank_x));
  as_2d(k, 1);
  w.kh = k[0];
  w.kw = k[1];
  if (c.attr_ints("strides", s)) {
    if (s.size() != n) return c.fail_attr("strides", "= " + ints_str(s) + str_format(" must have %zu values", n));
    as_2d(s, 1);
    w.sh = s[0];
    w.sw = s[1];
  }
  if (dilations && c.attr_ints("dilations", d)) {
    if (d.size() != n) return c.fail_attr("dilations", "= " + ints_str(d) + str_format(" must have %zu values", n));
    as_2d(d, 1);
    w.dh = d[0];
    w.dw = d[1];
  }
  const std::string pad_mode = c.attr_string("auto_pad", "NOTSET");
  const bool has_pads = c.attr_ints("pads", p);
  if (pad_mode == "NOTSET") {
    if (has_pads) {
      if (p.size() != 2 * n) return c.fail_attr("pads", "= " + ints_str(p) + str_format(" must have %zu values", 2 * n));
      if (w.one_d) p = {0, p[0], 0, p[1]};
      for (int64_t v : p)
        if (v < 0) return c.fail_attr("pads", "= " + ints_str(p) + " is not supported: negative pads");
      w.pt = p[0];
      w.pl = p[1];
      w.pb = p[2];
      w.pr = p[3];
    }
  } else if (pad_mode == "VALID") {
  } else if (pad_mode == "SAME_UPPER") {
    w.same = 1;
  } else if (pad_mode == "SAME_LOWER") {
    // Explicit pads when the spatial dims are known: the extra pad goes first.
    ValueType t = c.input_type(0);
    if (w.one_d && t.rank_known && t.dims.size() == 3) t.dims.insert(t.dims.begin() + 2, 1);
    if (!t.rank_known || t.dims.size() != 4 || t.dims[2] < 0 || t.dims[3] < 0)
      return c.fail_attr("auto_pad", "= SAME_LOWER needs known spatial dims (libops' SAME pads the end)");
    auto lower = [](int64_t in, int64_t k, int64_t s, int64_t d, int64_t& before, int64_t& after) {
      const int64_t out = (in + s - 1) / s, eff = (k - 1) * d + 1;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + eff - in);
      after = total / 2;
      before = total - after;
    };
    lower(t.dims[2], w.kh, w.sh, w.dh, w.pt, w.pb);
    lower(t.dims[3], w.kw, w.sw, w.dw, w.pl, w.pr);
  } else {
    return c.fail_attr("auto_pad", "= '" + pad_mode + "' is not supported");
  }
  return Status::ok();
}

// Pads the input explicitly when the window's pads differ between the two
// sides (libops' windows pad both sides alike).
Value pad_if_asymmetric(C& c, Value x, Window& w, double fill) {
  if (w.pt == w.pb && w.pl == w.pr) return x;
  Value y = c.op("pad").in(x).arg("mode", int64_t{0}).arg("value", fill)
                .arg("paddings", std::vector<int64_t>{0, 0, 0, 0, w.pt, w.pb, w.pl, w.pr}).emit1();
  w.pt = w.pb = w.pl = w.pr = 0;
  return y;
}

// ---- 3-D windows (rank-5 NCDHW inputs): conv3d, deconv3d, the 3-D pools.
struct Window3 {
  int64_t k[3] = {0, 0, 0}, s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, pe[3] = {0, 0, 0};
  bool same = false;
};

// Whether a node's window is 3-D: a 3-value kernel or a rank-5 input.
bool is_3d(C& c, const std::vector<int64_t>& kernel_from_weights) {
  std::vector<int64_t> k;
  if (!c.attr_ints("kernel_shape", k)) k = kernel_from_weights;
  return k.size() == 3 || c.input_rank(0) == 5;
}

Status read_window3(C& c, Window3& w, const std::vector<int64_t>& kernel_from_weights, bool dilations) {
  std::vector<int64_t> k, v, p;
  if (!c.attr_ints("kernel_shape", k)) k = kernel_from_weights;
  const int r = c.input_rank(0);
  if (k.size() != 3 || (r >= 0 && r != 5))
    return c.fail(str_format("a 3-D window needs a 5-D NCDHW input and 3 kernel dims; kernel_shape %s, input rank %d",
                             ints_str(k).c_str(), r));
  for (int a = 0; a < 3; ++a) w.k[a] = k[static_cast<size_t>(a)];
  auto three = [&](const char* name, int64_t* out) {
    if (!c.attr_ints(name, v)) return Status::ok();
    if (v.size() != 3) return c.fail_attr(name, "= " + ints_str(v) + " must have 3 values");
    for (int a = 0; a < 3; ++a) out[a] = v[static_cast<size_t>(a)];
    return Status::ok();
  };
  RETURN_IF_ERROR(three("strides", w.s));
  if (dilations) RETURN_IF_ERROR(three("dilations", w.d));
  const std::string pad_mode = c.attr_string("auto_pad", "NOTSET");
  if (pad_mode == "NOTSET") {
    if (c.attr_ints("pads", p)) {
      if (p.size() != 6) return c.fail_attr("pads", "= " + ints_str(p) + " must have 6 values");
      for (int64_t x : p)
        if (x < 0) return c.fail_attr("pads", "= " + ints_str(p) + " is not supported: negative pads");
      for (int a = 0; a < 3; ++a) w.pb[a] = p[static_cast<size_t>(a)], w.pe[a] = p[static_cast<size_t>(a) + 3];
    }
  } else if (pad_mode == "SAME_UPPER") {
    w.same = true;
  } else if (pad_mode != "VALID") {
    return c.fail_attr("auto_pad", "= '" + pad_mode + "' is not supported for 3-D windows");
  }
  return Status::ok();
}

bool symmetric3(const Window3& w) { return w.pb[0] == w.pe[0] && w.pb[1] == w.pe[1] && w.pb[2] == w.pe[2]; }

// Uneven pads as an explicit pad of x; the window then pads nothing.
Value pad3_if_asymmetric(C& c, Value x, Window3& w, double fill) {
  if (symmetric3(w)) return x;
  Value y = c.op("pad").in(x).arg("mode", int64_t{0}).arg("value", fill)
                .arg("paddings", std::vector<int64_t>{0, 0, 0, 0, w.pb[0], w.pe[0], w.pb[1], w.pe[1], w.pb[2], w.pe[2]})
                .emit1();
  for (int a = 0; a < 3; ++a) w.pb[a] = w.pe[a] = 0;
  return y;
}

// i args 0..12 of the 3-D ops (Note [3-D windows] in libops/ops/nn/window3d.h).
OpCall& window3_args(OpCall& call, const Window3& w) {
  static const char* const names[4][3] = {{"kD", "kH", "kW"}, {"sD", "sH", "sW"}, {"pD", "pH", "pW"}, {"dD", "dH", "dW"}};
  for (int a = 0; a < 3; ++a) call.arg(names[0][a], w.k[a]);
  for (int a = 0; a < 3; ++a) call.arg(names[1][a], w.s[a]);
  for (int a = 0; a < 3; ++a) call.arg(names[2][a], w.pb[a]);
  for (int a = 0; a < 3; ++a) call.arg(names[3][a], w.d[a]);
  return call.arg("same_mode", static_cast<int64_t>(w.same));
}

Status map_conv3d(C& c, const std::vector<int64_t>& kernel) {
  Window3 w;
  RETURN_IF_ERROR(read_window3(c, w, kernel, true));
  const int64_t group = c.attr_int("group", 1);
  if (group < 1) return c.fail_attr("group", str_format("= %lld must be >= 1", static_cast<long long>(group)));
  OpCall call = c.op("conv3d");
  call.in(pad3_if_asymmetric(c, c.input(0), w, 0.0)).in(c.input(1));
  if (c.has_input(2)) call.in(c.input(2));
  window3_args(call, w);
  // ONNX's weights [M, C/group, kD, kH, kW] are conv3d's weights_format 1.
  return done(c, 0, call.arg("data_format", int64_t{0}).arg("weights_format", int64_t{1}).arg("groups", group).emit1());
}

Status map_pool3d(C& c, bool max) {
  Window3 w;
  RETURN_IF_ERROR(read_window3(c, w, {}, max ? c.opset() >= 10 : c.opset() >= 19));
  if (max && c.output_used(1)) return c.fail("the Indices output of a 3-D MaxPool is not supported");
  int64_t ceil = c.opset() >= 10 ? c.attr_int("ceil_mode", 0) : 0;
  if (w.same) ceil = 0;
  if (ceil && !symmetric3(w)) return c.fail_attr("ceil_mode", "= 1 with different pads before and after is not supported");
  const int64_t include_pad = max ? 0 : c.attr_int("count_include_pad", 0);
  if (!max && !include_pad && !symmetric3(w))
    return c.fail_attr("pads", "with different pads before and after are not supported unless count_include_pad = 1");
  if (!max && include_pad && w.same) return c.fail_attr("count_include_pad", "= 1 with auto_pad SAME_UPPER is not supported");
  Value x = pad3_if_asymmetric(c, c.input(0), w, max ? -std::numeric_limits<double>::infinity() : 0.0);
  OpCall call = c.op(max ? "maxpool3d" : "avgpool3d");
  call.in(x);
  window3_args(call, w);
  if (max) call.arg("unused", int64_t{0});
  else call.arg("count_include_pad", include_pad);
  return done(c, 0, call.arg("data_format", int64_t{0}).arg("ceil_mode", ceil).emit1());
}

// ConvTranspose over 5-D input: deconv3d with even pads, output_padding and
// groups; no output_shape or SAME (they need uneven crops).
Status map_conv_transpose3d(C& c, const std::vector<int64_t>& kernel) {
  Window3 w;
  RETURN_IF_ERROR(read_window3(c, w, kernel, true));
  if (w.same) return c.fail_attr("auto_pad", "= SAME_UPPER is not supported for 3-D transposed convolutions");
  if (!symmetric3(w)) return c.fail_attr("pads", "with different pads before and after are not supported in 3-D");
  std::vector<int64_t> op{0, 0, 0}, shape;
  if (c.attr_ints("output_padding", op) && op.size() != 3)
    return c.fail_attr("output_padding", "= " + ints_str(op) + " must have 3 values");
  if (c.attr_ints("output_shape", shape)) return c.fail_attr("output_shape", "is not supported for 3-D");
  const int64_t group = c.attr_int("group", 1);
  if (group < 1) return c.fail_attr("group", str_format("= %lld must be >= 1", static_cast<long long>(group)));
  OpCall call = c.op("deconv3d");
  call.in(c.input(0)).in(c.input(1));
  if (c.has_input(2)) call.in(c.input(2));
  window3_args(call, w);
  return done(c, 0, call.arg("data_format", int64_t{0}).arg("weights_format", int64_t{1}).arg("opD", op[0])
                        .arg("opH", op[1]).arg("opW", op[2]).arg("groups", group).emit1());
}

// conv2d's window args; ONNX's grouped weights [M, C/group, kH, kW] are
// conv2d's (Note [Grouped convolution]).
OpCall& conv2d_args(OpCall& call, const Window& w, int64_t group) {
  return call.arg("kH", w.kh).arg("kW", w.kw).arg("sH", w.sh).arg("sW", w.sw).arg("pH", w.pt).arg("pW", w.pl)
      .arg("dH", w.dh).arg("dW", w.dw).arg("same_mode", static_cast<int64_t>(w.same)).arg("data_format", int64_t{0})
      .arg("weights_format", int64_t{1}).arg("groups", group);
}

Status map_conv(C& c) {
  std::vector<int64_t> kernel;
  const ValueType wt = c.input_type(1);
  if (wt.rank_known && wt.dims.size() >= 3) kernel.assign(wt.dims.begin() + 2, wt.dims.end());
  if (is_3d(c, kernel)) return map_conv3d(c, kernel);
  Window w;
  RETURN_IF_ERROR(read_window(c, w, kernel, true));
  const int64_t group = c.attr_int("group", 1);
  if (group < 1) return c.fail_attr("group", str_format("= %lld must be >= 1", static_cast<long long>(group)));
  Value x = lift(c, c.input(0), w);
  x = pad_if_asymmetric(c, x, w, 0.0);
  OpCall call = c.op("conv2d");
  call.in(x);
  const Tensor* weights = w.one_d ? c.constant_input(1) : nullptr;
  if (weights != nullptr) {  // constant 1-D weights lifted here: they stay a graph constant (Note [Op state])
    Tensor lifted = *weights;
    lifted.dims.insert(lifted.dims.begin() + 2, 1);
    call.in(c.constant(std::move(lifted)));
  } else {
    call.in(lift(c, c.input(1), w));
  }
  if (c.has_input(2)) call.in(c.input(2));
  return done(c, 0, unlift(c, conv2d_args(call, w, group).emit1(), w));
}

// GridSample: grid_sample. Opset 20 renames bilinear and bicubic to linear
// and cubic, and allows N-D inputs (4-D and 5-D here).
Status map_grid_sample(C& c) {
  const bool v20 = c.opset() >= 20;
  const std::string mode = c.attr_string("mode", v20 ? "linear" : "bilinear");
  const std::string padding = c.attr_string("padding_mode", "zeros");
  const int64_t align = c.attr_int("align_corners", 0);
  int64_t m = -1, p = -1;
  if (mode == (v20 ? "linear" : "bilinear")) m = 0;
  else if (mode == "nearest") m = 1;
  else if (mode == (v20 ? "cubic" : "bicubic")) m = 2;
  if (m < 0) return c.fail_attr("mode", "= '" + mode + "' is not supported");
  if (padding == "zeros") p = 0;
  else if (padding == "border") p = 1;
  else if (padding == "reflection") p = 2;
  if (p < 0) return c.fail_attr("padding_mode", "= '" + padding + "' is not supported");
  const int rank = c.input_rank(0);
  if (rank != 4 && rank != 5) return c.fail("only 4-D inputs [N, C, H, W] and 5-D [N, C, D, H, W] are supported");
  if (rank == 5 && m == 2) return c.fail_attr("mode", "= '" + mode + "' is defined for 4-D inputs only");
  return done(c, 0, c.op("grid_sample").in(c.input(0)).in(c.input(1)).arg("mode", m).arg("padding_mode", p)
                        .arg("align_corners", align != 0).emit1());
}

// DeformConv (2-D): deform_conv2d (Note [Deformable convolution]); an absent
// bias with a mask becomes an empty bias.
Status map_deform_conv(C& c) {
  if (c.input_rank(0) != 4) return c.fail("only 4-D inputs [N, C, H, W] are supported");
  std::vector<int64_t> strides{1, 1}, pads{0, 0, 0, 0}, dilations{1, 1}, kernel;
  if (c.attr_ints("strides", strides) && strides.size() != 2) return c.fail_attr("strides", "must have 2 values");
  if (c.attr_ints("pads", pads) && pads.size() != 4) return c.fail_attr("pads", "must have 4 values");
  if (c.attr_ints("dilations", dilations) && dilations.size() != 2)
    return c.fail_attr("dilations", "must have 2 values");
  if (c.attr_ints("kernel_shape", kernel)) {
    const ValueType wt = c.input_type(1);
    if (kernel.size() != 2 || (wt.dims_known() && (wt.dims[2] != kernel[0] || wt.dims[3] != kernel[1])))
      return c.fail_attr("kernel_shape", "must be the weights' last two dims");
  }
  OpCall call = c.op("deform_conv2d");
  call.in(c.input(0)).in(c.input(1)).in(c.input(2));
  if (c.has_input(3)) call.in(c.input(3));
  else if (c.has_input(4))
    call.in(c.op("cast").in(c.constant_ints(std::vector<int64_t>{})).arg("dtype", DataType::kFloat32).emit1());
  if (c.has_input(4)) call.in(c.input(4));
  return done(c, 0, call.arg("stride_h", strides[0]).arg("stride_w", strides[1]).arg("pad_top", pads[0])
                        .arg("pad_left", pads[1]).arg("pad_bottom", pads[2]).arg("pad_right", pads[3])
                        .arg("dilation_h", dilations[0]).arg("dilation_w", dilations[1])
                        .arg("groups", c.attr_int("group", 1)).arg("offset_groups", c.attr_int("offset_group", 1))
                        .emit1());
}

// RoiAlign: roi_align. Opset 10 has no coordinate_transformation_mode and
// behaves as output_half_pixel; opset 16 defaults to half_pixel.
Status map_roi_align(C& c) {
  const std::string mode = c.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") return c.fail_attr("mode", "= '" + mode + "' is not avg or max");
  int64_t coord = 1;
  if (c.opset() >= 16) {
    const std::string ct = c.attr_string("coordinate_transformation_mode", "half_pixel");
    if (ct != "half_pixel" && ct != "output_half_pixel")
      return c.fail_attr("coordinate_transformation_mode", "= '" + ct + "' is not half_pixel or output_half_pixel");
    coord = ct == "half_pixel" ? 0 : 1;
  }
  return done(c, 0, c.op("roi_align").in(c.input(0)).in(c.input(1)).in(c.input(2))
                        .arg("output_height", c.attr_int("output_height", 1))
                        .arg("output_width", c.attr_int("output_width", 1))
                        .arg("sampling_ratio", c.attr_int("sampling_ratio", 0))
                        .arg("mode", int64_t{mode == "max" ? 1 : 0}).arg("coordinate_mode", coord)
                        .arg("spatial_scale", c.attr_float("spatial_scale", 1.0)).emit1());
}

// MaxRoiPool: max_roi_pool.
Status map_max_roi_pool(C& c) {
  std::vector<int64_t> pooled;
  if (!c.attr_ints("pooled_shape", pooled) || pooled.size() != 2)
    return c.fail_attr("pooled_shape", "is required, with 2 values");
  return done(c, 0, c.op("max_roi_pool").in(c.input(0)).in(c.input(1)).arg("pooled_height", pooled[0])
                        .arg("pooled_width", pooled[1]).arg("spatial_scale", c.attr_float("spatial_scale", 1.0))
                        .emit1());
}

// MaxUnpool: zeros of the output shape with x's values set at the flat
// indices MaxPool gave (over the whole N x C x spatial tensor), as a
// scatter into a flat buffer. The output shape is output_shape (a constant
// or computed at run time) or (in - 1) * stride + kernel - pads per
// spatial dim. The indices address the output shape, as ONNX Runtime and
// PyTorch read them, so MaxPool over 5 x 5 unpools back to 5 x 5; ONNX's
// reference scatters into the window's 4 x 4 and pads that instead (its
// test with output_shape, which ONNX Runtime fails too).
Status map_max_unpool(C& c) {
  const ValueType xt = c.input_type(0);
  std::vector<int64_t> k, s, p;
  if (!c.attr_ints("kernel_shape", k)) return c.fail_attr("kernel_shape", "is required");
  const size_t n = k.size();
  if (!c.attr_ints("strides", s)) s.assign(n, 1);
  if (!c.attr_ints("pads", p)) p.assign(2 * n, 0);
  if (s.size() != n || p.size() != 2 * n)
    return c.fail(str_format("kernel_shape has %zu values; strides must have as many and pads twice as many", n));
  std::vector<int64_t> out;
  const DataType t = c.input_dtype(0);
  if (t == DataType::kInvalid) return c.fail("the dtype of input 0 is not known");
  Value idx = c.op("reshape").in(c.input(1)).arg("shape", std::vector<int64_t>{-1, 1}).emit1();
  Value upd = c.op("reshape").in(c.input(0)).arg("shape", std::vector<int64_t>{-1}).emit1();
  if (c.has_input(2) && c.constant_input(2) == nullptr) {
    // output_shape computed at run time: zeros of that shape, flattened,
    // and the result reshaped to it (scatter_nd_update checks the indices).
    Value shape = c.input(2);
    Value zeros = c.op("reshape").in(c.op("fill").in(shape).arg("value", 0.0).arg("dtype", t).emit1())
                      .arg("shape", std::vector<int64_t>{-1}).emit1();
    Value y = c.op("scatter_nd_update").in(zeros).in(idx).in(upd).arg("mode", int64_t{0}).emit1();
    return done(c, 0, c.op("reshape").in(y).in(shape).emit1());
  }
  if (c.has_input(2)) {
    if (!c.constant_ints(2, "output_shape", out)) return reported();
  } else {
    if (!xt.dims_known() || xt.dims.size() != n + 2)
      return c.fail(str_format("input 0 needs known dims of rank %zu (or give output_shape)", n + 2));
    out = {xt.dims[0], xt.dims[1]};
    for (size_t d = 0; d < n; ++d) {
      int64_t e = 0;
      if (__builtin_mul_overflow(xt.dims[d + 2] - 1, s[d], &e) || __builtin_add_overflow(e, k[d], &e) ||
          __builtin_sub_overflow(e, p[d], &e) || __builtin_sub_overflow(e, p[d + n], &e))
        return c.fail("the output extent overflows");
      out.push_back(e);
    }
  }
  int64_t total = 1;
  for (int64_t d : out) {
    if (d < 0) return c.fail("the output shape " + ints_str(out) + " has a negative extent");
    if (__builtin_mul_overflow(total, d, &total)) return c.fail("the output shape " + ints_str(out) + " overflows");
  }
  Value zeros = c.op("fill").arg("shape", std::vector<int64_t>{total}).arg("value", 0.0).arg("dtype", t).emit1();
  Value y = c.op("scatter_nd_update").in(zeros).in(idx).in(upd).arg("mode", int64_t{0}).emit1();
  return done(c, 0, c.op("reshape").in(y).arg("shape", out).emit1());
}

bool integer_range(DataType t, double& lo, double& hi);

// QLinearMatMul and QLinearConv: their scales (inputs 1, 4, 6) float32 and
// y's zero point (input 7) int8 or uint8, whose dtype `qt` is the output's.
// half_scales: QLinearMatMul 21's float16 and bfloat16 scales, widened to
// float32 by the caller.
Status qlinear_types(C& c, DataType& qt, bool half_scales = false) {
  for (int k : {1, 4, 6}) {
    const DataType t = c.input_dtype(k);
    if (t == DataType::kFloat32) continue;
    if (half_scales && (t == DataType::kFloat16 || t == DataType::kBFloat16)) continue;
    return c.fail(str_format("input %d (a scale) must be float32%s", k, half_scales ? ", float16 or bfloat16" : ""));
  }
  qt = c.input_dtype(7);
  if (qt != DataType::kInt8 && qt != DataType::kUInt8) return c.fail("input 7 (y_zero_point) must be int8 or uint8");
  return Status::ok();
}

// Their output, as ONNX Runtime requantizes: the float32 sums times the
// multiplier (a scale times b's or w's scale over y's), rounded half to
// even, plus y's zero point, saturated to qt.
Status qlinear_output(C& c, Value acc_f32, Value multiplier, DataType qt) {
  const DataType f = DataType::kFloat32;
  double lo = 0, hi = 0;
  integer_range(qt, lo, hi);
  Value y = c.op("rint").in(c.op("multiply").in(acc_f32).in(multiplier).emit1()).emit1();
  y = c.op("add").in(y).in(c.op("cast").in(c.input(7)).arg("dtype", f).emit1()).emit1();
  y = c.op("clip").in(y).arg("lo", lo).arg("hi", hi).emit1();
  return done(c, 0, c.op("cast").in(y).arg("dtype", qt).emit1());
}

// ConvInteger and QLinearConv: the convolution of the zero-point-free
// operands, exact in float64 (products of 8-bit values summed over fewer
// than 2^37 terms); padding after the zero points are subtracted pads with
// them, as ONNX Runtime does. ConvInteger casts the sums to int32;
// QLinearConv adds the int32 bias, scales by x_scale * w_scale / y_scale in
// float32 (w_scale per output channel or one) and quantizes with y's zero
// point, as ONNX Runtime requantizes. 2-D and 1-D windows.
Status map_conv_quantized(C& c, bool qlinear) {
  const int kx = 0, kxzp = 2, kw = qlinear ? 3 : 1, kwzp = qlinear ? 5 : 3;
  std::vector<int64_t> kernel;
  const ValueType wt = c.input_type(kw);
  if (wt.rank_known && wt.dims.size() >= 3) kernel.assign(wt.dims.begin() + 2, wt.dims.end());
  Window w;
  RETURN_IF_ERROR(read_window(c, w, kernel, true));
  const int64_t group = c.attr_int("group", 1);
  if (group < 1) return c.fail_attr("group", str_format("= %lld must be >= 1", static_cast<long long>(group)));
  const DataType f = DataType::kFloat64;
  auto operand = [&](int k, int zp_k, bool per_channel, Value& out) -> Status {
    const DataType t = c.input_dtype(k);
    if (t != DataType::kInt8 && t != DataType::kUInt8) return c.fail(str_format("input %d must be int8 or uint8", k));
    out = c.op("cast").in(c.input(k)).arg("dtype", f).emit1();
    if (!c.has_input(zp_k)) return Status::ok();
    const ValueType zt = c.input_type(zp_k);
    if (zt.dtype != t) return c.fail(str_format("input %d (a zero point) must have input %d's dtype", zp_k, k));
    Value zp = c.op("cast").in(c.input(zp_k)).arg("dtype", f).emit1();
    if (zt.rank() == 1 && per_channel) {
      zp = c.op("reshape").in(zp).arg("shape", std::vector<int64_t>{-1, 1, 1, 1}).emit1();
    } else if (zt.rank() != 0 && !(zt.rank() == 1 && zt.dims[0] == 1)) {
      return c.fail(str_format("input %d (a zero point) must be a scalar%s", zp_k, per_channel ? " or 1-D" : ""));
    }
    out = c.op("subtract").in(out).in(zp).emit1();
    return Status::ok();
  };
  Value x, wv;
  RETURN_IF_ERROR(operand(kx, kxzp, false, x));
  RETURN_IF_ERROR(operand(kw, kwzp, true, wv));
  x = pad_if_asymmetric(c, lift(c, x, w), w, 0.0);
  OpCall call = c.op("conv2d");
  call.in(x).in(lift(c, wv, w));
  Value acc = unlift(c, conv2d_args(call, w, group).emit1(), w);
  if (!qlinear) return done(c, 0, c.op("cast").in(acc).arg("dtype", DataType::kInt32).emit1());

  const size_t rank = w.one_d ? 3 : 4;
  if (c.has_input(8)) {
    if (c.input_dtype(8) != DataType::kInt32) return c.fail("input 8 (B) must be int32");
    std::vector<int64_t> shape(rank, 1);
    shape[1] = -1;
    acc = c.op("add").in(acc).in(c.op("reshape").in(c.op("cast").in(c.input(8)).arg("dtype", f).emit1())
                                    .arg("shape", shape).emit1()).emit1();
  }
  DataType qt;
  RETURN_IF_ERROR(qlinear_types(c, qt));
  Value w_scale = c.input(4);
  if (c.input_rank(4) == 1) {
    std::vector<int64_t> shape(rank, 1);
    shape[1] = -1;
    w_scale = c.op("reshape").in(w_scale).arg("shape", shape).emit1();
  }
  Value multiplier = c.op("divide").in(c.op("multiply").in(c.input(1)).in(w_scale).emit1()).in(c.input(6)).emit1();
  return qlinear_output(c, c.op("cast").in(acc).arg("dtype", DataType::kFloat32).emit1(), multiplier, qt);
}

// ConvTranspose: deconv2d, whose padding is symmetric; asymmetric pads
// (explicit, from auto_pad, or from output_shape) run with the smaller pad
// on both sides and crop the extra rows and columns with a slice. An
// output_shape past the natural size adds output_padding. 1-D runs as 2-D
// over a unit height; group > 1 as one deconv2d per group, concatenated
// (x, the weights [C, M/group, k...] and the bias split by group).
Status map_conv_transpose(C& c) {
  std::vector<int64_t> k, s, d, p, op, out_shape;
  const ValueType wt = c.input_type(1), xt = c.input_type(0);
  if (!c.attr_ints("kernel_shape", k) && wt.rank_known && wt.dims.size() >= 3)
    k.assign(wt.dims.begin() + 2, wt.dims.end());
  if (is_3d(c, k)) return map_conv_transpose3d(c, k);
  const bool one_d = k.size() == 1 && (!xt.rank_known || xt.dims.size() == 3);
  if (!one_d && (k.size() != 2 || (xt.rank_known && xt.dims.size() != 4)))
    return c.fail(str_format("only 1-D and 2-D transposed convolutions over NCW and NCHW inputs are supported; "
                             "kernel_shape %s, input rank %d",
                             ints_str(k).c_str(), xt.rank()));
  const size_t n = k.size();
  auto list_attr = [&](const char* name, std::vector<int64_t>& v, size_t count, int64_t fill) {
    if (!c.attr_ints(name, v)) v.assign(count, fill);
    if (v.size() != count) return c.fail_attr(name, str_format("= %s must have %zu values", ints_str(v).c_str(), count));
    return Status::ok();
  };
  RETURN_IF_ERROR(list_attr("strides", s, n, 1));
  RETURN_IF_ERROR(list_attr("dilations", d, n, 1));
  RETURN_IF_ERROR(list_attr("output_padding", op, n, 0));
  RETURN_IF_ERROR(list_attr("pads", p, 2 * n, 0));
  for (int64_t v : p)
    if (v < 0) return c.fail_attr("pads", "= " + ints_str(p) + " is not supported: negative pads");
  const bool has_out_shape = c.attr_ints("output_shape", out_shape);
  if (has_out_shape && out_shape.size() != n && out_shape.size() != n + 2)
    return c.fail_attr("output_shape", str_format("= %s must have %zu (or %zu) values", ints_str(out_shape).c_str(),
                                                  n, n + 2));
  if (has_out_shape) out_shape.erase(out_shape.begin(), out_shape.end() - static_cast<std::ptrdiff_t>(n));
  const int64_t group = c.attr_int("group", 1);
  if (group < 1) return c.fail_attr("group", str_format("= %lld must be >= 1", static_cast<long long>(group)));
  // 1-D as 2-D: a unit height in front of every spatial list.
  std::vector<int64_t> in_spatial(n, -1);
  if (xt.dims_known())
    for (size_t i = 0; i < n; ++i) in_spatial[i] = xt.dims[2 + i];
  if (one_d) {
    k.insert(k.begin(), 1), s.insert(s.begin(), 1), d.insert(d.begin(), 1), op.insert(op.begin(), 0);
    p = {0, p[0], 0, p[1]};
    if (has_out_shape) out_shape.insert(out_shape.begin(), 1);
    in_spatial.insert(in_spatial.begin(), 1);
  }
  const std::string pad_mode = c.attr_string("auto_pad", "NOTSET");
  if (pad_mode != "NOTSET" && pad_mode != "VALID" && pad_mode != "SAME_UPPER" && pad_mode != "SAME_LOWER")
    return c.fail_attr("auto_pad", "= '" + pad_mode + "' is not supported");
  // Pads from a total: SAME_UPPER puts the larger half at the end.
  auto split = [&](int i, int64_t total) {
    p[static_cast<size_t>(i)] = pad_mode == "SAME_UPPER" ? total / 2 : total - total / 2;
    p[static_cast<size_t>(i) + 2] = total - p[static_cast<size_t>(i)];
  };
  for (int i = 0; i < 2; ++i) {
    const size_t u = static_cast<size_t>(i);
    const int64_t eff = (k[u] - 1) * d[u] + 1;
    int64_t total = -1;
    if (has_out_shape) {
      if (in_spatial[u] < 0) return c.fail_attr("output_shape", "needs the input's spatial dims, which are not known");
      total = s[u] * (in_spatial[u] - 1) + op[u] + eff - out_shape[u];
      // A larger output than the natural one: the rows past it are output
      // padding (they see no input, only the bias).
      if (total < 0) op[u] -= total, total = 0;
    } else if (pad_mode == "SAME_UPPER" || pad_mode == "SAME_LOWER") {
      total = op[u] + eff - s[u];  // the output is input * stride
    } else if (pad_mode == "VALID") {
      total = 0;
    }
    if (total == -1) continue;  // explicit pads
    if (total < 0) return c.fail(str_format("the padding it implies along dim %d is negative (%lld)", 2 + i,
                                            static_cast<long long>(total)));
    split(i, total);
  }
  const int64_t ph = std::min(p[0], p[2]), pw = std::min(p[1], p[3]);
  auto as_2d = [&](Value v) {
    return one_d ? c.op("expand_dims").in(v).arg("axis", int64_t{2}).emit1() : v;
  };
  const Value x = as_2d(c.input(0)), w = as_2d(c.input(1));
  std::vector<Value> xs{x}, ws{w}, bs;
  if (c.has_input(2)) bs.push_back(c.input(2));
  if (group > 1) {
    auto parts = [&](Value v, int64_t axis) {
      return c.op("split").in(v).arg("num_split", group).arg("axis", axis).outputs(static_cast<int>(group)).emit();
    };
    xs = parts(x, 1), ws = parts(w, 0);
    if (!bs.empty()) bs = parts(bs[0], 0);
    if (static_cast<int64_t>(xs.size()) != group || static_cast<int64_t>(ws.size()) != group) return reported();
  }
  std::vector<Value> ys;
  for (size_t g = 0; g < xs.size(); ++g) {
    OpCall call = c.op("deconv2d");
    call.in(xs[g]).in(ws[g]);
    if (!bs.empty()) call.in(bs[g]);
    ys.push_back(call.arg("kH", k[0]).arg("kW", k[1]).arg("sH", s[0]).arg("sW", s[1]).arg("pH", ph).arg("pW", pw)
                     .arg("dH", d[0]).arg("dW", d[1]).arg("same_mode", int64_t{0}).arg("data_format", int64_t{0})
                     .arg("weights_format", int64_t{1}).arg("opH", op[0]).arg("opW", op[1]).emit1());
  }
  Value y = ys[0];
  if (ys.size() > 1) {
    OpCall cat = c.op("concat");
    for (Value v : ys) cat.in(v);
    y = cat.arg("axis", int64_t{1}).emit1();
  }
  if (p[0] != p[2] || p[1] != p[3]) {
    // Crop: begin at the extra of the start side; the end side's extra needs
    // the output extent.
    std::vector<int64_t> begin_size{0, 0, p[0] - ph, p[1] - pw, -1, -1, -1, -1};
    for (int i = 0; i < 2; ++i) {
      const size_t u = static_cast<size_t>(i);
      const int64_t extra_end = p[u + 2] - (i == 0 ? ph : pw);
      if (extra_end == 0) continue;
      if (in_spatial[u] < 0)
        return c.fail_attr("pads", "= " + ints_str(p) + ": pads larger at the end need the input's spatial dims, "
                                                        "which are not known");
      const int64_t eff = (k[u] - 1) * d[u] + 1;
      const int64_t pm = i == 0 ? ph : pw;
      const int64_t full = (in_spatial[u] - 1) * s[u] + eff - 2 * pm + op[u];
      begin_size[6 + u] = full - begin_size[2 + u] - extra_end;
    }
    y = c.op("slice").in(y).arg("begin_size", begin_size).emit1();
  }
  if (one_d) y = c.op("squeeze").in(y).arg("axes", std::vector<int64_t>{2}).emit1();
  return done(c, 0, y);
}

// ceil_mode (opset 10 on) as pooling's ceil_mode arg (Note [Ceil mode]):
// with explicit pads equal before and after (SAME needs no rounding).
Status read_ceil_mode(C& c, const Window& w, int64_t& ceil) {
  ceil = c.opset() >= 10 ? c.attr_int("ceil_mode", 0) : 0;
  if (ceil == 0 || w.same) {
    ceil = 0;
    return Status::ok();
  }
  if (w.pt != w.pb || w.pl != w.pr)
    return c.fail_attr("ceil_mode", "= 1 with different pads before and after is not supported");
  return Status::ok();
}

Status map_max_pool(C& c) {
  if (is_3d(c, {})) return map_pool3d(c, true);
  Window w;
  RETURN_IF_ERROR(read_window(c, w, {}, c.opset() >= 10));
  int64_t ceil = 0;
  RETURN_IF_ERROR(read_ceil_mode(c, w, ceil));
  const bool indices = c.output_used(1);
  const bool column_major = c.attr_int("storage_order", 0) != 0 && indices;
  const ValueType xt = c.input_type(0);
  if (column_major && (xt.rank() != 4 || xt.dims[2] < 0 || xt.dims[3] < 0))
    return c.fail_attr("storage_order", "= 1 needs a 4-D input with known H and W");
  if (indices && (w.pt != w.pb || w.pl != w.pr))
    return c.fail_attr("pads", "with different pads before and after are not supported with the Indices output");
  // 8- and 16-bit integers pool exactly as float32 (libops' pools are float).
  const bool narrow_int = xt.dtype == DataType::kInt8 || xt.dtype == DataType::kUInt8 ||
                          xt.dtype == DataType::kInt16 || xt.dtype == DataType::kUInt16;
  Value in = c.input(0);
  if (narrow_int) in = c.op("cast").in(in).arg("dtype", DataType::kFloat32).emit1();
  auto restore = [&](Value v) { return narrow_int ? c.op("cast").in(v).arg("dtype", xt.dtype).emit1() : v; };
  Value x = pad_if_asymmetric(c, lift(c, in, w), w, -std::numeric_limits<double>::infinity());
  auto pool = c.op(indices ? "max_pool_with_argmax" : "maxpool2d").in(x).arg("kH", w.kh).arg("kW", w.kw)
                  .arg("sH", w.sh).arg("sW", w.sw).arg("pH", w.pt).arg("pW", w.pl).arg("dH", w.dh).arg("dW", w.dw)
                  .arg("same_mode", static_cast<int64_t>(w.same)).arg("data_format", int64_t{0})
                  .arg("ceil_mode", ceil);
  if (!indices) return done(c, 0, restore(unlift(c, pool.emit1(), w)));
  // Indices: offsets into the (N, C, spatial...) input, as ONNX counts them;
  // a 1-D pool's unit height leaves them unchanged.
  const std::vector<Value> outs = pool.outputs(2).emit();
  if (outs.size() != 2 || !outs[0].valid() || !outs[1].valid()) return reported();
  Value idx = unlift(c, outs[1], w);
  if (column_major) {
    // storage_order 1: (h, w) of each image counted column by column,
    // h + w * H in place of h * W + w.
    const int64_t H = xt.dims[2], W = xt.dims[3];
    const DataType it = DataType::kInt64;
    idx = c.op("cast").in(idx).arg("dtype", it).emit1();
    Value hw = c.op("floor_mod").in(idx).in(c.constant_scalar(it, static_cast<double>(H * W))).emit1();
    Value h = c.op("floor_div").in(hw).in(c.constant_scalar(it, static_cast<double>(W))).emit1();
    Value wc = c.op("floor_mod").in(hw).in(c.constant_scalar(it, static_cast<double>(W))).emit1();
    Value col = c.op("add").in(h).in(c.op("multiply").in(wc).in(c.constant_scalar(it, static_cast<double>(H))).emit1()).emit1();
    idx = c.op("add").in(c.op("subtract").in(idx).in(hw).emit1()).in(col).emit1();
  }
  c.set_output(1, idx);
  return done(c, 0, restore(unlift(c, outs[0], w)));
}

Status map_average_pool(C& c) {
  if (is_3d(c, {})) return map_pool3d(c, false);
  Window w;
  RETURN_IF_ERROR(read_window(c, w, {}, c.opset() >= 19));
  int64_t ceil = 0;
  RETURN_IF_ERROR(read_ceil_mode(c, w, ceil));
  const int64_t include_pad = c.attr_int("count_include_pad", 0);
  if (w.same && include_pad)
    return c.fail_attr("count_include_pad", "= 1 with auto_pad SAME_UPPER is not supported");
  Value x = lift(c, c.input(0), w);
  if ((w.pt != w.pb || w.pl != w.pr) && !include_pad) {
    // Different pads before and after, pads not counted: the sum over each
    // window of x padded with zeros, over the count of x's elements in it
    // (a mask of ones padded alike), both pooled with the pads counted.
    Window wm = w;
    Value mask = pad_if_asymmetric(c, c.op("ones_like").in(x).emit1(), wm, 0.0);
    x = pad_if_asymmetric(c, x, w, 0.0);
    auto pool = [&](Value v) {
      return c.op("avgpool2d").in(v).arg("kH", w.kh).arg("kW", w.kw).arg("sH", w.sh).arg("sW", w.sw).arg("pH", w.pt)
          .arg("pW", w.pl).arg("dH", w.dh).arg("dW", w.dw).arg("same_mode", int64_t{0})
          .arg("count_include_pad", int64_t{1}).arg("data_format", int64_t{0}).arg("ceil_mode", ceil).emit1();
    };
    return done(c, 0, unlift(c, c.op("divide").in(pool(x)).in(pool(mask)).emit1(), w));
  }
  x = pad_if_asymmetric(c, x, w, 0.0);
  return done(c, 0, unlift(c, c.op("avgpool2d").in(x).arg("kH", w.kh).arg("kW", w.kw).arg("sH", w.sh).arg("sW", w.sw)
                                  .arg("pH", w.pt).arg("pW", w.pl).arg("dH", w.dh).arg("dW", w.dw)
                                  .arg("same_mode", static_cast<int64_t>(w.same)).arg("count_include_pad", include_pad)
                                  .arg("data_format", int64_t{0}).arg("ceil_mode", ceil).emit1(), w));
}

Status map_global_pool(C& c, const char* reduce) {
  const int r = c.input_rank(0);
  if (r < 3) return c.fail(str_format("the input's rank must be known and >= 3 (it is %d)", r));
  std::vector<int64_t> axes;
  for (int k = 2; k < r; ++k) axes.push_back(k);
  return done(c, 0, c.op(reduce).in(c.input(0)).arg("axes", axes).arg("keep_dims", true).emit1());
}

Status map_batch_norm(C& c) {
  const double eps = c.attr_float("epsilon", 1e-5);
  if (c.opset() < 9 && c.attr_int("spatial", 1) != 1)
    return c.fail_attr("spatial", "= 0 is not supported");
  const bool training = c.opset() >= 14 && c.attr_int("training_mode", 0) != 0;
  if (!training) {
    c.ignore_attr("momentum");  // the running statistics are training outputs
    // ONNX: X, scale, B, mean, var; libops: x, mean, variance, gamma, beta.
    return done(c, 0, c.op("batchnorm").in(c.input(0)).in(c.input(3)).in(c.input(4)).in(c.input(1)).in(c.input(2))
                          .arg("axis", int64_t{1}).arg("epsilon", eps).emit1());
  }
  // training_mode: normalized by the batch's own mean and (population)
  // variance over every axis but 1; outputs 1 and 2 are the running mean and
  // variance moved toward them by 1 - momentum.
  const double momentum = c.attr_float("momentum", 0.9);
  const int r = c.input_rank(0);
  const DataType t = c.input_dtype(0);
  if (r < 2) return c.fail("training_mode = 1 needs an input of known rank >= 2");
  std::vector<int64_t> axes{0};
  for (int a = 2; a < r; ++a) axes.push_back(a);
  Value x = c.input(0);
  Value mean = c.op("reduce_mean").in(x).arg("axes", axes).arg("keep_dims", false).emit1();
  std::vector<int64_t> channel_shape(static_cast<size_t>(r), 1);
  channel_shape[1] = -1;
  Value centered = c.op("subtract").in(x).in(c.op("reshape").in(mean).arg("shape", channel_shape).emit1()).emit1();
  Value var = c.op("reduce_mean").in(c.op("multiply").in(centered).in(centered).emit1()).arg("axes", axes)
                  .arg("keep_dims", false).emit1();
  auto running = [&](int k, Value batch) {
    Value kept = c.op("multiply").in(c.input(k)).in(c.constant_scalar(t, momentum)).emit1();
    return c.op("add").in(kept).in(c.op("multiply").in(batch).in(c.constant_scalar(t, 1.0 - momentum)).emit1()).emit1();
  };
  c.set_output(1, running(3, mean));
  c.set_output(2, running(4, var));
  return done(c, 0, c.op("batchnorm").in(x).in(mean).in(var).in(c.input(1)).in(c.input(2)).arg("axis", int64_t{1})
                        .arg("epsilon", eps).emit1());
}

// GroupNormalization (opset 21; version 18, whose scale and bias were per
// group, is deprecated): group_norm over [N, C, ...], scale and bias per
// channel.
Status map_group_normalization(C& c) {
  const int64_t groups = c.attr_int("num_groups", 0);
  const double eps = c.attr_float("epsilon", 1e-5);
  if (groups < 1) return c.fail_attr("num_groups", "must be >= 1");
  const int64_t stash = c.attr_int("stash_type", 1);
  if (stash != 1)
    return c.fail_attr("stash_type", str_format("= %lld is not supported (1: float)", static_cast<long long>(stash)));
  return done(c, 0, c.op("group_norm").in(c.input(0)).in(c.input(1)).in(c.input(2)).arg("num_groups", groups)
                        .arg("epsilon", eps).emit1());
}

Status map_instance_norm(C& c) {
  const double eps = c.attr_float("epsilon", 1e-5);
  return done(c, 0, c.op("instance_norm").in(c.input(0)).in(c.input(1)).in(c.input(2)).arg("epsilon", eps).emit1());
}

Status map_layer_norm(C& c) {
  const int64_t axis = c.attr_int("axis", -1);
  const double eps = c.attr_float("epsilon", 1e-5);
  const int64_t stash = c.attr_int("stash_type", 1);
  const DataType t = c.input_dtype(0);
  if (stash != 1 && t != DataType::kInvalid)
    return c.fail_attr("stash_type", str_format("= %lld is not supported", static_cast<long long>(stash)));
  OpCall ln = c.op("layer_norm");
  Value x = c.input(0);
  ln.in(x).in(c.input(1));
  if (c.has_input(2)) ln.in(c.input(2));
  RETURN_IF_ERROR(done(c, 0, ln.arg("axis", axis).arg("epsilon", eps).emit1()));
  const bool mean_used = c.num_outputs() > 1 && c.output_used(1);
  const bool inv_used = c.num_outputs() > 2 && c.output_used(2);
  if (!mean_used && !inv_used) return Status::ok();
  // Mean and InvStdDev over the normalized axes, kept as extent 1, computed
  // in float32 (stash_type 1; float64 stays) and given in x's dtype.
  const int r = c.input_rank(0);
  int64_t a = 0;
  if (!dtype_is_float(t) || !norm_axis(axis, r, a))
    return c.fail("the Mean and InvStdDev outputs need x's dtype and rank");
  std::vector<int64_t> axes;
  for (int64_t d = a; d < r; ++d) axes.push_back(d);
  const DataType ct = compute_dtype(t);
  Value xc = cast_to(c, x, t, ct);
  Value mean = c.op("reduce_mean").in(xc).arg("axes", axes).arg("keep_dims", true).emit1();
  Value diff = c.op("subtract").in(xc).in(mean).emit1();
  Value var = c.op("reduce_mean").in(c.op("multiply").in(diff).in(diff).emit1()).arg("axes", axes).arg("keep_dims", true).emit1();
  Value inv = c.op("reciprocal").in(c.op("sqrt").in(c.op("add").in(var).in(c.constant_scalar(ct, eps)).emit1()).emit1()).emit1();
  if (mean_used) c.set_output(1, cast_to(c, mean, ct, t));
  if (inv_used) c.set_output(2, cast_to(c, inv, ct, t));
  return Status::ok();
}

Status map_rms_norm(C& c) {
  const int64_t axis = c.attr_int("axis", -1);
  const double eps = c.attr_float("epsilon", 1e-5);
  const int64_t stash = c.attr_int("stash_type", 1);
  if (stash != 1) return c.fail_attr("stash_type", str_format("= %lld is not supported", static_cast<long long>(stash)));
  return done(c, 0, c.op("rms_norm").in(c.input(0)).in(c.input(1)).arg("axis", axis).arg("epsilon", eps).emit1());
}

// Swish-24: x * sigmoid(alpha * x).
Status map_swish(C& c) {
  const double alpha = c.attr_float("alpha", 1.0);
  Value x = c.input(0);
  if (alpha == 1.0) return done(c, 0, c.op("silu").in(x).emit1());
  const DataType t = c.input_dtype(0);
  if (t == DataType::kInvalid) return c.fail("x's dtype must be known for an alpha other than 1");
  Value gate = c.op("sigmoid").in(c.op("multiply").in(x).in(c.constant_scalar(t, alpha)).emit1()).emit1();
  return done(c, 0, c.op("multiply").in(x).in(gate).emit1());
}

// ---- softmax ----

// Before opset 13, Softmax and LogSoftmax flatten x to 2-D at `axis` and
// normalise over the second dim; from 13 on they normalise along `axis`.
Status softmax_like(C& c, bool log, bool flatten_semantics) {
  const int r = c.input_rank(0);
  int64_t axis = c.attr_int("axis", flatten_semantics ? 1 : -1);
  Value x = c.input(0);
  auto apply = [&](Value v, int64_t ax) {
    return c.op(log ? "log_softmax" : "softmax").in(v).arg("axis", ax).emit1();
  };
  if (!flatten_semantics) return done(c, 0, apply(x, axis));
  int64_t a = 0;
  if (!norm_axis(axis, r, a) && !(r < 0 && axis >= 0))
    return c.fail_attr("axis", str_format("= %lld is outside the input's rank %d", static_cast<long long>(axis), r));
  if (r >= 0 && a == r - 1) return done(c, 0, apply(x, -1));  // the two semantics agree
  // Flatten to [outer, inner], normalise, and reshape back.
  const ValueType vt = c.input_type(0);
  int unknown = 0;
  for (int64_t d : vt.dims) unknown += d < 0;
  if (r < 0 || unknown > 1)
    return c.fail_attr("axis", str_format("= %lld is not the last axis, and the input's shape is not known well "
                                           "enough to flatten it (opset < 13 semantics)",
                                           static_cast<long long>(axis)));
  int64_t inner = 1;
  bool inner_known = true;
  for (int k = static_cast<int>(a); k < r; ++k) {
    if (vt.dims[k] < 0) inner_known = false;
    else inner *= vt.dims[k];
  }
  std::vector<int64_t> flat = inner_known ? std::vector<int64_t>{-1, inner} : std::vector<int64_t>{1, -1};
  if (!inner_known) {
    int64_t outer = 1;
    for (int k = 0; k < a; ++k) outer *= vt.dims[k];
    flat = {outer, -1};
  }
  Value f = c.op("reshape").in(x).arg("shape", flat).emit1();
  Value s = apply(f, -1);
  return done(c, 0, c.op("reshape").in(s).arg("shape", vt.dims).emit1());
}

// ---- shapes ----

Status map_flatten(C& c) {
  const int r = c.input_rank(0);
  int64_t axis = c.attr_int("axis", 1);
  if (axis < 0) {
    if (r < 0) return c.fail_attr("axis", "is negative and the input's rank is not known");
    axis += r;
  }
  if (r >= 0 && (axis < 0 || axis > r))
    return c.fail_attr("axis", str_format("= %lld is outside [-%d, %d]", static_cast<long long>(axis), r, r));
  Value x = c.input(0);
  if (axis == 0) return done(c, 0, c.op("reshape").in(x).arg("shape", std::vector<int64_t>{1, -1}).emit1());
  const ValueType vt = c.input_type(0);
  if (r < 0) return c.fail("the input's rank is not known");
  int64_t outer = 1, inner = 1;
  bool outer_known = true, inner_known = true;
  for (int k = 0; k < r; ++k) {
    int64_t d = vt.dims[static_cast<size_t>(k)];
    bool& known = k < axis ? outer_known : inner_known;
    int64_t& p = k < axis ? outer : inner;
    if (d < 0) known = false;
    else p *= d;
  }
  if (inner_known) return done(c, 0, c.op("reshape").in(x).arg("shape", std::vector<int64_t>{-1, inner}).emit1());
  if (outer_known) return done(c, 0, c.op("reshape").in(x).arg("shape", std::vector<int64_t>{outer, -1}).emit1());
  return c.fail("the input has unknown dims on both sides of axis; libops' reshape infers one extent only");
}

Status map_reshape(C& c) {
  const int64_t allowzero = c.opset() >= 14 ? c.attr_int("allowzero", 0) : 0;
  Value x = c.input(0);
  const Tensor* st = c.constant_input(1);
  if (st == nullptr)  // known at run time; a 0 copies x's dim unless allowzero
    return done(c, 0, c.op("reshape").in(x).in(c.input(1)).arg("copy_zeros", allowzero == 0).emit1());
  std::vector<int64_t> shape;
  if (!st->to_int64s(shape)) return c.fail("input 1 (shape) is not an integer tensor");
  // A 0 copies x's dim at the same index, which the reshape takes from x
  // when it runs (Note [Import-time shapes]: the importer never writes an
  // extent it only probed).
  const bool copies = allowzero == 0 && std::count(shape.begin(), shape.end(), 0) > 0;
  return done(c, 0, c.op("reshape").in(x).arg("shape", shape).arg("copy_zeros", copies).emit1());
}

Status map_transpose(C& c) {
  std::vector<int64_t> perm;
  OpCall call = c.op("permute");
  call.in(c.input(0));
  if (c.attr_ints("perm", perm)) call.arg("perm", perm);  // else permute reverses the dims, as ONNX does
  return done(c, 0, call.emit1());
}

Status map_concat(C& c) {
  const int64_t axis = c.attr_int("axis", 0);
  if (!c.has_attr("axis")) return c.fail_attr("axis", "is required");
  OpCall call = c.op("concat");
  for (int k = 0; k < c.num_inputs(); ++k) call.in(c.input(k));
  return done(c, 0, call.arg("axis", axis).emit1());
}

Status map_split(C& c) {
  const int64_t axis = c.attr_int("axis", 0);
  std::vector<int64_t> sizes;
  bool have_sizes = false;
  if (c.opset() < 13) {
    have_sizes = c.attr_ints("split", sizes);
  } else if (c.has_input(1)) {
    const Tensor* t = c.constant_input(1);
    if (t == nullptr) {  // sizes computed at run time
      const int n = c.num_outputs();
      if (c.opset() >= 18) c.ignore_attr("num_outputs");  // the sizes decide; n outputs checked when it runs
      std::vector<Value> parts =
          c.op("split_v").in(c.input(0)).in(c.input(1)).arg("axis", axis).outputs(n).emit();
      if (static_cast<int>(parts.size()) != n) return reported();
      for (int k = 0; k < n; ++k) c.set_output(k, parts[static_cast<size_t>(k)]);
      return Status::ok();
    }
    if (!t->to_int64s(sizes)) return c.fail("input 1 (split) is not an integer tensor");
    have_sizes = true;
  }
  const int n = c.num_outputs();
  if (c.opset() >= 18) {
    const int64_t num = c.attr_int("num_outputs", n);
    if (num != n) return c.fail_attr("num_outputs", str_format("= %lld but the node has %d outputs", static_cast<long long>(num), n));
    if (!have_sizes) {
      // The last part may be smaller: sizes of ceil(dim / n).
      int64_t a = 0;
      const ValueType vt = c.input_type(0);
      if (vt.rank_known && norm_axis(axis, vt.rank(), a) && vt.dims[static_cast<size_t>(a)] >= 0 &&
          vt.dims[static_cast<size_t>(a)] % n != 0) {
        const int64_t dim = vt.dims[static_cast<size_t>(a)], part = (dim + n - 1) / n;
        for (int k = 0; k < n; ++k) sizes.push_back(std::min(part, dim - part * k));
        have_sizes = true;
      }
    }
  }
  std::vector<Value> parts;
  if (have_sizes) {
    if (static_cast<int>(sizes.size()) != n)
      return c.fail(str_format("split %s has %zu sizes for %d outputs", ints_str(sizes).c_str(), sizes.size(), n));
    parts = c.op("split_v").in(c.input(0)).arg("axis", axis).arg("sizes", sizes).outputs(n).emit();
  } else {
    parts = c.op("split").in(c.input(0)).arg("num_split", static_cast<int64_t>(n)).arg("axis", axis).outputs(n).emit();
  }
  if (static_cast<int>(parts.size()) != n) return reported();
  for (int k = 0; k < n; ++k) c.set_output(k, parts[static_cast<size_t>(k)]);
  return Status::ok();
}

// Slice: slice_axes takes starts, ends, axes and steps as inputs, so any of
// them may be computed at run time, and clamps them as ONNX does.
Status map_slice(C& c) {
  OpCall call = c.op("slice_axes");
  call.in(c.input(0));
  if (c.opset() < 10) {
    std::vector<int64_t> starts, ends, axes;
    if (!c.attr_ints("starts", starts)) return c.fail_attr("starts", "is required");
    if (!c.attr_ints("ends", ends)) return c.fail_attr("ends", "is required");
    call.in(c.constant_ints(starts)).in(c.constant_ints(ends));
    if (c.attr_ints("axes", axes)) call.in(c.constant_ints(axes));
    return done(c, 0, call.emit1());
  }
  call.in(c.input(1)).in(c.input(2));
  if (c.has_input(3)) call.in(c.input(3));
  else if (c.has_input(4)) call.in(c.constant_ints(std::vector<int64_t>{}));  // axes omitted, steps given
  if (c.has_input(4)) call.in(c.input(4));
  return done(c, 0, call.emit1());
}

Status map_squeeze(C& c) {
  std::vector<int64_t> axes;
  OpCall call = c.op("squeeze");
  call.in(c.input(0));
  if (c.opset() < 13) {
    if (c.attr_ints("axes", axes) && !axes.empty()) call.arg("axes", axes);
  } else if (c.has_input(1)) {
    call.in(c.input(1));  // constant or computed at run time
  }
  return done(c, 0, call.emit1());
}

// Unsqueeze: expand_dims inserts every axis at once, counted in the
// output's dims, from an axes input that may be computed at run time.
Status map_unsqueeze(C& c) {
  if (c.opset() < 13) {
    std::vector<int64_t> axes;
    if (!c.attr_ints("axes", axes)) return c.fail_attr("axes", "is required");
    return done(c, 0, c.op("expand_dims").in(c.input(0)).in(c.constant_ints(axes)).emit1());
  }
  return done(c, 0, c.op("expand_dims").in(c.input(0)).in(c.input(1)).emit1());
}

Status map_gather(C& c) {
  return done(c, 0, c.op("gather").in(c.input(0)).in(c.input(1)).arg("axis", c.attr_int("axis", 0)).emit1());
}

// ReverseSequence: time_axis and batch_axis are 0 and 1 in either order.
Status map_reverse_sequence(C& c) {
  return done(c, 0, c.op("reverse_sequence").in(c.input(0)).in(c.input(1))
                        .arg("seq_axis", c.attr_int("time_axis", 0)).arg("batch_axis", c.attr_int("batch_axis", 1))
                        .emit1());
}

Status map_gather_elements(C& c) {
  return done(c, 0, c.op("gather_elements").in(c.input(0)).in(c.input(1)).arg("axis", c.attr_int("axis", 0)).emit1());
}

Status map_gather_nd(C& c) {
  const int64_t batch_dims = c.opset() >= 12 ? c.attr_int("batch_dims", 0) : 0;
  return done(c, 0, c.op("gather_nd").in(c.input(0)).in(c.input(1)).arg("batch_dims", batch_dims).emit1());
}

// Note [Low-precision values] (onnx_convert.cpp): a cast to, from or
// between float8, float4, int4 and int2 runs cast_low_precision.
Value lowp_cast(C& c, Value x, int from, int to, DataType dtype, bool saturate, const std::string& round) {
  const int64_t mode = round == "down" ? 1 : round == "nearest" ? 2 : 0;
  OpCall call = c.op("cast_low_precision");
  call.in(x).arg("from_format", static_cast<int64_t>(from)).arg("to_format", static_cast<int64_t>(to))
      .arg("round_mode", mode).arg("saturate", saturate);
  if (to == 0) call.arg("dtype", dtype);
  return call.emit1();
}

// Cast and CastLike to dtype t (a libops dtype) or to low-precision format
// to_lowp.
Status cast_as(C& c, DataType t, int to_lowp) {
  const bool saturate = c.opset() >= 19 ? c.attr_int("saturate", 1) != 0 : true;
  const std::string round = c.opset() >= 24 ? c.attr_string("round_mode", "up") : "up";
  if (round != "up" && round != "down" && round != "nearest")
    return c.fail_attr("round_mode", "= '" + round + "' is not up, down or nearest");
  const int from_lowp = c.input_lowp(0);
  if (to_lowp == 0 && from_lowp == 0) return done(c, 0, c.op("cast").in(c.input(0)).arg("dtype", t).emit1());
  c.set_output_lowp(0, to_lowp);
  return done(c, 0, lowp_cast(c, c.input(0), from_lowp, to_lowp, t, saturate, round));
}

Status map_cast(C& c) {
  const int to = static_cast<int>(c.attr_int("to", 0));
  const DataType t = dtype_from_onnx(to);
  const int to_lowp = lowp_from_onnx(to);
  if (t == DataType::kInvalid && to_lowp == 0)
    return c.fail_attr("to", str_format("= %s is not a dtype libops supports", onnx_type_name(to)));
  return cast_as(c, t, to_lowp);
}

Status map_cast_like(C& c) {
  const DataType t = c.input_dtype(1);
  if (t == DataType::kInvalid) return c.fail("the dtype of input 1 (target_type) is not known");
  const int to_lowp = c.input_lowp(1);
  c.input(1);
  return cast_as(c, to_lowp != 0 ? DataType::kInvalid : t, to_lowp);
}

Status map_dropout(C& c) {
  // Inference: the identity. A training_mode input must be a constant false.
  if (c.opset() < 12) c.ignore_attr("ratio");
  if (c.has_input(1)) c.input(1);  // ratio: unused in inference
  if (c.has_input(2)) {
    const Tensor* t = c.constant_input(2);
    std::vector<int64_t> v;
    if (t == nullptr || !t->to_int64s(v) || v.size() != 1 || v[0] != 0)
      return c.fail("input 2 (training_mode) must be a constant false: inference only");
  }
  c.ignore_attr("seed");
  if (c.num_outputs() > 1 && c.output_used(1)) {
    // The mask: every element kept (all true) in inference.
    Value x = c.input(0);
    c.set_output(0, x);
    Value all = c.op("broadcast_to").in(c.constant(bool_scalar(true))).in(c.op("shape_of").in(x).emit1()).emit1();
    return done(c, 1, all);
  }
  return map_identity(c);
}

Tensor int64_tensor(const std::vector<int64_t>& v, bool vector = true) {
  Tensor t;
  t.dtype = DataType::kInt64;
  t.onnx_type = 7;
  if (vector) t.dims = {static_cast<int64_t>(v.size())};
  t.data.resize(v.size() * 8);
  if (!v.empty()) std::memcpy(t.data.data(), v.data(), v.size() * 8);
  return t;
}

// Reductions: axes as an attribute before opset `axes_input_from`, as an
// optional input from then on.
// `then`, when given, is a unary op applied to the reduction (ReduceLogSum:
// log of reduce_sum). noop_with_empty_axes with no axes reduces each element
// alone, as ONNX Runtime and ONNX's reference do: x for ReduceSum and
// ReduceLogSumExp, but |x| for ReduceL1 and ReduceL2, x^2 for
// ReduceSumSquare, log(x) for ReduceLogSum.
Status reduce(C& c, const char* op, int axes_input_from, const char* then = nullptr) {
  const int64_t keep = c.attr_int("keepdims", 1);
  const int64_t noop = c.opset() >= axes_input_from ? c.attr_int("noop_with_empty_axes", 0) : 0;
  std::vector<int64_t> axes;
  Value axes_value;
  if (c.opset() < axes_input_from) {
    c.attr_ints("axes", axes);
  } else if (c.has_input(1)) {
    const Tensor* t = c.constant_input(1);
    if (t != nullptr) {
      if (!t->to_int64s(axes)) return c.fail("input 1 (axes) is not an integer tensor");
    } else {
      // At run time an empty axes input reduces each element alone: the
      // ops that declare noop_with_empty_axes (every reduce_* ONNX uses).
      const DeclarableOp* reduction = OpRegistry::instance().find(op);
      const bool takes_noop =
          reduction != nullptr && reduction->descriptor().signature.find("noop_with_empty_axes") != nullptr;
      if (noop && !takes_noop)
        return c.fail("input 1 (axes) is computed at run time with noop_with_empty_axes = 1");
      axes_value = c.input(1);
    }
  }
  if (!axes_value.valid() && axes.empty() && noop) {
    // Known now to reduce no axis: x itself where each element reduces to
    // itself, else the op over an empty axes input (|x|, x^2; then log).
    if (std::strcmp(op, "reduce_sqnorm") != 0 && std::strcmp(op, "reduce_norm1") != 0 &&
        std::strcmp(op, "reduce_norm2") != 0 && then == nullptr)
      return map_identity(c);
    axes_value = c.constant(int64_tensor({}));
  }
  // ReduceMax and ReduceMin of bools (opset 20): any and all, over uint8.
  const bool boolean = c.input_dtype(0) == DataType::kBool &&
                       (std::strcmp(op, "reduce_max") == 0 || std::strcmp(op, "reduce_min") == 0);
  Value x = c.input(0);
  if (boolean) x = c.op("cast").in(x).arg("dtype", DataType::kUInt8).emit1();
  OpCall call = c.op(op);
  call.in(x);
  if (axes_value.valid()) call.in(axes_value);
  else if (!axes.empty()) call.arg("axes", axes);
  if (axes_value.valid() && noop) call.arg("noop_with_empty_axes", true);
  Value v = call.arg("keep_dims", keep != 0).emit1();
  if (boolean) v = c.op("cast").in(v).arg("dtype", DataType::kBool).emit1();
  if (then != nullptr && v.valid()) v = c.op(then).in(v).emit1();
  return done(c, 0, v);
}

Status arg_reduce(C& c, const char* op) {
  const int64_t axis = c.attr_int("axis", 0), keep = c.attr_int("keepdims", 1);
  const bool last = c.opset() >= 12 && c.attr_int("select_last_index", 0) != 0;
  if (!last)
    return done(c, 0, c.op(op).in(c.input(0)).arg("axes", std::vector<int64_t>{axis}).arg("keep_dims", keep != 0).emit1());
  // The last index of the extreme: the first one along the reversed axis,
  // counted back from the end (extent - 1 - i).
  Value x = c.input(0);
  Value first = c.op(op).in(c.op("reverse").in(x).arg("axes", std::vector<int64_t>{axis}).emit1())
                    .arg("axes", std::vector<int64_t>{axis}).arg("keep_dims", keep != 0).emit1();
  Value extent = c.op("shape_of").in(x).arg("start", axis).arg("end", axis == -1 ? int64_t{std::numeric_limits<int64_t>::max()} : axis + 1).emit1();
  extent = c.op("reshape").in(extent).arg("shape", std::vector<int64_t>{}).emit1();
  Value back = c.op("subtract").in(c.op("subtract").in(extent).in(c.constant_scalar(DataType::kInt64, 1)).emit1()).in(first).emit1();
  return done(c, 0, back);
}

Status map_shape(C& c) {
  const ValueType vt = c.input_type(0);
  int64_t start = c.opset() >= 15 ? c.attr_int("start", 0) : 0;
  int64_t end = c.opset() >= 15 ? c.attr_int("end", std::numeric_limits<int64_t>::max()) : std::numeric_limits<int64_t>::max();
  if (!vt.dims_known()) {
    // Known only at run time: shape_of (a constant when folding can).
    OpCall call = c.op("shape_of");
    call.in(c.input(0)).arg("start", start);
    if (end != std::numeric_limits<int64_t>::max()) call.arg("end", end);
    return done(c, 0, call.emit1());
  }
  c.input(0);
  const int64_t r = static_cast<int64_t>(vt.dims.size());
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<int64_t> dims(vt.dims.begin() + start, vt.dims.begin() + std::max(start, end));
  c.set_output_constant(0, int64_tensor(dims));
  return Status::ok();
}

Status map_size(C& c) {
  const ValueType vt = c.input_type(0);
  if (!vt.dims_known())
    return done(c, 0, c.op("reduce_prod").in(c.op("shape_of").in(c.input(0)).emit1()).emit1());
  c.input(0);
  int64_t n = 1;
  for (int64_t d : vt.dims) n *= d;
  c.set_output_constant(0, int64_tensor({n}, false));
  return Status::ok();
}

Status map_constant(C& c) {
  if (const Tensor* t = c.attr_tensor("value")) {
    c.set_output_constant(0, *t);
    return Status::ok();
  }
  double f = 0;
  std::vector<double> fs;
  std::vector<int64_t> is;
  Tensor t;
  if (c.has_attr("value_float")) {
    f = c.attr_float("value_float", 0);
    float v = static_cast<float>(f);
    t.dtype = DataType::kFloat32;
    t.onnx_type = 1;
    t.data.resize(4);
    std::memcpy(t.data.data(), &v, 4);
  } else if (c.attr_floats("value_floats", fs)) {
    t.dtype = DataType::kFloat32;
    t.onnx_type = 1;
    t.dims = {static_cast<int64_t>(fs.size())};
    t.data.resize(fs.size() * 4);
    for (size_t k = 0; k < fs.size(); ++k) {
      float v = static_cast<float>(fs[k]);
      std::memcpy(t.data.data() + 4 * k, &v, 4);
    }
  } else if (c.has_attr("value_int")) {
    t = int64_tensor({c.attr_int("value_int", 0)}, false);
  } else if (c.attr_ints("value_ints", is)) {
    t = int64_tensor(is);
  } else {
    return c.fail("only the value, value_float(s) and value_int(s) attributes are supported");
  }
  c.set_output_constant(0, std::move(t));
  return Status::ok();
}

Status map_constant_of_shape(C& c) {
  const Tensor* v = c.attr_tensor("value");
  DataType t = DataType::kFloat32;
  double value = 0;
  Tensor fill_value;
  if (v != nullptr) {
    std::vector<double> vals;
    if (v->numel() != 1 || !v->to_doubles(vals)) return c.fail_attr("value", "must hold one number");
    t = v->dtype;
    value = vals[0];
    fill_value = *v;
  }
  const Tensor* st = c.constant_input(0);
  std::vector<int64_t> shape;
  if (st != nullptr && st->to_int64s(shape)) {
    int64_t n = 1;
    for (int64_t d : shape) n = d < 0 ? -1 : n * d;
    if (n >= 0 && n <= 4096) {
      // Small: folded into a constant (a later Reshape or Expand may need its values).
      Tensor out;
      out.dtype = t;
      out.onnx_type = dtype_to_onnx(t);
      out.dims = shape;
      const size_t item = dtype_size(t);
      out.data.resize(static_cast<size_t>(n) * item);
      if (v == nullptr) {
        std::memset(out.data.data(), 0, out.data.size());
      } else {
        for (int64_t k = 0; k < n; ++k) std::memcpy(out.data.data() + k * item, fill_value.data.data(), item);
      }
      c.set_output_constant(0, std::move(out));
      return Status::ok();
    }
    return done(c, 0, c.op("fill").arg("shape", shape).arg("value", value).arg("dtype", t).emit1());
  }
  return done(c, 0, c.op("fill").in(c.input(0)).arg("value", value).arg("dtype", t).emit1());
}

// Expand broadcasts both ways (a 1 in the shape keeps x's dim):
// broadcast_to with bidirectional, from a shape that may be computed at run
// time.
Status map_expand(C& c) {
  const Tensor* t = c.constant_input(1);
  std::vector<int64_t> shape;
  OpCall call = c.op("broadcast_to");
  call.in(c.input(0));
  if (t != nullptr) {
    if (!t->to_int64s(shape)) return c.fail("input 1 (shape) is not an integer tensor");
    call.arg("shape", shape);
  } else {
    call.in(c.input(1));
  }
  return done(c, 0, call.arg("bidirectional", true).emit1());
}

Status map_tile(C& c) {
  const Tensor* t = c.constant_input(1);
  std::vector<int64_t> reps;
  if (t != nullptr && t->to_int64s(reps)) return done(c, 0, c.op("tile").in(c.input(0)).arg("reps", reps).emit1());
  return done(c, 0, c.op("tile").in(c.input(0)).in(c.input(1)).emit1());
}

// Pad. Constant pads: pad with the positive ones, then slice off the
// negative ones (ONNX crops there). Pads, axes or the fill value computed at
// run time: pad's paddings input is built from them ([2n] as ONNX orders
// them, begins then ends, to [rank, 2]); negative ones are then an error
// when it runs.
// A constant-mode pad whose fill value is computed at run time: `padded`
// was filled with 0; its pads (where a pad of an all-true x is false) take
// the value instead.
Value fill_pads(C& c, Value padded, Value x, Value paddings, Value fill) {
  Value inside = c.op("broadcast_to").in(c.constant(bool_scalar(true))).in(c.op("shape_of").in(x).emit1()).emit1();
  inside = c.op("pad").in(inside).in(paddings).arg("mode", int64_t{0}).arg("value", 0.0).emit1();
  return c.op("where").in(inside).in(padded).in(fill).emit1();
}

// BitCast: x's bytes as dtype `to`, of the same size.
Status map_bitcast(C& c) {
  const int to = static_cast<int>(c.attr_int("to", 0));
  const DataType t = dtype_from_onnx(to), xt = c.input_dtype(0);
  if (t == DataType::kInvalid) return c.fail_attr("to", str_format("= %s is not a dtype libops supports", onnx_type_name(to)));
  if (xt == DataType::kInvalid || dtype_size(xt) != dtype_size(t))
    return c.fail_attr("to", str_format("= %s: the input's dtype (%s) must be known and of the same size",
                                        onnx_type_name(to), xt == DataType::kInvalid ? "not known" : dtype_name(xt)));
  return done(c, 0, c.op("bitcast").in(c.input(0)).arg("dtype", t).emit1());
}

// AffineGrid: each output position's normalized coordinates in [-1, 1]
// (x along W first, then H, then D; pixel centres, or corners with
// align_corners) with a 1 appended, times theta^T: [N, spatial..., K].
// The size may be computed at run time.
Status map_affine_grid(C& c) {
  const ValueType tt = c.input_type(0), st = c.input_type(1);
  if (tt.rank() != 3 || tt.dims[1] < 0) return c.fail("theta must be [N, 2, 3] or [N, 3, 4] with known dims");
  const int64_t k = tt.dims[1];
  if ((k != 2 && k != 3) || tt.dims[2] != k + 1) return c.fail("theta must be [N, 2, 3] or [N, 3, 4]");
  if (st.rank() != 1 || (st.dims[0] >= 0 && st.dims[0] != k + 2))
    return c.fail(str_format("size must be 1-D with %lld values [N, C, spatial...]", static_cast<long long>(k + 2)));
  const bool corners = c.attr_int("align_corners", 0) != 0;
  const DataType t = tt.dtype, i64 = DataType::kInt64;
  Value size = c.op("cast").in(c.input(1)).arg("dtype", i64).emit1();
  Value spatial = c.op("slice_axes").in(size).in(c.constant_ints({2})).in(c.constant_ints({k + 2})).emit1();
  std::vector<Value> coords(static_cast<size_t>(k));
  for (int64_t d = 0; d < k; ++d) {
    Value extent = c.op("reshape").in(c.op("slice_axes").in(size).in(c.constant_ints({d + 2})).in(c.constant_ints({d + 3}))
                                          .emit1()).arg("shape", std::vector<int64_t>{}).emit1();
    Value i = c.op("cast").in(c.op("range").in(c.constant_scalar(i64, 0.0)).in(extent).in(c.constant_scalar(i64, 1.0))
                                  .emit1()).arg("dtype", t).emit1();
    Value l = c.op("cast").in(extent).arg("dtype", t).emit1();
    Value a;
    if (corners) {  // -1 + 2 i / (L - 1); one position sits at -1
      Value span = c.op("maximum").in(c.op("subtract").in(l).in(c.constant_scalar(t, 1.0)).emit1())
                       .in(c.constant_scalar(t, 1.0)).emit1();
      a = c.op("divide").in(c.op("multiply").in(i).in(c.constant_scalar(t, 2.0)).emit1()).in(span).emit1();
    } else {  // (2 i + 1) / L - 1
      a = c.op("divide").in(c.op("add").in(c.op("multiply").in(i).in(c.constant_scalar(t, 2.0)).emit1())
                                .in(c.constant_scalar(t, 1.0)).emit1()).in(l).emit1();
    }
    a = c.op("subtract").in(a).in(c.constant_scalar(t, 1.0)).emit1();
    std::vector<int64_t> along(static_cast<size_t>(k), 1);
    along[static_cast<size_t>(d)] = -1;
    a = c.op("reshape").in(a).arg("shape", along).emit1();
    coords[static_cast<size_t>(k - 1 - d)] = c.op("broadcast_to").in(a).in(spatial).emit1();  // x (W) first
  }
  OpCall stack = c.op("stack");
  for (const Value& v : coords) stack.in(v);
  stack.in(c.op("fill").in(spatial).arg("value", 1.0).arg("dtype", t).emit1());
  Value base = c.op("reshape").in(stack.arg("axis", k).emit1()).arg("shape", std::vector<int64_t>{1, -1, k + 1}).emit1();
  Value theta_t = c.op("permute").in(c.input(0)).arg("perm", std::vector<int64_t>{0, 2, 1}).emit1();
  Value grid = c.op("matmul").in(base).in(theta_t).emit1();  // [N, prod(spatial), K]
  Value shape = c.op("concat").in(c.op("slice_axes").in(size).in(c.constant_ints({0})).in(c.constant_ints({1})).emit1())
                    .in(spatial).in(c.constant_ints({k})).arg("axis", int64_t{0}).emit1();
  return done(c, 0, c.op("reshape").in(grid).in(shape).emit1());
}

// TensorScatter (a KV cache update): update's positions along axis, moved
// by each batch entry's write index (mod the cache's extent when
// circular), scattered into a copy of the past cache.
Status map_tensor_scatter(C& c) {
  const int r = c.input_rank(0);
  if (r < 2) return c.fail("past_cache must have a known rank >= 2");
  int64_t axis = 0;
  if (!norm_axis(c.attr_int("axis", -2), r, axis) || axis == 0)
    return c.fail_attr("axis", "must be an axis of past_cache other than the batch axis 0");
  const std::string mode = c.attr_string("mode", "linear");
  if (mode != "linear" && mode != "circular") return c.fail_attr("mode", "= '" + mode + "' is not linear or circular");
  const DataType i64 = DataType::kInt64;
  Value past = c.input(0), update = c.input(1);
  Value seq = c.op("reshape").in(c.op("shape_of").in(update).arg("start", axis).arg("end", axis + 1).emit1())
                  .arg("shape", std::vector<int64_t>{}).emit1();
  std::vector<int64_t> along(static_cast<size_t>(r), 1);
  along[static_cast<size_t>(axis)] = -1;
  Value at = c.op("range").in(c.constant_scalar(i64, 0.0)).in(seq).in(c.constant_scalar(i64, 1.0)).emit1();
  at = c.op("reshape").in(at).arg("shape", along).emit1();
  if (c.has_input(2)) {
    std::vector<int64_t> per_batch(static_cast<size_t>(r), 1);
    per_batch[0] = -1;
    at = c.op("add").in(at).in(c.op("reshape").in(c.op("cast").in(c.input(2)).arg("dtype", i64).emit1())
                                   .arg("shape", per_batch).emit1()).emit1();
  }
  if (mode == "circular") {
    Value extent = c.op("reshape").in(c.op("shape_of").in(past).arg("start", axis).arg("end", axis + 1).emit1())
                       .arg("shape", std::vector<int64_t>{}).emit1();
    at = c.op("floor_mod").in(at).in(extent).emit1();
  }
  at = c.op("broadcast_to").in(at).in(c.op("shape_of").in(update).emit1()).emit1();
  return done(c, 0, c.op("scatter_elements").in(past).in(at).in(update).arg("axis", axis).emit1());
}

// Col2Im: fold over [N, C, prod(block_shape), L] (x's [N, C * prod, L]
// split), its list the image and block shapes (constants or computed at
// run time), then the strides, dilations and (begin, end) pads per dim.
Status map_col2im(C& c) {
  const ValueType it = c.input_type(1);
  if (it.rank() != 1 || it.dims[0] < 1) return c.fail("input 1 (image_shape) must be 1-D with a known length");
  const int64_t k = it.dims[0];
  std::vector<int64_t> strides(static_cast<size_t>(k), 1), dilations(static_cast<size_t>(k), 1),
      pads(static_cast<size_t>(2 * k), 0);
  for (auto [name, v] : {std::pair<const char*, std::vector<int64_t>*>{"strides", &strides},
                         {"dilations", &dilations}, {"pads", &pads}}) {
    const size_t want = v->size();
    if (c.attr_ints(name, *v) && v->size() != want)
      return c.fail_attr(name, str_format("has %zu values; %zu expected", v->size(), want));
  }
  std::vector<int64_t> window = strides;
  window.insert(window.end(), dilations.begin(), dilations.end());
  for (int64_t d = 0; d < k; ++d) {
    window.push_back(pads[static_cast<size_t>(d)]);
    window.push_back(pads[static_cast<size_t>(k + d)]);
  }
  const DataType i64 = DataType::kInt64;
  Value image = c.op("cast").in(c.input(1)).arg("dtype", i64).emit1();
  Value block = c.op("cast").in(c.input(2)).arg("dtype", i64).emit1();
  Value list = c.op("concat").in(image).in(block).in(c.constant_ints(window)).arg("axis", int64_t{0}).emit1();
  Value x = c.input(0);
  Value shape = c.op("shape_of").in(x).emit1();
  Value taps = c.op("reduce_prod").in(block).arg("keep_dims", true).emit1();
  Value split = c.op("concat").in(c.op("slice_axes").in(shape).in(c.constant_ints({0})).in(c.constant_ints({1})).emit1())
                    .in(c.constant_ints({-1})).in(taps)
                    .in(c.op("slice_axes").in(shape).in(c.constant_ints({2})).in(c.constant_ints({3})).emit1())
                    .arg("axis", int64_t{0}).emit1();
  x = c.op("reshape").in(x).in(split).emit1();
  return done(c, 0, c.op("fold").in(x).in(list).emit1());
}

// CenterCropPad: along each axis, a centred window of the target extent
// (crops start at floor((extent - target) / 2)), then zeros around what
// is smaller (the odd one after). The target shape may be computed at run
// time; constant ones are computed when the graph is planned.
Status map_center_crop_pad(C& c) {
  const int r = c.input_rank(0);
  if (r < 0) return c.fail("the input's rank must be known");
  std::vector<int64_t> axes;
  if (!c.attr_ints("axes", axes))
    for (int a = 0; a < r; ++a) axes.push_back(a);
  for (int64_t& a : axes)
    if (!norm_axis(a, r, a)) return c.fail_attr("axes", "holds an axis outside the input's rank");
  const DataType i64 = DataType::kInt64;
  const int64_t n = static_cast<int64_t>(axes.size());
  Value x = c.input(0);
  Value extent = c.op("gather").in(c.op("shape_of").in(x).emit1()).in(c.constant_ints(axes)).emit1();
  Value target = c.op("reshape").in(c.op("cast").in(c.input(1)).arg("dtype", i64).emit1())
                     .arg("shape", std::vector<int64_t>{n}).emit1();
  Value zero = c.constant_scalar(i64, 0.0), two = c.constant_scalar(i64, 2.0);
  Value diff = c.op("subtract").in(extent).in(target).emit1();
  Value start = c.op("floor_div").in(c.op("maximum").in(diff).in(zero).emit1()).in(two).emit1();
  Value end = c.op("add").in(start).in(c.op("minimum").in(extent).in(target).emit1()).emit1();
  Value cropped = c.op("slice_axes").in(x).in(start).in(end).in(c.constant_ints(axes)).emit1();
  Value grow = c.op("maximum").in(c.op("neg").in(diff).emit1()).in(zero).emit1();
  Value before = c.op("floor_div").in(grow).in(two).emit1();
  Value after = c.op("subtract").in(grow).in(before).emit1();
  Value rows = c.op("stack").in(before).in(after).arg("axis", int64_t{1}).emit1();  // [n, 2]
  std::vector<int64_t> at(axes);
  Value where = c.op("reshape").in(c.constant_ints(at)).arg("shape", std::vector<int64_t>{n, 1}).emit1();
  Value paddings = c.op("scatter_nd").in(where).in(rows).arg("shape", std::vector<int64_t>{r, 2}).emit1();
  return done(c, 0, c.op("pad").in(cropped).in(paddings).arg("mode", int64_t{0}).arg("value", 0.0).emit1());
}

// Pad mode 'wrap' along axis a: output position i reads x at
// (i - before) mod extent, so pads repeat x periodically and negative pads
// crop; `before` and `after` are int64 scalars (constants or computed).
Value wrap_axis(C& c, Value x, int64_t a, Value before, Value after) {
  const DataType i64 = DataType::kInt64;
  Value extent = c.op("reshape").in(c.op("shape_of").in(x).arg("start", a).arg("end", a + 1).emit1())
                     .arg("shape", std::vector<int64_t>{}).emit1();
  Value start = c.op("neg").in(before).emit1();
  Value limit = c.op("add").in(extent).in(after).emit1();
  Value at = c.op("range").in(start).in(limit).in(c.constant_scalar(i64, 1.0)).emit1();
  at = c.op("floor_mod").in(at).in(extent).emit1();
  return c.op("gather").in(x).in(at).arg("axis", a).emit1();
}

Status map_pad(C& c) {
  const std::string mode = c.attr_string("mode", "constant");
  int64_t m = 0;
  if (mode == "constant") m = 0;
  else if (mode == "reflect") m = 1;
  else if (mode == "edge") m = 3;
  else if (mode != "wrap") return c.fail_attr("mode", "= '" + mode + "' is not supported: constant, reflect, edge or wrap");
  const bool wrap = mode == "wrap";
  std::vector<int64_t> pads, axes;
  double value = 0;
  Value value_at_run_time;
  bool pads_constant = true, axes_constant = true;
  if (c.opset() < 11) {
    if (!c.attr_ints("pads", pads)) return c.fail_attr("pads", "is required");
    value = c.attr_float("value", 0.0);
  } else {
    const Tensor* pt = c.constant_input(1);
    pads_constant = pt != nullptr;
    if (pt != nullptr && !pt->to_int64s(pads)) return c.fail("input 1 (pads) is not an integer tensor");
    if (c.has_input(2)) {
      const Tensor* t = c.constant_input(2);
      std::vector<double> v;
      if (t == nullptr) value_at_run_time = c.input(2);
      else if (!t->to_doubles(v) || v.size() != 1) return c.fail("input 2 (constant_value) must hold one value");
      else value = v[0];
    }
    if (c.has_input(3)) {
      const Tensor* at = c.constant_input(3);
      axes_constant = at != nullptr;
      if (at != nullptr && !at->to_int64s(axes)) return c.fail("input 3 (axes) is not an integer tensor");
    }
  }
  const int r = c.input_rank(0);
  Value x = c.input(0);
  if (!pads_constant || !axes_constant) {
    // paddings [rank, 2] at run time. Without axes the pads cover every dim.
    if (c.has_input(3) && r < 0)
      return c.fail("input 3 (axes) is given with pads or axes computed at run time; the input's rank must then be "
                    "known");
    Value p = c.op("cast").in(c.input(1)).arg("dtype", DataType::kInt64).emit1();
    p = c.op("reshape").in(p).arg("shape", std::vector<int64_t>{2, -1}).emit1();
    p = c.op("permute").in(p).arg("perm", std::vector<int64_t>{1, 0}).emit1();  // [n, 2]: (begin, end) per axis
    if (c.has_input(3)) {
      // Each axis' row in place (negative axes count from the end), zeros
      // for the dims not listed.
      Value a = c.op("cast").in(c.input(3)).arg("dtype", DataType::kInt64).emit1();
      Value negative = c.op("less").in(a).in(c.constant_scalar(DataType::kInt64, 0)).emit1();
      a = c.op("where").in(negative).in(c.op("add").in(a).in(c.constant_scalar(DataType::kInt64, r)).emit1()).in(a).emit1();
      a = c.op("reshape").in(a).arg("shape", std::vector<int64_t>{-1, 1}).emit1();
      p = c.op("scatter_nd").in(a).in(p).arg("shape", std::vector<int64_t>{r, 2}).emit1();
    }
    if (wrap) {
      if (r < 0) return c.fail("mode 'wrap' with pads computed at run time needs the input's rank");
      Value y = x;
      for (int a = 0; a < r; ++a) {
        auto pad_at = [&](int64_t side) {
          Value v = c.op("slice_axes").in(p).in(c.constant_ints({a, side})).in(c.constant_ints({a + 1, side + 1}))
                        .in(c.constant_ints({0, 1})).emit1();
          return c.op("reshape").in(v).arg("shape", std::vector<int64_t>{}).emit1();
        };
        y = wrap_axis(c, y, a, pad_at(0), pad_at(1));
      }
      return done(c, 0, y);
    }
    OpCall call = c.op("pad");
    call.in(x).in(p).arg("mode", m);
    if (!value_at_run_time.valid()) return done(c, 0, call.arg("value", value).emit1());
    return done(c, 0, fill_pads(c, call.arg("value", 0.0).emit1(), x, p, value_at_run_time));
  }
  if (pads.size() % 2 != 0) return c.fail("pads " + ints_str(pads) + " must have an even count");
  const size_t n = pads.size() / 2;
  int rank = r;
  if (axes.empty()) {
    for (size_t k = 0; k < n; ++k) axes.push_back(static_cast<int64_t>(k));
    if (rank < 0) rank = static_cast<int>(n);
  } else if (rank < 0) {
    return c.fail("input 3 (axes) is given and the input's rank is not known");
  }
  if (axes.size() != n) return c.fail("pads and axes do not match");
  std::vector<int64_t> paddings(static_cast<size_t>(2 * rank), 0);
  std::vector<int64_t> crop_axes, crop_starts, crop_ends;
  for (size_t k = 0; k < n; ++k) {
    int64_t a = 0;
    if (!norm_axis(axes[k], rank, a))
      return c.fail(str_format("pad axis %lld is out of range", static_cast<long long>(axes[k])));
    const int64_t before = pads[k], after = pads[k + n];
    paddings[static_cast<size_t>(2 * a)] = std::max<int64_t>(before, 0);
    paddings[static_cast<size_t>(2 * a + 1)] = std::max<int64_t>(after, 0);
    if (before < 0 || after < 0) {
      crop_axes.push_back(a);
      crop_starts.push_back(std::max<int64_t>(-before, 0));
      crop_ends.push_back(after < 0 ? after : std::numeric_limits<int64_t>::max());
    }
  }
  Value padded = x;
  if (wrap) {
    bool changed = false;
    for (size_t k = 0; k < n; ++k) {
      int64_t a = 0;
      norm_axis(axes[k], rank, a);
      if (pads[k] == 0 && pads[k + n] == 0) continue;
      changed = true;
      padded = wrap_axis(c, padded, a, c.constant_scalar(DataType::kInt64, static_cast<double>(pads[k])),
                         c.constant_scalar(DataType::kInt64, static_cast<double>(pads[k + n])));
    }
    return changed ? done(c, 0, padded) : map_identity(c);
  } else if (std::any_of(paddings.begin(), paddings.end(), [](int64_t v) { return v != 0; }) || crop_axes.empty()) {
    padded = c.op("pad").in(x).arg("mode", m).arg("paddings", paddings).arg("value", value_at_run_time.valid() ? 0.0 : value).emit1();
    if (value_at_run_time.valid()) {
      Value p = c.constant_ints(paddings);
      p = c.op("reshape").in(p).arg("shape", std::vector<int64_t>{rank, 2}).emit1();
      padded = fill_pads(c, padded, x, p, value_at_run_time);
    }
  }
  if (crop_axes.empty()) return done(c, 0, padded);
  return done(c, 0, c.op("slice_axes").in(padded).in(c.constant_ints(crop_starts)).in(c.constant_ints(crop_ends))
                        .in(c.constant_ints(crop_axes)).emit1());
}

Status map_range(C& c) {
  // Range-27 takes float16 and bfloat16, and with stash_type 1 (the default)
  // counts in float32: start + i * delta rounded once, as here.
  const DataType t = c.input_dtype(0);
  const bool half = t == DataType::kFloat16 || t == DataType::kBFloat16;
  if (c.opset() >= 27) {
    const int64_t stash = c.attr_int("stash_type", 1);
    if (half && stash != 1)
      return c.fail_attr("stash_type", str_format("= %lld is not supported: float (1) only",
                                                  static_cast<long long>(stash)));
  }
  if (!half) return done(c, 0, c.op("range").in(c.input(0)).in(c.input(1)).in(c.input(2)).emit1());
  Value r = c.op("range")
                .in(cast_to(c, c.input(0), t, DataType::kFloat32))
                .in(cast_to(c, c.input(1), t, DataType::kFloat32))
                .in(cast_to(c, c.input(2), t, DataType::kFloat32))
                .emit1();
  return done(c, 0, cast_to(c, r, DataType::kFloat32, t));
}

// CumSum, CumProd: the running sum or product along the axis input.
Status running(C& c, const char* op) {
  const int64_t exclusive = c.attr_int("exclusive", 0), reverse = c.attr_int("reverse", 0);
  const Tensor* t = c.constant_input(1);
  std::vector<int64_t> axis;
  OpCall call = c.op(op);
  call.in(c.input(0));
  if (t != nullptr && t->to_int64s(axis) && axis.size() == 1) call.arg("axes", axis);
  else call.in(c.input(1));
  return done(c, 0, call.arg("exclusive", exclusive != 0 ? 1 : 0).arg("reverse", reverse != 0 ? 1 : 0).emit1());
}

Status map_top_k(C& c) {
  int64_t k = 0;
  if (c.opset() < 10) {
    k = c.attr_int("k", -1);
  } else if (const Tensor* t = c.constant_input(1)) {
    std::vector<int64_t> kv;
    if (!t->to_int64s(kv) || kv.size() != 1) return c.fail("input 1 (K) must hold one integer");
    k = kv[0];
  } else {
    k = -1;  // computed at run time: top_k's k input
  }
  const int64_t axis = c.attr_int("axis", -1);
  bool largest = true;
  if (c.opset() >= 11) {
    largest = c.attr_int("largest", 1) != 0;
    c.ignore_attr("sorted");  // sorted output is a valid unsorted output too
  }
  OpCall call = c.op("topk");
  call.in(c.input(0));
  if (k < 0 && c.opset() >= 10) {
    Value kv = c.input(1);
    call.in(c.op("reshape").in(kv).arg("shape", std::vector<int64_t>{}).emit1());
  } else {
    call.arg("k", k);
  }
  std::vector<Value> out = call.arg("axis", axis).arg("largest", largest).outputs(2).emit();
  if (out.size() != 2) return reported();
  c.set_output(0, out[0]);
  c.set_output(1, out[1]);
  return Status::ok();
}

// ---- Einsum ----

// Einsum lowered onto permute, reduce_sum and matmul (Note [Einsum]).
//
// Note [Einsum]
//  Operands are folded left to right. Contracting A with B (subscripts as
//  letters), with `needed` the letters of the output and of later operands:
//    letters of one operand only and not needed   summed out of it first
//    batch   in both, needed        matmul's leading (broadcast) dims
//    contr   in both, not needed    summed by the matmul
//    left    in A only / right  in B only
//  A goes to [batch.., L, K] and B to [batch.., K, R] by a permute (and a
//  reshape where a group has other than one letter: the group's extents
//  must then be known, but for one -1), the product is [batch.., L, R],
//  split back into letters. The last operand sums out what the output does
//  not name and is permuted into the output's order. Refused: ellipses,
//  and a letter twice in one operand (a diagonal).
namespace einsum {

struct Term {
  std::string letters;
  Value v;
  std::vector<int64_t> dims;  // per letter, -1 unknown
};

bool has(const std::string& s, char ch) { return s.find(ch) != std::string::npos; }

std::vector<int64_t> positions(const std::string& from, const std::string& letters) {
  std::vector<int64_t> p;
  for (char ch : letters) p.push_back(static_cast<int64_t>(from.find(ch)));
  return p;
}

int64_t extent(const Term& t, char ch) { return t.dims[t.letters.find(ch)]; }

// Keeps only the letters of `keep` (in t's order), summing out the others.
Term sum_out(C& c, const Term& t, const std::string& keep) {
  std::vector<int64_t> axes;
  Term r;
  for (size_t k = 0; k < t.letters.size(); ++k) {
    if (has(keep, t.letters[k])) {
      r.letters += t.letters[k];
      r.dims.push_back(t.dims[k]);
    } else {
      axes.push_back(static_cast<int64_t>(k));
    }
  }
  r.v = axes.empty() ? t.v : c.op("reduce_sum").in(t.v).arg("axes", axes).arg("keep_dims", false).emit1();
  return r;
}

Value permuted(C& c, const Term& t, const std::string& order) {
  if (order == t.letters) return t.v;
  return c.op("permute").in(t.v).arg("perm", positions(t.letters, order)).emit1();
}

// The product of a group's extents: 1 when empty, -1 when one is unknown.
int64_t group_extent(const Term& t, const std::string& group) {
  int64_t n = 1;
  for (char ch : group) {
    const int64_t e = extent(t, ch);
    if (e < 0) return -1;
    n *= e;
  }
  return n;
}

// v reshaped to [batch (kept).., a, b]; false when both a and b are unknown.
bool to_matrix(C& c, Value& v, size_t batch, const std::string& g1, const std::string& g2, const Term& t) {
  if (g1.size() == 1 && g2.size() == 1) return true;
  const int64_t a = group_extent(t, g1), b = group_extent(t, g2);
  if (a < 0 && b < 0) return false;
  std::vector<int64_t> shape(batch, 0);
  shape.push_back(a);
  shape.push_back(b);
  v = c.op("reshape").in(v).arg("shape", shape).arg("copy_zeros", true).emit1();
  return true;
}

Status contract(C& c, const Term& a_in, const Term& b_in, const std::string& needed, Term& out) {
  std::string keep_a, keep_b;
  for (char ch : a_in.letters)
    if (has(b_in.letters, ch) || has(needed, ch)) keep_a += ch;
  for (char ch : b_in.letters)
    if (has(a_in.letters, ch) || has(needed, ch)) keep_b += ch;
  const Term a = sum_out(c, a_in, keep_a), b = sum_out(c, b_in, keep_b);
  std::string batch, contr, left, right;
  for (char ch : a.letters) {
    if (has(b.letters, ch)) (has(needed, ch) ? batch : contr) += ch;
    else left += ch;
  }
  for (char ch : b.letters)
    if (!has(a.letters, ch)) right += ch;
  Value va = permuted(c, a, batch + left + contr), vb = permuted(c, b, batch + contr + right);
  if (!to_matrix(c, va, batch.size(), left, contr, a) || !to_matrix(c, vb, batch.size(), contr, right, b))
    return c.fail("an Einsum contraction needs its grouped extents known (more than one unknown in a group pair)");
  Value prod = c.op("matmul").in(va).in(vb).emit1();
  out.letters = batch + left + right;
  out.dims.clear();
  for (char ch : batch) out.dims.push_back(std::max(extent(a, ch), extent(b, ch)));
  for (char ch : left) out.dims.push_back(extent(a, ch));
  for (char ch : right) out.dims.push_back(extent(b, ch));
  if (left.size() == 1 && right.size() == 1) {
    out.v = prod;
    return Status::ok();
  }
  // [batch.., L, R] back to one axis per letter.
  std::vector<int64_t> shape(batch.size(), 0);
  int unknown = 0;
  for (size_t k = batch.size(); k < out.dims.size(); ++k) {
    shape.push_back(out.dims[k] < 0 ? -1 : out.dims[k]);
    unknown += out.dims[k] < 0;
  }
  if (unknown > 1) return c.fail("an Einsum result needs the extents of its free indices known (more than one unknown)");
  out.v = c.op("reshape").in(prod).arg("shape", shape).arg("copy_zeros", true).emit1();
  return Status::ok();
}

}  // namespace einsum

// The operands' subscripts of an equation's left side, one per input
// (`quoted`: the equation as messages show it).
Status einsum_operands(C& c, const std::string& lhs, const std::string& quoted, std::vector<std::string>& subs) {
  subs.clear();
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    subs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(subs.size()) != c.num_inputs())
    return c.fail_attr("equation", str_format("%s names %zu operands; the node has %d inputs", quoted.c_str(),
                                              subs.size(), c.num_inputs()));
  return Status::ok();
}

// The output of an equation without "->": the letters seen once, in
// alphabetical order.
std::string einsum_implicit_output(const std::string& lhs) {
  std::string all = lhs, out;
  std::sort(all.begin(), all.end());
  for (char ch : all)
    if (std::isalpha(static_cast<unsigned char>(ch)) && std::count(lhs.begin(), lhs.end(), ch) == 1) out += ch;
  return out;
}

// An Einsum equation with "..." rewritten with letters of its own: each
// operand's ellipsis stands for its leading dims past its explicit letters,
// right-aligned across the operands (numpy's rule: extents of 1 broadcast);
// the output's "..." (or, without "->", the front of the output) takes them
// all. Needs the operands' ranks.
Status expand_einsum_ellipsis(C& c, std::string& eq) {
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> subs;
  RETURN_IF_ERROR(einsum_operands(c, lhs, "'" + eq + "'", subs));
  // Letters the equation does not use, for the ellipsis dims.
  std::string spare;
  for (char ch = 'A'; ch <= 'Z'; ++ch)
    if (eq.find(ch) == std::string::npos) spare += ch;
  for (char ch = 'a'; ch <= 'z'; ++ch)
    if (eq.find(ch) == std::string::npos) spare += ch;
  std::vector<int> count(subs.size(), 0);
  int most = 0;
  for (size_t k = 0; k < subs.size(); ++k) {
    const size_t at = subs[k].find("...");
    if (at == std::string::npos) continue;
    const int rank = c.input_type(static_cast<int>(k)).rank();
    if (rank < 0) return c.fail_attr("equation", "'" + eq + "' has an ellipsis over an operand of unknown rank");
    count[k] = rank - static_cast<int>(subs[k].size() - 3);
    if (count[k] < 0)
      return c.fail(str_format("operand %zu's subscripts '%s' name more dims than its rank %d", k, subs[k].c_str(),
                               rank));
    most = std::max(most, count[k]);
  }
  if (most > static_cast<int>(spare.size()))
    return c.fail_attr("equation", "'" + eq + "' leaves too few letters for its ellipsis");
  const std::string letters = spare.substr(0, static_cast<size_t>(most));
  // The extents each ellipsis letter takes, to refuse broadcasting inside it.
  std::vector<int64_t> extent(static_cast<size_t>(most), -1);
  for (size_t k = 0; k < subs.size(); ++k) {
    const size_t at = subs[k].find("...");
    if (at == std::string::npos) continue;
    const ValueType t = c.input_type(static_cast<int>(k));
    for (int j = 0; j < count[k]; ++j) {
      const size_t letter = static_cast<size_t>(most - count[k] + j);
      const int64_t d = t.dims[at + static_cast<size_t>(j)];
      if (d > 1 && extent[letter] > 1 && d != extent[letter])
        return c.fail_attr("equation", str_format("'%s': the operands' ellipsis dims %lld and %lld do not broadcast",
                                                  eq.c_str(), static_cast<long long>(extent[letter]),
                                                  static_cast<long long>(d)));
      if (d > 1) extent[letter] = d;
    }
    subs[k].replace(at, 3, letters.substr(static_cast<size_t>(most - count[k])));
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    const size_t at = out.find("...");
    if (at != std::string::npos) out.replace(at, 3, letters);
  } else {  // implicit: the ellipsis first, then the letters seen once
    out = letters + einsum_implicit_output(lhs);
  }
  std::string rewritten;
  for (size_t k = 0; k < subs.size(); ++k) rewritten += (k ? "," : "") + subs[k];
  eq = rewritten + "->" + out;
  return Status::ok();
}

Status map_einsum(C& c) {
  using einsum::Term;
  std::string eq;
  for (char ch : c.attr_string("equation", "")) if (ch != ' ') eq += ch;
  const std::string written = eq;
  if (eq.find("...") != std::string::npos) RETURN_IF_ERROR(expand_einsum_ellipsis(c, eq));
  // Messages show the equation as written, and as rewritten where it had an ellipsis.
  const std::string quoted = "'" + written + (written == eq ? "'" : "' (as '" + eq + "')");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> subs;
  RETURN_IF_ERROR(einsum_operands(c, lhs, quoted, subs));
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else {
    out = einsum_implicit_output(lhs);
  }
  std::vector<Term> terms;
  for (int k = 0; k < c.num_inputs(); ++k) {
    const std::string& sub = subs[static_cast<size_t>(k)];
    for (size_t i = 0; i < sub.size(); ++i)
      if (!std::isalpha(static_cast<unsigned char>(sub[i])))
        return c.fail_attr("equation", quoted + " has a character that is not a letter");
    const ValueType t = c.input_type(k);
    if (t.rank() != static_cast<int>(sub.size()))
      return c.fail(str_format("operand %d's subscripts '%s' do not match its rank %d", k, sub.c_str(), t.rank()));
    // An index repeated within an operand takes its diagonal: the two axes
    // moved last, matrix_diag_part, the index once at the end ('ii->i',
    // '...ii->...i'); until no index repeats.
    std::string letters = sub;
    std::vector<int64_t> dims = t.dims;
    Value v = c.input(k);
    for (;;) {
      size_t i = 0, j = std::string::npos;
      for (; i < letters.size() && j == std::string::npos; ++i) j = letters.find(letters[i], i + 1);
      if (j == std::string::npos) break;
      --i;
      std::vector<int64_t> perm, rest_dims;
      std::string rest;
      for (size_t a = 0; a < letters.size(); ++a)
        if (a != i && a != j) {
          perm.push_back(static_cast<int64_t>(a));
          rest += letters[a];
          rest_dims.push_back(dims[a]);
        }
      perm.push_back(static_cast<int64_t>(i));
      perm.push_back(static_cast<int64_t>(j));
      v = c.op("matrix_diag_part").in(c.op("permute").in(v).arg("perm", perm).emit1()).emit1();
      rest_dims.push_back(dims[i] < 0 ? dims[j] : dims[j] < 0 ? dims[i] : std::min(dims[i], dims[j]));
      letters = rest + letters[i];
      dims = rest_dims;
    }
    terms.push_back(Term{letters, v, dims});
  }
  for (char ch : out)
    if (lhs.find(ch) == std::string::npos || std::count(out.begin(), out.end(), ch) > 1)
      return c.fail_attr("equation", quoted + ": output index '" + std::string(1, ch) + "' is not an input index "
                                     "or repeats");
  Term cur = terms[0];
  for (size_t k = 1; k < terms.size(); ++k) {
    std::string needed = out;
    for (size_t j = k + 1; j < terms.size(); ++j) needed += terms[j].letters;
    Term next;
    RETURN_IF_ERROR(einsum::contract(c, cur, terms[k], needed, next));
    cur = next;
  }
  cur = einsum::sum_out(c, cur, out);
  return done(c, 0, einsum::permuted(c, cur, out));
}

// ---- small lowerings onto existing ops ----

Status map_celu(C& c) {
  return done(c, 0, c.op("celu").in(c.input(0)).arg("alpha", c.attr_float("alpha", 1.0)).emit1());
}

Status map_thresholded_relu(C& c) {
  return done(c, 0, c.op("thresholded_relu").in(c.input(0)).arg("alpha", c.attr_float("alpha", 1.0)).emit1());
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
Status map_shrink(C& c) {
  const double lambd = c.attr_float("lambd", 0.5), bias = c.attr_float("bias", 0.0);
  const DataType t = c.input_dtype(0);
  if (t == DataType::kInvalid) return c.fail("the input's dtype is not known");
  Value x = c.input(0);
  Value lo = c.op("less").in(x).in(c.constant_scalar(t, -lambd)).emit1();
  Value hi = c.op("greater").in(x).in(c.constant_scalar(t, lambd)).emit1();
  Value up = c.op("add").in(x).in(c.constant_scalar(t, bias)).emit1();
  Value down = c.op("subtract").in(x).in(c.constant_scalar(t, bias)).emit1();
  Value mid = c.op("where").in(hi).in(down).in(c.constant_scalar(t, 0.0)).emit1();
  return done(c, 0, c.op("where").in(lo).in(up).in(mid).emit1());
}

// EyeLike: ones on the main diagonal of a known 2-D shape.
Status map_eye_like(C& c) {
  const ValueType t = c.input_type(0);
  if (!t.dims_known() || t.dims.size() != 2) return c.fail("the input must be 2-D with known dims");
  const int64_t k = c.attr_int("k", 0);
  DataType dt = t.dtype;
  if (c.has_attr("dtype")) {
    const int64_t code = c.attr_int("dtype", 0);
    dt = dtype_from_onnx(static_cast<int>(code));
    if (dt == DataType::kInvalid) return c.fail_attr("dtype", str_format("= %lld is not supported", static_cast<long long>(code)));
  }
  c.input(0);  // only its shape is read
  const int64_t rows = t.dims[0], cols = t.dims[1];
  if (k == 0) return done(c, 0, c.op("eye").arg("rows", rows).arg("cols", cols).arg("dtype", dt).emit1());
  // Ones at (i, i + k): rows k .. of a taller identity (k > 0), or columns
  // -k .. of a wider one (k < 0).
  const int64_t shift = k > 0 ? std::min(k, cols) : std::min(-k, rows);  // past them: all zeros
  Value eye = c.op("eye").arg("rows", k > 0 ? rows + shift : rows).arg("cols", k > 0 ? cols : cols + shift)
                  .arg("dtype", dt).emit1();
  std::vector<int64_t> begin_size = k > 0 ? std::vector<int64_t>{shift, 0, rows, cols}
                                          : std::vector<int64_t>{0, shift, rows, cols};
  return done(c, 0, c.op("slice").in(eye).arg("begin_size", begin_size).emit1());
}

// Hardmax (opset 13): 1 at the first maximum along the axis, 0 elsewhere.
Status map_hardmax(C& c) {
  const ValueType t = c.input_type(0);
  int64_t axis = 0;
  if (!norm_axis(c.attr_int("axis", -1), t.rank(), axis)) return c.fail_attr("axis", "is out of range for the input");
  if (!t.rank_known || t.dims[static_cast<size_t>(axis)] < 0) return c.fail("the extent along axis must be known");
  Value idx = c.op("argmax").in(c.input(0)).arg("axes", std::vector<int64_t>{axis}).arg("keep_dims", false).emit1();
  return done(c, 0, c.op("one_hot").in(idx).arg("axis", axis).arg("depth", t.dims[static_cast<size_t>(axis)])
                        .arg("dtype", t.dtype).emit1());
}

// LpNormalization: x / ||x||_p along axis (p 1 or 2).
Status map_lp_normalization(C& c) {
  const int64_t p = c.attr_int("p", 2), axis = c.attr_int("axis", -1);
  if (p != 1 && p != 2) return c.fail_attr("p", str_format("= %lld is not 1 or 2", static_cast<long long>(p)));
  Value x = c.input(0);
  Value norm = c.op(p == 1 ? "reduce_norm1" : "reduce_norm2").in(x).arg("axes", std::vector<int64_t>{axis})
                   .arg("keep_dims", true).emit1();
  // A zero vector stays zero (ONNX's reference), not 0 / 0.
  const DataType t = c.input_dtype(0);
  Value zero_norm = c.op("equal").in(norm).in(c.constant_scalar(t, 0.0)).emit1();
  norm = c.op("where").in(zero_norm).in(c.constant_scalar(t, 1.0)).in(norm).emit1();
  return done(c, 0, c.op("divide").in(x).in(norm).emit1());
}

// MeanVarianceNormalization, as ONNX's function body defines it:
// (x - mean) / (sqrt(mean((x - mean)^2)) + 1e-9) over axes.
Status map_mean_variance_normalization(C& c) {
  std::vector<int64_t> axes{0, 2, 3};
  c.attr_ints("axes", axes);
  const DataType t = c.input_dtype(0);
  if (t == DataType::kInvalid) return c.fail("the input's dtype is not known");
  Value x = c.input(0);
  Value mean = c.op("reduce_mean").in(x).arg("axes", axes).arg("keep_dims", true).emit1();
  Value xc = c.op("subtract").in(x).in(mean).emit1();
  Value var = c.op("reduce_mean").in(c.op("multiply").in(xc).in(xc).emit1()).arg("axes", axes).arg("keep_dims", true)
                  .emit1();
  Value sd = c.op("add").in(c.op("sqrt").in(var).emit1()).in(c.constant_scalar(t, 1e-9)).emit1();
  return done(c, 0, c.op("divide").in(xc).in(sd).emit1());
}

// |x|^p summed by `sum`, then the p-th root: sum(|x|^p)^(1/p).
Value p_norm(C& c, Value x, DataType t, int64_t p, const std::function<Value(Value)>& sum) {
  if (p == 1) return sum(c.op("abs").in(x).emit1());
  Value powered = p == 2 ? c.op("multiply").in(x).in(x).emit1()
                         : c.op("pow").in(c.op("abs").in(x).emit1()).in(c.constant_scalar(t, static_cast<double>(p))).emit1();
  Value s = sum(powered);
  return p == 2 ? c.op("sqrt").in(s).emit1()
                : c.op("pow").in(s).in(c.constant_scalar(t, 1.0 / static_cast<double>(p))).emit1();
}

Status map_global_lp_pool(C& c) {
  const int64_t p = c.attr_int("p", 2);
  const int r = c.input_rank(0);
  const DataType t = c.input_dtype(0);
  if (r < 3 || t == DataType::kInvalid) return c.fail("the input's rank (>= 3) and dtype must be known");
  if (p < 1) return c.fail_attr("p", "must be >= 1");
  std::vector<int64_t> axes;
  for (int k = 2; k < r; ++k) axes.push_back(k);
  return done(c, 0, p_norm(c, c.input(0), t, p, [&](Value v) {
                return c.op("reduce_sum").in(v).arg("axes", axes).arg("keep_dims", true).emit1();
              }));
}

// LpPool: the lp_pool2d op (a window's p-norm, padding counted as zeros).
// LpPool over 5-D input: (sum over the window of |x|^p)^(1/p), the sum as
// avgpool3d counting the padding, times the window's volume.
Status map_lp_pool3d(C& c) {
  Window3 w;
  RETURN_IF_ERROR(read_window3(c, w, {}, c.opset() >= 18));
  if (c.opset() >= 18 && c.attr_int("ceil_mode", 0) != 0) return c.fail_attr("ceil_mode", "= 1 is not supported");
  if (w.same) return c.fail_attr("auto_pad", "SAME_UPPER is not supported for 3-D windows");
  const int64_t p = c.attr_int("p", 2);
  if (p < 1) return c.fail_attr("p", "must be >= 1");
  const DataType t = c.input_dtype(0);
  if (t == DataType::kInvalid) return c.fail("x's dtype must be known");
  Value a = c.op("abs").in(c.input(0)).emit1();
  if (p != 1) a = c.op("pow").in(a).in(c.constant_scalar(t, static_cast<double>(p))).emit1();
  OpCall call = c.op("avgpool3d");
  call.in(pad3_if_asymmetric(c, a, w, 0.0));
  window3_args(call, w);
  Value mean =
      call.arg("count_include_pad", int64_t{1}).arg("data_format", int64_t{0}).arg("ceil_mode", int64_t{0}).emit1();
  const double volume = static_cast<double>(w.k[0] * w.k[1] * w.k[2]);
  Value sum = c.op("multiply").in(mean).in(c.constant_scalar(t, volume)).emit1();
  if (p == 1) return done(c, 0, sum);
  return done(c, 0, c.op("pow").in(sum).in(c.constant_scalar(t, 1.0 / static_cast<double>(p))).emit1());
}

Status map_lp_pool(C& c) {
  if (is_3d(c, {})) return map_lp_pool3d(c);
  Window w;
  RETURN_IF_ERROR(read_window(c, w, {}, c.opset() >= 18));
  int64_t ceil = 0;
  if (c.opset() >= 18) ceil = c.attr_int("ceil_mode", 0);
  if (ceil != 0) return c.fail_attr("ceil_mode", "= 1 is not supported");
  const int64_t p = c.attr_int("p", 2);
  if (p < 1) return c.fail_attr("p", "must be >= 1");
  if (w.same) {
    // lp_pool2d has no SAME mode: SAME_UPPER's pads, worked out from the
    // input's extents (out = ceil(in / stride); the odd one at the end).
    const ValueType xt = c.input_type(0);
    if (!xt.dims_known()) return c.fail_attr("auto_pad", "SAME_UPPER needs the input's spatial dims, which are not known");
    const size_t rank = xt.dims.size();
    auto same_pads = [](int64_t in, int64_t k, int64_t s, int64_t d, int64_t& begin, int64_t& end) {
      const int64_t out = (in + s - 1) / s, total = std::max<int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - in);
      begin = total / 2, end = total - total / 2;
    };
    if (!w.one_d) same_pads(xt.dims[rank - 2], w.kh, w.sh, w.dh, w.pt, w.pb);
    same_pads(xt.dims[rank - 1], w.kw, w.sw, w.dw, w.pl, w.pr);
    w.same = 0;
  }
  Value x = pad_if_asymmetric(c, lift(c, c.input(0), w), w, 0.0);
  return done(c, 0, unlift(c, c.op("lp_pool2d").in(x).arg("kH", w.kh).arg("kW", w.kw).arg("sH", w.sh).arg("sW", w.sw)
                                  .arg("pH", w.pt).arg("pW", w.pl).arg("dH", w.dh).arg("dW", w.dw)
                                  .arg("same_mode", int64_t{0}).arg("p", p).arg("data_format", int64_t{0})
                                  .arg("ceil_mode", int64_t{0}).emit1(), w));
}

// NonMaxSuppression: the op's ONNX form (rank-3 boxes); absent optional
// inputs keep ONNX's defaults (no box kept without max_output_boxes_per_class,
// IoU threshold 0, no score threshold), given ones pass as the op's inputs.
Status map_non_max_suppression(C& c) {
  OpCall call = c.op("non_max_suppression").in(c.input(0)).in(c.input(1))
                    .arg("max_output_size", int64_t{0}).arg("iou_threshold", 0.0)
                    .arg("center_point_box", c.attr_int("center_point_box", 0));
  const bool has[3] = {c.has_input(2), c.has_input(3), c.has_input(4)};
  const int given = has[2] ? 3 : has[1] ? 2 : has[0] ? 1 : 0;  // inputs are positional: fill the gaps
  if (given >= 1) call.in(has[0] ? c.input(2) : c.constant_scalar(DataType::kInt64, 0.0));
  if (given >= 2) call.in(has[1] ? c.input(3) : c.constant_scalar(DataType::kFloat32, 0.0));
  if (given >= 3) call.in(c.input(4));
  return done(c, 0, call.emit1());
}

Status map_lrn(C& c) {
  const int64_t size = c.attr_int("size", 0);
  if (size < 1) return c.fail_attr("size", "must be given and >= 1");
  return done(c, 0, c.op("lrn").in(c.input(0)).arg("size", size).arg("alpha", c.attr_float("alpha", 1e-4))
                        .arg("beta", c.attr_float("beta", 0.75)).arg("bias", c.attr_float("bias", 1.0)).emit1());
}

Status map_bit_shift(C& c) {
  const std::string direction = c.attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return c.fail_attr("direction", "= '" + direction + "' must be LEFT or RIGHT");
  return binary(c, direction == "LEFT" ? "shift_left" : "shift_right");
}

// Compress: the slices along axis (or the elements of the flattened input)
// whose condition is true: gather at nonzero(condition).
Status map_compress(C& c) {
  Value x = c.input(0);
  int64_t axis = 0;
  if (c.has_attr("axis")) {
    axis = c.attr_int("axis", 0);
  } else {
    x = c.op("reshape").in(x).arg("shape", std::vector<int64_t>{-1}).emit1();
  }
  Value where = c.op("nonzero").in(c.input(1)).emit1();  // [1, count] for a 1-D condition
  Value idx = c.op("reshape").in(where).arg("shape", std::vector<int64_t>{-1}).emit1();
  return done(c, 0, c.op("gather").in(x).in(idx).arg("axis", axis).emit1());
}

Status map_where(C& c) {
  return done(c, 0, c.op("where").in(c.input(0)).in(c.input(1)).in(c.input(2)).emit1());
}

Status map_trilu(C& c) {
  const int64_t upper = c.attr_int("upper", 1);
  OpCall call = c.op(upper ? "triu" : "tril");
  call.in(c.input(0));
  if (c.has_input(1)) {
    const Tensor* t = c.constant_input(1);
    std::vector<int64_t> kv;
    if (t == nullptr) {
      call.in(c.input(1));  // k computed at run time
    } else {
      if (!t->to_int64s(kv) || kv.size() != 1) return c.fail("input 1 (k) must hold one integer");
      call.arg("k", kv[0]);
    }
  }
  return done(c, 0, call.emit1());
}

// ---- scatter, one-hot, space and depth, resizing ----

Status scatter_mode(C& c, int64_t& mode) {
  const std::string r = c.opset() >= 16 ? c.attr_string("reduction", "none") : "none";
  if (r == "none") mode = 0;
  else if (r == "add") mode = 1;
  else if (r == "mul") mode = 3;
  else if (r == "max") mode = 5;
  else if (r == "min") mode = 6;
  else return c.fail_attr("reduction", "= '" + r + "' is not supported: none, add, mul, max or min");
  return Status::ok();
}

Status map_scatter_elements(C& c) {
  int64_t mode = 0;
  RETURN_IF_ERROR(scatter_mode(c, mode));
  return done(c, 0, c.op("scatter_elements").in(c.input(0)).in(c.input(1)).in(c.input(2))
                        .arg("axis", c.attr_int("axis", 0)).arg("mode", mode).emit1());
}

Status map_scatter_nd(C& c) {
  int64_t mode = 0;
  RETURN_IF_ERROR(scatter_mode(c, mode));
  return done(c, 0, c.op("scatter_nd_update").in(c.input(0)).in(c.input(1)).in(c.input(2)).arg("mode", mode).emit1());
}

Status map_one_hot(C& c) {
  const int64_t axis = c.attr_int("axis", -1);
  // depth: a scalar or one-element tensor of any number type, constant or
  // computed at run time (one_hot's depth input then).
  Value depth_value;
  const Tensor* dt = c.constant_input(1);
  std::vector<double> depth;
  if (dt != nullptr) {
    if (!dt->to_doubles(depth) || depth.size() != 1) return c.fail("input 1 (depth) must hold one value");
    depth_value = c.constant_scalar(DataType::kInt64, std::trunc(depth[0]));
  } else {
    Value d = c.op("cast").in(c.input(1)).arg("dtype", DataType::kInt64).emit1();
    depth_value = c.op("reshape").in(d).arg("shape", std::vector<int64_t>{}).emit1();
  }
  // Indices may be of any number type; a negative one counts from depth.
  Value idx = c.input(0);
  if (c.input_dtype(0) != DataType::kInt64) idx = c.op("cast").in(idx).arg("dtype", DataType::kInt64).emit1();
  Value negative = c.op("less").in(idx).in(c.constant_scalar(DataType::kInt64, 0)).emit1();
  idx = c.op("where").in(negative).in(c.op("add").in(idx).in(depth_value).emit1()).in(idx).emit1();
  OpCall call = c.op("one_hot");
  call.in(idx);
  if (dt != nullptr) call.arg("depth", static_cast<int64_t>(depth[0]));
  else call.in(depth_value);
  call.arg("axis", axis);
  const Tensor* values = c.constant_input(2);
  std::vector<double> v;
  if (values != nullptr) {
    if (!values->to_doubles(v) || v.size() != 2) return c.fail("input 2 (values) must be an [off, on] pair");
    return done(c, 0, call.arg("on", v[1]).arg("off", v[0]).arg("dtype", values->dtype).emit1());
  }
  // [off, on] computed at run time: a 0/1 one-hot picks between them.
  const DataType vt = c.input_dtype(2);
  if (vt == DataType::kInvalid) return c.fail("the dtype of input 2 (values) is not known");
  Value hot = call.arg("on", 1.0).arg("off", 0.0).arg("dtype", DataType::kBool).emit1();
  Value pair = c.input(2);
  Value off = c.op("gather").in(pair).in(c.constant_ints({0}, false)).arg("axis", int64_t{0}).emit1();
  Value on = c.op("gather").in(pair).in(c.constant_ints({1}, false)).arg("axis", int64_t{0}).emit1();
  return done(c, 0, c.op("where").in(hot).in(on).in(off).emit1());
}

// DepthToSpace and SpaceToDepth: the depth_to_space / space_to_depth ops
// (NCHW), which take any extents the block size divides.
Status map_depth_space(C& c, bool to_space) {
  const int64_t b = c.attr_int("blocksize", 0);
  const std::string mode = to_space && c.opset() >= 11 ? c.attr_string("mode", "DCR") : "DCR";
  if (b < 1) return c.fail_attr("blocksize", "must be >= 1");
  if (mode != "DCR" && mode != "CRD") return c.fail_attr("mode", "= '" + mode + "' is not supported: DCR or CRD");
  OpCall call = c.op(to_space ? "depth_to_space" : "space_to_depth");
  call.in(c.input(0)).arg("block_size", b).arg("data_format", int64_t{0});
  if (to_space) call.arg("mode", static_cast<int64_t>(mode == "CRD"));
  return done(c, 0, call.emit1());
}

// Nearest-neighbour resizing by whole factors is element repetition: with
// coordinate modes half_pixel / pytorch_half_pixel and rounding to the
// nearest, or asymmetric and floor, output position k*s+j reads input k.
Status resize_nearest(C& c, Value x, const std::vector<double>& scales) {
  const int r = static_cast<int>(scales.size());
  for (int d = 0; d < r; ++d) {
    const double sc = scales[static_cast<size_t>(d)];
    const int64_t k = static_cast<int64_t>(std::llround(sc));
    if (k < 1 || std::fabs(sc - static_cast<double>(k)) > 1e-6)
      return c.fail(str_format("scale %g along dim %d is not supported: whole factors >= 1 only", sc, d));
    if (k == 1) continue;
    x = c.op("repeat").in(x).arg("axis", static_cast<int64_t>(d)).arg("repeats", std::vector<int64_t>{k}).emit1();
  }
  return done(c, 0, x);
}

// Resize over H and W of a 4-D input goes to the resize op (Note [Resize
// taps] in libops/ops/image/resize.h): every mode, coordinate mode and
// nearest mode (tf_crop_and_resize with its roi, constant or computed at
// run time, and extrapolation_value). Other ranks take whole nearest
// factors only (repeat along each axis).
Status map_resize(C& c) {
  const std::string mode = c.attr_string("mode", "nearest");
  std::string coord = "asymmetric", nearest = "round_prefer_floor", policy = "stretch";
  double cubic_a = -0.75, extrapolation = 0;
  int64_t exclude = 0, antialias = 0;
  std::vector<int64_t> axes;
  if (c.opset() >= 11) {
    coord = c.attr_string("coordinate_transformation_mode", "half_pixel");
    nearest = c.attr_string("nearest_mode", "round_prefer_floor");
    cubic_a = c.attr_float("cubic_coeff_a", -0.75);
    extrapolation = c.attr_float("extrapolation_value", 0.0);  // tf_crop_and_resize only
    exclude = c.attr_int("exclude_outside", 0);
  } else {
    nearest = "floor";
  }
  if (c.opset() >= 18) {
    antialias = c.attr_int("antialias", 0) != 0 ? 1 : 0;  // linear and cubic only; nearest ignores it
    c.attr_ints("axes", axes);
    policy = c.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      return c.fail_attr("keep_aspect_ratio_policy", "= '" + policy + "' is not stretch, not_larger or not_smaller");
  }
  static const char* const kModes[] = {"nearest", "linear", "cubic"};
  static const char* const kCoords[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                        "tf_half_pixel_for_nn", "half_pixel_symmetric", "tf_crop_and_resize"};
  static const char* const kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  auto code = [](const auto& names, const std::string& v) -> int64_t {
    for (size_t k = 0; k < std::size(names); ++k)
      if (v == names[k]) return static_cast<int64_t>(k);
    return -1;
  };
  const int64_t mode_code = code(kModes, mode), coord_code = code(kCoords, coord), nearest_code = code(kNearest, nearest);
  if (mode_code < 0) return c.fail_attr("mode", "= '" + mode + "' is not nearest, linear or cubic");
  if (coord_code < 0)
    return c.fail_attr("coordinate_transformation_mode", "= '" + coord + "' is not supported");
  if (nearest_code < 0) return c.fail_attr("nearest_mode", "= '" + nearest + "' is not supported");

  const int scales_at = c.opset() >= 11 ? 2 : 1;
  // roi: read by tf_crop_and_resize only (ignored otherwise, as ONNX says).
  const bool crop = coord == "tf_crop_and_resize";
  if (c.opset() >= 11 && c.has_input(1) && !crop) c.constant_input(1);
  const ValueType t = c.input_type(0);
  const int rank = t.rank();
  // Scales or sizes: constants, or values computed at run time.
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  Value runtime_scales, runtime_sizes;
  if (c.has_input(scales_at)) {
    const Tensor* st = c.constant_input(scales_at);
    if (st == nullptr) runtime_scales = c.input(scales_at);
    else if (!st->to_doubles(scales)) return c.fail("the scales are not numbers");
  }
  if (scales.empty() && !runtime_scales.valid() && c.opset() >= 11 && c.has_input(3)) {
    const Tensor* zt = c.constant_input(3);
    if (zt == nullptr) runtime_sizes = c.input(3);
    else if (!zt->to_int64s(sizes)) return c.fail("input 3 (sizes) is not an integer tensor");
  }
  if (scales.empty() && sizes.empty() && !runtime_scales.valid() && !runtime_sizes.valid())
    return c.fail("neither scales nor sizes is given");
  // axes: the dims the scales or sizes name; the others keep their extent.
  if (!axes.empty()) {
    if (rank < 0) return c.fail_attr("axes", "is given and the input's rank is not known");
    for (int64_t& a : axes)
      if (!norm_axis(a, rank, a)) return c.fail_attr("axes", "holds an axis outside the input's rank");
    std::vector<int64_t> all;
    for (int64_t d = 0; d < rank; ++d) all.push_back(d);
    if (axes == all) axes.clear();
  }
  if (rank != 4) {  // any rank: whole nearest factors, by repeat
    if (crop)
      return c.fail_attr("coordinate_transformation_mode", "= 'tf_crop_and_resize' is supported for 4-D inputs only");
    if (runtime_scales.valid() || runtime_sizes.valid())
      return c.fail("scales or sizes computed at run time are supported for 4-D inputs only");
    if (!axes.empty()) return c.fail_attr("axes", "other than every axis are supported for 4-D inputs only");
    if (policy != "stretch")
      return c.fail_attr("keep_aspect_ratio_policy", "other than stretch is supported for 4-D inputs only");
    if (mode != "nearest") return c.fail_attr("mode", "= '" + mode + "' is supported over the H and W of 4-D inputs only");
    if (!sizes.empty()) {
      if (!t.dims_known()) return c.fail("sizes needs the input's dims to be known");
      for (size_t d = 0; d < sizes.size(); ++d) {
        if (t.dims[d] == 0 || sizes[d] % t.dims[d] != 0) return c.fail("sizes must be whole multiples of the input's dims");
        scales.push_back(static_cast<double>(sizes[d] / t.dims[d]));
      }
    }
    if (t.rank() >= 0 && static_cast<size_t>(t.rank()) != scales.size())
      return c.fail(str_format("%zu scales or sizes for a rank-%d input", scales.size(), t.rank()));
    return resize_nearest(c, c.input(0), scales);
  }
  // 4-D: N and C stay, H and W resize (resize checks, when it runs, that a
  // size or scale for all four dims keeps N and C). The values, constant or
  // computed at run time, become resize's size or scales input.
  const bool by_sizes = !sizes.empty() || runtime_sizes.valid();
  Value vals;
  if (runtime_sizes.valid()) {
    vals = runtime_sizes;
  } else if (runtime_scales.valid()) {
    vals = runtime_scales;
  } else if (by_sizes) {
    vals = c.constant_ints(sizes);
  } else {
    Tensor st;
    st.dtype = DataType::kFloat32;
    st.onnx_type = dtype_to_onnx(DataType::kFloat32);
    st.dims = {static_cast<int64_t>(scales.size())};
    st.data.resize(scales.size() * 4);
    for (size_t k = 0; k < scales.size(); ++k) {
      const float f = static_cast<float>(scales[k]);
      std::memcpy(st.data.data() + 4 * k, &f, 4);
    }
    vals = c.constant(std::move(st));
  }
  if (!axes.empty()) {  // H and W only, in either order
    if (axes == std::vector<int64_t>{3, 2}) vals = c.op("reverse").in(vals).arg("axes", std::vector<int64_t>{0}).emit1();
    else if (axes != std::vector<int64_t>{2, 3})
      return c.fail_attr("axes", "other than every axis, or H and W (2 and 3), are not supported");
  }
  Value scales_in;
  if (by_sizes && policy != "stretch") {
    // keep_aspect_ratio_policy: one scale for H and W, the smallest (or
    // largest) size / extent; the extents round(scale * in).
    if (axes.empty()) vals = c.op("slice_axes").in(vals).in(c.constant_ints({2})).in(c.constant_ints({4})).emit1();
    Value in_hw = c.op("cast").in(c.op("shape_of").in(c.input(0)).arg("start", int64_t{2}).emit1())
                      .arg("dtype", DataType::kFloat32).emit1();
    Value ratio = c.op("divide").in(c.op("cast").in(vals).arg("dtype", DataType::kFloat32).emit1()).in(in_hw).emit1();
    Value common = c.op(policy == "not_larger" ? "reduce_min" : "reduce_max").in(ratio).arg("keep_dims", true).emit1();
    Value out = c.op("floor").in(c.op("add").in(c.op("multiply").in(common).in(in_hw).emit1())
                                  .in(c.constant_scalar(DataType::kFloat32, 0.5)).emit1()).emit1();
    vals = c.op("cast").in(out).arg("dtype", DataType::kInt64).emit1();
    scales_in = c.op("concat").in(common).in(common).arg("axis", int64_t{0}).emit1();
  }
  OpCall call = c.op("resize");
  call.in(c.input(0));
  if (by_sizes) {
    call.in(vals);
    if (scales_in.valid()) call.in(scales_in);
    else if (crop)  // no scales; the roi follows
      call.in(c.op("cast").in(c.constant_ints(std::vector<int64_t>{})).arg("dtype", DataType::kFloat32).emit1());
  } else {
    call.in(c.constant_ints(std::vector<int64_t>{})).in(vals);  // no size: the scales decide
  }
  if (crop && c.opset() >= 11 && c.has_input(1)) {
    // ONNX's roi: a start then an end per dim, or per axis of `axes` (H and
    // W in either order: [3, 2] swaps each pair into the op's H, W order).
    Value roi = c.input(1);
    if (axes == std::vector<int64_t>{3, 2})
      roi = c.op("gather").in(roi).in(c.constant_ints({1, 0, 3, 2})).emit1();
    call.in(roi);
  }
  return done(c, 0, call.arg("mode", mode_code).arg("coordinate_mode", coord_code).arg("nearest_mode", nearest_code)
                        .arg("exclude_outside", exclude).arg("antialias", antialias).arg("cubic_coeff_a", cubic_a)
                        .arg("extrapolation_value", extrapolation).emit1());
}

// ---- recurrent layers ----

// LSTM, GRU and RNN onto lstm_layer / gru_layer / rnn_layer with ONNX's
// weight layout (weights_format 1): W, R, B and P are passed as they are.
// Bidirectional runs use direction 4 (y [T, 2, N, H], ONNX's Y) in layout
// 0, and direction 3 (y [N, T, 2H], reshaped to [N, T, 2, H]) in layout 1.
enum class Recurrent { kLstm, kGru, kRnn };

Status map_recurrent(C& c, Recurrent kind) {
  const bool lstm = kind == Recurrent::kLstm, rnn = kind == Recurrent::kRnn;
  const int n_acts = lstm ? 3 : (rnn ? 1 : 2);
  const std::string dir = c.attr_string("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return c.fail_attr("direction", "= '" + dir + "' is not forward, reverse or bidirectional");
  const bool both = dir == "bidirectional";
  const int64_t layout = c.opset() >= 14 ? c.attr_int("layout", 0) : 0;
  if (layout != 0 && layout != 1) return c.fail_attr("layout", "= " + std::to_string(layout) + " is not 0 or 1");
  if (c.has_attr("clip")) return c.fail_attr("clip", "is not supported (lstm_layer clips the cell state, not the gates)");
  if (lstm && c.attr_int("input_forget", 0) != 0) return c.fail_attr("input_forget", "= 1 is not supported");
  const int64_t hidden = c.attr_int("hidden_size", -1);

  // Activations: libnd4j's codes (lstm_layer's gate_act ...), each taking
  // alpha / beta from the lists in order when it uses them.
  static const struct { const char* onnx; int code; bool alpha, beta; } kActs[] = {
      {"Tanh", 0, false, false},          {"Relu", 1, false, false},         {"Sigmoid", 2, false, false},
      {"Affine", 3, true, true},          {"LeakyRelu", 4, true, false},     {"ThresholdedRelu", 5, true, false},
      {"ScaledTanh", 6, true, true},      {"HardSigmoid", 7, true, true},    {"Elu", 8, true, false},
      {"Softsign", 9, false, false},      {"Softplus", 10, false, false}};
  std::vector<std::string> names = lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                   : rnn  ? std::vector<std::string>{"Tanh"}
                                          : std::vector<std::string>{"Sigmoid", "Tanh"};
  std::vector<std::string> given;
  std::vector<double> alphas, betas;
  const bool has_alphas = c.attr_floats("activation_alpha", alphas), has_betas = c.attr_floats("activation_beta", betas);
  if (c.attr_strings("activations", given)) {
    if (given.size() != static_cast<size_t>(n_acts * (both ? 2 : 1)))
      return c.fail_attr("activations", str_format("has %zu names; %d expected", given.size(), n_acts * (both ? 2 : 1)));
    if (both && !std::equal(given.begin(), given.begin() + n_acts, given.begin() + n_acts))
      return c.fail_attr("activations", "differ between the two directions, which is not supported");
    names.assign(given.begin(), given.begin() + n_acts);
  }
  int codes[3] = {0, 0, 0};
  double act_alpha[3], act_beta[3];
  size_t next_alpha = 0, next_beta = 0;
  for (int k = 0; k < n_acts; ++k) {
    act_alpha[k] = act_beta[k] = std::numeric_limits<double>::quiet_NaN();  // the op's default
    const auto* a = std::find_if(std::begin(kActs), std::end(kActs), [&](const auto& e) { return names[k] == e.onnx; });
    if (a == std::end(kActs)) return c.fail_attr("activations", "'" + names[k] + "' is not supported");
    codes[k] = a->code;
    if (a->alpha && next_alpha < alphas.size()) act_alpha[k] = alphas[next_alpha++];
    if (a->beta && next_beta < betas.size()) act_beta[k] = betas[next_beta++];
  }
  // Both directions list their own values: the second half must repeat the first.
  auto check_list = [&](const char* attr, bool has, const std::vector<double>& v, size_t used) -> Status {
    const size_t want = used * (both ? 2 : 1);
    const auto half = v.begin() + static_cast<std::ptrdiff_t>(used);
    if (has && (v.size() != want || (both && !std::equal(v.begin(), half, half))))
      return c.fail_attr(attr, str_format("has %zu values; the activations take %zu%s", v.size(), want,
                                          both ? ", the same for both directions" : ""));
    return Status::ok();
  };
  RETURN_IF_ERROR(check_list("activation_alpha", has_alphas, alphas, next_alpha));
  RETURN_IF_ERROR(check_list("activation_beta", has_betas, betas, next_beta));

  Value x = c.input(0), w = c.input(1), r = c.input(2);
  const ValueType rt = c.input_type(2);
  if (hidden >= 0 && rt.rank() == 3 && rt.dims[2] >= 0 && rt.dims[2] != hidden)
    return c.fail_attr("hidden_size", str_format("= %lld differs from R's last dim %lld", static_cast<long long>(hidden),
                                                 static_cast<long long>(rt.dims[2])));
  const int64_t H = rt.rank() == 3 ? rt.dims[2] : hidden;
  if (both && layout == 1 && H < 0) return c.fail("the hidden size is not known (hidden_size or R's dims)");
  OpCall call = c.op(lstm ? "lstm_layer" : (rnn ? "rnn_layer" : "gru_layer"));
  call.in(x).in(w).in(r);
  const bool has_b = c.has_input(3), has_len = c.has_input(4), has_h0 = c.has_input(5);
  const bool has_c0 = lstm && c.has_input(6), has_p = lstm && c.has_input(7);
  // Initial states are [D, N, H] in layout 0 and [N, D, H] in layout 1.
  auto state_in = [&](int k) {
    Value v = c.input(k);
    return layout == 1 ? c.op("permute").in(v).arg("perm", std::vector<int64_t>{1, 0, 2}).emit1() : v;
  };
  if (has_b) call.in(c.input(3));
  if (has_len) call.in(c.input(4));
  if (has_h0) call.in(state_in(5));
  if (has_c0) call.in(state_in(6));
  if (has_p) call.in(c.input(7));
  const bool want_y = c.output_used(0), want_h = c.num_outputs() > 1 && c.output_used(1);
  const bool want_c = lstm && c.num_outputs() > 2 && c.output_used(2);
  const int direction = both ? (layout == 0 ? 4 : 3) : (dir == "reverse" ? 1 : 0);
  call.arg("data_format", static_cast<int64_t>(layout == 1 ? 1 : (both ? 3 : 0)))
      .arg("direction", static_cast<int64_t>(direction))
      .arg("weights_format", static_cast<int64_t>(1))
      .arg("has_biases", has_b).arg("has_seq_len", has_len).arg("has_init_h", has_h0)
      .arg("ret_full_seq", want_y || (!want_h && !want_c)).arg("ret_last_h", want_h);
  if (rnn) {
    call.arg("activation", static_cast<int64_t>(codes[0])).arg("alpha", act_alpha[0]).arg("beta", act_beta[0]);
  } else {
    call.arg("gate_act", static_cast<int64_t>(codes[0])).arg("cell_act", static_cast<int64_t>(codes[1]))
        .arg("gate_alpha", act_alpha[0]).arg("gate_beta", act_beta[0])
        .arg("cell_alpha", act_alpha[1]).arg("cell_beta", act_beta[1]);
  }
  if (lstm) {
    call.arg("out_act", static_cast<int64_t>(codes[2])).arg("out_alpha", act_alpha[2]).arg("out_beta", act_beta[2]);
    call.arg("has_init_c", has_c0).arg("has_peepholes", has_p).arg("ret_last_c", want_c);
  } else if (!rnn) {
    call.arg("linear_before_reset", c.attr_int("linear_before_reset", 0) != 0);
  }
  const int n_out = (want_y || (!want_h && !want_c)) + want_h + want_c;
  std::vector<Value> outs = call.outputs(n_out).emit();
  if (outs.size() != static_cast<size_t>(n_out)) return reported();
  int k = 0;
  if (want_y || (!want_h && !want_c)) {
    Value y = outs[k++];
    if (!both) y = c.op("expand_dims").in(y).arg("axis", static_cast<int64_t>(layout == 1 ? 2 : 1)).emit1();
    else if (layout == 1)  // [N, T, 2H]: forward units, then backward ones
      y = c.op("reshape").in(y).arg("shape", std::vector<int64_t>{0, 0, 2, H}).arg("copy_zeros", true).emit1();
    if (want_y) RETURN_IF_ERROR(done(c, 0, y));
  }
  // Final states: [N, H] or [2, N, H] -> ONNX's [D, N, H] or [N, D, H].
  auto state_out = [&](int slot, Value v) {
    if (!both) v = c.op("expand_dims").in(v).arg("axis", static_cast<int64_t>(layout == 1 ? 1 : 0)).emit1();
    else if (layout == 1) v = c.op("permute").in(v).arg("perm", std::vector<int64_t>{1, 0, 2}).emit1();
    return done(c, slot, v);
  };
  if (want_h) RETURN_IF_ERROR(state_out(1, outs[k++]));
  if (want_c) RETURN_IF_ERROR(state_out(2, outs[k++]));
  return Status::ok();
}

// Upsample (opsets 7-9): nearest by whole factors, or linear over H and W
// of a 4-D input (Resize's asymmetric coordinates).
Status map_upsample(C& c) {
  const std::string mode = c.attr_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear") return c.fail_attr("mode", "= '" + mode + "' is not nearest or linear");
  std::vector<double> scales;
  if (c.opset() < 9) {
    if (!c.attr_floats("scales", scales)) return c.fail_attr("scales", "is required");
  } else {
    const Tensor* st = c.constant_input(1);
    if (st == nullptr) {
      // Scales computed at run time: resize by them over H and W of a 4-D
      // input, with Upsample's asymmetric coordinates (nearest: floor).
      if (c.input_rank(0) != 4) return c.fail("input 1 (scales) is computed at run time; the input must then be 4-D");
      Value sc = c.op("cast").in(c.input(1)).arg("dtype", DataType::kFloat32).emit1();
      return done(c, 0, c.op("resize").in(c.input(0)).in(c.constant_ints(std::vector<int64_t>{})).in(sc)
                            .arg("mode", static_cast<int64_t>(mode == "nearest" ? 0 : 1))
                            .arg("coordinate_mode", int64_t{1}).arg("nearest_mode", int64_t{2}).emit1());
    }
    if (!st->to_doubles(scales)) return c.fail("input 1 (scales) is not numbers");
  }
  if (mode == "nearest") return resize_nearest(c, c.input(0), scales);
  const ValueType t = c.input_type(0);
  if (scales.size() != 4 || scales[0] != 1.0 || scales[1] != 1.0 || t.rank() != 4 || t.dims[2] < 0 || t.dims[3] < 0)
    return c.fail_attr("mode", "= 'linear' is supported over the known H and W of 4-D inputs only");
  return done(c, 0, c.op("resize").in(c.input(0))
                        .arg("height", static_cast<int64_t>(std::floor(static_cast<float>(t.dims[2]) *
                                                                       static_cast<float>(scales[2]))))
                        .arg("width", static_cast<int64_t>(std::floor(static_cast<float>(t.dims[3]) *
                                                                      static_cast<float>(scales[3]))))
                        .arg("mode", static_cast<int64_t>(1)).arg("coordinate_mode", static_cast<int64_t>(1))
                        .arg("scale_h", scales[2]).arg("scale_w", scales[3]).emit1());
}

// ---- Random numbers
//
// Note [ONNX random ops]
//  libops' random ops are functions of an explicit seed (threefry, as JAX;
//  docs/ops.md random_uniform): an imported random node draws the same
//  numbers on every run, where ONNX Runtime's seeded generator moves on from
//  run to run. The seed attribute (a float) gives the seed by its bit
//  pattern. A node without one gets a seed hashed from its first output's
//  name: the random nodes of one model draw different numbers, and every
//  load of the model draws the same ones (ONNX leaves an unseeded
//  generator's numbers unspecified).
int64_t random_seed(C& c) {
  if (c.has_attr("seed")) {
    const float f = static_cast<float>(c.attr_float("seed", 0.0));
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
  }
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  const std::string& key = c.num_outputs() > 0 ? c.node().outputs[0] : c.node().name;
  for (const unsigned char ch : key) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return static_cast<int64_t>(h);
}

// The dtype attribute (`fallback` where it is absent), one of `allowed`.
Status dtype_attr(C& c, DataType fallback, const std::vector<DataType>& allowed, DataType& out) {
  if (c.has_attr("dtype")) {
    const int code = static_cast<int>(c.attr_int("dtype", 0));
    out = dtype_from_onnx(code);
    if (std::find(allowed.begin(), allowed.end(), out) == allowed.end())
      return c.fail_attr("dtype", str_format("= %s is not supported here", onnx_type_name(code)));
    return Status::ok();
  }
  if (fallback == DataType::kInvalid) return c.fail("the dtype of input 0 is not known and no dtype attribute is given");
  if (std::find(allowed.begin(), allowed.end(), fallback) == allowed.end())
    return c.fail(str_format("input 0 has dtype %s, which is not a dtype of this op's output; give the dtype attribute",
                             dtype_name(fallback)));
  out = fallback;
  return Status::ok();
}

const std::vector<DataType> kRandomFloats = {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32,
                                             DataType::kFloat64};

// A draw of input 0's shape: as args where import knows its dims, else
// from shape_of at run time.
OpCall& shape_of_input0(C& c, OpCall& call) {
  const ValueType vt = c.input_type(0);
  Value x = c.input(0);
  if (vt.dims_known()) return call.arg("shape", vt.dims);
  return call.in(c.op("shape_of").in(x).emit1());
}

// RandomUniform(Like) and RandomNormal(Like): low/high and mean/scale.
Status map_random(C& c, bool normal, bool like) {
  DataType t;
  RETURN_IF_ERROR(dtype_attr(c, like ? c.input_dtype(0) : DataType::kFloat32, kRandomFloats, t));
  OpCall call = c.op(normal ? "random_normal" : "random_uniform");
  if (like) {
    shape_of_input0(c, call);
  } else {
    std::vector<int64_t> shape;
    if (!c.attr_ints("shape", shape)) return c.fail_attr("shape", "is required");
    call.arg("shape", shape);
  }
  call.arg("seed", random_seed(c)).arg("dtype", t);
  if (normal) call.arg("mean", c.attr_float("mean", 0.0)).arg("stddev", c.attr_float("scale", 1.0));
  else call.arg("min", c.attr_float("low", 0.0)).arg("max", c.attr_float("high", 1.0));
  return done(c, 0, call.emit1());
}

// Bernoulli: 1 where a uniform draw in [0, 1) is below the probability.
Status map_bernoulli(C& c) {
  const DataType pt = c.input_dtype(0);
  if (!dtype_is_float(pt)) return c.fail("input 0 (the probabilities) must have a known float dtype");
  DataType t;
  RETURN_IF_ERROR(dtype_attr(c, pt,
                             {DataType::kBool, DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64,
                              DataType::kUInt8, DataType::kUInt16, DataType::kUInt32, DataType::kUInt64,
                              DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32, DataType::kFloat64},
                             t));
  OpCall draw = c.op("random_uniform");
  shape_of_input0(c, draw);
  Value u = draw.arg("seed", random_seed(c)).arg("dtype", pt).emit1();
  Value one = c.op("less").in(u).in(c.input(0)).emit1();
  if (t == DataType::kBool) return done(c, 0, one);
  return done(c, 0, c.op("cast").in(one).arg("dtype", t).emit1());
}

Status map_multinomial(C& c) {
  DataType t;  // ONNX's default is int32
  RETURN_IF_ERROR(dtype_attr(c, DataType::kInt32, {DataType::kInt32, DataType::kInt64}, t));
  const int64_t samples = c.attr_int("sample_size", 1);
  return done(c, 0, c.op("random_multinomial").in(c.input(0)).arg("seed", random_seed(c))
                        .arg("num_samples", std::vector<int64_t>{samples}).arg("dtype", t).emit1());
}

// ---- Quantization (per tensor and per axis; int8, uint8, int16, uint16)
//
// Composed of element-wise ops: x / scale, rounded half to even, plus the
// zero point, saturated to the integer dtype. Block quantization, 4-bit
// and float8 dtypes are refused.

bool integer_range(DataType t, double& lo, double& hi) {
  switch (t) {
    case DataType::kUInt8: lo = 0; hi = 255; return true;
    case DataType::kInt8: lo = -128; hi = 127; return true;
    case DataType::kUInt16: lo = 0; hi = 65535; return true;
    case DataType::kInt16: lo = -32768; hi = 32767; return true;
    default: return false;
  }
}


// Input k (a scale or a zero point) shaped to broadcast against x: as it is
// when a scalar, else a 1-D tensor laid along `axis` of x; with block_size
// (blocked quantization), x's rank with ceil(extent / block_size) along axis,
// each entry repeated over its block and the last block cut to x's extent.
Status along_axis(C& c, int k, Value& v) {
  const ValueType vt = c.input_type(k);
  v = c.input(k);
  c.ignore_attr("axis");  // moot for a scalar scale
  const int64_t block = c.opset() >= 21 ? c.attr_int("block_size", 0) : 0;
  if (block < 0) return c.fail_attr("block_size", "must be >= 0");
  const int rank = c.input_rank(0);
  int64_t axis = 0;
  if (block > 0) {
    if (rank < 1 || vt.rank() != rank || !norm_axis(c.attr_int("axis", 1), rank, axis))
      return c.fail(str_format("input %d has rank %d; blocked quantization (block_size %lld) needs x's rank, %s", k,
                               vt.rank(), static_cast<long long>(block),
                               rank < 1 ? "which is not known" : std::to_string(rank).c_str()));
    Value rep = c.op("repeat").in(v).arg("axis", axis).arg("repeats", std::vector<int64_t>{block}).emit1();
    Value extent = c.op("shape_of").in(c.input(0)).arg("start", axis).arg("end", axis + 1).emit1();
    v = c.op("slice_axes").in(rep).in(c.constant_ints({0})).in(extent).in(c.constant_ints({axis})).emit1();
    return Status::ok();
  }
  if (vt.rank() == 0) return Status::ok();
  if (vt.rank() == 1 && vt.dims[0] == 1) return Status::ok();  // a one-element 1-D: broadcasts as a scalar
  if (vt.rank() != 1 || rank < 1 || !norm_axis(c.opset() >= 13 ? c.attr_int("axis", 1) : 1, rank, axis))
    return c.fail(str_format("input %d must be a scalar, or 1-D along axis of an input of known rank", k));
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(axis)] = -1;
  v = c.op("reshape").in(v).arg("shape", shape).emit1();
  return Status::ok();
}

// The quantized type of QuantizeLinear: the zero point's, else
// output_dtype, else uint8; a libops dtype or a low-precision format.
struct QuantType {
  DataType dtype = DataType::kInvalid;  // the stored elements'
  int lowp = 0;                         // Note [Low-precision values]
};

// Integer ranges of the integer quantized types.
bool quant_range(const QuantType& q, double& lo, double& hi) {
  switch (q.lowp) {
    case 7: lo = -8; hi = 7; return true;
    case 8: lo = 0; hi = 15; return true;
    case 9: lo = -2; hi = 1; return true;
    case 10: lo = 0; hi = 3; return true;
    case 0: return integer_range(q.dtype, lo, hi);
    default: return false;
  }
}

Status quantized_type(C& c, QuantType& q) {
  if (c.has_input(2)) {
    q.dtype = c.input_dtype(2);
    q.lowp = c.input_lowp(2);
  } else {
    q.dtype = DataType::kUInt8;
  }
  if (c.opset() >= 21) {
    const int code = static_cast<int>(c.attr_int("output_dtype", 0));
    if (code != 0) {
      QuantType want{dtype_from_onnx(code), lowp_from_onnx(code)};
      if (want.lowp != 0) want.dtype = lowp_storage_dtype(want.lowp);
      if (c.has_input(2) && (want.dtype != q.dtype || want.lowp != q.lowp))
        return c.fail_attr("output_dtype", "differs from the zero point's dtype");
      q = want;
    }
  }
  double lo, hi;
  const bool float_lowp = q.lowp >= 1 && q.lowp <= 6 && q.lowp != 5;
  if (!float_lowp && !quant_range(q, lo, hi))
    return c.fail(str_format("the quantized dtype %s is not supported: int8, uint8, int16, uint16, int4, uint4, "
                             "int2, uint2, float8 or float4",
                             q.dtype == DataType::kInvalid ? "(not known)" : dtype_name(q.dtype)));
  return Status::ok();
}

Status map_quantize_linear(C& c) {
  const bool saturate = c.opset() >= 19 ? c.attr_int("saturate", 1) != 0 : true;
  QuantType qt;
  RETURN_IF_ERROR(quantized_type(c, qt));
  const DataType xt = c.input_dtype(0), st = c.input_dtype(1);
  if (xt == DataType::kInvalid || st == DataType::kInvalid) return c.fail("the dtypes of x and y_scale must be known");
  DataType ct = compute_dtype(st);
  if (c.opset() >= 23) {  // the division's precision; y_scale's dtype when 0
    const int64_t precision = c.attr_int("precision", 0);
    const DataType p = dtype_from_onnx(static_cast<int>(precision));
    if (precision != 0 && p != DataType::kFloat32 && p != DataType::kFloat64 && p != st)
      return c.fail_attr("precision", str_format("= %s is not supported: float or double",
                                                 onnx_type_name(static_cast<int>(precision))));
    if (precision != 0) ct = compute_dtype(p);
  }
  Value scale, zp;
  RETURN_IF_ERROR(along_axis(c, 1, scale));
  if (c.has_input(2)) RETURN_IF_ERROR(along_axis(c, 2, zp));
  Value x = cast_to(c, c.input(0), xt, ct);
  Value y = c.op("divide").in(x).in(cast_to(c, scale, st, ct)).emit1();
  c.set_output_lowp(0, qt.lowp);
  if (qt.lowp >= 1 && qt.lowp <= 4)  // float8: the zero point is 0 (ONNX's reference leaves it out)
    return done(c, 0, lowp_cast(c, y, 0, qt.lowp, DataType::kInvalid, saturate, "up"));
  if (qt.lowp == 6) {  // float4 E2M1: plus the zero point, rounded and saturated
    if (zp.valid()) y = c.op("add").in(y).in(lowp_cast(c, zp, qt.lowp, 0, ct, true, "up")).emit1();
    return done(c, 0, lowp_cast(c, y, 0, qt.lowp, DataType::kInvalid, true, "up"));
  }
  double lo = 0, hi = 0;
  quant_range(qt, lo, hi);
  y = c.op("rint").in(y).emit1();
  if (zp.valid()) y = c.op("add").in(y).in(cast_to(c, zp, qt.dtype, ct)).emit1();
  y = c.op("clip").in(y).arg("lo", lo).arg("hi", hi).emit1();
  return done(c, 0, c.op("cast").in(y).arg("dtype", qt.dtype).emit1());
}

Status map_dequantize_linear(C& c) {
  const DataType xt = c.input_dtype(0), st = c.input_dtype(1);
  const int x_lowp = c.input_lowp(0);
  double lo, hi;
  if (x_lowp == 0 && !integer_range(xt, lo, hi) && xt != DataType::kInt32)
    return c.fail(str_format("x's dtype %s is not supported: int8, uint8, int16, uint16, int32, int4, uint4, int2, "
                             "uint2, float8 or float4",
                             xt == DataType::kInvalid ? "(not known)" : dtype_name(xt)));
  if (!dtype_is_float(st)) return c.fail("y_scale must have a known float dtype");
  DataType out = st;
  if (c.opset() >= 23) {  // the result's dtype; y_scale's when 0
    const int64_t code = c.attr_int("output_dtype", 0);
    if (code != 0) {
      out = dtype_from_onnx(static_cast<int>(code));
      if (!dtype_is_float(out))
        return c.fail_attr("output_dtype", str_format("= %s is not a float dtype libops supports",
                                                      onnx_type_name(static_cast<int>(code))));
    }
  }
  const DataType ct = compute_dtype(st);
  Value scale, zp;
  RETURN_IF_ERROR(along_axis(c, 1, scale));
  if (c.has_input(2)) RETURN_IF_ERROR(along_axis(c, 2, zp));
  // The stored elements as numbers: low-precision ones decoded.
  auto as_numbers = [&](Value v, int lowp) {
    return lowp != 0 ? lowp_cast(c, v, lowp, 0, ct, true, "up") : cast_to(c, v, xt, ct);
  };
  Value y = as_numbers(c.input(0), x_lowp);
  if (zp.valid()) y = c.op("subtract").in(y).in(as_numbers(zp, c.input_lowp(2))).emit1();
  y = c.op("multiply").in(y).in(cast_to(c, scale, st, ct)).emit1();
  return done(c, 0, cast_to(c, y, ct, out));
}

// DynamicQuantizeLinear: uint8 with the scale and zero point that map
// [min(x, 0), max(x, 0)] onto [0, 255]. NaNs in x are not skipped by the
// min and max as ONNX Runtime skips them.
Status map_dynamic_quantize_linear(C& c) {
  if (c.input_dtype(0) != DataType::kFloat32) return c.fail("x must be float32");
  const DataType f = DataType::kFloat32;
  Value x = c.input(0);
  Value zero = c.constant_scalar(f, 0.0);
  Value lo = c.op("minimum").in(c.op("reduce_min").in(x).emit1()).in(zero).emit1();
  Value hi = c.op("maximum").in(c.op("reduce_max").in(x).emit1()).in(zero).emit1();
  Value scale = c.op("divide").in(c.op("subtract").in(hi).in(lo).emit1()).in(c.constant_scalar(f, 255.0)).emit1();
  // All zeros: scale 1, as ONNX Runtime, rather than 0 and NaNs after it.
  scale = c.op("where").in(c.op("equal").in(scale).in(zero).emit1()).in(c.constant_scalar(f, 1.0)).in(scale).emit1();
  Value zp = c.op("rint").in(c.op("neg").in(c.op("divide").in(lo).in(scale).emit1()).emit1()).emit1();
  zp = c.op("cast").in(c.op("clip").in(zp).arg("lo", 0.0).arg("hi", 255.0).emit1()).arg("dtype", DataType::kUInt8).emit1();
  c.set_output(1, scale);
  c.set_output(2, zp);
  Value y = c.op("rint").in(c.op("divide").in(x).in(scale).emit1()).emit1();
  y = c.op("add").in(y).in(c.op("cast").in(zp).arg("dtype", f).emit1()).emit1();
  y = c.op("clip").in(y).arg("lo", 0.0).arg("hi", 255.0).emit1();
  return done(c, 0, c.op("cast").in(y).arg("dtype", DataType::kUInt8).emit1());
}

// Unique with axis: the distinct slices of x along `axis`, compared as the
// rows of x moved to [n, R] (R the product of the other dims, known at
// import). The rows are put in lexicographic order by R stable argsorts,
// the last column first (a least-significant-digit sort); a row starts a
// group where it differs from the row before it. A group's first index is
// its first row in that order (the sorts are stable: the least position),
// the inverse is each row's group (read through the inverse permutation,
// the argsort of the order), the counts a bincount of the inverse; sorted
// = 0 puts the groups in order of first index. Only existing ops, so it
// runs on every device they do.
constexpr int64_t kUniqueAxisMaxColumns = 256;  // one argsort a column

Status map_unique_axis(C& c, int64_t sorted) {
  const ValueType vt = c.input_type(0);
  if (!vt.dims_known()) return c.fail_attr("axis", "needs the input's dims to be known when the graph is imported");
  const auto rank = static_cast<int64_t>(vt.dims.size());
  int64_t axis = c.attr_int("axis", 0);
  if (axis < -rank || axis >= rank)
    return c.fail_attr("axis", str_format("= %lld is out of range for a rank-%lld input", static_cast<long long>(axis),
                                          static_cast<long long>(rank)));
  if (axis < 0) axis += rank;
  const int64_t n = vt.dims[static_cast<size_t>(axis)];
  int64_t columns = 1;
  std::vector<int64_t> to_front = {axis}, other_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis) continue;
    to_front.push_back(d);
    other_dims.push_back(vt.dims[static_cast<size_t>(d)]);
    columns *= vt.dims[static_cast<size_t>(d)];
  }
  if (n == 0 || columns == 0) return c.fail("an empty input with axis is not supported");
  if (columns > kUniqueAxisMaxColumns)
    return c.fail_attr("axis", str_format("slices of %lld elements: at most %lld are supported (one sort each)",
                                          static_cast<long long>(columns),
                                          static_cast<long long>(kUniqueAxisMaxColumns)));
  auto gather = [&](Value x, Value at, int64_t on) { return c.op("gather").in(x).in(at).arg("axis", on).emit1(); };
  auto argsort = [&](Value x) { return c.op("argsort").in(x).emit1(); };
  Value rows = c.op("reshape").in(c.op("permute").in(c.input(0)).arg("perm", to_front).emit1())
                   .arg("shape", std::vector<int64_t>{n, columns}).emit1();
  const auto count = static_cast<size_t>(n);
  std::vector<int64_t> identity(count), previous(count), first(count);
  for (int64_t i = 0; i < n; ++i) {
    identity[static_cast<size_t>(i)] = i;
    previous[static_cast<size_t>(i)] = i == 0 ? 0 : i - 1;
    first[static_cast<size_t>(i)] = i == 0 ? 1 : 0;
  }
  Value order = c.constant_ints(identity);
  for (int64_t j = columns - 1; j >= 0; --j) {
    Value keys = gather(gather(rows, c.constant_ints({j}, false), 1), order, 0);
    order = gather(order, argsort(keys), 0);
  }
  Value sorted_rows = gather(rows, order, 0);
  Value previous_rows = gather(sorted_rows, c.constant_ints(previous), 0);
  Value differs = c.op("reduce_any").in(c.op("not_equal").in(sorted_rows).in(previous_rows).emit1())
                      .arg("axes", std::vector<int64_t>{1}).emit1();
  Value starts = c.op("logical_or").in(differs)
                     .in(c.op("cast").in(c.constant_ints(first)).arg("dtype", DataType::kBool).emit1()).emit1();
  Value counted = c.op("cumsum").in(c.op("cast").in(starts).arg("dtype", DataType::kInt64).emit1()).emit1();
  Value group = c.op("subtract").in(counted).in(c.constant_scalar(DataType::kInt64, 1)).emit1();
  Value at = c.op("reshape").in(c.op("nonzero").in(starts).emit1()).arg("shape", std::vector<int64_t>{-1}).emit1();
  Value y = gather(sorted_rows, at, 0);
  Value first_index = gather(order, at, 0);
  Value inverse = gather(group, argsort(order), 0);
  if (sorted == 0) {
    Value by_first = argsort(first_index);
    y = gather(y, by_first, 0);
    first_index = gather(first_index, by_first, 0);
    inverse = gather(argsort(by_first), inverse, 0);
  }
  std::vector<int64_t> y_shape = {-1};
  y_shape.insert(y_shape.end(), other_dims.begin(), other_dims.end());
  std::vector<int64_t> back(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) back[static_cast<size_t>(to_front[static_cast<size_t>(i)])] = i;
  y = c.op("permute").in(c.op("reshape").in(y).arg("shape", y_shape).emit1()).arg("perm", back).emit1();
  c.set_output(0, y);
  if (c.num_outputs() > 1 && c.output_used(1)) c.set_output(1, first_index);
  if (c.num_outputs() > 2 && c.output_used(2)) c.set_output(2, inverse);
  if (c.num_outputs() > 3 && c.output_used(3)) c.set_output(3, c.op("bincount").in(inverse).emit1());
  return Status::ok();
}

// Unique without axis: the distinct values of x flattened; the first index
// of each (the least position in its segment), the inverse and the counts
// (bincount of the inverse).
Status map_unique(C& c) {
  const int64_t sorted = c.attr_int("sorted", 1);
  if (c.has_attr("axis")) return map_unique_axis(c, sorted);
  const ValueType vt = c.input_type(0);
  Value x = c.op("reshape").in(c.input(0)).arg("shape", std::vector<int64_t>{-1}).emit1();
  const std::vector<Value> vi = c.op("unique").in(x).arg("sorted", sorted != 0).outputs(2).emit();
  if (vi.size() != 2) return reported();
  c.set_output(0, vi[0]);
  if (c.num_outputs() > 1 && c.output_used(1)) {
    Value n;
    int64_t numel = 1;
    bool fits = vt.dims_known();
    for (size_t d = 0; fits && d < vt.dims.size(); ++d) fits = !__builtin_mul_overflow(numel, vt.dims[d], &numel);
    if (fits && numel < (int64_t{1} << 53)) {
      n = c.constant_scalar(DataType::kInt64, static_cast<double>(numel));
    } else {
      n = c.op("reduce_prod").in(c.op("shape_of").in(x).emit1()).emit1();
    }
    Value positions = c.op("range").in(c.constant_scalar(DataType::kInt64, 0)).in(n)
                          .in(c.constant_scalar(DataType::kInt64, 1)).emit1();
    Value count = c.op("shape_of").in(vi[0]).emit1();
    c.set_output(1, c.op("unsorted_segment_min").in(positions).in(vi[1]).in(count).emit1());
  }
  if (c.num_outputs() > 2 && c.output_used(2)) c.set_output(2, vi[1]);
  if (c.num_outputs() > 3 && c.output_used(3)) c.set_output(3, c.op("bincount").in(vi[1]).emit1());
  return Status::ok();
}

// ---- Integer matrix products
//
// MatMulInteger: (a - a_zero_point) @ (b - b_zero_point) in int32, exact.
// a's zero point is a scalar or one per row of a, b's a scalar or one per
// column of b.
Status int32_operand(C& c, int k, int zp_k, bool rows, Value& out) {
  const DataType t = c.input_dtype(k);
  if (t != DataType::kInt8 && t != DataType::kUInt8)
    return c.fail(str_format("input %d must be int8 or uint8", k));
  out = c.op("cast").in(c.input(k)).arg("dtype", DataType::kInt32).emit1();
  if (!c.has_input(zp_k)) return Status::ok();
  const ValueType zt = c.input_type(zp_k);
  if (zt.dtype != t) return c.fail(str_format("input %d (a zero point) must have input %d's dtype", zp_k, k));
  Value zp = c.op("cast").in(c.input(zp_k)).arg("dtype", DataType::kInt32).emit1();
  if (rows && zt.rank() == 1) zp = c.op("reshape").in(zp).arg("shape", std::vector<int64_t>{-1, 1}).emit1();
  else if (zt.rank() > 1) return c.fail(str_format("input %d (a zero point) must be a scalar or 1-D", zp_k));
  out = c.op("subtract").in(out).in(zp).emit1();
  return Status::ok();
}

Status map_matmul_integer(C& c) {
  Value a, b;
  RETURN_IF_ERROR(int32_operand(c, 0, 2, true, a));
  RETURN_IF_ERROR(int32_operand(c, 1, 3, false, b));
  return done(c, 0, c.op("matmul").in(a).in(b).emit1());
}

// QLinearMatMul: the int32 product of the zero-point-free operands, scaled
// by a_scale * b_scale / y_scale in float32, then quantized with y's zero
// point, as ONNX Runtime requantizes.
Status map_qlinear_matmul(C& c) {
  Value a, b;
  RETURN_IF_ERROR(int32_operand(c, 0, 2, true, a));
  RETURN_IF_ERROR(int32_operand(c, 3, 5, false, b));
  DataType qt;
  RETURN_IF_ERROR(qlinear_types(c, qt, c.opset() >= 21));
  auto scale = [&](int k) { return cast_to(c, c.input(k), c.input_dtype(k), DataType::kFloat32); };
  Value a_scale = scale(1);
  if (c.input_rank(1) == 1) a_scale = c.op("reshape").in(a_scale).arg("shape", std::vector<int64_t>{-1, 1}).emit1();
  Value multiplier = c.op("divide").in(c.op("multiply").in(a_scale).in(scale(4)).emit1()).in(scale(6)).emit1();
  Value acc = c.op("cast").in(c.op("matmul").in(a).in(b).emit1()).arg("dtype", DataType::kFloat32).emit1();
  return qlinear_output(c, acc, multiplier, qt);
}

// DFT (opsets 17 and 20): fft or ifft along one signal axis of a complex
// [..., 2] array; a real [..., 1] input runs rfft (its inverse, or a length
// not known at import, gets a zero imaginary part instead). A constant
// dft_length crops or zero-pads the signal first; onesided keeps the bins
// 0 .. n/2, and with inverse runs irfft (dft_length: the output's length).
Status map_dft(C& c) {
  const ValueType vt = c.input_type(0);
  const int rank = vt.rank();
  if (rank < 2 || (vt.dims.back() != 1 && vt.dims.back() != 2))
    return c.fail("input 0 must have a known rank >= 2 and a last dim of 1 (real) or 2 (complex)");
  if (vt.dtype != DataType::kFloat32 && vt.dtype != DataType::kFloat64)
    return c.fail("input 0 must be float32 or float64");
  int64_t axis = 1;
  if (c.opset() >= 20) {
    axis = -2;
    if (c.has_input(2)) {
      const Tensor* at = c.constant_input(2);
      // Note [Axes given at run time] (onnx_convert.cpp): any signal axis.
      if (at == nullptr) return map_by_axis_branches(c, 2, rank, 0, rank - 2);
      std::vector<int64_t> v;
      if (!at->to_int64s(v) || v.size() != 1) return c.fail("input 2 (axis) must be one integer");
      axis = v[0];
    }
  } else {
    axis = c.attr_int("axis", 1);
  }
  int64_t a = 0;
  if (!norm_axis(axis, rank, a) || a == rank - 1)
    return c.fail(str_format("axis %lld is not a signal axis of a rank-%d input", static_cast<long long>(axis), rank));
  const int64_t inverse = c.attr_int("inverse", 0), onesided = c.attr_int("onesided", 0);
  Value x = c.input(0);
  const bool real = vt.dims.back() == 1;
  const size_t ua = static_cast<size_t>(a), ur = static_cast<size_t>(rank);
  if (inverse != 0 && onesided != 0) {
    // numpy's irfft: bins 0 .. n/2 of a Hermitian spectrum in, n real values
    // out (n = dft_length, else 2 (bins - 1)), as [..., n, ..., 1].
    if (real) return c.fail_attr("onesided", "= 1 with inverse = 1 needs a complex input [..., 2]");
    int64_t length = 0;
    if (c.has_input(1)) {
      const Tensor* lt = c.constant_input(1);
      std::vector<int64_t> v;
      if (lt == nullptr || !lt->to_int64s(v) || v.size() != 1 || v[0] < 1)
        return c.fail("input 1 (dft_length) must be a constant >= 1");
      length = v[0];
    }
    Value y = c.op("irfft").in(x).arg("length", length).arg("axes", std::vector<int64_t>{a}).emit1();
    return done(c, 0, c.op("expand_dims").in(y).arg("axis", static_cast<int64_t>(rank - 1)).emit1());
  }
  int64_t n = vt.dims[ua];
  if (c.has_input(1)) {
    const Tensor* lt = c.constant_input(1);
    std::vector<int64_t> v;
    if (lt == nullptr || !lt->to_int64s(v) || v.size() != 1 || v[0] < 1)
      return c.fail("input 1 (dft_length) must be a constant >= 1");
    if (n < 0) return c.fail("dft_length is given and the signal's length is not known at import");
    if (v[0] < n) {
      std::vector<int64_t> begin_size(2 * ur, 0);
      for (size_t d = 0; d < ur; ++d) begin_size[ur + d] = d == ua ? v[0] : -1;
      x = c.op("slice").in(x).arg("begin_size", begin_size).emit1();
    } else if (v[0] > n) {
      std::vector<int64_t> paddings(2 * ur, 0);
      paddings[2 * ua + 1] = v[0] - n;
      x = c.op("pad").in(x).arg("mode", int64_t{0}).arg("paddings", paddings).arg("value", 0.0).emit1();
    }
    n = v[0];
  }
  if (real && inverse == 0 && n > 0) {
    // A real signal goes through rfft: the bins it does not give are the
    // conjugates of those it does (X[n - k] = conj(X[k])), and the imaginary
    // parts of bins 0 and n/2 come out exactly 0, where the complex
    // transform of (x, 0) leaves rounding there (ONNX's tests compare near
    // zero with atol 1e-7).
    Value xr = c.op("squeeze").in(x).arg("axes", std::vector<int64_t>{rank - 1}).emit1();
    Value half = c.op("rfft").in(xr).arg("axes", std::vector<int64_t>{a}).emit1();
    const int64_t mirrored = (n - 1) / 2;  // bins n/2 + 1 .. n - 1
    if (onesided != 0 || mirrored == 0) return done(c, 0, half);
    std::vector<int64_t> begin_size(2 * ur, 0);
    for (size_t d = 0; d < ur; ++d) begin_size[ur + d] = d == ua ? mirrored : -1;
    begin_size[ua] = 1;
    Value tail = c.op("reverse").in(c.op("slice").in(half).arg("begin_size", begin_size).emit1())
                     .arg("axes", std::vector<int64_t>{a})
                     .emit1();
    Tensor conj;
    conj.dtype = vt.dtype;
    conj.onnx_type = dtype_to_onnx(vt.dtype);
    conj.dims = {2};
    if (vt.dtype == DataType::kFloat64) {
      const double v[2] = {1.0, -1.0};
      conj.data.assign(reinterpret_cast<const uint8_t*>(v), reinterpret_cast<const uint8_t*>(v) + sizeof v);
    } else {
      const float v[2] = {1.0f, -1.0f};
      conj.data.assign(reinterpret_cast<const uint8_t*>(v), reinterpret_cast<const uint8_t*>(v) + sizeof v);
    }
    tail = c.op("multiply").in(tail).in(c.constant(std::move(conj))).emit1();
    return done(c, 0, c.op("concat").in(half).in(tail).arg("axis", a).emit1());
  }
  if (real) x = c.op("concat").in(x).in(c.op("zeros_like").in(x).emit1()).arg("axis", rank - 1).emit1();
  Value y = c.op(inverse != 0 ? "ifft" : "fft").in(x).arg("axes", std::vector<int64_t>{a}).emit1();
  if (onesided != 0) {
    if (n < 0) return c.fail_attr("onesided", "= 1 with the signal's length not known at import is not supported");
    std::vector<int64_t> begin_size(2 * ur, 0);
    for (size_t d = 0; d < ur; ++d) begin_size[ur + d] = d == ua ? n / 2 + 1 : -1;
    y = c.op("slice").in(y).arg("begin_size", begin_size).emit1();
  }
  return done(c, 0, y);
}

// ---- Losses (inference)
//
// NegativeLogLikelihoodLoss over x [N, C, d...] and targets [N, d...]:
// loss = -x[n, t, d...] * weight[t], 0 where t is ignore_index; "mean"
// divides the sum by the summed weights of the targets that count (their
// number, without weights). SoftmaxCrossEntropyLoss is log_softmax along
// axis 1 followed by it.
Status nll_loss(C& c, Value x, DataType xt, int k_target, int k_weight, Value& out) {
  const bool has_ignore = c.has_attr("ignore_index");
  const int64_t ignore = c.attr_int("ignore_index", 0);
  const std::string reduction = c.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return c.fail_attr("reduction", "= '" + reduction + "' is not none, sum or mean");
  if (!dtype_is_float(xt)) return c.fail("input 0 must have a known float dtype");
  const DataType tt = c.input_dtype(k_target);
  if (tt != DataType::kInt32 && tt != DataType::kInt64)
    return c.fail(str_format("input %d (the targets) must be int32 or int64", k_target));
  Value t = c.input(k_target);
  Value counts;  // the targets that count, as xt
  if (has_ignore) {
    Value keep = c.op("not_equal").in(t).in(c.constant_scalar(tt, static_cast<double>(ignore))).emit1();
    t = c.op("where").in(keep).in(t).in(c.constant_scalar(tt, 0.0)).emit1();
    counts = c.op("cast").in(keep).arg("dtype", xt).emit1();
  }
  Value picked = c.op("gather_elements").in(x).in(c.op("expand_dims").in(t).arg("axis", int64_t{1}).emit1())
                     .arg("axis", int64_t{1}).emit1();
  Value loss = c.op("neg").in(c.op("squeeze").in(picked).arg("axes", std::vector<int64_t>{1}).emit1()).emit1();
  Value w = counts;
  if (c.has_input(k_weight)) {
    Value wt = c.op("gather").in(c.input(k_weight)).in(t).emit1();
    w = w.valid() ? c.op("multiply").in(wt).in(w).emit1() : wt;
  }
  if (w.valid()) loss = c.op("multiply").in(loss).in(w).emit1();
  if (reduction == "none") out = loss;
  else if (reduction == "sum") out = c.op("reduce_sum").in(loss).emit1();
  else if (!w.valid()) out = c.op("reduce_mean").in(loss).emit1();
  else out = c.op("divide").in(c.op("reduce_sum").in(loss).emit1()).in(c.op("reduce_sum").in(w).emit1()).emit1();
  return out.valid() ? Status::ok() : reported();
}

Status map_nll_loss(C& c) {
  Value out;
  RETURN_IF_ERROR(nll_loss(c, c.input(0), c.input_dtype(0), 1, 2, out));
  return done(c, 0, out);
}

Status map_softmax_cross_entropy(C& c) {
  Value log_prob = c.op("log_softmax").in(c.input(0)).arg("axis", int64_t{1}).emit1();
  Value out;
  RETURN_IF_ERROR(nll_loss(c, log_prob, c.input_dtype(0), 1, 2, out));
  if (c.num_outputs() > 1 && c.output_used(1)) c.set_output(1, log_prob);
  return done(c, 0, out);
}

// ---- Text
//
// TfIdfVectorizer over integer tokens: tfidf_vectorizer, its pool, counts,
// indexes and weights as constants. A string pool needs string tensors,
// which libops does not have.
Status map_tfidf_vectorizer(C& c) {
  std::vector<std::string> strings;
  if (c.attr_strings("pool_strings", strings))
    return c.fail_attr("pool_strings", "is not supported: libops has no string tensors (pool_int64s is)");
  const DataType xt = c.input_dtype(0);
  if (xt != DataType::kInt32 && xt != DataType::kInt64) return c.fail("input 0 must be int32 or int64 token ids");
  std::vector<int64_t> pool, counts, indexes;
  if (!c.attr_ints("pool_int64s", pool)) return c.fail_attr("pool_int64s", "is required (the n-gram pool)");
  if (!c.attr_ints("ngram_counts", counts)) return c.fail_attr("ngram_counts", "is required");
  if (!c.attr_ints("ngram_indexes", indexes)) return c.fail_attr("ngram_indexes", "is required");
  for (const char* required : {"min_gram_length", "max_gram_length", "max_skip_count", "mode"})
    if (!c.has_attr(required)) return c.fail_attr(required, "is required");
  const std::string mode = c.attr_string("mode", "");
  const int64_t mode_arg = mode == "TF" ? 0 : mode == "IDF" ? 1 : mode == "TFIDF" ? 2 : -1;
  if (mode_arg < 0) return c.fail_attr("mode", "= '" + mode + "' is not TF, IDF or TFIDF");
  OpCall call = c.op("tfidf_vectorizer");
  call.in(c.input(0)).in(c.constant(int64_tensor(pool))).in(c.constant(int64_tensor(counts)))
      .in(c.constant(int64_tensor(indexes)));
  std::vector<double> weights;
  if (c.attr_floats("weights", weights)) {
    Tensor w;
    w.dtype = DataType::kFloat32;
    w.onnx_type = dtype_to_onnx(DataType::kFloat32);
    w.dims = {static_cast<int64_t>(weights.size())};
    w.data.resize(weights.size() * sizeof(float));
    for (size_t k = 0; k < weights.size(); ++k) {
      const float f = static_cast<float>(weights[k]);
      std::memcpy(w.data.data() + k * sizeof(float), &f, sizeof(float));
    }
    call.in(c.constant(std::move(w)));
  }
  return done(c, 0, call.arg("min_gram_length", c.attr_int("min_gram_length", 0))
                        .arg("max_gram_length", c.attr_int("max_gram_length", 0))
                        .arg("max_skip_count", c.attr_int("max_skip_count", 0)).arg("mode", mode_arg).emit1());
}

// ---- Sequences and optionals (Note [Import-time sequences] in
// onnx_convert.h): lists of values known at import.

// A constant integer scalar input k (a sequence position), or `fallback`
// when the input is omitted; false (a problem recorded) otherwise.
bool position_input(C& c, int k, int64_t fallback, int64_t& out) {
  if (!c.has_input(k)) {
    out = fallback;
    return true;
  }
  const Tensor* t = c.constant_input(k);
  std::vector<int64_t> v;
  if (t == nullptr || !t->to_int64s(v) || v.size() != 1) {
    c.report(str_format("input %d (position) must be a constant integer scalar", k));
    return false;
  }
  out = v[0];
  return true;
}

// A position in [-n, n) (or [-n, n] where `end_ok`), counted from the end when negative.
bool sequence_index(C& c, int64_t pos, size_t n, bool end_ok, size_t& out) {
  const int64_t len = static_cast<int64_t>(n);
  const int64_t p = pos < 0 ? pos + len : pos;
  if (p < 0 || p > len || (p == len && !end_ok)) {
    c.report(str_format("position %lld is outside the sequence of %zu elements", static_cast<long long>(pos), n));
    return false;
  }
  out = static_cast<size_t>(p);
  return true;
}

Status map_sequence_empty(C& c) {
  if (c.has_attr("dtype")) {
    const int code = static_cast<int>(c.attr_int("dtype", 1));
    if (dtype_from_onnx(code) == DataType::kInvalid)
      return c.fail_attr("dtype", str_format("= %s is not a dtype libops supports", onnx_type_name(code)));
  }
  c.set_output_sequence(0, {});
  return Status::ok();
}

Status map_sequence_construct(C& c) {
  std::vector<Value> elements;
  for (int k = 0; k < c.num_inputs(); ++k) {
    Value v = c.input(k);
    if (!v.valid()) return reported();
    elements.push_back(v);
  }
  c.set_output_sequence(0, std::move(elements));
  return Status::ok();
}

// Whether input k (a position or split) is omitted or a constant.
bool omitted_or_constant(C& c, int k) { return !c.has_input(k) || c.constant_input(k) != nullptr; }

// Note [Run-time sequences]: input 0 when it is a run-time list, or an
// import-time one that `at_run_time` (a position or split computed at run
// time) makes one; false otherwise.
bool run_list_input(C& c, bool at_run_time, Value& list) {
  ValueKind kind;
  if (c.input_run_list(0, list, kind)) return true;
  return at_run_time && c.input_is_sequence(0) && c.input_as_run_list(0, list, kind);
}

Status map_sequence_at(C& c) {
  Value list;
  if (run_list_input(c, !omitted_or_constant(c, 1), list)) {
    if (!c.has_input(1)) return c.fail("input 1 (position) is required");
    return done(c, 0, c.sequence_node(SequenceOpKind::kAt, {list, c.input(1)}));
  }
  Value stacked;
  ValueType st;
  if (c.input_stacked_sequence(0, stacked, st)) {  // Note [Sequences grown in loops]: the slice at the position
    if (!c.has_input(1)) return c.fail("input 1 (position) is required");
    Value pos = c.op("reshape").in(c.input(1)).arg("shape", std::vector<int64_t>{}).emit1();
    return done(c, 0, c.op("gather").in(stacked).in(pos).arg("axis", int64_t{0}).emit1());
  }
  std::vector<Value> seq;
  int64_t pos = 0;
  size_t at = 0;
  if (!c.input_sequence(0, seq) || !position_input(c, 1, 0, pos) || !sequence_index(c, pos, seq.size(), false, at))
    return reported();
  return done(c, 0, seq[at]);
}

Status map_sequence_length(C& c) {
  Value list;
  if (run_list_input(c, false, list)) return done(c, 0, c.sequence_node(SequenceOpKind::kLength, {list}));
  Value stacked;
  ValueType st;
  if (c.input_stacked_sequence(0, stacked, st)) {  // the stacked value's first extent
    Value n = c.op("shape_of").in(stacked).arg("start", int64_t{0}).arg("end", int64_t{1}).emit1();
    return done(c, 0, c.op("reshape").in(n).arg("shape", std::vector<int64_t>{}).emit1());
  }
  std::vector<Value> seq;
  if (!c.input_sequence(0, seq)) return reported();
  c.set_output_constant(0, int64_tensor({static_cast<int64_t>(seq.size())}, false));
  return Status::ok();
}

Status map_sequence_insert(C& c) {
  Value list;
  if (run_list_input(c, !omitted_or_constant(c, 2), list)) {
    std::vector<Value> in{list, c.input(1)};
    if (c.has_input(2)) in.push_back(c.input(2));
    const Value out = c.sequence_node(SequenceOpKind::kInsert, in);
    if (!out.valid()) return reported();
    c.set_output_run_list(0, out, ValueKind::kSequence);
    return Status::ok();
  }
  std::vector<Value> seq;
  if (!c.input_sequence(0, seq)) return reported();
  Value v = c.input(1);
  int64_t pos = 0;
  size_t at = 0;
  if (!v.valid() || !position_input(c, 2, static_cast<int64_t>(seq.size()), pos) ||
      !sequence_index(c, pos, seq.size(), true, at))
    return reported();
  seq.insert(seq.begin() + static_cast<std::ptrdiff_t>(at), v);
  c.set_output_sequence(0, std::move(seq));
  return Status::ok();
}

Status map_sequence_erase(C& c) {
  Value list;
  if (run_list_input(c, !omitted_or_constant(c, 1), list)) {
    std::vector<Value> in{list};
    if (c.has_input(1)) in.push_back(c.input(1));
    const Value out = c.sequence_node(SequenceOpKind::kErase, in);
    if (!out.valid()) return reported();
    c.set_output_run_list(0, out, ValueKind::kSequence);
    return Status::ok();
  }
  std::vector<Value> seq;
  int64_t pos = 0;
  size_t at = 0;
  if (!c.input_sequence(0, seq) || !position_input(c, 1, -1, pos) || !sequence_index(c, pos, seq.size(), false, at))
    return reported();
  seq.erase(seq.begin() + static_cast<std::ptrdiff_t>(at));
  c.set_output_sequence(0, std::move(seq));
  return Status::ok();
}

// ConcatFromSequence of a sequence grown in a Loop (Note [Sequences grown
// in loops] in onnx_convert.cpp), held as s [n, element dims...]: stacking
// along a new axis a moves s's axis 0 there; concatenating along axis a
// moves it to just before a and merges the two (element j of the sequence
// then holds positions j * d_a .. (j + 1) * d_a - 1 along a), the extents
// taken when the graph runs. Axis 0 needs no rank (a stack is s itself);
// other axes need the elements' rank known here.
Status concat_stacked_sequence(C& c, Value s, const ValueType& st) {
  if (!c.has_attr("axis")) return c.fail_attr("axis", "is required");
  const int64_t axis = c.attr_int("axis", 0), new_axis = c.attr_int("new_axis", 0);
  int64_t a = 0;
  if (axis != 0) {
    if (st.rank() < 1)
      return c.fail_attr("axis", str_format("= %lld needs the rank of the sequence's elements, which is not known "
                                            "at import (axis 0 does not)",
                                            static_cast<long long>(axis)));
    const int r = st.rank() - 1;  // the elements' rank
    if (!norm_axis(axis, new_axis != 0 ? r + 1 : r, a))
      return c.fail_attr("axis", str_format("= %lld is outside the elements' rank %d%s", static_cast<long long>(axis),
                                            r, new_axis != 0 ? " + 1" : ""));
    if (a != 0) {
      std::vector<int64_t> perm;
      for (int64_t d = 1; d <= a; ++d) perm.push_back(d);
      perm.push_back(0);
      for (int64_t d = a + 1; d <= r; ++d) perm.push_back(d);
      s = c.op("permute").in(s).arg("perm", perm).emit1();
    }
  }
  if (new_axis != 0) return done(c, 0, s);
  // [d_0 .. d_a-1, n, d_a, ...] to [d_0 .. d_a-1, n * d_a, ...].
  Value merged = c.op("reduce_prod").in(c.op("shape_of").in(s).arg("start", a).arg("end", a + 2).emit1()).emit1();
  Value shape = c.op("reshape").in(merged).arg("shape", std::vector<int64_t>{1}).emit1();
  if (a > 0)
    shape = c.op("concat").in(c.op("shape_of").in(s).arg("start", int64_t{0}).arg("end", a).emit1()).in(shape)
                .arg("axis", int64_t{0}).emit1();
  shape = c.op("concat").in(shape).in(c.op("shape_of").in(s).arg("start", a + 2).emit1()).arg("axis", int64_t{0}).emit1();
  return done(c, 0, c.op("reshape").in(s).in(shape).arg("copy_zeros", false).emit1());
}

// ConcatFromSequence: concat along axis, or stack along a new one.
Status map_concat_from_sequence(C& c) {
  Value list;
  if (run_list_input(c, false, list)) {
    if (!c.has_attr("axis")) return c.fail_attr("axis", "is required");
    const int64_t axis = c.attr_int("axis", 0), new_axis = c.attr_int("new_axis", 0);
    if (new_axis != 0 && new_axis != 1) return c.fail_attr("new_axis", "must be 0 or 1");
    return done(c, 0, c.sequence_node(SequenceOpKind::kConcat, {list}, {axis, new_axis}));
  }
  Value stacked;
  ValueType st;
  if (c.input_stacked_sequence(0, stacked, st)) return concat_stacked_sequence(c, stacked, st);
  std::vector<Value> seq;
  if (!c.input_sequence(0, seq)) return reported();
  if (!c.has_attr("axis")) return c.fail_attr("axis", "is required");
  const int64_t axis = c.attr_int("axis", 0), new_axis = c.attr_int("new_axis", 0);
  if (seq.empty()) return c.fail("the sequence is empty: there is nothing to concatenate");
  OpCall call = c.op(new_axis != 0 ? "stack" : "concat");
  for (Value v : seq) call.in(v);
  return done(c, 0, call.arg("axis", axis).emit1());
}

// SplitToSequence: pieces of x along axis, of the sizes split gives (a
// scalar: equal pieces, the last shorter; a vector: those sizes), or of
// size 1 without split (the axis then dropped where keepdims = 0).
Status map_split_to_sequence(C& c) {
  constexpr int64_t kMaxPieces = 65536;  // each piece is a node of the graph
  const ValueType vt = c.input_type(0);
  const int rank = vt.rank();
  // Note [Run-time sequences]: a split computed at run time, of an axis
  // whose extent is not known here, or of an input of unknown rank gives a
  // run-time list (the executor checks the axis and the lengths).
  {
    const int64_t a = c.attr_int("axis", 0);
    const bool extent_known =
        rank >= 1 && a >= -rank && a < rank && vt.dims[static_cast<size_t>(a < 0 ? a + rank : a)] >= 0;
    if (rank < 0 || (c.has_input(1) && (!extent_known || c.constant_input(1) == nullptr))) {
      const int64_t keepdims = c.has_input(1) ? 1 : c.attr_int("keepdims", 1) != 0;
      if (c.has_input(1)) c.ignore_attr("keepdims");  // applies without split only
      std::vector<Value> in{c.input(0)};
      if (c.has_input(1)) in.push_back(c.input(1));
      const Value out = c.sequence_node(SequenceOpKind::kSplit, in, {a, keepdims});
      if (!out.valid()) return reported();
      c.set_output_run_list(0, out, ValueKind::kSequence);
      return Status::ok();
    }
  }
  int64_t axis = 0;
  if (rank < 1 || !norm_axis(c.attr_int("axis", 0), rank, axis))
    return c.fail(str_format("axis is outside the input's rank %d (or the rank is not known)", rank));
  const int64_t n = vt.dims[static_cast<size_t>(axis)];
  if (n < 0 && !c.has_input(1)) {
    // Pieces of one, as many as the axis has when the graph runs: a
    // stacked sequence (Note [Sequences grown in loops] in
    // onnx_convert.cpp), x with the axis moved to the front (and kept as
    // an extent of 1 where keepdims).
    Value stacked = c.input(0);
    if (axis != 0) {
      std::vector<int64_t> perm{axis};
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis) perm.push_back(d);
      stacked = c.op("permute").in(stacked).arg("perm", perm).emit1();
    }
    if (c.attr_int("keepdims", 1) != 0) stacked = c.op("expand_dims").in(stacked).arg("axis", axis + 1).emit1();
    if (!stacked.valid()) return reported();
    c.set_output_stacked_sequence(0, stacked);
    return Status::ok();
  }
  if (n < 0) return c.fail("input 1 (split) is given and the extent of the split axis is not known at import");
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (c.has_input(1)) {
    const Tensor* t = c.constant_input(1);
    std::vector<int64_t> v;
    if (t == nullptr || !t->to_int64s(v)) return c.fail("input 1 (split) must be a constant");
    if (t->dims.empty()) {  // a scalar: pieces of that size
      if (v.size() != 1 || v[0] < 1) return c.fail("split must be >= 1");
      for (int64_t at = 0; at < n && static_cast<int64_t>(sizes.size()) <= kMaxPieces; at += v[0])
        sizes.push_back(std::min(v[0], n - at));
    } else {
      int64_t sum = 0;
      for (int64_t s : v) {
        if (s < 0 || s > n - sum)
          return c.fail(str_format("split has a negative size, or sizes past the axis extent %lld",
                                   static_cast<long long>(n)));
        sum += s;
      }
      if (sum != n) return c.fail(str_format("split %s does not add up to the axis extent %lld", ints_str(v).c_str(),
                                             static_cast<long long>(n)));
      sizes = v;
    }
    c.ignore_attr("keepdims");  // applies without split only
  } else {
    sizes.assign(static_cast<size_t>(std::min<int64_t>(n, kMaxPieces + 1)), 1);
    squeeze = c.attr_int("keepdims", 1) == 0;
  }
  if (static_cast<int64_t>(sizes.size()) > kMaxPieces)
    return c.fail(str_format("the split makes more than %lld pieces", static_cast<long long>(kMaxPieces)));
  Value x = c.input(0);
  std::vector<Value> pieces;
  const size_t ur = static_cast<size_t>(rank), ua = static_cast<size_t>(axis);
  int64_t begin = 0;
  for (int64_t s : sizes) {
    std::vector<int64_t> begin_size(2 * ur, 0);
    for (size_t d = 0; d < ur; ++d) begin_size[ur + d] = d == ua ? s : -1;
    begin_size[ua] = begin;
    begin += s;
    Value p = c.op("slice").in(x).arg("begin_size", begin_size).emit1();
    if (squeeze) p = c.op("squeeze").in(p).arg("axes", std::vector<int64_t>{axis}).emit1();
    if (!p.valid()) return reported();
    pieces.push_back(p);
  }
  c.set_output_sequence(0, std::move(pieces));
  return Status::ok();
}

Status map_optional(C& c) {
  c.ignore_attr("type");  // the element type of an empty optional: nothing to allocate here
  Value list;
  ValueKind kind;
  if (c.input_run_list(0, list, kind) || (c.input_is_sequence(0) && c.input_as_run_list(0, list, kind))) {
    // Note [Run-time sequences]: an optional sequence, or an optional given one.
    if (kind == ValueKind::kOptionalTensor || kind == ValueKind::kOptionalSequence) {
      c.set_output_run_list(0, list, kind);
    } else {
      const ValueKind out = kind == ValueKind::kSequence ? ValueKind::kOptionalSequence : ValueKind::kOptionalTensor;
      c.set_output_run_list(0, c.sequence_node(SequenceOpKind::kOptional, {list}), out);
    }
    return Status::ok();
  }
  const ValueInfo* declared = c.output_info(0);
  if (!c.has_input(0) && declared != nullptr && declared->value_kind == 3) {  // an empty optional sequence
    c.set_output_run_list(0, c.sequence_node(SequenceOpKind::kOptional, {}, {1}), ValueKind::kOptionalSequence);
    return Status::ok();
  }
  bool present = false;
  Value v;
  if (!c.input_optional(0, present, v)) return reported();
  c.set_output_optional(0, present, v);
  return Status::ok();
}

Status map_optional_has_element(C& c) {
  Value list;
  ValueKind kind;
  if (c.input_run_list(0, list, kind)) return done(c, 0, c.sequence_node(SequenceOpKind::kHasElement, {list}));
  if (c.input_is_sequence(0)) {  // a sequence is an optional that holds one
    std::vector<Value> elements;
    c.input_sequence(0, elements);
    return done(c, 0, c.constant_scalar(DataType::kBool, 1));
  }
  bool present = false;
  Value v;
  if (!c.input_optional(0, present, v)) return reported();
  Tensor t;
  t.dtype = DataType::kBool;
  t.onnx_type = dtype_to_onnx(DataType::kBool);
  t.data.assign(1, present ? 1 : 0);
  c.set_output_constant(0, std::move(t));
  return Status::ok();
}

Status map_optional_get_element(C& c) {
  Value list;
  ValueKind kind;
  if (c.input_run_list(0, list, kind)) {
    const Value out = c.sequence_node(SequenceOpKind::kGetElement, {list});
    if (kind == ValueKind::kSequence || kind == ValueKind::kOptionalSequence)
      c.set_output_run_list(0, out, ValueKind::kSequence);
    else
      return done(c, 0, out);
    return out.valid() ? Status::ok() : reported();
  }
  if (c.input_is_sequence(0)) {  // a sequence is its own element
    std::vector<Value> elements;
    c.input_sequence(0, elements);
    c.set_output_sequence(0, std::move(elements));
    return Status::ok();
  }
  bool present = false;
  Value v;
  if (!c.input_optional(0, present, v)) return reported();
  if (!present) return c.fail("the optional is empty");
  return done(c, 0, v);
}

// MelWeightMatrix: a constant, computed at import from constant inputs:
// [dft_length / 2 + 1, num_mel_bins] triangular filters between mel-spaced
// edges (ONNX's definition, in float64).
Status map_mel_weight_matrix(C& c) {
  const int code = static_cast<int>(c.attr_int("output_datatype", 1));
  const DataType t = dtype_from_onnx(code);
  if (!dtype_is_float(t))
    return c.fail_attr("output_datatype", str_format("= %s is not a float dtype", onnx_type_name(code)));
  double in[5];
  for (int k = 0; k < 5; ++k) {
    const Tensor* v = c.constant_input(k);
    std::vector<double> d;
    if (v == nullptr || !v->to_doubles(d) || d.size() != 1)
      return c.fail(str_format("input %d must be a constant scalar", k));
    in[k] = d[0];
  }
  if (!(in[0] >= 1 && in[0] <= 4096 && in[1] >= 1 && in[1] <= double(int64_t{1} << 20) && in[2] >= 1 &&
        in[2] <= 1e12 && std::isfinite(in[3]) && std::isfinite(in[4])))
    return c.fail(str_format("num_mel_bins %g, dft_length %g and sample_rate %g must be >= 1 (and at most 4096, 2^20 "
                             "and 1e12), the edges finite",
                             in[0], in[1], in[2]));
  const int64_t mels = static_cast<int64_t>(in[0]), dft = static_cast<int64_t>(in[1]);
  const int64_t rate = static_cast<int64_t>(in[2]);
  const int64_t bins = dft / 2 + 1;
  if (bins * mels > (int64_t{1} << 24))
    return c.fail(str_format("a %lld x %lld matrix is larger than the importer computes (2^24 values)",
                             static_cast<long long>(bins), static_cast<long long>(mels)));
  auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double lo = to_mel(in[3]), hi = to_mel(in[4]), step = (hi - lo) / static_cast<double>(mels + 2);
  std::vector<int64_t> edge(static_cast<size_t>(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + lo) / 2595.0) - 1.0);
    const double e = std::floor(static_cast<double>(dft + 1) * hz / static_cast<double>(rate));
    if (!(std::fabs(e) < 1e15)) return c.fail("the mel edges fall outside any spectrum (check the edge frequencies)");
    edge[static_cast<size_t>(i)] = static_cast<int64_t>(e);
  }
  std::vector<double> w(static_cast<size_t>(bins * mels), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double* {
    return j >= 0 && j < bins ? &w[static_cast<size_t>(j * mels + i)] : nullptr;
  };
  for (int64_t i = 0; i < mels; ++i) {
    const int64_t left = edge[static_cast<size_t>(i)], center = edge[static_cast<size_t>(i + 1)],
                  right = edge[static_cast<size_t>(i + 2)];
    // Only the rows inside the matrix are visited: edges far outside it
    // (negative edge frequencies, say) cost nothing.
    auto lo_row = [&](int64_t a) { return std::max<int64_t>(a, 0); };
    auto hi_row = [&](int64_t b) { return std::min<int64_t>(b, bins - 1); };
    if (center == left) {
      if (double* p = at(center, i)) *p = 1.0;
    } else {
      for (int64_t j = lo_row(left); j <= hi_row(center); ++j)
        if (double* p = at(j, i)) *p = static_cast<double>(j - left) / static_cast<double>(center - left);
    }
    for (int64_t j = lo_row(center); j <= hi_row(right - 1); ++j)
      if (double* p = at(j, i)) *p = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  Tensor out;
  out.dtype = DataType::kFloat64;
  out.onnx_type = dtype_to_onnx(DataType::kFloat64);
  out.dims = {bins, mels};
  out.data.resize(w.size() * sizeof(double));
  std::memcpy(out.data.data(), w.data(), out.data.size());
  if (t == DataType::kFloat64) {
    c.set_output_constant(0, std::move(out));
    return Status::ok();
  }
  return done(c, 0, c.op("cast").in(c.constant(std::move(out))).arg("dtype", t).emit1());
}

// STFT with frame_step or frame_length given at run time: the frames' start
// positions and the frame indices come from range ops where the constant
// path writes them out, and the values are checked by assert_true (Note
// [Axes given at run time] in onnx_convert.cpp). The window, when given,
// fixes the frame length here.
Status stft_at_run_time(C& c, const ValueType& vt, bool onesided) {
  const int64_t length = vt.dims[1];
  auto scalar64 = [&](int k) {
    Value v = c.op("reshape").in(c.input(k)).arg("shape", std::vector<int64_t>{}).emit1();
    return c.input_dtype(k) == DataType::kInt64 ? v : c.op("cast").in(v).arg("dtype", DataType::kInt64).emit1();
  };
  auto i64 = [&](int64_t v) { return c.constant_ints({v}, false); };
  Value step = scalar64(1);
  step = c.checked(c.op("greater_equal").in(step).in(i64(1)).emit1(), step, "frame_step must be at least 1");
  Value frame;
  int64_t window = -1;
  if (c.has_input(2)) {
    const ValueType wt = c.input_type(2);
    if (wt.rank() != 1 || wt.dims[0] < 1) return c.fail("input 2 (window) must be 1-D with a length known at import");
    window = wt.dims[0];
    if (window > length)
      return c.fail(str_format("the window (%lld) is longer than the signal (%lld)", static_cast<long long>(window),
                               static_cast<long long>(length)));
    frame = i64(window);
    if (c.has_input(3))  // must agree with the window
      frame = c.checked(c.op("equal").in(scalar64(3)).in(frame).emit1(), frame,
                        str_format("frame_length must be the window's length, %lld", static_cast<long long>(window)));
  } else if (c.has_input(3)) {
    frame = scalar64(3);
    const Value ok = c.op("logical_and")
                         .in(c.op("greater_equal").in(frame).in(i64(1)).emit1())
                         .in(c.op("less_equal").in(frame).in(i64(length)).emit1())
                         .emit1();
    frame = c.checked(ok, frame, str_format("frame_length must be 1 .. %lld (the signal's length)",
                                            static_cast<long long>(length)));
  } else {
    return c.fail("neither a window nor frame_length gives the frame length");
  }
  // frames = (length - frame) / step + 1; index [f, k] = f * step + k.
  const Value frames = c.op("add").in(c.op("floor_div").in(c.op("subtract").in(i64(length)).in(frame).emit1())
                                          .in(step).emit1())
                           .in(i64(1)).emit1();
  const Value starts = c.op("multiply").in(c.op("range").in(i64(0)).in(frames).in(i64(1)).emit1()).in(step).emit1();
  const Value within = c.op("range").in(i64(0)).in(frame).in(i64(1)).emit1();
  const Value idx = c.op("add").in(c.op("expand_dims").in(starts).arg("axis", int64_t{1}).emit1())
                        .in(c.op("expand_dims").in(within).arg("axis", int64_t{0}).emit1())
                        .emit1();
  Value x = c.op("gather").in(c.input(0)).in(idx).arg("axis", int64_t{1}).emit1();
  if (c.has_input(2)) {
    Value w = c.op("reshape").in(c.input(2)).arg("shape", std::vector<int64_t>{1, 1, window, 1}).emit1();
    if (c.input_dtype(2) != vt.dtype) w = c.op("cast").in(w).arg("dtype", vt.dtype).emit1();
    x = c.op("multiply").in(x).in(w).emit1();
  }
  if (vt.dims[2] == 1) x = c.op("concat").in(x).in(c.op("zeros_like").in(x).emit1()).arg("axis", int64_t{3}).emit1();
  Value y = c.op("fft").in(x).arg("axes", std::vector<int64_t>{2}).emit1();
  if (onesided) {
    const Value bins = c.op("add").in(c.op("floor_div").in(frame).in(i64(2)).emit1()).in(i64(1)).emit1();
    y = c.op("slice_axes").in(y).in(c.constant_ints({0})).in(c.op("reshape").in(bins)
                                                               .arg("shape", std::vector<int64_t>{1}).emit1())
            .in(c.constant_ints({2})).emit1();
  }
  return done(c, 0, y);
}

// STFT: frames of the signal [batch, length, 1 or 2] every frame_step
// samples (a gather with constant indices), times the window, through a
// DFT along the frame: [batch, frames, bins, 2], bins 0 .. n/2 when
// onesided. The signal's length must be known at import; frame_step and
// the frame length given at run time take stft_at_run_time.
Status map_stft(C& c) {
  const ValueType vt = c.input_type(0);
  if (vt.rank() != 3 || vt.dims[1] < 0 || (vt.dims[2] != 1 && vt.dims[2] != 2))
    return c.fail("input 0 (signal) must be [batch, length, 1 or 2] with a length known at import");
  if (vt.dtype != DataType::kFloat32 && vt.dtype != DataType::kFloat64)
    return c.fail("the signal must be float32 or float64");
  const int64_t onesided = c.attr_int("onesided", 1);
  const bool real = vt.dims[2] == 1;
  if (onesided != 0 && !real) return c.fail_attr("onesided", "= 1 needs a real signal ([batch, length, 1])");
  std::vector<int64_t> v;
  const Tensor* st = c.constant_input(1);
  const Tensor* ft = c.has_input(3) ? c.constant_input(3) : nullptr;
  if (st == nullptr || (c.has_input(3) && ft == nullptr)) return stft_at_run_time(c, vt, onesided != 0);
  if (!st->to_int64s(v) || v.size() != 1 || v[0] < 1) return c.fail("input 1 (frame_step) must be >= 1");
  const int64_t step = v[0];
  int64_t frame = -1;
  if (c.has_input(3)) {
    if (!ft->to_int64s(v) || v.size() != 1 || v[0] < 1) return c.fail("input 3 (frame_length) must be >= 1");
    frame = v[0];
  }
  if (c.has_input(2)) {
    const ValueType wt = c.input_type(2);
    if (wt.rank() != 1 || wt.dims[0] < 1) return c.fail("input 2 (window) must be 1-D with a length known at import");
    if (frame >= 0 && frame != wt.dims[0])
      return c.fail(str_format("frame_length %lld differs from the window's length %lld", static_cast<long long>(frame),
                               static_cast<long long>(wt.dims[0])));
    frame = wt.dims[0];
  }
  if (frame < 1) return c.fail("neither a window nor frame_length gives the frame length");
  const int64_t length = vt.dims[1];
  if (frame > length)
    return c.fail(str_format("the frame length %lld is longer than the signal (%lld)", static_cast<long long>(frame),
                             static_cast<long long>(length)));
  const int64_t frames = (length - frame) / step + 1;
  // The frame indices are a constant of frames x frame values.
  if (frames > (int64_t{1} << 24) / frame)
    return c.fail(str_format("%lld frames of %lld samples are more than the importer indexes (2^24 samples)",
                             static_cast<long long>(frames), static_cast<long long>(frame)));
  std::vector<int64_t> idx(static_cast<size_t>(frames * frame));
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t k = 0; k < frame; ++k) idx[static_cast<size_t>(f * frame + k)] = f * step + k;
  Tensor it = int64_tensor(idx);
  it.dims = {frames, frame};
  Value x = c.op("gather").in(c.input(0)).in(c.constant(std::move(it))).arg("axis", int64_t{1}).emit1();
  if (c.has_input(2)) {
    Value w = c.op("reshape").in(c.input(2)).arg("shape", std::vector<int64_t>{1, 1, frame, 1}).emit1();
    if (c.input_dtype(2) != vt.dtype) w = c.op("cast").in(w).arg("dtype", vt.dtype).emit1();
    x = c.op("multiply").in(x).in(w).emit1();
  }
  if (real) x = c.op("concat").in(x).in(c.op("zeros_like").in(x).emit1()).arg("axis", int64_t{3}).emit1();
  Value y = c.op("fft").in(x).arg("axes", std::vector<int64_t>{2}).emit1();
  if (onesided != 0)
    y = c.op("slice").in(y).arg("begin_size", std::vector<int64_t>{0, 0, 0, 0, -1, -1, frame / 2 + 1, -1}).emit1();
  return done(c, 0, y);
}

// ---- Windows: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) for n in
// [0, size), N = size (periodic) or size - 1 (symmetric); computed in
// float64, then cast to output_datatype.
Status map_window(C& c, double a0, double a1, double a2) {
  const int64_t periodic = c.attr_int("periodic", 1);
  const int code = static_cast<int>(c.attr_int("output_datatype", 1));
  const DataType t = dtype_from_onnx(code);
  if (t == DataType::kInvalid || t == DataType::kBool)
    return c.fail_attr("output_datatype", str_format("= %s is not supported", onnx_type_name(code)));
  const DataType it = c.input_dtype(0);
  if (it != DataType::kInt32 && it != DataType::kInt64) return c.fail("input 0 (size) must be int32 or int64");
  const DataType f = DataType::kFloat64;
  Value size = c.input(0);
  Value n = c.op("range").in(c.constant_scalar(it, 0)).in(size).in(c.constant_scalar(it, 1)).emit1();
  Value den = c.op("cast").in(size).arg("dtype", f).emit1();
  if (!periodic) den = c.op("subtract").in(den).in(c.constant_scalar(f, 1.0)).emit1();
  Value angle = c.op("cast").in(n).arg("dtype", f).emit1();
  angle = c.op("multiply").in(angle).in(c.constant_scalar(f, 2 * M_PI)).emit1();
  angle = c.op("divide").in(angle).in(den).emit1();
  Value w = c.op("multiply").in(c.op("cos").in(angle).emit1()).in(c.constant_scalar(f, -a1)).emit1();
  w = c.op("add").in(w).in(c.constant_scalar(f, a0)).emit1();
  if (a2 != 0.0) {
    Value twice = c.op("multiply").in(angle).in(c.constant_scalar(f, 2.0)).emit1();
    Value term = c.op("multiply").in(c.op("cos").in(twice).emit1()).in(c.constant_scalar(f, a2)).emit1();
    w = c.op("add").in(w).in(term).emit1();
  }
  return done(c, 0, cast_to(c, w, f, t));
}

#define ROW(op, first, last, fn, notes) {op, first, last, fn, notes}
#define UNARY(op, first, lib) {op, first, kMaxOpset, [](C& c) { return unary(c, lib); }, ""}
#define BINARY(op, first, lib) {op, first, kMaxOpset, [](C& c) { return binary(c, lib); }, ""}

const std::vector<OpMapping> kTable = {
    // Element-wise, one input.
    UNARY("Abs", 1, "abs"),
    UNARY("Acos", 7, "acos"),
    UNARY("Acosh", 9, "acosh"),
    UNARY("Asin", 7, "asin"),
    UNARY("Asinh", 9, "asinh"),
    UNARY("Atan", 7, "atan"),
    UNARY("Atanh", 9, "atanh"),
    UNARY("Ceil", 1, "ceil"),
    UNARY("Cos", 7, "cos"),
    UNARY("Cosh", 9, "cosh"),
    UNARY("Erf", 9, "erf"),
    UNARY("Exp", 1, "exp"),
    UNARY("Floor", 1, "floor"),
    UNARY("IsNaN", 9, "is_nan"),
    UNARY("Log", 1, "log"),
    UNARY("Mish", 18, "mish"),
    UNARY("Neg", 1, "neg"),
    UNARY("Not", 1, "logical_not"),
    UNARY("Reciprocal", 1, "reciprocal"),
    UNARY("Relu", 1, "relu"),
    UNARY("Round", 11, "rint"),
    UNARY("Sigmoid", 1, "sigmoid"),
    UNARY("Sign", 9, "sign"),
    UNARY("Sin", 7, "sin"),
    UNARY("Sinh", 9, "sinh"),
    UNARY("Softplus", 1, "softplus"),
    UNARY("Softsign", 1, "softsign"),
    UNARY("Sqrt", 1, "sqrt"),
    UNARY("Tan", 7, "tan"),
    UNARY("Tanh", 1, "tanh"),
    UNARY("NonZero", 9, "nonzero"),
    UNARY("Det", 11, "matrix_determinant"),
    UNARY("BitwiseNot", 18, "bitwise_not"),
    ROW("Identity", 1, kMaxOpset, map_identity, ""),
    ROW("IsInf", 10, kMaxOpset, map_is_inf, ""),
    // Element-wise, two inputs, numpy broadcasting.
    BINARY("Add", 7, "add"),
    BINARY("Sub", 7, "subtract"),
    BINARY("Mul", 7, "multiply"),
    BINARY("Div", 7, "divide"),
    BINARY("Equal", 7, "equal"),
    BINARY("Less", 7, "less"),
    BINARY("LessOrEqual", 12, "less_equal"),
    BINARY("Greater", 7, "greater"),
    BINARY("GreaterOrEqual", 12, "greater_equal"),
    BINARY("And", 7, "logical_and"),
    BINARY("Or", 7, "logical_or"),
    BINARY("Xor", 7, "logical_xor"),
    BINARY("BitwiseAnd", 18, "bitwise_and"),
    BINARY("BitwiseOr", 18, "bitwise_or"),
    BINARY("BitwiseXor", 18, "bitwise_xor"),
    BINARY("MatMul", 1, "matmul"),
    ROW("Pow", 7, kMaxOpset, map_pow, ""),
    ROW("Mod", 10, kMaxOpset, map_mod, ""),
    ROW("PRelu", 7, kMaxOpset, map_prelu, ""),
    ROW("Where", 9, kMaxOpset, map_where, ""),
    // Variadic.
    ROW("Max", 6, kMaxOpset, [](C& c) { return variadic(c, "maximum"); }, ""),
    ROW("Min", 6, kMaxOpset, [](C& c) { return variadic(c, "minimum"); }, ""),
    ROW("Sum", 6, kMaxOpset, [](C& c) { return variadic(c, "add"); }, ""),
    ROW("Mean", 6, kMaxOpset, map_mean, ""),
    // Activations with parameters.
    ROW("LeakyRelu", 6, kMaxOpset, map_leaky_relu, ""),
    ROW("Elu", 6, kMaxOpset, map_elu, ""),
    ROW("Selu", 6, kMaxOpset, map_selu, ""),
    ROW("HardSigmoid", 6, kMaxOpset, map_hard_sigmoid, ""),
    ROW("HardSwish", 14, kMaxOpset, map_hard_swish, ""),
    ROW("Gelu", 20, kMaxOpset, map_gelu, ""),
    ROW("Clip", 6, 10, map_clip_attr, ""),
    ROW("Clip", 11, kMaxOpset, map_clip, ""),
    // Linear algebra and neural-network layers.
    ROW("Gemm", 7, kMaxOpset, map_gemm, ""),
    ROW("Conv", 1, kMaxOpset, map_conv,
        "auto_pad SAME_LOWER with unknown spatial dims, or on 3-D windows."),
    ROW("ConvTranspose", 1, kMaxOpset, map_conv_transpose,
        "1-D and 2-D: asymmetric pads larger at the end, or output_shape, with unknown spatial dims; 3-D: uneven "
        "pads, auto_pad SAME, output_shape."),
    ROW("MaxPool", 1, kMaxOpset, map_max_pool,
        "ceil_mode = 1 with unequal pads before and after; the Indices output with unequal pads, storage_order = 1 "
        "or a 3-D window."),
    ROW("AveragePool", 1, kMaxOpset, map_average_pool,
        "unequal pads before and after with ceil_mode = 1 or count_include_pad = 0."),
    ROW("MaxUnpool", 9, kMaxOpset, map_max_unpool, "inputs of unknown dims without output_shape."),
    ROW("GridSample", 16, kMaxOpset, map_grid_sample, "inputs of other than 4 or 5 dims (opset 20's N-D)."),
    ROW("DeformConv", 19, kMaxOpset, map_deform_conv, "inputs of other than 4 dims."),
    ROW("RoiAlign", 10, kMaxOpset, map_roi_align, ""),
    ROW("MaxRoiPool", 1, kMaxOpset, map_max_roi_pool, ""),
    ROW("GlobalAveragePool", 1, kMaxOpset, [](C& c) { return map_global_pool(c, "reduce_mean"); }, "inputs of unknown rank."),
    ROW("GlobalMaxPool", 1, kMaxOpset, [](C& c) { return map_global_pool(c, "reduce_max"); }, "inputs of unknown rank."),
    ROW("GroupNormalization", 21, kMaxOpset, map_group_normalization, "stash_type other than 1 (float)."),
    ROW("BatchNormalization", 7, kMaxOpset, map_batch_norm,
        "spatial = 0; the saved mean and variance outputs of opsets 7 to 13 (training)."),
    ROW("InstanceNormalization", 6, kMaxOpset, map_instance_norm, ""),
    ROW("LayerNormalization", 17, kMaxOpset, map_layer_norm,
        "stash_type other than 1 (float); the Mean and InvStdDev outputs of an input of unknown rank."),
    ROW("RMSNormalization", 23, kMaxOpset, map_rms_norm, "stash_type other than 1 (float)."),
    ROW("Swish", 24, kMaxOpset, map_swish, ""),
    ROW("Softmax", 1, 12, [](C& c) { return softmax_like(c, false, true); },
        "an axis other than the last when more than one dim is unknown."),
    ROW("Softmax", 13, kMaxOpset, [](C& c) { return softmax_like(c, false, false); }, ""),
    ROW("LogSoftmax", 1, 12, [](C& c) { return softmax_like(c, true, true); },
        "an axis other than the last when more than one dim is unknown."),
    ROW("LogSoftmax", 13, kMaxOpset, [](C& c) { return softmax_like(c, true, false); }, ""),
    ROW("Attention", 23, kMaxOpset, map_attention,
        "Q of unknown rank; a float attn_mask of another dtype than Q's."),
    ROW("RotaryEmbedding", 23, kMaxOpset, map_rotary_embedding, "X of unknown rank."),
    ROW("CausalConvWithState", 27, kMaxOpset, map_causal_conv_with_state, "weights of unknown shape."),
    ROW("LinearAttention", 27, kMaxOpset, map_linear_attention, ""),
    ROW("Dropout", 7, kMaxOpset, map_dropout, "training_mode true or computed at run time (inference only)."),
    // Control flow: branches become libops subgraphs.
    ROW("If", 1, kMaxOpset, map_if, "a branch that reads an outer value whose dtype is not known."),
    ROW("Loop", 1, kMaxOpset, map_loop,
        "loop-carried or outer values whose dtype is not known; after zero iterations, a scan output whose shape "
        "the body's shape inference cannot tell (a run-time error)."),
    ROW("Scan", 8, 8, map_scan,
        "opset 8: sequence_lens shorter than the sequence; an empty batch when the body has scan outputs (a run-time "
        "error)."),
    ROW("Scan", 9, kMaxOpset, map_scan,
        "Every opset: states or scan inputs whose dtype is not known; a negative scan_input_axes entry for an input of unknown "
        "rank; a scan_output_axes entry other than 0 for an output of unknown rank; after zero iterations, a scan "
        "output whose shape the body's shape inference cannot tell (a run-time error)."),
    // Shapes and data movement.
    ROW("Flatten", 1, kMaxOpset, map_flatten, "inputs with unknown dims on both sides of axis."),
    ROW("Reshape", 5, kMaxOpset, map_reshape, ""),
    ROW("Transpose", 1, kMaxOpset, map_transpose, ""),
    ROW("Concat", 4, kMaxOpset, map_concat, ""),
    ROW("Split", 2, kMaxOpset, map_split, ""),
    ROW("Slice", 1, kMaxOpset, map_slice, ""),
    ROW("Squeeze", 1, kMaxOpset, map_squeeze, ""),
    ROW("Unsqueeze", 1, kMaxOpset, map_unsqueeze, ""),
    ROW("Gather", 1, kMaxOpset, map_gather, ""),
    ROW("GatherElements", 11, kMaxOpset, map_gather_elements, ""),
    ROW("ReverseSequence", 10, kMaxOpset, map_reverse_sequence, ""),
    ROW("NonMaxSuppression", 10, kMaxOpset, map_non_max_suppression, ""),
    ROW("GatherND", 11, kMaxOpset, map_gather_nd, ""),
    ROW("Cast", 6, kMaxOpset, map_cast, "string and complex dtypes."),
    ROW("CastLike", 15, kMaxOpset, map_cast_like, "a target whose dtype is not known; string and complex dtypes."),
    ROW("Shape", 1, kMaxOpset, map_shape, ""),
    ROW("Size", 1, kMaxOpset, map_size, ""),
    ROW("Constant", 1, kMaxOpset, map_constant, "sparse_value, value_string(s)."),
    ROW("ConstantOfShape", 9, kMaxOpset, map_constant_of_shape, ""),
    ROW("Expand", 8, kMaxOpset, map_expand, ""),
    ROW("Tile", 6, kMaxOpset, map_tile, ""),
    ROW("CenterCropPad", 18, kMaxOpset, map_center_crop_pad, "inputs of unknown rank."),
    ROW("Col2Im", 18, kMaxOpset, map_col2im, "an image_shape of unknown length."),
    ROW("TensorScatter", 24, kMaxOpset, map_tensor_scatter, "the batch axis as axis."),
    ROW("AffineGrid", 20, kMaxOpset, map_affine_grid, "theta of unknown shape."),
    ROW("BitCast", 26, kMaxOpset, map_bitcast, "string, float8 and 4-bit dtypes."),
    ROW("Pad", 2, kMaxOpset, map_pad,
        "negative pads computed at run time (an error when the graph runs); axes with an input of "
        "unknown rank."),
    ROW("Range", 11, kMaxOpset, map_range, ""),
    ROW("CumSum", 11, kMaxOpset, [](C& c) { return running(c, "cumsum"); }, ""),
    ROW("CumProd", 26, kMaxOpset, [](C& c) { return running(c, "cumprod"); }, ""),
    ROW("TopK", 1, kMaxOpset, map_top_k, ""),
    ROW("Trilu", 14, kMaxOpset, map_trilu, ""),
    ROW("ScatterElements", 11, kMaxOpset, map_scatter_elements, ""),
    ROW("ScatterND", 11, kMaxOpset, map_scatter_nd, ""),
    ROW("OneHot", 9, kMaxOpset, map_one_hot, ""),
    ROW("DepthToSpace", 1, kMaxOpset, [](C& c) { return map_depth_space(c, true); }, ""),
    ROW("SpaceToDepth", 1, kMaxOpset, [](C& c) { return map_depth_space(c, false); }, ""),
    ROW("Resize", 10, kMaxOpset, map_resize,
        "axes other than all or H and W; linear and cubic (and scales that are not whole numbers) and "
        "tf_crop_and_resize over other than the H and W of 4-D inputs; scales or sizes computed at "
        "run time for other than 4-D inputs. align_corners with scales divides by out - 1, as ONNX Runtime and "
        "PyTorch do (ONNX's reference takes scale * in - 1)."),
    ROW("Einsum", 12, kMaxOpset, map_einsum, "an ellipsis over an operand of unknown rank."),
    ROW("LSTM", 7, kMaxOpset, [](C& c) { return map_recurrent(c, Recurrent::kLstm); },
        "clip; input_forget = 1; activations that differ between the two directions."),
    ROW("GRU", 7, kMaxOpset, [](C& c) { return map_recurrent(c, Recurrent::kGru); },
        "clip; activations that differ between the two directions."),
    ROW("RNN", 7, kMaxOpset, [](C& c) { return map_recurrent(c, Recurrent::kRnn); },
        "clip; activations that differ between the two directions."),
    ROW("Upsample", 7, 9, map_upsample,
        "linear over other than the known H and W of 4-D inputs; nearest scales that are not whole numbers."),
    // Reductions.
    ROW("ReduceSum", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_sum", 13); }, ""),
    ROW("ReduceMean", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_mean", 18); }, ""),
    ROW("ReduceMax", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_max", 18); }, ""),
    ROW("ReduceMin", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_min", 18); }, ""),
    ROW("ReduceProd", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_prod", 18); }, ""),
    ROW("ReduceL1", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_norm1", 18); }, ""),
    ROW("ReduceL2", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_norm2", 18); }, ""),
    ROW("ReduceLogSumExp", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_logsumexp", 18); },
        "axes computed at run time with noop_with_empty_axes = 1."),
    ROW("ReduceSumSquare", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_sqnorm", 18); }, ""),
    ROW("ReduceLogSum", 1, kMaxOpset, [](C& c) { return reduce(c, "reduce_sum", 18, "log"); },
        "axes computed at run time with noop_with_empty_axes = 1."),
    ROW("LRN", 1, kMaxOpset, map_lrn, ""),
    ROW("BitShift", 11, kMaxOpset, map_bit_shift, ""),
    ROW("Compress", 9, kMaxOpset, map_compress, ""),
    ROW("Scatter", 9, 10, map_scatter_elements, ""),
    ROW("Celu", 12, kMaxOpset, map_celu, ""),
    ROW("ThresholdedRelu", 10, kMaxOpset, map_thresholded_relu, ""),
    ROW("Shrink", 9, kMaxOpset, map_shrink, ""),
    ROW("EyeLike", 9, kMaxOpset, map_eye_like, "inputs whose dims are not known."),
    ROW("Hardmax", 13, kMaxOpset, map_hardmax, "an axis whose extent is not known."),
    ROW("LpNormalization", 1, kMaxOpset, map_lp_normalization, "p other than 1 and 2."),
    ROW("MeanVarianceNormalization", 9, kMaxOpset, map_mean_variance_normalization, ""),
    ROW("GlobalLpPool", 2, kMaxOpset, map_global_lp_pool, "inputs of unknown rank."),
    ROW("LpPool", 2, kMaxOpset, map_lp_pool,
        "auto_pad SAME_UPPER over unknown spatial dims, and over any 3-D window; ceil_mode = 1."),
    ROW("ArgMax", 1, kMaxOpset, [](C& c) { return arg_reduce(c, "argmax"); }, ""),
    ROW("ArgMin", 1, kMaxOpset, [](C& c) { return arg_reduce(c, "argmin"); }, ""),
    ROW("Unique", 11, kMaxOpset, map_unique,
        "axis over an input whose dims are not known at import, or over slices of more than 256 elements."),
    // Random numbers (Note [ONNX random ops]: a node draws the same numbers on every run).
    ROW("RandomUniform", 1, kMaxOpset, [](C& c) { return map_random(c, false, false); },
        "a node draws the same numbers on every run (seeded by its seed attribute, else by its output's name)."),
    ROW("RandomNormal", 1, kMaxOpset, [](C& c) { return map_random(c, true, false); },
        "a node draws the same numbers on every run."),
    ROW("RandomUniformLike", 1, kMaxOpset, [](C& c) { return map_random(c, false, true); },
        "a node draws the same numbers on every run."),
    ROW("RandomNormalLike", 1, kMaxOpset, [](C& c) { return map_random(c, true, true); },
        "a node draws the same numbers on every run."),
    ROW("Bernoulli", 15, kMaxOpset, map_bernoulli, "a node draws the same numbers on every run."),
    ROW("Multinomial", 7, kMaxOpset, map_multinomial, "a node draws the same numbers on every run."),
    // Quantization, composed of element-wise ops.
    ROW("QuantizeLinear", 10, kMaxOpset, map_quantize_linear, ""),
    ROW("DequantizeLinear", 10, kMaxOpset, map_dequantize_linear, ""),
    ROW("DynamicQuantizeLinear", 11, kMaxOpset, map_dynamic_quantize_linear, ""),
    ROW("MatMulInteger", 10, kMaxOpset, map_matmul_integer, ""),
    ROW("ConvInteger", 10, kMaxOpset, [](C& c) { return map_conv_quantized(c, false); },
        "3-D windows; auto_pad SAME_LOWER with unknown spatial dims."),
    ROW("QLinearConv", 10, kMaxOpset, [](C& c) { return map_conv_quantized(c, true); },
        "3-D windows; auto_pad SAME_LOWER with unknown spatial dims; scales other than float32."),
    ROW("QLinearMatMul", 10, kMaxOpset, map_qlinear_matmul, ""),
    // Losses.
    ROW("NegativeLogLikelihoodLoss", 12, kMaxOpset, map_nll_loss, ""),
    ROW("SoftmaxCrossEntropyLoss", 12, kMaxOpset, map_softmax_cross_entropy, ""),
    // Sequences and optionals: known at import (Note [Import-time sequences]),
    // or run-time lists (Note [Run-time sequences] in onnx_convert.cpp).
    ROW("SequenceEmpty", 11, kMaxOpset, map_sequence_empty, ""),
    ROW("SequenceConstruct", 11, kMaxOpset, map_sequence_construct, ""),
    ROW("SequenceAt", 11, kMaxOpset, map_sequence_at, ""),
    ROW("SequenceLength", 11, kMaxOpset, map_sequence_length, ""),
    ROW("SequenceInsert", 11, kMaxOpset, map_sequence_insert, ""),
    ROW("SequenceErase", 11, kMaxOpset, map_sequence_erase, ""),
    ROW("SequenceMap", 17, kMaxOpset, map_sequence_map, "optional inputs; sequences as the body's outputs."),
    ROW("ConcatFromSequence", 11, kMaxOpset, map_concat_from_sequence,
        "an empty sequence known at import; a stacked sequence along an axis other than 0 when the rank of its "
        "elements is not known at import."),
    ROW("SplitToSequence", 11, kMaxOpset, map_split_to_sequence, ""),
    // Text.
    ROW("TfIdfVectorizer", 9, kMaxOpset, map_tfidf_vectorizer, "pool_strings (string tensors)."),
    ROW("Optional", 15, kMaxOpset, map_optional,
        "an empty optional sequence whose output type the model does not declare (it is taken for an empty "
        "optional tensor)."),
    ROW("OptionalHasElement", 15, kMaxOpset, map_optional_has_element, ""),
    ROW("OptionalGetElement", 15, kMaxOpset, map_optional_get_element, ""),
    // Signals.
    ROW("MelWeightMatrix", 17, kMaxOpset, map_mel_weight_matrix, "inputs computed at run time."),
    ROW("STFT", 17, kMaxOpset, map_stft,
        "a signal or window whose length is not known at import; onesided = 1 on a complex signal."),
    ROW("DFT", 17, kMaxOpset, map_dft,
        "dft_length computed at run time; dft_length, or onesided on a forward transform, with the "
        "signal's length not known at import; onesided = 1 with inverse = 1 on a real input."),
    ROW("HannWindow", 17, kMaxOpset, [](C& c) { return map_window(c, 0.5, 0.5, 0.0); }, ""),
    ROW("HammingWindow", 17, kMaxOpset, [](C& c) { return map_window(c, 25.0 / 46.0, 21.0 / 46.0, 0.0); }, ""),
    ROW("BlackmanWindow", 17, kMaxOpset, [](C& c) { return map_window(c, 0.42, 0.5, 0.08); }, ""),
};

#undef ROW
#undef UNARY
#undef BINARY

}  // namespace

const std::vector<OpMapping>& mapping_table() { return kTable; }

}  // namespace libops::graph::onnx
