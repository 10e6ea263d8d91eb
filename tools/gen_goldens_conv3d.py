#!/usr/bin/env python3
"""Generate the numpy goldens of the 3-D window ops (conv3d, deconv3d,
maxpool3d, avgpool3d) under tests_cpu/golden/conv3d/.

Run from anywhere:  python3 tools/gen_goldens_conv3d.py

The references are direct loops over output positions and kernel taps in
float64 (deconv3d scatters each input element through the filters), written
from the ops' formulas, not from libops' unfold/fold composition.
"""
import itertools

import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261127)
M = None
TOL = {np.float32: (2e-5, 2e-5), np.float64: (1e-12, 1e-12)}


def geometry(n, k, s, p, d, same, ceil=False):
    """(before, out) of one dim, as the ops resolve it."""
    eff = (k - 1) * d + 1
    if same:
        out = -(-n // s)
        return max((out - 1) * s + eff - n, 0) // 2, out
    span = n + 2 * p - eff
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return p, out


def conv3d(x, w, b, s, p, d, same, groups):
    N, C, *sp = x.shape
    Co, Cg, *k = w.shape
    geo = [geometry(sp[a], k[a], s[a], p[a], d[a], same) for a in range(3)]
    z = np.zeros((N, Co) + tuple(o for _, o in geo))
    og = Co // groups
    for o in itertools.product(*(range(o) for _, o in geo)):
        for t in itertools.product(*map(range, k)):
            pos = [o[a] * s[a] + t[a] * d[a] - geo[a][0] for a in range(3)]
            if not all(0 <= pos[a] < sp[a] for a in range(3)):
                continue
            for g in range(groups):
                xs = x[:, g * Cg:(g + 1) * Cg, pos[0], pos[1], pos[2]]          # [N, Cg]
                ws = w[g * og:(g + 1) * og, :, t[0], t[1], t[2]]                # [og, Cg]
                z[(slice(None), slice(g * og, (g + 1) * og)) + o] += xs @ ws.T
    if b is not None:
        z += b.reshape(1, -1, 1, 1, 1)
    return z


def deconv3d(x, w, b, s, p, d, same, groups, op):
    """Each input element scattered through the filters: the adjoint of conv3d's gather."""
    N, C, *sp = x.shape
    _, og, *k = w.shape
    cg = C // groups
    out, before = [], []
    for a in range(3):
        eff = (k[a] - 1) * d[a] + 1
        if same:
            before.append(max(eff - s[a], 0) // 2)
            out.append(sp[a] * s[a] + op[a])
        else:
            before.append(p[a])
            out.append((sp[a] - 1) * s[a] + eff - 2 * p[a] + op[a])
    z = np.zeros((N, og * groups) + tuple(out))
    for i in itertools.product(*map(range, sp)):
        for t in itertools.product(*map(range, k)):
            pos = [i[a] * s[a] + t[a] * d[a] - before[a] for a in range(3)]
            if not all(0 <= pos[a] < out[a] for a in range(3)):
                continue
            for g in range(groups):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + i]           # [N, cg]
                ws = w[g * cg:(g + 1) * cg, :, t[0], t[1], t[2]]                # [cg, og]
                z[:, g * og:(g + 1) * og, pos[0], pos[1], pos[2]] += xs @ ws
    if b is not None:
        z += b.reshape(1, -1, 1, 1, 1)
    return z


def pool3d(x, k, s, p, d, same, ceil, mode, include_pad=False):
    N, C, *sp = x.shape
    geo = [geometry(sp[a], k[a], s[a], p[a], d[a], same, ceil) for a in range(3)]
    # The padding after each dim: p, or SAME's total less the part before (ceil mode's overhang is not padding).
    after = [max((geo[a][1] - 1) * s[a] + (k[a] - 1) * d[a] + 1 - sp[a], 0) - geo[a][0] if same else p[a]
             for a in range(3)]
    z = np.zeros((N, C) + tuple(o for _, o in geo))
    for o in itertools.product(*(range(o) for _, o in geo)):
        vals, padded_taps = [], 0
        for t in itertools.product(*map(range, k)):
            pos = [o[a] * s[a] + t[a] * d[a] - geo[a][0] for a in range(3)]
            if all(-geo[a][0] <= pos[a] < sp[a] + after[a] for a in range(3)):
                padded_taps += 1
            if all(0 <= pos[a] < sp[a] for a in range(3)):
                vals.append(x[:, :, pos[0], pos[1], pos[2]])
        if mode == "max":
            z[(slice(None), slice(None)) + o] = np.max(vals, axis=0) if vals else -np.inf
        else:
            count = padded_taps if include_pad else len(vals)
            z[(slice(None), slice(None)) + o] = np.sum(vals, axis=0) / count if vals else 0
    return z


def conv_cases():
    for name, (shape, co, k, s, p, d, same, groups, dt) in {
            "basic": ((2, 3, 4, 5, 4), 4, (2, 3, 2), (1, 1, 1), (0, 1, 1), (1, 1, 1), False, 1, np.float32),
            "strided_dilated_f64": ((1, 2, 6, 5, 7), 3, (3, 2, 2), (2, 1, 2), (1, 0, 1), (1, 2, 1), False, 1,
                                    np.float64),
            "same_grouped": ((1, 4, 5, 4, 3), 6, (3, 3, 2), (2, 1, 2), (0, 0, 0), (1, 1, 1), True, 2, np.float32),
    }.items():
        rtol, atol = TOL[dt]
        x = rng.standard_normal(shape)
        w = rng.standard_normal((co, shape[1] // groups) + k) * 0.5
        b = rng.standard_normal(co)
        z = conv3d(x, w, b, s, p, d, same, groups)
        args = list(k) + list(s) + list(p) + list(d) + [int(same)]
        M.case("conv3d", name, [x.astype(dt), w.astype(dt), b.astype(dt)], [z.astype(dt)], i=args + [0, 1, groups],
               rtol=rtol, atol=atol)
        if name == "basic":  # NDHWC, libnd4j's weights [kD, kH, kW, Cin, Cout], no bias
            z = conv3d(x, w, None, s, p, d, same, groups)
            M.case("conv3d", "ndhwc_libnd4j_weights", [x.transpose(0, 2, 3, 4, 1).astype(dt),
                                                       w.transpose(2, 3, 4, 1, 0).astype(dt)],
                   [z.transpose(0, 2, 3, 4, 1).astype(dt)], i=args + [1, 0, 1], rtol=rtol, atol=atol)


def deconv_cases():
    for name, (shape, og, k, s, p, d, same, groups, op, dt) in {
            "basic": ((2, 3, 3, 4, 2), 2, (2, 2, 3), (2, 1, 2), (0, 1, 1), (1, 1, 1), False, 1, (1, 0, 1), np.float32),
            "dilated_f64": ((1, 2, 2, 3, 3), 3, (2, 3, 2), (1, 2, 1), (1, 1, 0), (2, 1, 2), False, 1, (0, 1, 1),
                            np.float64),
            "same_grouped": ((1, 4, 3, 2, 3), 1, (3, 2, 2), (2, 2, 1), (0, 0, 0), (1, 1, 1), True, 2, (0, 0, 0),
                             np.float32),
    }.items():
        rtol, atol = TOL[dt]
        x = rng.standard_normal(shape)
        w = rng.standard_normal((shape[1], og) + k) * 0.5
        b = rng.standard_normal(og * groups)
        z = deconv3d(x, w, b, s, p, d, same, groups, op)
        args = list(k) + list(s) + list(p) + list(d) + [int(same)]
        M.case("deconv3d", name, [x.astype(dt), w.astype(dt), b.astype(dt)], [z.astype(dt)],
               i=args + [0, 1] + list(op) + [groups], rtol=rtol, atol=atol)


def pool_cases():
    x = rng.standard_normal((2, 3, 5, 6, 4)).astype(np.float32)
    for name, (k, s, p, d, same, ceil) in {
            "plain": ((2, 2, 2), (2, 2, 2), (0, 0, 0), (1, 1, 1), False, False),
            "padded": ((3, 3, 2), (2, 1, 2), (1, 1, 0), (1, 1, 1), False, False),
            "dilated_ceil": ((2, 2, 2), (2, 2, 3), (0, 1, 0), (2, 1, 1), False, True),
            "same": ((3, 2, 3), (2, 2, 2), (0, 0, 0), (1, 1, 1), True, False),
    }.items():
        args = list(k) + list(s) + list(p) + list(d) + [int(same)]
        M.case("maxpool3d", name, [x], [pool3d(x, k, s, p, d, same, ceil, "max").astype(np.float32)],
               i=args + [0, 0, int(ceil)])
        for inc in (0, 1):
            z = pool3d(x.astype(np.float64), k, s, p, d, same, ceil, "avg", inc == 1).astype(np.float32)
            M.case("avgpool3d", f"{name}_include{inc}", [x], [z], i=args + [inc, 0, int(ceil)], rtol=2e-6, atol=1e-6)
    xn = x.transpose(0, 2, 3, 4, 1).copy()
    xn[0, 1, 1, 1, 0] = np.nan
    k, s, p, d = (2, 2, 2), (1, 2, 2), (1, 0, 1), (1, 1, 1)
    z = pool3d(xn.transpose(0, 4, 1, 2, 3), k, s, p, d, False, False, "max").transpose(0, 2, 3, 4, 1)
    M.case("maxpool3d", "ndhwc_nan", [xn], [z.astype(np.float32)], i=list(k) + list(s) + list(p) + list(d) + [0, 0, 1, 0])


def main():
    global M
    M = Manifest("conv3d")
    conv_cases()
    deconv_cases()
    pool_cases()
    M.write("tools/gen_goldens_conv3d.py")


if __name__ == "__main__":
    main()
