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

from float_fit import chebyshev_nodes, float_literal, horner_f32, minimax_fit

erf = np.vectorize(math.erf, otypes=[np.float64])
erfc = np.vectorize(math.erfc, otypes=[np.float64])

SPLIT, TOP = 0.875, 4.0
MID = (SPLIT + TOP) / 2
DEG_R, DEG_L = 5, 9


def erf_f32_model(x, r, l):
    x = np.asarray(x, np.float32)
    a = np.abs(x)
    u = (a * a).astype(np.float32)
    small = (a + a * horner_f32(r, u)).astype(np.float32)
    ac = np.minimum(a, np.float32(TOP))
    arg = (horner_f32(l, (ac - np.float32(MID)).astype(np.float32)) - (ac * ac).astype(np.float32)).astype(np.float32)
    large = (np.float32(1) - np.exp(arg.astype(np.float64)).astype(np.float32)).astype(np.float32)
    return np.copysign(np.where(a < np.float32(SPLIT), small, large), x)


def main():
    a = chebyshev_nodes(0, SPLIT, 6000)
    u = a * a
    with np.errstate(divide="ignore", invalid="ignore"):
        target_r = np.where(a > 0, erf(a) / a - 1, 2 / np.sqrt(np.pi) - 1)
    r, err_r = minimax_fit(u, target_r, np.ones_like(u) / (1 + target_r), DEG_R, 40)
    s = chebyshev_nodes(SPLIT, TOP, 6000)
    target_l = np.log(erfc(s)) + s * s
    l, err_l = minimax_fit(s - MID, target_l, np.ones_like(s), DEG_L, 40)
    r32, l32 = r.astype(np.float32), l.astype(np.float32)
    fmt = lambda c: ", ".join(float_literal(v) for v in c)  # noqa: E731
    print(f"R (degree {DEG_R}, fit error {err_r:.2e}):", fmt(r32))
    print(f"L (degree {DEG_L}, fit error {err_l:.2e}):", fmt(l32))
    xs = np.concatenate([np.linspace(0, 5, 4_000_000), np.exp(np.linspace(-80, 0, 200_000))]).astype(np.float32)
    ref = erf(xs.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    print(f"max error {np.max(np.abs(erf_f32_model(xs, r32, l32) - ref) / ulp):.3f} ulp (float32 model, no FMA)")


if __name__ == "__main__":
    main()
