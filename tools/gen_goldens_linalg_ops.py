#!/usr/bin/env python3
"""Generate the goldens of the linear-algebra ops built on LAPACK-style
decompositions (tools/golden_manifest.py):

  tests_cpu/golden/linalg_ops/      lu, matrix_inverse, matrix_determinant,
                                    log_matrix_determinant, slogdet, solve,
                                    lstsq, matrix_power: unique results,
                                    compared value by value
  tests_cpu/golden/factorizations/  qr, svd, eigh, eig: unique only up to
                                    signs (and eig's order), checked by
                                    tests_cpu/ops/linalg/factorization_checks.h

Run from anywhere:  python3 tools/gen_goldens_linalg_ops.py  (numpy, scipy)
Inputs are random but well conditioned unless a case says otherwise, so
float32 results sit within the stated tolerances of numpy's float64 ones.
"""
import numpy as np
import scipy.linalg

from golden_manifest import Manifest

rng = np.random.default_rng(20261125)


def well_conditioned(shape, dtype=np.float64):
    a = rng.uniform(-1, 1, shape)
    n = shape[-1]
    return (a + n * np.eye(n) * np.sign(rng.uniform(-1, 1, shape[:-2] + (1, 1)) + 0.5)).astype(dtype)


def batched(f, a, *rest):
    """f on each matrix of a stack (and of the stacks in rest); results stacked."""
    lead = a.shape[:-2]
    outs = [f(a[i], *(r[i] for r in rest)) for i in np.ndindex(*lead)] if lead else [f(a, *rest)]
    if not isinstance(outs[0], tuple):
        outs = [(o,) for o in outs]
    return tuple(np.array([o[k] for o in outs]).reshape(lead + np.shape(outs[0][k])) for k in range(len(outs[0])))


def lu_of(a):
    lu, piv = scipy.linalg.lu_factor(a)
    perm = np.arange(a.shape[0])
    for i, p in enumerate(piv):
        perm[[i, p]] = perm[[p, i]]
    return lu, perm


def ridge(a, b, l2):
    """TensorFlow's matrix_solve_ls with l2_regularizer."""
    m, n = a.shape
    if m >= n:
        return np.linalg.solve(a.T @ a + l2 * np.eye(n), a.T @ b)
    return a.T @ np.linalg.solve(a @ a.T + l2 * np.eye(m), b)


def linalg_ops():
    M = Manifest("linalg_ops")
    tol32 = dict(rtol=2e-5, atol=2e-5)
    tol64 = dict(rtol=1e-10, atol=1e-12)

    # lu: a[p] = L U, scipy's lu_factor with its pivots turned into p.
    a = rng.uniform(-2, 2, (4, 4))
    M.case("lu", "f64", [a], list(batched(lu_of, a)[0:1]) + [lu_of(a)[1].astype(np.int32)], **tol64)
    b = rng.uniform(-2, 2, (2, 3, 5, 5)).astype(np.float32)
    lu, p = batched(lu_of, b.astype(np.float64))
    M.case("lu", "batch_f32", [b], [lu.astype(np.float32), p.astype(np.int64)], d="int64", **tol32)
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    M.case("lu", "singular", [singular], [lu_of(singular)[0], lu_of(singular)[1].astype(np.int32)], **tol64)
    M.case("lu", "one", [np.array([[-3.0]])], [np.array([[-3.0]]), np.array([0], np.int32)])
    M.case("lu", "empty_batch", [np.zeros((0, 3, 3))], [np.zeros((0, 3, 3)), np.zeros((0, 3), np.int32)])

    # matrix_inverse
    a = well_conditioned((5, 5))
    M.case("matrix_inverse", "f64", [a], [np.linalg.inv(a)], **tol64)
    b = well_conditioned((2, 3, 4, 4), np.float32)
    M.case("matrix_inverse", "batch_f32", [b], [np.linalg.inv(b.astype(np.float64)).astype(np.float32)], **tol32)
    M.case("matrix_inverse", "one", [np.array([[4.0]])], [np.array([[0.25]])])
    M.case("matrix_inverse", "empty", [np.zeros((2, 0, 0))], [np.zeros((2, 0, 0))])

    # determinants
    a = rng.uniform(-1, 1, (3, 4, 4)) * 2
    a[1] = [[1, 2, 3, 4], [2, 4, 6, 8], [0, 1, 0, 1], [1, 1, 1, 2]]  # singular, exactly
    sign, logabs = np.linalg.slogdet(a)
    M.case("matrix_determinant", "f64", [a], [np.linalg.det(a)], **tol64)
    M.case("slogdet", "f64", [a], [sign, logabs], **tol64)
    M.case("log_matrix_determinant", "f64", [a], [logabs], **tol64)
    b = well_conditioned((2, 6, 6), np.float32)
    M.case("matrix_determinant", "f32", [b], [np.linalg.det(b.astype(np.float64)).astype(np.float32)], rtol=1e-4)
    M.case("matrix_determinant", "zero_size", [np.zeros((2, 0, 0))], [np.ones(2)])
    M.case("slogdet", "zero_size", [np.zeros((2, 0, 0))], [np.ones(2), np.zeros(2)])
    neg = np.diag([-2.0, 3.0, 0.5])
    M.case("log_matrix_determinant", "negative", [neg], [np.array(np.log(3.0))], **tol64)

    # solve
    a = well_conditioned((4, 4))
    bb = rng.uniform(-1, 1, (4, 2))
    M.case("solve", "f64", [a, bb], [np.linalg.solve(a, bb)], **tol64)
    M.case("solve", "adjoint", [a, bb], [np.linalg.solve(a.T, bb)], b=[1], **tol64)
    M.case("solve", "vector", [a, bb[:, 0].copy()], [np.linalg.solve(a, bb[:, 0])], **tol64)
    a3 = well_conditioned((2, 3, 3), np.float32)
    b3 = rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    M.case("solve", "batch_f32", [a3, b3],
           [np.linalg.solve(a3.astype(np.float64), b3.astype(np.float64)).astype(np.float32)], **tol32)
    shared_b = rng.uniform(-1, 1, (3, 2, 4, 2))
    M.case("solve", "shared_a", [a, shared_b], [np.linalg.solve(a, shared_b)], **tol64)

    # lstsq: numpy's minimum-norm solution (rcond = eps * max(m, n))
    def lst(a, b, rcond=None):
        return np.linalg.lstsq(a, b, rcond=rcond)[0]
    over = rng.uniform(-1, 1, (6, 3))
    rhs = rng.uniform(-1, 1, (6, 2))
    M.case("lstsq", "overdetermined", [over, rhs], [lst(over, rhs)], **tol64)
    under = rng.uniform(-1, 1, (3, 5))
    M.case("lstsq", "underdetermined", [under, rhs[:3, :1].copy()], [lst(under, rhs[:3, :1])], **tol64)
    deficient = rng.uniform(-1, 1, (5, 3))
    deficient[:, 2] = deficient[:, 0] + deficient[:, 1]
    M.case("lstsq", "rank_deficient", [deficient, rhs[:5]], [lst(deficient, rhs[:5])], rtol=1e-9, atol=1e-10)
    M.case("lstsq", "rcond", [deficient, rhs[:5]], [lst(deficient, rhs[:5], rcond=0.5)], t=[0.0, 0.5],
           rtol=1e-9, atol=1e-10)
    M.case("lstsq", "vector", [over, rhs[:, 0].copy()], [lst(over, rhs[:, 0])], **tol64)
    M.case("lstsq", "l2_over", [over, rhs], [ridge(over, rhs, 0.3)], t=[0.3], **tol64)
    M.case("lstsq", "l2_under", [under, rhs[:3]], [ridge(under, rhs[:3], 0.3)], t=[0.3], **tol64)
    ab = rng.uniform(-1, 1, (2, 5, 4)).astype(np.float32)
    bb2 = rng.uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    ref = np.array([lst(ab[i].astype(np.float64), bb2[i].astype(np.float64)) for i in range(2)]).astype(np.float32)
    M.case("lstsq", "batch_f32", [ab, bb2], [ref], rtol=1e-4, atol=1e-4)
    M.case("lstsq", "shared_a", [over, rhs.T.reshape(2, 6, 1).copy()],
           [np.array([lst(over, rhs[:, i:i + 1]) for i in range(2)])], **tol64)

    # matrix_power
    a = rng.uniform(-1, 1, (3, 3))
    for p in (0, 1, 2, 5, -1, -3):
        M.case("matrix_power", f"p{p}".replace("-", "m"), [a], [np.linalg.matrix_power(a, p)], i=[p], **tol64)
    b = rng.uniform(-1, 1, (2, 4, 4)).astype(np.float32)
    M.case("matrix_power", "batch_f32", [b], [np.linalg.matrix_power(b.astype(np.float64), 3).astype(np.float32)],
           i=[3], **tol32)
    M.write("tools/gen_goldens_linalg_ops.py")


def factorizations():
    M = Manifest("factorizations")
    # qr: numpy's reduced (and complete) Q and R.
    for name, shape, dtype in (("tall", (5, 3), np.float64), ("wide", (3, 5), np.float64),
                               ("square_f32", (4, 4), np.float32), ("batch", (2, 3, 4, 2), np.float64),
                               ("zero_cols", (3, 0), np.float64)):
        a = rng.uniform(-1, 1, shape).astype(dtype)
        for complete in (False, True):
            q, r = np.linalg.qr(a.astype(np.float64), mode="complete" if complete else "reduced")
            M.case("qr", name + ("_complete" if complete else ""), [a], [q.astype(dtype), r.astype(dtype)],
                   b=[1] if complete else None, rtol=1e-4 if dtype == np.float32 else 1e-10)

    # svd: s, U, V (V, not numpy's V^T).
    for name, shape, dtype in (("tall", (6, 4), np.float64), ("wide", (3, 5), np.float64),
                               ("square_f32", (5, 5), np.float32), ("batch", (2, 4, 3), np.float64)):
        a = rng.uniform(-1, 1, shape).astype(dtype)
        for full in (0, 1):
            u, s, vh = np.linalg.svd(a.astype(np.float64), full_matrices=bool(full))
            M.case("svd", name + ("_full" if full else ""), [a],
                   [s.astype(dtype), u.astype(dtype), np.swapaxes(vh, -1, -2).astype(dtype)], i=[full, 1, 16],
                   rtol=1e-4 if dtype == np.float32 else 1e-10)
        M.case("svd", name + "_values", [a], [np.linalg.svd(a.astype(np.float64), compute_uv=False).astype(dtype)],
               i=[0, 0], rtol=1e-4 if dtype == np.float32 else 1e-10)
    rank1 = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 0.5, 2.0])
    M.case("svd", "rank1_values", [rank1], [np.linalg.svd(rank1, compute_uv=False)], i=[0, 0], atol=1e-12)

    # eigh: ascending eigenvalues, eigenvectors as columns.
    for name, n, lead, dtype, upper in (("lower", 5, (), np.float64, False), ("upper", 4, (), np.float64, True),
                                        ("batch_f32", 4, (3,), np.float32, False)):
        s = rng.uniform(-1, 1, lead + (n, n))
        s = s + np.swapaxes(s, -1, -2)
        a = s.copy()
        tri = np.triu_indices(n, 1) if not upper else np.tril_indices(n, -1)
        a[..., tri[0], tri[1]] = np.nan  # the triangle not read
        w, v = np.linalg.eigh(s)
        M.case("eigh", name, [a.astype(dtype)], [w.astype(dtype), v.astype(dtype)], b=[1] if upper else None,
               rtol=1e-4 if dtype == np.float32 else 1e-10)
    s = rng.uniform(-1, 1, (3, 3))
    s = s + s.T
    M.case("eigh", "values", [s], [np.linalg.eigvalsh(s)], b=[0, 0], rtol=1e-10, atol=1e-12)

    # eig: complex values and vectors as [..., 2] pairs; numpy's order.
    def pairs(z):
        return np.stack([z.real, z.imag], axis=-1)
    rot = np.array([[0.0, -2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 3.0]])  # +-2i and 3
    for name, a, dtype in (("rotation", rot, np.float64), ("random", rng.uniform(-1, 1, (5, 5)), np.float64),
                           ("batch_f32", rng.uniform(-1, 1, (2, 4, 4)), np.float32)):
        w, v = np.linalg.eig(a)
        M.case("eig", name, [a.astype(dtype)], [pairs(w).astype(dtype), pairs(v).astype(dtype)],
               rtol=1e-4 if dtype == np.float32 else 1e-10)
    M.write("tools/gen_goldens_linalg_ops.py")


if __name__ == "__main__":
    linalg_ops()
    factorizations()
