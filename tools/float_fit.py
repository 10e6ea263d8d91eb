"""Shared pieces of the polynomial fits for the float32 math of
core/fast_math.h (tools/fit_erf_f32.py, tools/fit_atan_f32.py): Chebyshev
nodes, a weighted least-squares fit iterated towards minimax error, Horner
in float32, and float literals for C++. (tools/fit_log_f32.py keeps its own
reweighting, which its committed coefficients came from.)"""
import numpy as np


def chebyshev_nodes(lo, hi, n):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def minimax_fit(t, target, weight, degree, rounds):
    """Coefficients (lowest first) of the polynomial in t closest to target,
    the error weighted by weight, and the largest weighted error: least
    squares, reweighted `rounds` times towards the worst points (Lawson)."""
    v = np.vander(t, degree + 1, increasing=True)
    w = weight.copy()
    for _ in range(rounds):
        c, *_ = np.linalg.lstsq(v * w[:, None], target * w, rcond=None)
        err = np.abs((v @ c - target) * weight)
        w = w * (1 + 3 * err / err.max())
    return c, np.max(np.abs((v @ c - target) * weight))


def horner_f32(c, t):
    """The polynomial c (lowest first) at t, each step rounded to float32."""
    p = np.float32(c[-1])
    for cc in c[-2::-1]:
        p = (p * t + np.float32(cc)).astype(np.float32)
    return p


def float_literal(v):
    """0x1.88d854p+0f: float.hex of a float32 value, the mantissa's trailing zeros dropped."""
    mantissa, exponent = float.hex(float(v)).split("p")
    return mantissa.rstrip("0").rstrip(".") + "p" + exponent + "f"
