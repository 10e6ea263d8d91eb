#!/usr/bin/env python3
"""Fit the rational function of tanh_c (Note [Tanh as one rational function]
in core/fast_math.h):

  tanh(a) ~ a P(u) / Q(u),  u = a^2,  a in [0, CLAMP],
  P = 1 + u P1(u) (P1 of degree DEG_P - 1), Q = 1 + u Q1(u) (Q1 of degree DEG_Q - 1),

minimising the relative error: the linearised problem P - f Q = 0
(f = tanh(a) / a) by weighted least squares on dense and Chebyshev-spaced
points, the weights iterated towards minimax (Lawson) with the previous
Q dividing them, so that the residual weighed is the relative error itself.
The variable is scaled to u / CLAMP^2 in [0, 1] while fitting, which keeps
the least-squares system well conditioned. Prints P1's and Q1's
coefficients (lowest first) as C++ float literals and the fit's relative
error in double, and in float32 ulp of a numpy model of tanh_c (each
operation rounded to float32, without fused multiply-adds) on 2M points of
[0, 12] against the C library's tanh in double.

    python3 tools/fit_tanh_f32.py
"""
import numpy as np

from float_fit import chebyshev_nodes, float_literal, horner_f32

CLAMP, SMALL = 9.02, 1.0
DEG_P, DEG_Q = 5, 4
ROUNDS = 300


def fit():
    a = np.unique(np.concatenate([np.linspace(0, CLAMP, 40000), chebyshev_nodes(0, CLAMP, 20000)]))
    s = (a / CLAMP) ** 2
    f = np.where(a == 0, 1.0, np.tanh(a) / np.where(a == 0, 1.0, a))
    cols_p = np.stack([s**k for k in range(DEG_P + 1)], 1)
    cols_q = np.stack([s**k for k in range(1, DEG_Q + 1)], 1)
    system = np.concatenate([cols_p, -f[:, None] * cols_q], 1)
    lawson = np.full(len(a), 1.0 / len(a))
    q_prev = np.ones_like(a)
    best = None
    for _ in range(ROUNDS):
        w = np.sqrt(lawson) / (f * q_prev)
        sol, *_ = np.linalg.lstsq(system * w[:, None], f * w, rcond=None)
        p, q = sol[: DEG_P + 1], np.concatenate([[1.0], sol[DEG_P + 1 :]])
        q_prev = np.polyval(q[::-1], s)
        err = np.abs(np.polyval(p[::-1], s) / q_prev - f) / f
        if best is None or err.max() < best[0]:
            best = (err.max(), p, q)
        lawson = lawson * err
        lawson /= lawson.sum()
    worst, p, q = best
    scale_p = (CLAMP**2) ** np.arange(DEG_P + 1)
    scale_q = (CLAMP**2) ** np.arange(DEG_Q + 1)
    return worst, p / scale_p, q / scale_q


def tanh_f32_model(x, p1, q1):
    x = np.asarray(x, np.float32)
    a = np.minimum(np.abs(x), np.float32(CLAMP))
    u = (a * a).astype(np.float32)
    p, q = horner_f32(p1, u), horner_f32(q1, u)
    big_num = (a * (p * u + np.float32(1)).astype(np.float32)).astype(np.float32)
    small_num = ((a * u).astype(np.float32) * (p - q).astype(np.float32)).astype(np.float32)
    small = a < np.float32(SMALL)
    d = (np.where(small, small_num, big_num) / (q * u + np.float32(1)).astype(np.float32)).astype(np.float32)
    r = np.minimum((d + np.where(small, a, np.float32(0))).astype(np.float32), np.float32(1))
    return np.copysign(r, x)


def main():
    worst, p, q = fit()
    assert abs(p[0] - 1) < 2**-25, p[0]  # P(0) rounds to 1: tanh(a) ~ a near 0
    p1, q1 = [np.float32(v) for v in p[1:]], [np.float32(v) for v in q[1:]]
    print(f"relative error of the fit (double): {worst:.3g} ({worst / 2**-24:.3f} ulp)")
    print("P1:", ", ".join(float_literal(v) for v in p1))
    print("Q1:", ", ".join(float_literal(v) for v in q1))
    x = np.linspace(0, 12, 2_000_001).astype(np.float32)
    want = np.tanh(x.astype(np.float64))
    got = tanh_f32_model(x, p1, q1).astype(np.float64)
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    err = np.abs(got - want) / np.where(ulp > 0, ulp, 1)
    below = x < SMALL
    print(f"float32 model: {err[below].max():.2f} ulp below {SMALL}, {err[~below].max():.2f} above "
          f"(absolute {np.abs(got - want)[~below].max():.2g})")


if __name__ == "__main__":
    main()
