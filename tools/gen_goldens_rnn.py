#!/usr/bin/env python3
"""Generate the numpy goldens of lstm_layer, gru_layer and rnn_layer under
tests_cpu/golden/rnn/ (tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_rnn.py

The references are written in ONNX's terms (its LSTM, GRU and RNN operator
definitions), one batch row and one time step at a time in float64, with
the gates picked out of the weights by name; the libnd4j layouts are built
from the same weights by reordering and transposing the gate blocks. So the
op's reading of every layout is checked against one plain formula.
"""
import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261127)
M = None

TOL = {"f64": (np.float64, 1e-10, 1e-12), "f32": (np.float32, 1e-4, 1e-5)}

# libnd4j activation codes (lstm_layer's gate_act / cell_act / out_act).
ACT = {"tanh": 0, "relu": 1, "sigmoid": 2, "affine": 3, "leaky_relu": 4, "thresholded_relu": 5,
       "scaled_tanh": 6, "hard_sigmoid": 7, "elu": 8, "softsign": 9, "softplus": 10}


def act(name, x, alpha=None, beta=None):
    if name == "tanh":
        return np.tanh(x)
    if name == "sigmoid":
        return 1 / (1 + np.exp(-x))
    if name == "relu":
        return np.maximum(x, 0)
    if name == "hard_sigmoid":
        return np.clip(alpha * x + beta, 0, 1)
    if name == "softsign":
        return x / (1 + np.abs(x))
    if name == "leaky_relu":
        return np.where(x < 0, alpha * x, x)
    if name == "elu":
        return np.where(x < 0, alpha * (np.exp(x) - 1), x)
    if name == "softplus":
        return np.log1p(np.exp(x))
    if name == "scaled_tanh":
        return alpha * np.tanh(beta * x)
    if name == "affine":
        return alpha * x + beta
    raise ValueError(name)


def normal(*shape, scale=0.5):
    return rng.standard_normal(shape) * scale


def run_reference(kind, x, W, R, Wb, Rb, P, lengths, h0, c0, acts, clip, lbr, reverse):
    """ONNX semantics. x [T, N, I]; W [D, G*H, I] in ONNX gate order; the
    second direction, or the only one when `reverse`, runs backwards over
    each row's own length. Returns y [T, D, N, H] (0 past a row's length),
    h_last [D, N, H], c_last [D, N, H]."""
    T, N, _ = x.shape
    D, GH, _ = W.shape
    G = {"lstm": 4, "gru": 3, "rnn": 1}[kind]
    H = GH // G
    y = np.zeros((T, D, N, H))
    hl = np.zeros((D, N, H))
    cl = np.zeros((D, N, H))
    f, g, hact = acts
    for d in range(D):
        blk = lambda a, k: a[d][k * H:(k + 1) * H]
        for b in range(N):
            L = T if lengths is None else int(lengths[b])
            h = h0[d, b].copy()
            c = c0[d, b].copy()
            backwards = d == 1 or (D == 1 and reverse)
            order = range(L - 1, -1, -1) if backwards else range(L)
            for t in order:
                xt = x[t, b]
                if kind == "lstm":
                    gate = lambda k: blk(W, k) @ xt + blk(R, k) @ h + blk(Wb, k) + blk(Rb, k)
                    p = P[d]
                    i = f(gate(0) + p[0:H] * c)          # ONNX order i, o, f, c
                    ff = f(gate(2) + p[2 * H:3 * H] * c)  # peepholes i, o, f
                    cc = g(gate(3))
                    c = ff * c + i * cc
                    if clip > 0:
                        c = np.clip(c, -clip, clip)
                    o = f(gate(1) + p[H:2 * H] * c)
                    h = o * hact(c)
                elif kind == "rnn":
                    h = g(blk(W, 0) @ xt + blk(R, 0) @ h + blk(Wb, 0) + blk(Rb, 0))
                else:
                    z = f(blk(W, 0) @ xt + blk(R, 0) @ h + blk(Wb, 0) + blk(Rb, 0))
                    r = f(blk(W, 1) @ xt + blk(R, 1) @ h + blk(Wb, 1) + blk(Rb, 1))
                    if lbr:
                        n = g(blk(W, 2) @ xt + blk(Wb, 2) + r * (blk(R, 2) @ h + blk(Rb, 2)))
                    else:
                        n = g(blk(W, 2) @ xt + blk(Wb, 2) + blk(R, 2) @ (r * h) + blk(Rb, 2))
                    h = z * h + (1 - z) * n
                y[t, d, b] = h
            hl[d, b] = h
            cl[d, b] = c
    return y, hl, cl


def to_libnd4j(kind, W, R, Wb):
    """ONNX [D, G*H, I] weights -> libnd4j [D, I, G*H] in its gate order
    (LSTM i, f, g, o from ONNX i, o, f, c; GRU r, u, c from z, r, h)."""
    G = {"lstm": 4, "gru": 3, "rnn": 1}[kind]
    H = W.shape[1] // G
    perm = {"lstm": [0, 2, 3, 1], "gru": [1, 0, 2], "rnn": [0]}[kind]
    reorder = lambda a: np.concatenate([a[..., k * H:(k + 1) * H, :] for k in perm], axis=-2)
    reorder_b = lambda a: np.concatenate([a[..., k * H:(k + 1) * H] for k in perm], axis=-1)
    return (np.swapaxes(reorder(W), -1, -2), np.swapaxes(reorder(R), -1, -2), reorder_b(Wb))


def lay_out_y(y, data_format, direction):
    """[T, D, N, H] -> the op's y for data_format / direction."""
    if direction == 4:
        return y
    if direction == 2:
        y = y[:, 0] + y[:, 1]
    elif direction == 3:
        y = np.concatenate([y[:, 0], y[:, 1]], axis=-1)
    else:
        y = y[:, 0]
    if data_format == 1:
        return y.transpose(1, 0, 2)
    if data_format == 2:
        return y.transpose(1, 2, 0)
    return y


def case(kind, name, tag, T=4, N=3, I=5, H=4, data_format=0, direction=0, wf=1, bias=True, seq=None,
         init=False, peep=False, outs=(True, False, False), acts=("sigmoid", "tanh", "tanh"), alphas=None,
         clip=0.0, lbr=False):
    dt, rtol, atol = TOL[tag]
    G = {"lstm": 4, "gru": 3, "rnn": 1}[kind]
    D = 2 if direction >= 2 else 1
    cast = lambda a: np.asarray(a, np.float64).astype(dt).astype(np.float64)
    x = cast(normal(T, N, I, scale=1.0))
    W, R = cast(normal(D, G * H, I)), cast(normal(D, G * H, H))
    Wb = cast(normal(D, G * H)) if bias else np.zeros((D, G * H))
    Rb = cast(normal(D, G * H)) if bias and wf == 1 else np.zeros((D, G * H))
    P = cast(normal(D, 3 * H)) if peep else np.zeros((D, 3 * H))
    h0 = cast(normal(D, N, H)) if init else np.zeros((D, N, H))
    c0 = cast(normal(D, N, H)) if init and kind == "lstm" else np.zeros((D, N, H))
    lengths = None if seq is None else np.array(seq, np.int64)
    alphas = alphas or [(None, None)] * 3
    fns = [lambda v, a=a, al=al: act(a, v, *al) for a, al in zip(acts, alphas)]
    y, hl, cl = run_reference(kind, x, W, R, Wb, Rb, P, lengths, h0, c0, fns, clip, lbr, direction == 1)

    if data_format == 1:
        xin = x.transpose(1, 0, 2)
    elif data_format == 2:
        xin = x.transpose(1, 2, 0)
    else:
        xin = x
    if wf == 1:
        Win, Rin, bin_ = W, R, np.concatenate([Wb, Rb], axis=-1)
    else:
        Win, Rin, bin_ = to_libnd4j(kind, W, R, Wb)
        if D == 1:
            Win, Rin, bin_ = Win[0], Rin[0], bin_[0]
    ins = [xin.astype(dt), Win.astype(dt), Rin.astype(dt)]
    if bias:
        ins.append(bin_.astype(dt))
    if seq is not None:
        ins.append(np.array(seq, np.int32))
    if init:
        ins.append((h0[0] if D == 1 and wf == 0 else h0).astype(dt))
        if kind == "lstm":
            ins.append((c0[0] if D == 1 and wf == 0 else c0).astype(dt))
    if peep:
        p = P if wf == 1 else np.concatenate([P[:, 0:H], P[:, 2 * H:3 * H], P[:, H:2 * H]], axis=-1)  # i, f, o
        ins.append((p[0] if D == 1 and wf == 0 else p).astype(dt))
    state = (lambda a: a[0]) if D == 1 else (lambda a: a)
    outputs = []
    if outs[0]:
        outputs.append(lay_out_y(y, data_format, direction).astype(dt))
    if outs[1]:
        outputs.append(state(hl).astype(dt))
    if kind == "lstm" and outs[2]:
        outputs.append(state(cl).astype(dt))
    codes = [ACT[a] for a in acts]
    nan = float("nan")
    ts = []
    for al, be in alphas:
        ts += [nan if al is None else al, nan if be is None else be]
    if kind == "lstm":
        i = [data_format, direction] + codes + [wf]
        t = [clip] + ts
        b = [bias, seq is not None, init, init, peep] + list(outs)
        M.case("lstm_layer", f"{name}_{tag}", ins, outputs, i=i, t=t, b=b, rtol=rtol, atol=atol)
    elif kind == "gru":
        i = [data_format, direction] + codes[:2] + [wf]
        t = ts[:4]
        b = [bias, seq is not None, init, lbr] + list(outs[:2])
        M.case("gru_layer", f"{name}_{tag}", ins, outputs, i=i, t=t, b=b, rtol=rtol, atol=atol)
    else:  # rnn: its one activation is acts[1] (the cell's)
        i = [data_format, direction, codes[1], wf]
        t = ts[2:4]
        b = [bias, seq is not None, init] + list(outs[:2])
        M.case("rnn_layer", f"{name}_{tag}", ins, outputs, i=i, t=t, b=b, rtol=rtol, atol=atol)


def main():
    global M
    M = Manifest("rnn")
    for tag in ("f64", "f32"):
        case("lstm", "forward_onnx", tag)
        case("lstm", "forward_libnd4j", tag, wf=0, outs=(True, True, True))
        case("lstm", "backward_seq_len_batch_major", tag, data_format=1, direction=1, seq=[4, 2, 0], init=True,
             outs=(True, True, True))
        case("lstm", "bidirectional_onnx_axis", tag, data_format=3, direction=4, seq=[3, 4, 1], init=True,
             peep=True, outs=(True, True, True))
        case("lstm", "bidirectional_concat_feature_major", tag, data_format=2, direction=3, wf=0, init=True,
             peep=True, outs=(True, True, False))
        case("lstm", "bidirectional_sum", tag, direction=2, wf=0, seq=[1, 4, 2], outs=(True, False, True))
        case("lstm", "activations_clip", tag, acts=("hard_sigmoid", "softsign", "leaky_relu"),
             alphas=[(0.3, 0.4), (None, None), (0.1, None)], clip=0.7, outs=(True, True, True))
        case("lstm", "no_bias_last_h_only", tag, T=6, N=2, I=3, H=5, bias=False, outs=(False, True, False))
        case("lstm", "single_step_single_row", tag, T=1, N=1, I=1, H=1, wf=0, init=True)
        case("gru", "forward_onnx", tag)
        case("gru", "forward_onnx_linear_before_reset", tag, lbr=True, init=True, outs=(True, True, False))
        case("gru", "forward_libnd4j", tag, wf=0, init=True, outs=(True, True, False))
        case("gru", "backward_seq_len_batch_major", tag, data_format=1, direction=1, seq=[2, 4, 0], init=True,
             outs=(True, True, False))
        case("gru", "bidirectional_onnx_axis_lbr", tag, data_format=3, direction=4, seq=[4, 1, 3], init=True,
             lbr=True, outs=(True, True, False))
        case("gru", "bidirectional_concat_libnd4j", tag, data_format=2, direction=3, wf=0, outs=(True, True, False))
        case("gru", "activations", tag, acts=("hard_sigmoid", "elu", "tanh"), alphas=[(0.25, 0.5), (0.8, None),
                                                                                       (None, None)])
    for tag in ("f64", "f32"):  # after the others, so their inputs stay as they were
        case("rnn", "forward_onnx", tag)
        case("rnn", "forward_libnd4j_init", tag, wf=0, init=True, outs=(True, True, False))
        case("rnn", "bidirectional_onnx_axis_seq_len", tag, data_format=3, direction=4, seq=[4, 2, 3], init=True,
             outs=(True, True, False))
        case("rnn", "backward_batch_major_relu", tag, data_format=1, direction=1, acts=("sigmoid", "relu", "tanh"),
             outs=(True, True, False))
        case("rnn", "bidirectional_sum_leaky_relu", tag, direction=2, wf=0, acts=("sigmoid", "leaky_relu", "tanh"),
             alphas=[(None, None), (0.2, None), (None, None)])
    for tag in ("f64", "f32"):  # last, for the same reason
        # The usual activations with a clip that binds, 20 units (one full
        # run of 16 and a partial one) and a summed y that is strided along
        # the units: the float32 CPU's 16-lane cell.
        case("lstm", "clip_sum_feature_major", tag, T=5, N=3, I=4, H=20, data_format=2, direction=2, wf=0,
             clip=0.3, init=True, peep=True, outs=(True, True, True))
    for tag in ("f64", "f32"):  # the same for the GRU's 16-lane cell: its two phases, and linear_before_reset's one
        case("gru", "sum_feature_major", tag, T=5, N=3, I=4, H=20, data_format=2, direction=2, wf=0, init=True,
             outs=(True, True, False))
        case("gru", "sum_feature_major_lbr", tag, T=5, N=3, I=4, H=20, data_format=2, direction=2, wf=0, init=True,
             lbr=True, outs=(True, True, False))
    for tag in ("f64", "f32"):  # and the simple RNN's, with its tanh, relu and sigmoid
        case("rnn", "sum_feature_major", tag, T=5, N=3, I=4, H=20, data_format=2, direction=2, wf=0, init=True,
             outs=(True, True, False))
        case("rnn", "sum_feature_major_relu", tag, T=5, N=3, I=4, H=20, data_format=2, direction=2, wf=0,
             acts=("sigmoid", "relu", "tanh"), init=True, outs=(True, True, False))
        case("rnn", "sigmoid", tag, T=3, N=2, I=3, H=17, acts=("sigmoid", "sigmoid", "tanh"))
    M.write("tools/gen_goldens_rnn.py")


if __name__ == "__main__":
    main()
