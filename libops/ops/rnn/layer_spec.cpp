#include "libops/ops/rnn/layer_spec.h"

#include <cmath>

namespace libops::ops::rnn {

Status read_layer(const Context& block, const LayerSpec& spec, const NDArray& x, const NDArray& w, const NDArray& r,
                  RnnDesc& d) {
  if (spec.direction == 4 && spec.data_format != 3)
    return block.error(StatusCode::kInvalidArgument,
                       "direction 4 (both directions on their own axis) needs data_format 3, got %d", spec.data_format);
  if (x.rank() != 3)
    return block.error(StatusCode::kInvalidArgument, "x%s must have rank 3", x.shape().str().c_str());
  d.directions = spec.direction >= 2 ? 2 : 1;
  d.reverse = spec.direction == 1;
  d.sum_directions = spec.direction == 2;
  d.w_transposed = spec.weights_format == 1;
  switch (spec.data_format) {
    case 1: d.N = x.dim(0), d.T = x.dim(1), d.I = x.dim(2); break;
    case 2: d.N = x.dim(0), d.I = x.dim(1), d.T = x.dim(2); break;
    default: d.T = x.dim(0), d.N = x.dim(1), d.I = x.dim(2); break;
  }
  const int D = d.directions, G = d.gate_count();
  // R gives H: [H, G*H] (libnd4j) or [G*H, H] (ONNX), after the direction dim.
  const bool lead = d.w_transposed || D == 2;
  const char* want_w = d.w_transposed ? "[D, G*H, I]" : (D == 2 ? "[2, I, G*H]" : "[I, G*H]");
  const char* want_r = d.w_transposed ? "[D, G*H, H]" : (D == 2 ? "[2, H, G*H]" : "[H, G*H]");
  if (r.rank() != (lead ? 3 : 2) || (lead && r.dim(0) != D))
    return block.error(StatusCode::kInvalidArgument, "the recurrent weights%s must be %s with D = %d, G = %d",
                       r.shape().str().c_str(), want_r, D, G);
  const int o = lead ? 1 : 0;
  d.H = d.w_transposed ? r.dim(o + 1) : r.dim(o);
  const int64_t gh = G * d.H;
  const bool r_ok = d.w_transposed ? r.dim(o) == gh : r.dim(o + 1) == gh;
  const bool w_ok = w.rank() == r.rank() && (!lead || w.dim(0) == D) &&
                    (d.w_transposed ? w.dim(o) == gh && w.dim(o + 1) == d.I : w.dim(o) == d.I && w.dim(o + 1) == gh);
  if (!r_ok || !w_ok)
    return block.error(StatusCode::kInvalidArgument,
                       "weights W%s and R%s do not fit x%s: want W %s and R %s with D = %d, G = %d, I = %lld, H = %lld",
                       w.shape().str().c_str(), r.shape().str().c_str(), x.shape().str().c_str(), want_w, want_r, D,
                       G, static_cast<long long>(d.I), static_cast<long long>(d.H));
  // y's strides (Note [Recurrent layers]): the layout of y_shape.
  const int64_t T = d.T, N = d.N, H = d.H;
  const int64_t units = spec.direction == 3 ? 2 * H : H;
  d.y_h = 1;
  d.y_d = spec.direction == 3 ? H : 0;
  if (spec.direction == 4) {
    d.y_t = 2 * N * H, d.y_d = N * H, d.y_n = H;
  } else if (spec.data_format == 1) {
    d.y_n = T * units, d.y_t = units;
  } else if (spec.data_format == 2) {
    d.y_n = units * T, d.y_h = T, d.y_t = 1;
    if (spec.direction == 3) d.y_d = H * T;
  } else {
    d.y_t = N * units, d.y_n = units;
  }
  return Status::ok();
}

Dims y_shape(const LayerSpec& spec, const RnnDesc& d) {
  const int64_t units = spec.direction == 3 ? 2 * d.H : d.H;
  if (spec.direction == 4) return Dims{d.T, 2, d.N, d.H};
  if (spec.data_format == 1) return Dims{d.N, d.T, units};
  if (spec.data_format == 2) return Dims{d.N, units, d.T};
  return Dims{d.T, d.N, units};
}

Dims state_shape(const RnnDesc& d) { return d.directions == 2 ? Dims{2, d.N, d.H} : Dims{d.N, d.H}; }

Status time_major(const NDArray& x, int data_format, NDArray& out) {
  if (data_format == 1) return x.permute(Dims{1, 0, 2}, out);
  if (data_format == 2) return x.permute(Dims{2, 0, 1}, out);
  out = x;
  return Status::ok();
}

Status direction_param(const Context& block, const NDArray& a, const char* name, const RnnDesc& d, int64_t count,
                       NDArray& out) {
  const int D = d.directions;
  if (!dtype_is_float(a.dtype()))
    return block.error(StatusCode::kInvalidArgument, "%s must be float, got %s", name, dtype_name(a.dtype()));
  const bool ok = (a.rank() == 2 && a.dim(0) == D && a.dim(1) == count) ||
                  (a.rank() == 1 && D == 1 && a.dim(0) == count);
  if (!ok)
    return block.error(StatusCode::kInvalidArgument, "%s%s must be [%d, %lld]%s", name, a.shape().str().c_str(), D,
                       static_cast<long long>(count),
                       D == 1 ? str_format(" or [%lld]", static_cast<long long>(count)).c_str() : "");
  return a.reshape(Dims{D, count}, out);
}

Status initial_state(const Context& block, const NDArray& a, const char* name, const RnnDesc& d, NDArray& out) {
  const int D = d.directions;
  if (!dtype_is_float(a.dtype()))
    return block.error(StatusCode::kInvalidArgument, "%s must be float, got %s", name, dtype_name(a.dtype()));
  const bool ok = (a.rank() == 3 && a.dim(0) == D && a.dim(1) == d.N && a.dim(2) == d.H) ||
                  (a.rank() == 2 && D == 1 && a.dim(0) == d.N && a.dim(1) == d.H);
  if (!ok)
    return block.error(StatusCode::kInvalidArgument, "%s%s must be [%d, N, H] = [%d, %lld, %lld]%s", name,
                       a.shape().str().c_str(), D, D, static_cast<long long>(d.N), static_cast<long long>(d.H),
                       D == 1 ? " or [N, H]" : "");
  return a.reshape(Dims{D, d.N, d.H}, out);
}

Status check_lengths(const Context& block, const NDArray& a, const RnnDesc& d) {
  if (!dtype_is_integer(a.dtype()) || a.rank() != 1 || a.dim(0) != d.N)
    return block.error(StatusCode::kInvalidArgument, "seq_len (%s%s) must be N = %lld integers",
                       dtype_name(a.dtype()), a.shape().str().c_str(), static_cast<long long>(d.N));
  return Status::ok();
}

Status read_activation(const Context& block, int64_t code, double alpha, double beta, ActivationFn& out) {
  if (code < 0 || code >= kNumActivations)
    return block.error(StatusCode::kInvalidArgument, "activation code %lld is not one of 0 .. %d",
                       static_cast<long long>(code), kNumActivations - 1);
  out.kind = static_cast<Activation>(code);
  // ONNX's defaults for activation_alpha / activation_beta.
  double a0 = 1.0, b0 = 0.0;
  switch (out.kind) {
    case Activation::kLeakyRelu: a0 = 0.01; break;
    case Activation::kScaledTanh: b0 = 1.0; break;
    case Activation::kHardSigmoid: a0 = 0.2, b0 = 0.5; break;
    default: break;
  }
  out.alpha = std::isnan(alpha) ? a0 : alpha;
  out.beta = std::isnan(beta) ? b0 : beta;
  return Status::ok();
}

Status read_operands(const Context& block, const LayerSpec& spec, const RnnDesc& d, const LayerInputs& has,
                     RnnOperands& in, NDArray views[6]) {
  const int present = 3 + has.biases + has.seq_len + has.init_h + has.init_c + has.peepholes;
  if (block.num_inputs() != present)
    return block.error(StatusCode::kInvalidArgument,
                       "takes x, W, R and the %d optional inputs its has_* b args name, so %d inputs; got %d",
                       present - 3, present, block.num_inputs());
  RETURN_IF_ERROR(time_major(*block.input(0), spec.data_format, views[0]));
  in.x = &views[0];
  in.w = block.input(1);
  in.r = block.input(2);
  int next = 3;
  const int64_t gh = d.gate_count() * d.H;
  if (has.biases) {
    const NDArray& b = *block.input(next++);
    if (spec.weights_format == 1) {  // [D, 2*G*H]: the input bias, then the recurrent one
      NDArray both;
      RETURN_IF_ERROR(direction_param(block, b, "b", d, 2 * gh, both));
      RETURN_IF_ERROR(both.slice(1, 0, gh, 1, views[1]));
      RETURN_IF_ERROR(both.slice(1, gh, 2 * gh, 1, views[2]));
      in.bh = &views[2];
    } else {
      RETURN_IF_ERROR(direction_param(block, b, "b", d, gh, views[1]));
    }
    in.bx = &views[1];
  }
  if (has.seq_len) {
    in.lengths = block.input(next++);
    RETURN_IF_ERROR(check_lengths(block, *in.lengths, d));
  }
  if (has.init_h) {
    RETURN_IF_ERROR(initial_state(block, *block.input(next++), "h0", d, views[3]));
    in.h0 = &views[3];
  }
  if (has.init_c) {
    RETURN_IF_ERROR(initial_state(block, *block.input(next++), "c0", d, views[4]));
    in.c0 = &views[4];
  }
  if (has.peepholes) {
    RETURN_IF_ERROR(direction_param(block, *block.input(next++), "peepholes", d, 3 * d.H, views[5]));
    in.peep = &views[5];
  }
  return Status::ok();
}

Status run_layer(Context& block, LayerReader read, int ret_full_seq, bool has_c) {
  LayerSpec spec;
  RnnDesc d;
  RnnOperands in;
  NDArray views[6];
  RETURN_IF_ERROR(read(block, spec, d, in, views));
  int k = 0;
  NDArray* y = block.b_arg(ret_full_seq) ? block.output(k++) : nullptr;
  NDArray* h = block.b_arg(ret_full_seq + 1) ? block.output(k++) : nullptr;
  NDArray* c = has_c && block.b_arg(ret_full_seq + 2) ? block.output(k++) : nullptr;
  return run_recurrent(block, d, in, y, h, c);
}

Status layer_output_shapes(Context& block, LayerReader read, int ret_full_seq, bool has_c, ShapeList& shapes) {
  LayerSpec spec;
  RnnDesc d;
  RnnOperands in;
  NDArray views[6];
  RETURN_IF_ERROR(read(block, spec, d, in, views));
  const DataType t = block.input(0)->dtype();
  if (block.b_arg(ret_full_seq)) shapes.push_back(TensorShape{t, y_shape(spec, d), 'c'});
  if (block.b_arg(ret_full_seq + 1)) shapes.push_back(TensorShape{t, state_shape(d), 'c'});
  if (has_c && block.b_arg(ret_full_seq + 2)) shapes.push_back(TensorShape{t, state_shape(d), 'c'});
  return Status::ok();
}

GateLayout gate_layout(CellKind kind, int weights_format) {
  GateLayout g;
  if (kind == CellKind::kLstm) {
    if (weights_format == 1) {  // ONNX: i, o, f, c; peepholes i, o, f
      g.block[0] = 0, g.block[1] = 2, g.block[2] = 3, g.block[3] = 1;
      g.peephole[0] = 0, g.peephole[1] = 2, g.peephole[2] = 1;
    }
    return g;
  }
  if (kind == CellKind::kRnn) return g;  // one block
  // GRU: block[0] is z, block[1] r; n is block 2 in both orders.
  if (weights_format == 1) g.block[0] = 0, g.block[1] = 1;  // ONNX z, r, h
  else g.block[0] = 1, g.block[1] = 0;                      // libnd4j r, u, c
  g.block[2] = 2;
  return g;
}

void lstm_activation_i_args(OpSignature& args) {
  args.i_arg("gate_act", 2, "the gates' activation: 0 tanh, 1 relu, 2 sigmoid, 3 affine, 4 leaky_relu, "
                            "5 thresholded_relu, 6 scaled_tanh, 7 hard_sigmoid, 8 elu, 9 softsign, 10 softplus")
      .range(0, 10);
  args.i_arg("cell_act", 0, "the cell input's activation (codes as gate_act)").range(0, 10);
  args.i_arg("out_act", 0, "the activation of c' in h' = o * out(c') (codes as gate_act)").range(0, 10);
}

void lstm_t_args(OpSignature& args) {
  args.t_arg("cell_clip", 0.0, "> 0: c' is clipped to [-cell_clip, cell_clip]").at_least(0.0);
  args.t_arg("gate_alpha", NAN, "the gate activation's alpha (NaN: its ONNX default)").nan_allowed();
  args.t_arg("gate_beta", NAN, "the gate activation's beta (NaN: its ONNX default)").nan_allowed();
  args.t_arg("cell_alpha", NAN, "the cell activation's alpha").nan_allowed();
  args.t_arg("cell_beta", NAN, "the cell activation's beta").nan_allowed();
  args.t_arg("out_alpha", NAN, "the output activation's alpha").nan_allowed();
  args.t_arg("out_beta", NAN, "the output activation's beta").nan_allowed();
}

}  // namespace libops::ops::rnn
