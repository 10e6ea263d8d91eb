#!/usr/bin/env python3
"""Generate the goldens of the legacy reduction tables (reduce_float,
reduce_same, reduce_bool, reduce_long, reduce3, index_reduce,
summary_stats), read by tests_cpu/legacy/reduce_*_test.cpp.

Run from anywhere:  python3 tools/gen_goldens_reduce.py
It rewrites tests_cpu/golden/reduce/*.npy. Needs numpy only.

Inputs (float64, shape [2, 3, 4]):
  x.npy, y.npy   small integers in -3..3 (zeros, ties, both signs), so
                 every integer and float dtype holds them exactly and the
                 same goldens serve float32, float64, float16 and int32;
  p.npy, q.npy   multiples of 1/64 in [0, 1) with zeros (exact in float16):
                 probability-like values for entropies and fractional data.
Goldens: <group>_<input>.npy, a float64 array [ops of the group in op-number
order, columns]. The columns are the results (keep_dims=False, C order)
of the reductions over each axis list of AXES, concatenated. reduce3 reads
(x, y) for input "x" and (p, q) for input "p". Integer results (counts,
indices, integer sums) are exact; the tests wrap them into narrow integer
dtypes themselves.

The reference semantics are the ones documented next to the functors in
libops/legacy/ops/*_ops.h, e.g. 0 * log(0) = 0 in the entropies (plain
numpy would give NaN), the weighted Jaccard distance, and the Hamming
distance as a fraction.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "golden", "reduce")
SHAPE = (2, 3, 4)
# Same list, same order as kAxisCases in tests_cpu/legacy/reduce_test_util.h;
# [] reduces every axis.
AXES = [[0], [1], [2], [0, 2], [], [-1], [0, -2]]
# Extra params per op, as ExtrasFor() in reduce_test_util.h.
NORM_P = 3.0
MATCH = (4, 0.5)         # mode 4 = greater: x > 0.5
EQUALS_EPS = 0.25

rng = np.random.default_rng(20240612)


def small_ints():
    v = rng.choice([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0], size=SHAPE)
    v.flat[5] = 0.0
    v.flat[17] = 0.0
    v.flat[0] = v.flat[3] = 3.0   # a tie for the index reductions
    return v


def fractions():
    v = rng.integers(1, 64, size=SHAPE).astype(np.float64) / 64.0
    v.flat[2] = 0.0
    v.flat[13] = 0.0
    return v


def flat(a, axes):
    """a with the reduced axes moved last (in order) and flattened into one."""
    rank = a.ndim
    red = sorted(ax % rank for ax in axes) if axes else list(range(rank))
    kept = [d for d in range(rank) if d not in red]
    t = np.transpose(a, kept + red)
    return t.reshape([a.shape[d] for d in kept] + [-1])


def entropy_terms(a, log):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a == 0, 0.0, a * log(np.where(a == 0, 1.0, a)))


def first_true(c):
    idx = np.argmax(c, axis=-1)
    return np.where(c.any(axis=-1), idx, -1)


def last_true(c):
    n = c.shape[-1]
    idx = n - 1 - np.argmax(c[..., ::-1], axis=-1)
    return np.where(c.any(axis=-1), idx, -1)


def match(a):
    mode, value = MATCH
    assert mode == 4
    return a > value


def reduce_float(a):
    s = lambda v: v.sum(axis=-1)
    return {
        "mean": a.mean(axis=-1),
        "amean": np.abs(a).mean(axis=-1),
        "norm1": s(np.abs(a)),
        "norm2": np.sqrt(s(a * a)),
        "norm_max": np.abs(a).max(axis=-1),
        "norm_frobenius": np.sqrt(s(a * a)),
        "norm_p": s(np.abs(a) ** NORM_P) ** (1.0 / NORM_P),
        "squared_norm": s(a * a),
        "entropy": -s(entropy_terms(a, np.log)),
        "log_entropy": np.log(-s(entropy_terms(a, np.log))),
        "shannon_entropy": -s(entropy_terms(a, np.log2)),
    }


def reduce_same(a):
    return {
        "sum": a.sum(axis=-1),
        "max": a.max(axis=-1),
        "min": a.min(axis=-1),
        "prod": a.prod(axis=-1),
        "asum": np.abs(a).sum(axis=-1),
        "amax": np.abs(a).max(axis=-1),
        "amin": np.abs(a).min(axis=-1),
    }


def reduce_bool(a):
    return {
        "any": (a != 0).any(axis=-1),
        "all": (a != 0).all(axis=-1),
        "is_finite": np.isfinite(a).all(axis=-1),
        "is_inf_or_nan": (~np.isfinite(a)).any(axis=-1),
        "is_nan": np.isnan(a).any(axis=-1),
        "is_inf": np.isinf(a).any(axis=-1),
        "is_positive": (a > 0).all(axis=-1),
        "is_negative": (a < 0).all(axis=-1),
    }


def reduce_long(a):
    return {
        "count_nonzero": (a != 0).sum(axis=-1),
        "count_zero": (a == 0).sum(axis=-1),
        "match_condition": match(a).sum(axis=-1),
    }


def reduce3(a, b):
    s = lambda v: v.sum(axis=-1)
    dot = s(a * b)
    with np.errstate(divide="ignore", invalid="ignore"):
        cos = dot / (np.sqrt(s(a * a)) * np.sqrt(s(b * b)))
        jac = 1.0 - s(np.minimum(a, b)) / s(np.maximum(a, b))
    return {
        "dot": dot,
        "manhattan": s(np.abs(a - b)),
        "euclidean": np.sqrt(s((a - b) ** 2)),
        "cosine_similarity": cos,
        "cosine_distance": 1.0 - cos,
        "equals_with_eps": s(~((a == b) | (np.abs(a - b) <= EQUALS_EPS))),
        "jaccard_distance": jac,
        "hamming_distance": (a != b).mean(axis=-1),
    }


def index_reduce(a):
    return {
        "index_max": np.argmax(a, axis=-1),
        "index_min": np.argmin(a, axis=-1),
        "index_absolute_max": np.argmax(np.abs(a), axis=-1),
        "index_absolute_min": np.argmin(np.abs(a), axis=-1),
        "first_index": first_true(match(a)),
        "last_index": last_true(match(a)),
    }


def summary_stats(a):
    return {
        "variance": a.var(axis=-1, ddof=1),
        "standard_deviation": a.std(axis=-1, ddof=1),
    }


# Rows in op-number order: the tests check the count against the table.
GROUPS = {
    "reduce_float": (reduce_float, ["mean", "amean", "norm1", "norm2", "norm_max", "norm_frobenius", "norm_p",
                                    "squared_norm", "entropy", "log_entropy", "shannon_entropy"]),
    "reduce_same": (reduce_same, ["sum", "max", "min", "prod", "asum", "amax", "amin"]),
    "reduce_bool": (reduce_bool, ["any", "all", "is_finite", "is_inf_or_nan", "is_nan", "is_inf", "is_positive",
                                  "is_negative"]),
    "reduce_long": (reduce_long, ["count_nonzero", "count_zero", "match_condition"]),
    "reduce3": (reduce3, ["dot", "manhattan", "euclidean", "cosine_similarity", "cosine_distance",
                          "equals_with_eps", "jaccard_distance", "hamming_distance"]),
    "index_reduce": (index_reduce, ["index_max", "index_min", "index_absolute_max", "index_absolute_min",
                                    "first_index", "last_index"]),
    "summary_stats": (summary_stats, ["variance", "standard_deviation"]),
}


def golden(fn, names, inputs):
    rows = {name: [] for name in names}
    for axes in AXES:
        with np.errstate(divide="ignore", invalid="ignore"):
            results = fn(*[flat(a, axes) for a in inputs])
        assert sorted(results) == sorted(names)
        for name in names:
            rows[name].append(np.asarray(results[name], dtype=np.float64).ravel())
    return np.stack([np.concatenate(rows[name]) for name in names])


def main():
    os.makedirs(OUT, exist_ok=True)
    data = {"x": small_ints(), "y": small_ints(), "p": fractions(), "q": fractions()}
    for name, a in data.items():
        np.save(os.path.join(OUT, f"{name}.npy"), a)
    pairs = {"x": ("x", "y"), "p": ("p", "q")}
    for group, (fn, names) in GROUPS.items():
        for inp, (first, second) in pairs.items():
            inputs = [data[first], data[second]] if group == "reduce3" else [data[first]]
            np.save(os.path.join(OUT, f"{group}_{inp}.npy"), golden(fn, names, inputs))


if __name__ == "__main__":
    main()
