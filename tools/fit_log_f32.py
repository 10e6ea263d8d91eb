#!/usr/bin/env python3
"""Fit the polynomial of log_f32 (Note [Vectorizable log] in core/fast_math.h).

log(1 + f) = f - f^2 / 2 + f^3 P(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1];
P of degree 7 by iteratively reweighted least squares on Chebyshev nodes,
weighted towards the relative error of log(1 + f). Prints P's coefficients
(lowest first) as C++ float literals and the largest error, in float32 ulp,
of a numpy float32 model of log_f32 (without fused multiply-adds) on a
sample of 3M positive floats.

    python3 tools/fit_log_f32.py
"""
import numpy as np

DEGREE = 7
LO, HI = np.sqrt(0.5) - 1, np.sqrt(2) - 1


def fit():
    k = np.arange(4000)
    f = (LO + HI) / 2 + (HI - LO) / 2 * np.cos(np.pi * (k + 0.5) / len(k))
    target = (np.log1p(f) - f + f * f / 2) / f ** 3
    w = np.abs(f ** 3 / np.log1p(f))  # error in P, as a relative error of log(1 + f)
    v = np.vander(f, DEGREE + 1, increasing=True)
    for _ in range(30):
        c, *_ = np.linalg.lstsq(v * w[:, None], target * w, rcond=None)
        err = (v @ c - target) * w
        w = w * (1 + 3 * np.abs(err) / np.abs(err).max())  # Lawson-style: lift the worst points
    return c.astype(np.float32)


def log_f32_model(x, c):
    x = np.asarray(x, np.float32)
    bits = x.view(np.int32)
    e = (bits - np.int32(0x3F3504F3)) >> 23
    m = (bits - (e << 23)).view(np.float32)
    f = m - np.float32(1)
    p = np.float32(c[-1])
    for cc in c[-2::-1]:
        p = (p * f + cc).astype(np.float32)
    f2 = f * f
    ef = e.astype(np.float32)
    r = f * f2 * p + ef * np.float32(-2.12194440054690583e-4)
    r = r - np.float32(0.5) * f2
    return (f + r + ef * np.float32(0.693359375)).astype(np.float32)


def main():
    c = fit()
    print("P:", ", ".join(float.hex(float(v)).replace("0000000p", "p") + "f" for v in c))
    rng = np.random.default_rng(0)
    xs = np.concatenate([np.exp(rng.uniform(-80, 80, 2_000_000)), np.linspace(0.5, 2, 1_000_000)]).astype(np.float32)
    ref = np.log(xs.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    print(f"max error {np.max(np.abs(log_f32_model(xs, c) - ref) / ulp):.3f} ulp (float32 model, no FMA)")


if __name__ == "__main__":
    main()
