#!/usr/bin/env python3
"""Generate the numpy goldens of the layer ops built on other kernels
(xw_plus_b, embedding_lookup, lstm_cell, gru_cell,
multi_head_dot_product_attention, lp_pool2d, max_pool_with_argmax,
adaptive_avg_pool2d, adaptive_max_pool2d, upsampling2d, pointwise_conv2d,
dropout) under tests_cpu/golden/layers/.

Run from anywhere:  python3 tools/gen_goldens_layers.py

The references are written out in float64 numpy from each op's formula
(the header comment of its .cpp), never from libops.
"""
import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261127)
M = None
TOL = {"f64": (np.float64, 1e-12, 1e-12), "f32": (np.float32, 2e-5, 2e-6)}


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def hard_sigmoid(x, a=0.2, b=0.5):
    return np.clip(a * x + b, 0, 1)


def xw_plus_b_cases():
    for tag in ("f64", "f32"):
        dt, rtol, atol = TOL[tag]
        x, w, b = rng.standard_normal((5, 7)), rng.standard_normal((7, 3)), rng.standard_normal(3)
        M.case("xw_plus_b", tag, [a.astype(dt) for a in (x, w, b)], [(x @ w + b).astype(dt)], rtol=rtol, atol=atol)
        M.case("xw_plus_b", f"transpose_w_{tag}", [a.astype(dt) for a in (x, w.T.copy(), b)], [(x @ w + b).astype(dt)],
               b=[True], rtol=rtol, atol=atol)
    M.case("xw_plus_b", "no_rows", [np.zeros((0, 4), np.float32), np.ones((4, 2), np.float32), np.ones(2, np.float32)],
           [np.zeros((0, 2), np.float32)])


def embedding_cases():
    table = rng.standard_normal((6, 4)).astype(np.float32)
    ids = np.array([[0, 5, 2], [2, 2, 1]], np.int64)
    M.case("embedding_lookup", "ids_2d", [table, ids], [table[ids]])
    t3 = rng.integers(-9, 9, (5, 2, 3)).astype(np.int32)
    i32 = np.array([4, 0, 4], np.int32)
    M.case("embedding_lookup", "rows_3d_i32", [t3, i32], [t3[i32]])
    M.case("embedding_lookup", "scalar_id", [table, np.array(3, np.int64)], [table[3]])
    M.case("embedding_lookup", "no_ids", [table, np.zeros((0,), np.int64)], [np.zeros((0, 4), np.float32)])


def lstm_step(x, w, r, b, h, c, peep, gate, clip):
    H = h.shape[1]
    g = x @ w + h @ r + (0 if b is None else b)
    gi, gf, gg, go = (g[:, k * H:(k + 1) * H] for k in range(4))
    pi, pf, po = (np.zeros(H),) * 3 if peep is None else (peep[:H], peep[H:2 * H], peep[2 * H:])
    i = gate(gi + pi * c)
    f = gate(gf + pf * c)
    cn = f * c + i * np.tanh(gg)
    if clip > 0:
        cn = np.clip(cn, -clip, clip)
    o = gate(go + po * cn)
    return o * np.tanh(cn), cn


def lstm_cell_cases():
    N, I, H = 3, 4, 5
    for tag in ("f64", "f32"):
        dt, rtol, atol = TOL[tag]
        x, w, r = rng.standard_normal((N, I)), rng.standard_normal((I, 4 * H)) * 0.5, rng.standard_normal((H, 4 * H)) * 0.5
        b, h0, c0, p = rng.standard_normal(4 * H), rng.standard_normal((N, H)), rng.standard_normal((N, H)), rng.standard_normal(3 * H)
        cast = lambda *a: [v.astype(dt) for v in a]
        h, c = lstm_step(x, w, r, None, h0, c0, None, sigmoid, 0)
        M.case("lstm_cell", f"plain_{tag}", cast(x, w, r, h0, c0), cast(h, c), rtol=rtol, atol=atol)
        h, c = lstm_step(x, w, r, b, h0, c0, p, sigmoid, 0)
        M.case("lstm_cell", f"bias_peepholes_{tag}", cast(x, w, r, b, h0, c0, p), cast(h, c), b=[True, True],
               rtol=rtol, atol=atol)
        h, c = lstm_step(x, w, r, b, h0, c0, None, hard_sigmoid, 0.4)
        M.case("lstm_cell", f"hard_sigmoid_clip_{tag}", cast(x, w, r, b, h0, c0), cast(h, c), i=[7, 0, 0], t=[0.4],
               b=[True, False], rtol=rtol, atol=atol)


def gru_cell_cases():
    N, I, H = 4, 3, 2
    for tag in ("f64", "f32"):
        dt, rtol, atol = TOL[tag]
        x, h0 = rng.standard_normal((N, I)), rng.standard_normal((N, H))
        wru, wc = rng.standard_normal((I + H, 2 * H)), rng.standard_normal((I + H, H))
        bru, bc = rng.standard_normal(2 * H), rng.standard_normal(H)
        ru = sigmoid(np.concatenate([x, h0], 1) @ wru + bru)
        r, u = ru[:, :H], ru[:, H:]
        c = np.tanh(np.concatenate([x, r * h0], 1) @ wc + bc)
        h = u * h0 + (1 - u) * c
        M.case("gru_cell", tag, [a.astype(dt) for a in (x, h0, wru, wc, bru, bc)], [a.astype(dt) for a in (r, u, c, h)],
               rtol=rtol, atol=atol)


def mha(q, k, v, wq, wk, wv, wo, mask, scaled):
    # Per head: Q = q^T Wq[h]^T, scores Q K^T (/ sqrt(P)), softmax over keys.
    Q = np.einsum("nit,hpi->nhtp", q, wq)
    K = np.einsum("nit,hpi->nhtp", k, wk)
    V = np.einsum("nit,hpi->nhtp", v, wv)
    s = Q @ np.swapaxes(K, -1, -2)
    if scaled:
        s = s / np.sqrt(wq.shape[1])
    if mask is not None:
        s = np.where(mask[:, None, None, :] != 0, s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    w = w / w.sum(-1, keepdims=True)
    a = w @ V                                             # [N, H, Tq, Pv]
    n, h, tq, pv = a.shape
    cat = a.transpose(0, 2, 1, 3).reshape(n, tq, h * pv)  # heads concatenated, head-major
    return np.swapaxes(cat @ wo, 1, 2), w                 # [N, O, Tq]


def mha_cases():
    N, Iq, Ik, Iv, Tq, Tk, H, P, Pv, O = 2, 5, 4, 3, 3, 4, 2, 3, 2, 6
    for tag in ("f64", "f32"):
        dt, rtol, atol = TOL[tag]
        q, k, v = rng.standard_normal((N, Iq, Tq)), rng.standard_normal((N, Ik, Tk)), rng.standard_normal((N, Iv, Tk))
        wq, wk, wv = rng.standard_normal((H, P, Iq)), rng.standard_normal((H, P, Ik)), rng.standard_normal((H, Pv, Iv))
        wo = rng.standard_normal((H * Pv, O))
        ins = [a.astype(dt) for a in (q, k, v, wq, wk, wv, wo)]
        z, w = mha(q, k, v, wq, wk, wv, wo, None, True)
        M.case("multi_head_dot_product_attention", f"scaled_{tag}", ins, [z.astype(dt), w.astype(dt)], b=[True, True],
               rtol=rtol, atol=atol)
        mask = np.array([[1, 0, 1, 1], [0, 0, 2, 1]], dt)
        z, _ = mha(q, k, v, wq, wk, wv, wo, mask, False)
        M.case("multi_head_dot_product_attention", f"unscaled_mask_{tag}", ins + [mask], [z.astype(dt)], b=[False],
               rtol=rtol, atol=atol)


def lp_pool(x, k, s, pad, d, p, same=False, ceil=False, nhwc=False):
    """(sum over each window of |x|^p)^(1/p); padding and ceil overhang are zeros."""
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    _, _, H, W = x.shape
    eff = [(k[i] - 1) * d[i] + 1 for i in range(2)]
    before, after, out = [], [], []
    for i, n in enumerate((H, W)):
        if same:
            o = -(-n // s[i])
            total = max((o - 1) * s[i] + eff[i] - n, 0)
            before.append(total // 2)
            after.append(total - total // 2)
        else:
            span = n + 2 * pad[i] - eff[i]
            o = (-(-span // s[i]) if ceil else span // s[i]) + 1
            if ceil and (o - 1) * s[i] >= n + pad[i]:
                o -= 1
            before.append(pad[i])
            after.append(max(pad[i], (o - 1) * s[i] + eff[i] - n - pad[i]))
        out.append(o)
    xp = np.pad(np.abs(x.astype(np.float64)) ** p, ((0, 0), (0, 0), (before[0], after[0]), (before[1], after[1])))
    z = np.zeros(x.shape[:2] + tuple(out))
    for i in range(out[0]):
        for j in range(out[1]):
            win = xp[:, :, i * s[0]:i * s[0] + eff[0]:d[0], j * s[1]:j * s[1] + eff[1]:d[1]]
            z[:, :, i, j] = win.sum(axis=(2, 3))
    z = z ** (1.0 / p)
    return z.transpose(0, 2, 3, 1) if nhwc else z


def lp_pool_cases():
    def case(name, shape, k, s, pad, d, p, same=False, ceil=False, nhwc=False, tag="f32"):
        dt, rtol, atol = TOL[tag]
        x = rng.standard_normal(shape).astype(dt)
        z = lp_pool(x, k, s, pad, d, p, same, ceil, nhwc).astype(dt)
        M.case("lp_pool2d", name, [x], [z], i=[k[0], k[1], s[0], s[1], pad[0], pad[1], d[0], d[1], int(same), p,
                                             int(nhwc), int(ceil)], rtol=rtol, atol=atol)
    case("p2_pad1", (2, 3, 5, 6), (2, 3), (1, 2), (1, 1), (1, 1), 2)
    case("p1_f64", (1, 2, 4, 4), (2, 2), (2, 2), (0, 0), (1, 1), 1, tag="f64")
    case("p3_nhwc_dilated", (2, 7, 6, 3), (2, 2), (2, 1), (1, 0), (2, 2), 3, nhwc=True)
    case("same_stride2", (1, 2, 5, 7), (3, 2), (2, 2), (0, 0), (1, 1), 2, same=True)
    case("ceil_odd", (1, 2, 5, 5), (2, 2), (2, 2), (0, 0), (1, 1), 2, ceil=True)
    case("ceil_padded_nhwc", (1, 6, 7, 2), (3, 3), (2, 2), (1, 1), (1, 1), 2, ceil=True, nhwc=True, tag="f64")


def max_pool_argmax(x, k, s, pad, d, ceil=False, nhwc=False):
    """Each window's max and the C-order offset in x of its first holder (NaN wins, first NaN)."""
    xs = x.transpose(0, 3, 1, 2) if nhwc else x
    N, C, H, W = xs.shape
    out = []
    for i, n in enumerate((H, W)):
        eff = (k[i] - 1) * d[i] + 1
        span = n + 2 * pad[i] - eff
        o = (-(-span // s[i]) if ceil else span // s[i]) + 1
        if ceil and (o - 1) * s[i] >= n + pad[i]:
            o -= 1
        out.append(o)
    z = np.zeros((N, C) + tuple(out), x.dtype)
    idx = np.full((N, C) + tuple(out), -1, np.int64)
    for b in range(N):
        for c in range(C):
            for oy in range(out[0]):
                for ox in range(out[1]):
                    best, where = None, -1
                    for i in range(k[0]):
                        y = oy * s[0] + i * d[0] - pad[0]
                        if not 0 <= y < H:
                            continue
                        for j in range(k[1]):
                            xx = ox * s[1] + j * d[1] - pad[1]
                            if not 0 <= xx < W:
                                continue
                            v = xs[b, c, y, xx]
                            off = ((b * H + y) * W + xx) * C + c if nhwc else ((b * C + c) * H + y) * W + xx
                            if where < 0 or (not np.isnan(best) and (np.isnan(v) or v > best)):
                                best, where = v, off
                    z[b, c, oy, ox] = 0 if where < 0 else best
                    idx[b, c, oy, ox] = where
    if nhwc:
        return z.transpose(0, 2, 3, 1), idx.transpose(0, 2, 3, 1)
    return z, idx


def argmax_pool_cases():
    def case(name, x, k, s, pad, d, ceil=False, nhwc=False):
        z, idx = max_pool_argmax(x, k, s, pad, d, ceil, nhwc)
        M.case("max_pool_with_argmax", name, [x], [z, idx],
               i=[k[0], k[1], s[0], s[1], pad[0], pad[1], d[0], d[1], 0, 0, int(nhwc), int(ceil)])
    case("nchw_pad", rng.standard_normal((2, 3, 5, 6)).astype(np.float32), (3, 3), (2, 2), (1, 1), (1, 1))
    case("nhwc_dilated", rng.standard_normal((2, 6, 7, 3)), (2, 2), (1, 2), (0, 1), (2, 1), nhwc=True)
    t = np.array([[[[1, 3, 3, 0], [3, np.nan, 2, np.nan], [0, 1, 1, 1], [1, 1, 0, 0]]]], np.float32)
    case("ties_and_nan", t, (2, 2), (2, 2), (0, 0), (1, 1))  # ties: the first; NaN wins
    case("ceil_f16", rng.standard_normal((1, 2, 5, 5)).astype(np.float16), (2, 2), (2, 2), (0, 0), (1, 1), ceil=True)


def adaptive_pool(x, oh, ow, reduce, nhwc=False):
    """Window i of o over n: [floor(i n / o), ceil((i + 1) n / o)) (PyTorch's adaptive pooling)."""
    xs = x.transpose(0, 3, 1, 2) if nhwc else x
    N, C, H, W = xs.shape
    z = np.zeros((N, C, oh, ow), np.float64)
    for i in range(oh):
        y0, y1 = i * H // oh, -(-(i + 1) * H // oh)
        for j in range(ow):
            x0, x1 = j * W // ow, -(-(j + 1) * W // ow)
            z[:, :, i, j] = reduce(xs[:, :, y0:y1, x0:x1].astype(np.float64), axis=(2, 3))
    z = z.astype(x.dtype)
    return z.transpose(0, 2, 3, 1) if nhwc else z


def adaptive_pool_cases():
    def case(op, name, x, oh, ow, nhwc=False, rtol=0, atol=0):
        reduce = np.mean if op == "adaptive_avg_pool2d" else np.max  # np.max: NaN wins
        M.case(op, name, [x], [adaptive_pool(x, oh, ow, reduce, nhwc)], i=[oh, ow, int(nhwc)], rtol=rtol, atol=atol)
    x = rng.standard_normal((2, 3, 7, 5)).astype(np.float32)
    case("adaptive_avg_pool2d", "shrink_uneven", x, 3, 2, rtol=2e-6, atol=1e-7)
    case("adaptive_max_pool2d", "shrink_uneven", x, 3, 2)
    xs = rng.standard_normal((1, 2, 3, 2))  # NHWC [1, 2, 3, 2]: H 2, W 3
    case("adaptive_avg_pool2d", "grow_nhwc_f64", xs, 4, 5, nhwc=True, rtol=1e-12)
    case("adaptive_max_pool2d", "grow_nhwc_f64", xs, 4, 5, nhwc=True)
    xn = rng.standard_normal((1, 1, 4, 4)).astype(np.float32)
    xn[0, 0, 1, 2] = np.nan
    case("adaptive_max_pool2d", "nan_wins", xn, 2, 2)
    case("adaptive_avg_pool2d", "global_f16", rng.standard_normal((2, 3, 4, 6)).astype(np.float16), 1, 1, rtol=1e-3,
         atol=1e-3)


def misc_layer_cases():
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)  # NHWC [N, H, W, C]
    up = np.repeat(np.repeat(x, 2, axis=1), 3, axis=2)
    M.case("upsampling2d", "nhwc", [x], [up], i=[2, 3])
    xn = rng.integers(-5, 5, (1, 2, 3, 2)).astype(np.int64)  # NCHW
    M.case("upsampling2d", "nchw_i64", [xn], [np.repeat(np.repeat(xn, 3, axis=2), 1, axis=3)], i=[3, 1, 1])
    for tag in ("f64", "f32"):
        dt, rtol, atol = TOL[tag]
        xc = rng.standard_normal((2, 4, 3, 5))  # NCHW, Cin 4
        w = rng.standard_normal((1, 1, 4, 6))   # libnd4j's [1, 1, Cin, Cout]
        b = rng.standard_normal(6)
        z = np.einsum("nchw,co->nohw", xc, w[0, 0]) + b.reshape(1, -1, 1, 1)
        M.case("pointwise_conv2d", f"nchw_{tag}", [a.astype(dt) for a in (xc, w, b)], [z.astype(dt)], rtol=rtol, atol=atol)
        xt = xc.transpose(0, 2, 3, 1)
        wt = w[0, 0].T.reshape(6, 4, 1, 1)      # [Cout, Cin, 1, 1]
        M.case("pointwise_conv2d", f"nhwc_no_bias_{tag}", [a.astype(dt) for a in (xt, wt)],
               [(z - b.reshape(1, -1, 1, 1)).transpose(0, 2, 3, 1).astype(dt)], i=[1, 1], rtol=rtol, atol=atol)
    d = rng.standard_normal((3, 7)).astype(np.float32)
    M.case("dropout", "identity", [d], [d], t=[0.5])


def main():
    global M
    M = Manifest("layers")
    xw_plus_b_cases()
    embedding_cases()
    lstm_cell_cases()
    gru_cell_cases()
    mha_cases()
    lp_pool_cases()
    argmax_pool_cases()
    adaptive_pool_cases()
    misc_layer_cases()
    M.write("tools/gen_goldens_layers.py")


if __name__ == "__main__":
    main()
