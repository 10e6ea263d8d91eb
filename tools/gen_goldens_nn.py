#!/usr/bin/env python3
"""Generate the .npy goldens read by tests_cpu/ops/nn/*_test.cpp.

Run from anywhere:  python3 tools/gen_goldens_nn.py
It rewrites tests_cpu/golden/nn/*.npy. numpy only: the convolution and
pooling references below are written out directly (padding, then one strided
slice per kernel tap), independent of the im2col + GEMM code they check.

Each case is a set of files <op>_<case>_<name>.npy: the inputs (x, w, b,
mean, var, gamma, beta), the op's arguments (iargs as int64, targs as
float64) and the expected output z. Inputs are float64; the tests also run
them as float32 with a looser tolerance.
"""
import math
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "golden", "nn")

rng = np.random.default_rng(20240611)


def normal(*shape):
    return rng.standard_normal(shape)


def save(op, case, **arrays):
    for name, a in arrays.items():
        a = np.asarray(a)
        if name == "iargs":
            a = a.astype(np.int64)
        elif a.dtype != np.int64:
            a = a.astype(np.float64)
        np.save(os.path.join(OUT, f"{op}_{case}_{name}.npy"), np.ascontiguousarray(a))


# ---- window arithmetic (Note [Window arguments] in libops/ops/nn/conv_utils.h)

def pads(size, k, s, p, d, same):
    """(pad before, pad after, output extent) along one spatial dim."""
    eff = (k - 1) * d + 1
    if same:
        out = math.ceil(size / s)
        total = max((out - 1) * s + eff - size, 0)
        return total // 2, total - total // 2, out
    return p, p, (size + 2 * p - eff) // s + 1


def taps(xp, kh, kw, s, d, out):
    """The [..., oH, oW] slice of padded NCHW xp seen by kernel tap (kh, kw)."""
    (sh, sw), (dh, dw), (oh, ow) = s, d, out
    t = xp[:, :, kh * dh: kh * dh + (oh - 1) * sh + 1: sh,
           kw * dw: kw * dw + (ow - 1) * sw + 1: sw]
    assert t.shape[2:] == (oh, ow), (t.shape, out)
    return t


def geometry(x, k, s, p, d, same):
    ph0, ph1, oh = pads(x.shape[2], k[0], s[0], p[0], d[0], same)
    pw0, pw1, ow = pads(x.shape[3], k[1], s[1], p[1], d[1], same)
    return ((0, 0), (0, 0), (ph0, ph1), (pw0, pw1)), (oh, ow)


def conv2d_ref(x, w, b, s, p, d, same):
    """NCHW x, weights [Cout, Cin, kH, kW]."""
    k = w.shape[2:]
    padding, out = geometry(x, k, s, p, d, same)
    xp = np.pad(x, padding)
    z = np.zeros((x.shape[0], w.shape[0]) + out)
    for kh in range(k[0]):
        for kw in range(k[1]):
            z += np.einsum("nchw,oc->nohw", taps(xp, kh, kw, s, d, out), w[:, :, kh, kw])
    if b is not None:
        z += b[None, :, None, None]
    return z


def grouped_conv2d_ref(x, w, b, s, p, d, same, groups):
    """Each run of Cin / groups channels under its run of Cout / groups
    filters (weights [Cout, Cin / groups, kH, kW]), concatenated."""
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    z = np.concatenate([conv2d_ref(x[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og], None, s, p, d, same)
                        for g in range(groups)], axis=1)
    if b is not None:
        z += b[None, :, None, None]
    return z


def deconv2d_ref(x, w, b, s, p, d, same, op):
    """Transposed convolution, written as the scatter it is: NCHW x,
    weights [Cin, Cout, kH, kW], output padding op (libops' deconv2d)."""
    n, _, h, wd = x.shape
    cout, kh, kw = w.shape[1:]
    eff = ((kh - 1) * d[0] + 1, (kw - 1) * d[1] + 1)
    if same:
        out = (h * s[0] + op[0], wd * s[1] + op[1])
        pad = (max(eff[0] - s[0], 0) // 2, max(eff[1] - s[1], 0) // 2)
    else:
        out = ((h - 1) * s[0] + eff[0] - 2 * p[0] + op[0], (wd - 1) * s[1] + eff[1] - 2 * p[1] + op[1])
        pad = p
    z = np.zeros((n, cout) + out)
    for ih in range(h):
        for iw in range(wd):
            for a in range(kh):
                for c in range(kw):
                    oh, ow = ih * s[0] - pad[0] + a * d[0], iw * s[1] - pad[1] + c * d[1]
                    if 0 <= oh < out[0] and 0 <= ow < out[1]:
                        z[:, :, oh, ow] += x[:, :, ih, iw] @ w[:, :, a, c]
    if b is not None:
        z += b[None, :, None, None]
    return z


def pool2d_ref(x, k, s, p, d, same, mode, include_pad=False):
    padding, out = geometry(x, k, s, p, d, same)
    inside = np.pad(np.ones_like(x), padding)
    if mode == "max":
        xp = np.pad(x, padding, constant_values=-np.inf)
        z = np.full(x.shape[:2] + out, -np.inf)
        for kh in range(k[0]):
            for kw in range(k[1]):
                z = np.maximum(z, taps(xp, kh, kw, s, d, out))
        return z
    xp = np.pad(x, padding)
    total = np.zeros(x.shape[:2] + out)
    count = np.zeros(x.shape[:2] + out)
    for kh in range(k[0]):
        for kw in range(k[1]):
            total += taps(xp, kh, kw, s, d, out)
            count += taps(inside, kh, kw, s, d, out)
    return total / (k[0] * k[1] if include_pad else count)


def pool2d_ceil_ref(x, k, s, p, mode, include_pad=False):
    """Pooling with ceil_mode (Note [Ceil mode] in conv_utils.h): extents
    rounded up, less a last window starting in the padding after the
    image; taps past the padded input are not counted."""
    n, c, h, w = x.shape

    def extent(size, kk, ss, pp):
        out = -(-(size + 2 * pp - kk) // ss) + 1
        return out - 1 if (out - 1) * ss >= size + pp else out

    oh, ow = extent(h, k[0], s[0], p[0]), extent(w, k[1], s[1], p[1])
    extra_h = max(0, (oh - 1) * s[0] + k[0] - h - 2 * p[0])
    extra_w = max(0, (ow - 1) * s[1] + k[1] - w - 2 * p[1])
    pads = ((0, 0), (0, 0), (p[0], p[0] + extra_h), (p[1], p[1] + extra_w))
    inside = np.pad(np.ones_like(x), pads)
    padded = np.pad(np.ones((n, c, h + 2 * p[0], w + 2 * p[1])), ((0, 0), (0, 0), (0, extra_h), (0, extra_w)))
    xp = np.pad(x, pads, constant_values=-np.inf if mode == "max" else 0)
    z = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = (slice(None), slice(None), slice(i * s[0], i * s[0] + k[0]), slice(j * s[1], j * s[1] + k[1]))
            if mode == "max":
                z[:, :, i, j] = xp[win].max(axis=(2, 3))
            else:
                count = (padded if include_pad else inside)[win].sum(axis=(2, 3))
                z[:, :, i, j] = xp[win].sum(axis=(2, 3)) / count
    return z


def to_nhwc(a):
    return np.transpose(a, (0, 2, 3, 1))


# ---- cases ---------------------------------------------------------------

# name: (x shape NCHW, weights shape, bias?, stride, padding, dilation, same)
CONV_CASES = {
    "basic": ((2, 3, 5, 5), (4, 3, 3, 3), True, (1, 1), (0, 0), (1, 1), False),
    "pad1_stride2": ((2, 3, 7, 7), (4, 3, 3, 3), True, (2, 2), (1, 1), (1, 1), False),
    "same_stride2": ((2, 3, 6, 6), (4, 3, 3, 3), True, (2, 2), (0, 0), (1, 1), True),
    "k2_stride2": ((2, 3, 6, 6), (2, 3, 2, 2), False, (2, 2), (0, 0), (1, 1), False),
    "dilation2": ((2, 3, 7, 7), (4, 3, 3, 3), True, (1, 1), (2, 2), (2, 2), False),
    "same_dilation2": ((2, 3, 6, 6), (2, 3, 3, 3), False, (1, 1), (0, 0), (2, 2), True),
    # Every height/width argument differs from its partner: catches swaps.
    "rect": ((2, 3, 5, 7), (4, 3, 2, 3), True, (1, 2), (1, 0), (2, 1), False),
    "pointwise": ((2, 3, 5, 5), (4, 3, 1, 1), True, (1, 1), (0, 0), (1, 1), False),
}
CONV_NHWC = ["pad1_stride2", "same_stride2", "dilation2", "rect", "pointwise"]

# name: (mode, x shape NCHW, kernel, stride, padding, dilation, same, include_pad)
POOL_CASES = {
    "max_k2s2": ("max", (2, 3, 6, 6), (2, 2), (2, 2), (0, 0), (1, 1), False, False),
    "max_k3s1p1": ("max", (2, 3, 5, 5), (3, 3), (1, 1), (1, 1), (1, 1), False, False),
    "max_same_k3s2": ("max", (2, 3, 6, 6), (3, 3), (2, 2), (0, 0), (1, 1), True, False),
    "max_dilation2": ("max", (2, 3, 7, 7), (2, 2), (1, 1), (0, 0), (2, 2), False, False),
    "max_rect": ("max", (2, 3, 5, 7), (2, 3), (1, 2), (1, 1), (1, 2), False, False),
    "avg_k2s2": ("avg", (2, 3, 6, 6), (2, 2), (2, 2), (0, 0), (1, 1), False, False),
    "avg_k3s1p1": ("avg", (2, 3, 5, 5), (3, 3), (1, 1), (1, 1), (1, 1), False, False),
    "avg_k3s1p1_incpad": ("avg", (2, 3, 5, 5), (3, 3), (1, 1), (1, 1), (1, 1), False, True),
    "avg_same_k3s2": ("avg", (2, 3, 6, 6), (3, 3), (2, 2), (0, 0), (1, 1), True, False),
    "avg_same_k3s2_incpad": ("avg", (2, 3, 6, 6), (3, 3), (2, 2), (0, 0), (1, 1), True, True),
    "avg_dilation2": ("avg", (2, 3, 7, 7), (2, 2), (1, 1), (1, 1), (2, 2), False, False),
    "avg_rect": ("avg", (2, 3, 5, 7), (2, 3), (1, 2), (1, 1), (1, 2), False, False),
}
POOL_NHWC = ["max_k3s1p1", "max_same_k3s2", "max_rect", "avg_k3s1p1", "avg_same_k3s2_incpad", "avg_rect"]
# Rows wide enough for many windows wholly inside them (the vectorized part
# of the NCHW loop) besides the edge ones, at strides 2 and 3. Generated
# after all the others, so that adding them left earlier goldens as they were.
POOL_WIDE_CASES = {
    "max_wide_k3s2p1": ("max", (1, 2, 7, 41), (3, 3), (2, 2), (1, 1), (1, 1), False, False),
    "max_wide_k3s3p1": ("max", (1, 2, 7, 41), (3, 3), (3, 3), (1, 1), (1, 1), False, False),
    "avg_wide_k3s2p1": ("avg", (1, 2, 7, 41), (3, 3), (2, 2), (1, 1), (1, 1), False, False),
    "avg_wide_k3s3p1": ("avg", (1, 2, 7, 41), (3, 3), (3, 3), (1, 1), (1, 1), False, False),
}


def window_iargs(k, s, p, d, same):
    return [k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], int(same)]


def gen_conv():
    for name, (xs, ws, has_b, s, p, d, same) in CONV_CASES.items():
        x, w = normal(*xs), normal(*ws)
        b = normal(ws[0]) if has_b else None
        z = conv2d_ref(x, w, b, s, p, d, same)
        iargs = window_iargs(ws[2:], s, p, d, same)
        extra = {"b": b} if has_b else {}
        save("conv2d", name, x=x, w=w, iargs=iargs + [0], z=z, **extra)
        if name in CONV_NHWC:
            # weights_format 1 said outright: with NHWC the default is [kH, kW, Cin, Cout].
            save("conv2d", "nhwc_" + name, x=to_nhwc(x), w=w, iargs=iargs + [1, 1], z=to_nhwc(z), **extra)
            # libnd4j's call: NHWC with [kH, kW, Cin, Cout] weights and no weights_format.
            save("conv2d", "nhwc_hwio_default_" + name, x=to_nhwc(x), w=np.transpose(w, (2, 3, 1, 0)),
                 iargs=iargs + [1], z=to_nhwc(z), **extra)


# Grouped and depthwise: name: (x shape NCHW, Cout, groups, kernel, bias?,
# stride, padding, dilation, same). Generated after all the others.
GROUPED_CASES = {
    "groups2": ((2, 4, 6, 5), 6, 2, (3, 3), True, (1, 1), (1, 1), (1, 1), False),
    "groups3_stride2": ((1, 6, 7, 7), 3, 3, (3, 2), False, (2, 1), (0, 1), (1, 1), False),
    "depthwise": ((2, 5, 7, 6), 5, 5, (3, 3), True, (1, 1), (1, 1), (1, 1), False),
    "depthwise_mult2_same_s2": ((2, 3, 8, 7), 6, 3, (3, 3), True, (2, 2), (0, 0), (1, 1), True),
    "depthwise_dilated": ((1, 4, 9, 9), 4, 4, (3, 3), False, (1, 1), (2, 2), (2, 2), False),
    "groups2_pointwise": ((2, 4, 5, 5), 6, 2, (1, 1), True, (1, 1), (0, 0), (1, 1), False),
}
GROUPED_NHWC = ["groups2", "depthwise_mult2_same_s2", "groups2_pointwise"]


def gen_grouped():
    for name, (xs, cout, groups, k, has_b, s, p, d, same) in GROUPED_CASES.items():
        x, w = normal(*xs), normal(cout, xs[1] // groups, *k)
        b = normal(cout) if has_b else None
        z = grouped_conv2d_ref(x, w, b, s, p, d, same, groups)
        iargs = window_iargs(k, s, p, d, same)
        extra = {"b": b} if has_b else {}
        save("conv2d", name, x=x, w=w, iargs=iargs + [0, 1, groups], z=z, **extra)
        if name in GROUPED_NHWC:
            save("conv2d", "nhwc_" + name, x=to_nhwc(x), w=w, iargs=iargs + [1, 1, groups], z=to_nhwc(z), **extra)
        if groups == xs[1]:
            # The same call as depthwise_conv2d, weights [kH, kW, C, mult]:
            # filter o = c * mult + m of the grouped weights is [.., c, m].
            mult = cout // groups
            w_hwcm = np.transpose(w.reshape(groups, mult, *k), (2, 3, 0, 1))
            save("depthwise_conv2d", name, x=x, w=w_hwcm, iargs=iargs + [0, 0], z=z, **extra)


# Transposed convolutions: name: (x shape NCHW, Cout, kernel, bias?, stride,
# padding, dilation, same, output padding). Generated after all the others.
DECONV_CASES = {
    "basic": ((2, 3, 4, 5), 4, (3, 3), True, (1, 1), (1, 1), (1, 1), False, (0, 0)),
    "k2_stride2": ((2, 4, 3, 4), 3, (2, 2), True, (2, 2), (0, 0), (1, 1), False, (0, 0)),
    "k3_stride2_pad1_outpad1": ((1, 3, 4, 4), 2, (3, 3), False, (2, 2), (1, 1), (1, 1), False, (1, 1)),
    "dilation2": ((2, 2, 4, 3), 3, (3, 3), True, (1, 1), (2, 2), (2, 2), False, (0, 0)),
    "same_stride2": ((1, 3, 3, 4), 2, (3, 3), True, (2, 2), (0, 0), (1, 1), True, (0, 0)),
    "rect": ((2, 3, 3, 5), 4, (2, 3), True, (2, 1), (0, 1), (1, 2), False, (1, 0)),
    "pointwise": ((2, 3, 4, 4), 5, (1, 1), True, (1, 1), (0, 0), (1, 1), False, (0, 0)),
}
DECONV_NHWC = ["k2_stride2", "k3_stride2_pad1_outpad1", "rect"]


def gen_deconv():
    for name, (xs, cout, k, has_b, s, p, d, same, op) in DECONV_CASES.items():
        x, w = normal(*xs), normal(xs[1], cout, *k)
        b = normal(cout) if has_b else None
        z = deconv2d_ref(x, w, b, s, p, d, same, op)
        iargs = window_iargs(k, s, p, d, same)
        extra = {"b": b} if has_b else {}
        save("deconv2d", name, x=x, w=w, iargs=iargs + [0, 1, op[0], op[1]], z=z, **extra)
        if name in DECONV_NHWC:
            save("deconv2d", "nhwc_" + name, x=to_nhwc(x), w=w, iargs=iargs + [1, 1, op[0], op[1]], z=to_nhwc(z),
                 **extra)


# Ceil mode: name: (mode, x shape NCHW, kernel, stride, padding,
# include_pad). Generated after all the others.
POOL_CEIL_CASES = {
    "max_ceil_k3s2": ("max", (1, 2, 6, 6), (3, 3), (2, 2), (0, 0), False),
    "max_ceil_last_window_dropped": ("max", (1, 2, 5, 5), (2, 2), (3, 3), (1, 1), False),
    "avg_ceil_k2s2": ("avg", (1, 2, 5, 5), (2, 2), (2, 2), (0, 0), False),
    "avg_ceil_k3s2p1_incpad": ("avg", (1, 2, 8, 8), (3, 3), (2, 2), (1, 1), True),
    "avg_ceil_rect_incpad": ("avg", (2, 2, 5, 8), (2, 3), (2, 2), (1, 1), True),
}
POOL_CEIL_NHWC = ["max_ceil_k3s2", "avg_ceil_k3s2p1_incpad"]


def gen_pool_ceil():
    for name, (mode, xs, k, s, p, incpad) in POOL_CEIL_CASES.items():
        x = normal(*xs)
        z = pool2d_ceil_ref(x, k, s, p, mode, incpad)
        op = "maxpool2d" if mode == "max" else "avgpool2d"
        iargs = window_iargs(k, s, p, (1, 1), False) + [int(incpad)]
        save(op, name, x=x, iargs=iargs + [0, 1], z=z)
        if name in POOL_CEIL_NHWC:
            save(op, "nhwc_" + name, x=to_nhwc(x), iargs=iargs + [1, 1], z=to_nhwc(z))


def gen_pool(cases, nhwc):
    for name, (mode, xs, k, s, p, d, same, incpad) in cases.items():
        x = normal(*xs)
        z = pool2d_ref(x, k, s, p, d, same, mode, incpad)
        iargs = window_iargs(k, s, p, d, same) + [int(incpad)]
        op = mode + "pool2d"
        save(op, name, x=x, iargs=iargs + [0], z=z)
        if name in nhwc:
            save(op, "nhwc_" + name, x=to_nhwc(x), iargs=iargs + [1], z=to_nhwc(z))


def batchnorm_ref(x, mean, var, gamma, beta, eps, axis):
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    r = lambda a: a.reshape(shape)
    z = (x - r(mean)) / np.sqrt(r(var) + eps)
    if gamma is not None:
        z = z * r(gamma)
    if beta is not None:
        z = z + r(beta)
    return z


def gen_batchnorm():
    # name: (x shape, axis, has gamma, has beta, epsilon)
    cases = {
        "nchw": ((2, 3, 4, 4), 1, True, True, 1e-3),
        "nhwc_offset_only": ((2, 4, 4, 3), -1, False, True, 1e-5),
        "features_scale_only": ((4, 5), 1, True, False, 0.1),
    }
    for name, (xs, axis, has_g, has_b, eps) in cases.items():
        c = xs[axis]
        x = 2.0 * normal(*xs) + 0.5
        mean, var = normal(c), rng.uniform(0.2, 2.0, c)
        gamma = normal(c) if has_g else None
        beta = normal(c) if has_b else None
        z = batchnorm_ref(x, mean, var, gamma, beta, eps, axis)
        params = {k: v for k, v in (("gamma", gamma), ("beta", beta)) if v is not None}
        save("batchnorm", name, x=x, mean=mean, var=var, iargs=[int(has_g), int(has_b), axis], targs=[eps], z=z,
             **params)


def softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def gen_networks():
    # Small CNN: conv 3x3 pad 1 -> batchnorm -> relu -> maxpool 2x2/2 ->
    # flatten -> dense -> softmax, NCHW.
    x = normal(2, 3, 8, 8)
    w1, b1 = 0.5 * normal(4, 3, 3, 3), normal(4)
    mean, var, gamma, beta = normal(4), rng.uniform(0.5, 2.0, 4), normal(4), normal(4)
    w2, b2 = 0.3 * normal(64, 5), normal(5)
    h = conv2d_ref(x, w1, b1, (1, 1), (1, 1), (1, 1), False)
    h = batchnorm_ref(h, mean, var, gamma, beta, 1e-5, 1)
    h = np.maximum(h, 0)
    h = pool2d_ref(h, (2, 2), (2, 2), (0, 0), (1, 1), False, "max")
    z = softmax(h.reshape(2, -1) @ w2 + b2)
    save("cnn", "small", x=x, w1=w1, b1=b1, mean=mean, var=var, gamma=gamma, beta=beta, w2=w2, b2=b2, z=z)

    # MLP: dense -> relu -> dense -> relu6 -> dense -> softmax.
    x = normal(4, 6)
    w1, b1 = normal(6, 8), normal(8)
    w2, b2 = normal(8, 8), normal(8)
    w3, b3 = normal(8, 3), normal(3)
    h = np.maximum(x @ w1 + b1, 0)
    h = np.clip(h @ w2 + b2, 0, 6)
    z = softmax(h @ w3 + b3)
    save("mlp", "small", x=x, w1=w1, b1=b1, w2=w2, b2=b2, w3=w3, b3=b3, z=z)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))
    gen_conv()
    gen_pool(POOL_CASES, POOL_NHWC)
    gen_batchnorm()
    gen_networks()
    gen_pool(POOL_WIDE_CASES, [])
    gen_grouped()
    gen_deconv()
    gen_pool_ceil()


if __name__ == "__main__":
    main()
