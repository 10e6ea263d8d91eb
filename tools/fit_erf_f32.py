#!/usr/bin/env python3
"""Fit the polynomials of erf_f32 (Note [Vectorizable erf] in core/fast_math.h).

  |x| < SPLIT:        erf(a) = a + a R(a^2), R of degree DEG_R, fitted to
                      erf(a) / a - 1 (the relative error of erf);
  SPLIT <= |x| < 4:   erf(a) = 1 - exp(L(a) - a^2), L of degree DEG_L in
                      s = a - MID, fitted to log(erfc(a)) + a^2 (its
                      absolute error is erfc's relative one, which bounds
                      erf's absolute error).

Both by iteratively reweighted least squares on Chebyshev nodes towards
minimax. Prints the coefficients (lowest first) as C++ float literals and
the largest error, in float32 ulp of erf, of a numpy float32 model of
erf_f32 (without fused multiply-adds) on 4M points of [0, 5] against the
C library's erf in double (Python's math.erf).

    python3 tools/fit_erf_f32.py
"""
import math

import numpy as np

erf = np.vectorize(math.erf, otypes=[np.float64])
erfc = np.vectorize(math.erfc, otypes=[np.float64])

SPLIT, TOP = 0.875, 4.0
MID = (SPLIT + TOP) / 2
DEG_R, DEG_L = 5, 9


def minimax(x, target, weight, degree):
    v = np.vander(x, degree + 1, increasing=True)
    w = weight.copy()
    for _ in range(40):
        c, *_ = np.linalg.lstsq(v * w[:, None], target * w, rcond=None)
        err = np.abs((v @ c - target) * weight)
        w = w * (1 + 3 * err / err.max())  # Lawson-style: lift the worst points
    return c, np.max(np.abs((v @ c - target) * weight))


def nodes(lo, hi, n=6000):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def horner(c, t):
    p = np.float32(c[-1])
    for cc in c[-2::-1]:
        p = (p * t + np.float32(cc)).astype(np.float32)
    return p


def erf_f32_model(x, r, l):
    x = np.asarray(x, np.float32)
    a = np.abs(x)
    u = (a * a).astype(np.float32)
    small = (a + a * horner(r, u)).astype(np.float32)
    ac = np.minimum(a, np.float32(TOP))
    arg = (horner(l, (ac - np.float32(MID)).astype(np.float32)) - (ac * ac).astype(np.float32)).astype(np.float32)
    large = (np.float32(1) - np.exp(arg.astype(np.float64)).astype(np.float32)).astype(np.float32)
    return np.copysign(np.where(a < np.float32(SPLIT), small, large), x)


def main():
    a = nodes(0, SPLIT)
    u = a * a
    with np.errstate(divide="ignore", invalid="ignore"):
        target_r = np.where(a > 0, erf(a) / a - 1, 2 / np.sqrt(np.pi) - 1)
    r, err_r = minimax(u, target_r, np.ones_like(u) / (1 + target_r), DEG_R)
    s = nodes(SPLIT, TOP)
    target_l = np.log(erfc(s)) + s * s
    l, err_l = minimax(s - MID, target_l, np.ones_like(s), DEG_L)
    r32, l32 = r.astype(np.float32), l.astype(np.float32)
    def literal(v):  # 0x1.88d854p+0f: float.hex without the mantissa's trailing zeros
        mantissa, exponent = float.hex(float(v)).split("p")
        return mantissa.rstrip("0").rstrip(".") + "p" + exponent + "f"
    fmt = lambda c: ", ".join(literal(v) for v in c)  # noqa: E731
    print(f"R (degree {DEG_R}, fit error {err_r:.2e}):", fmt(r32))
    print(f"L (degree {DEG_L}, fit error {err_l:.2e}):", fmt(l32))
    xs = np.concatenate([np.linspace(0, 5, 4_000_000), np.exp(np.linspace(-80, 0, 200_000))]).astype(np.float32)
    ref = erf(xs.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    print(f"max error {np.max(np.abs(erf_f32_model(xs, r32, l32) - ref) / ulp):.3f} ulp (float32 model, no FMA)")


if __name__ == "__main__":
    main()
