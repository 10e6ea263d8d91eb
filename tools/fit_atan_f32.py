#!/usr/bin/env python3
"""Fit the polynomial of atan_f32 (Note [Vectorizable atan] in core/fast_math.h).

atan(z) = z + z^3 P(z^2) for |z| <= tan(pi / 8), P of degree DEGREE fitted
by iteratively reweighted least squares on Chebyshev nodes towards the
minimax relative error of atan. Prints P's coefficients (lowest first) as
C++ float literals and the largest error, in float32 ulp, of a numpy
float32 model of atan_f32 (without fused multiply-adds) against the C
library's atan in double, on 3M floats of every magnitude.

    python3 tools/fit_atan_f32.py
"""
import numpy as np

from float_fit import chebyshev_nodes, float_literal, horner_f32, minimax_fit

DEGREE = 4
TOP = np.tan(np.pi / 8)
PI_2_HI, PI_4_HI = np.float32(np.pi / 2), np.float32(np.pi / 4)
PI_2_LO = np.float32(np.pi / 2 - np.float64(PI_2_HI))
PI_4_LO = np.float32(np.pi / 4 - np.float64(PI_4_HI))


def fit():
    z = chebyshev_nodes(0, TOP, 6000)
    target = (np.arctan(z) - z) / z ** 3
    weight = z ** 3 / np.arctan(z)  # error in P as a relative error of atan
    return minimax_fit(z * z, target, weight, DEGREE, 40)


def atan_f32_model(x, c):
    x = np.asarray(x, np.float32)
    a = np.abs(x)
    far, mid = a > np.float32(2.4142137), a > np.float32(0.41421357)
    num = np.where(far, np.float32(-1), np.where(mid, a - np.float32(1), a)).astype(np.float32)
    den = np.where(far, a, np.where(mid, a + np.float32(1), np.float32(1))).astype(np.float32)
    z = (num / den).astype(np.float32)
    u = (z * z).astype(np.float32)
    p = horner_f32(c, u)
    hi = np.where(far, PI_2_HI, np.where(mid, PI_4_HI, np.float32(0))).astype(np.float32)
    lo = np.where(far, PI_2_LO, np.where(mid, PI_4_LO, np.float32(0))).astype(np.float32)
    r = (hi + (z + (lo + (z * u).astype(np.float32) * p))).astype(np.float32)
    return np.copysign(r, x)


def main():
    c, err = fit()
    c32 = c.astype(np.float32)
    print(f"P (degree {DEGREE}, fit error {err:.2e}):", ", ".join(float_literal(v) for v in c32))
    rng = np.random.default_rng(0)
    xs = np.concatenate([np.exp(rng.uniform(-40, 40, 2_000_000)), np.linspace(0, 4, 1_000_000)]).astype(np.float32)
    ref = np.arctan(xs.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    print(f"max error {np.max(np.abs(atan_f32_model(xs, c32) - ref) / ulp):.3f} ulp (float32 model, no FMA)")


if __name__ == "__main__":
    main()
