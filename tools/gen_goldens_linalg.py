#!/usr/bin/env python3
"""Generate the numpy goldens for the linear-algebra op tests (cholesky,
triangular_solve) under tests_cpu/golden/linalg/.

Run from anywhere:  python3 tools/gen_goldens_linalg.py
Each case writes <op>_<case>_<role>.npy files: the inputs (a, b) and the
expected output (z). Values come from fixed seeds, so the files only change
when this script does.

Cholesky inputs are symmetric positive definite and well conditioned:
M @ M^T + n * I for a random M. Triangular-solve inputs keep random values in
the triangle A does not use, so a test shows that it is not read; the
expected x comes from np.linalg.solve on np.tril / np.triu of a, with the
diagonal set to ones for unit_diag.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "golden", "linalg")


def save(name, array):
    np.save(os.path.join(OUT, name + ".npy"), np.array(array, order="C"))


def spd(rng, batch, n, dtype):
    m = rng.uniform(-1.0, 1.0, size=batch + (n, n))
    a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    return a.astype(dtype)


def cholesky_cases():
    rng = np.random.default_rng(7001)
    cases = {
        "lower_f64": ((3,), 4, np.float64, False),
        "upper_f64": ((3,), 4, np.float64, True),
        "single_f64": ((), 5, np.float64, False),
        "lower_f32": ((2,), 3, np.float32, False),
        "upper_4d_f32": ((2, 2), 3, np.float32, True),
    }
    for case, (batch, n, dtype, upper) in cases.items():
        a = spd(rng, batch, n, dtype)
        low = np.linalg.cholesky(a.astype(np.float64))
        z = np.swapaxes(low, -1, -2) if upper else low
        save(f"cholesky_{case}_a", a)
        save(f"cholesky_{case}_z", z.astype(dtype))


def triangular(a, upper, unit_diag):
    t = np.triu(a) if upper else np.tril(a)
    if unit_diag:
        n = a.shape[-1]
        t = t * (1 - np.eye(n)) + np.eye(n)
    return t


def triangular_solve_cases():
    rng = np.random.default_rng(7002)
    # name: a batch dims, b batch dims, n, k, dtype, upper, transpose, unit_diag
    cases = {
        "lower_f64": ((2,), (2,), 4, 3, np.float64, False, False, False),
        "upper_f64": ((2,), (2,), 4, 3, np.float64, True, False, False),
        "lower_t_f64": ((2,), (2,), 4, 3, np.float64, False, True, False),
        "upper_t_f64": ((2,), (2,), 4, 3, np.float64, True, True, False),
        "unit_f64": ((), (), 4, 2, np.float64, False, False, True),
        "shared_a_f64": ((), (3,), 4, 2, np.float64, True, False, False),
        "single_f32": ((), (), 5, 3, np.float32, False, False, False),
        "upper_t_f32": ((2, 2), (2, 2), 3, 2, np.float32, True, True, False),
    }
    for case, (abatch, bbatch, n, k, dtype, upper, transpose, unit) in cases.items():
        a = rng.uniform(-1.0, 1.0, size=abatch + (n, n))
        # A dominant diagonal keeps each triangle well conditioned.
        a = a + (n + 1) * np.eye(n) * np.sign(rng.uniform(-1.0, 1.0, size=abatch + (n, 1)))
        b = rng.uniform(-2.0, 2.0, size=bbatch + (n, k))
        a = a.astype(dtype)
        b = b.astype(dtype)
        t = triangular(a.astype(np.float64), upper, unit)
        if transpose:
            t = np.swapaxes(t, -1, -2)
        x = np.linalg.solve(np.broadcast_to(t, bbatch + (n, n)), b.astype(np.float64))
        save(f"triangular_solve_{case}_a", a)
        save(f"triangular_solve_{case}_b", b)
        save(f"triangular_solve_{case}_z", x.astype(dtype))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    cholesky_cases()
    triangular_solve_cases()
