#!/usr/bin/env python3
"""Generate the numpy goldens of conv1d under tests_cpu/golden/conv/
(tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_conv.py

The reference is the textbook sum, written out per output position in
float64: z[n, o, t] = b[o] + sum over the group's channels c and taps k of
w[o, c, k] * x[n, g*Cg + c, t*s - p + k*d] (zero outside x). SAME padding
gives ceil(W / s) outputs with the extra padding at the end (TensorFlow's
and libops' rule).
"""
import math

import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261129)
M = None
TOL = {"f64": (np.float64, 1e-12, 1e-12), "f32": (np.float32, 1e-5, 1e-5)}


def conv1d_ref(x, w, b, s, p, d, same, groups):
    """x [N, C, W], w [Cout, C / groups, k] -> [N, Cout, oW]."""
    n, c, width = x.shape
    cout, cg, k = w.shape
    if same:
        ow = math.ceil(width / s)
        total = max(0, (ow - 1) * s + (k - 1) * d + 1 - width)
        p_lo = total // 2
    else:
        ow = (width + 2 * p - (k - 1) * d - 1) // s + 1
        p_lo = p
    z = np.zeros((n, cout, ow))
    per = cout // groups
    for o in range(cout):
        g = o // per
        for t in range(ow):
            acc = np.zeros(n)
            for ci in range(cg):
                for kk in range(k):
                    pos = t * s - p_lo + kk * d
                    if 0 <= pos < width:
                        acc += w[o, ci, kk] * x[:, g * cg + ci, pos]
            z[:, o, t] = acc + (b[o] if b is not None else 0)
    return z


def case(name, tag, n, c, width, cout, k, s=1, p=0, d=1, same=False, groups=1, bias=True, nwc=False, wf=1):
    dt, rtol, atol = TOL[tag]
    x = rng.standard_normal((n, c, width)).astype(dt)
    w = (rng.standard_normal((cout, c // groups, k)) / math.sqrt(c * k)).astype(dt)
    b = rng.standard_normal(cout).astype(dt) if bias else None
    z = conv1d_ref(x.astype(np.float64), w.astype(np.float64), None if b is None else b.astype(np.float64), s, p, d,
                   same, groups).astype(dt)
    xin = x.transpose(0, 2, 1) if nwc else x
    zout = z.transpose(0, 2, 1) if nwc else z
    win = {0: w.transpose(2, 1, 0), 1: w, 2: w.transpose(0, 2, 1)}[wf]
    ins = [np.ascontiguousarray(xin), np.ascontiguousarray(win)] + ([b] if bias else [])
    M.case("conv1d", f"{name}_{tag}", ins, [np.ascontiguousarray(zout)],
           i=[k, s, p, d, int(same), int(nwc), wf, groups], rtol=rtol, atol=atol)


def main():
    global M
    M = Manifest("conv")
    for tag in ("f64", "f32"):
        case("basic", tag, 2, 3, 9, 4, 3)
        case("stride2_pad1", tag, 1, 3, 10, 5, 3, s=2, p=1)
        case("dilation2", tag, 2, 2, 11, 3, 3, d=2, p=2)
        case("same_stride2", tag, 1, 4, 9, 2, 4, s=2, same=True)
        case("nwc", tag, 2, 3, 8, 4, 3, p=1, nwc=True)
        case("weights_libnd4j", tag, 1, 3, 7, 2, 2, wf=0, bias=False)
        case("weights_kw_inner", tag, 1, 2, 6, 3, 3, wf=2, nwc=True)
        case("groups2", tag, 2, 4, 7, 6, 3, p=1, groups=2)
        case("depthwise", tag, 1, 3, 8, 6, 3, p=1, groups=3)
        case("kernel_1", tag, 3, 5, 4, 2, 1)
    M.write("tools/gen_goldens_conv.py")


if __name__ == "__main__":
    main()
