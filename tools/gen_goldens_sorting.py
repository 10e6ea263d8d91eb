#!/usr/bin/env python3
"""Generate the goldens of sort, argsort, top_k and topk under
tests_cpu/golden/sorting/ (tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_sorting.py
The expected order is Note [Sort order] (libops/ops/sort/sort.h): stable,
NaN last in both directions, -0.0 equal to +0.0 for argsort and top_k, and
top_k counting NaN as the largest. References come from Python's sorted()
over (rank key, index) tuples, checked against numpy's stable argsort where
numpy agrees (ascending, no NaN).
"""
import math

import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261129)
M = Manifest("sorting")


def order(row, descending, nan_first=False):
    """Indices of `row` in Note [Sort order]'s order."""
    def key(i):
        v = row[i]
        if isinstance(v, (float, np.floating)) and math.isnan(v):
            return (0 if nan_first else 2, 0, i)
        v = float(v) if isinstance(v, (float, np.floating)) else int(v)
        return (1, -v if descending else v, i)
    return sorted(range(len(row)), key=key)


def along(x, axis, f):
    """Applies f(row) -> list of indices to every row along axis."""
    moved = np.moveaxis(x, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    rows = [f(list(r)) for r in flat]
    k = len(rows[0]) if rows else 0
    idx = np.array(rows, np.int64).reshape(moved.shape[:-1] + (k,))
    return np.moveaxis(idx, -1, axis)


def take(x, idx, axis):
    return np.take_along_axis(x, idx, axis=axis)


def main():
    special = np.array([[3.0, np.nan, -0.0, 1.0, 0.0, -np.inf, 1.0, np.inf, -2.5, np.nan],
                        [0.5, 0.5, -1.0, 2.0, -1.0, 7.0, 0.0, -0.0, 3.0, 0.5]])
    ints = rng.integers(-5, 6, (3, 9)).astype(np.int32)
    u8 = rng.integers(0, 4, (2, 7)).astype(np.uint8)
    long_f32 = rng.uniform(-100, 100, 5000).astype(np.float32)
    long_f32[::97] = 3.5  # ties
    long_f32[5] = np.nan
    long_i64 = rng.integers(-1000, 1000, 5000).astype(np.int64)
    cases = [("special_f64", special, -1), ("special_axis0", special, 0), ("ints", ints, 1), ("u8", u8, -1),
             ("f16", special.astype(np.float16), -1), ("long_f32", long_f32, 0), ("long_i64", long_i64, 0),
             ("bool", u8 > 1, -1)]
    for name, x, axis in cases:
        for desc in (False, True):
            idx = along(x, axis, lambda r: order(r, desc))
            suffix = "_desc" if desc else ""
            M.case("argsort", name + suffix, [x], [idx], i=[axis], b=[desc])
            # sort's values: -0.0 orders before +0.0 there, so compare values only.
            M.case("sort", name + suffix, [x], [take(x, idx, axis)], i=[axis], b=[desc])
            if not desc and x.dtype.kind in "iu" and name != "bool":
                assert (idx == np.argsort(x, axis=axis, kind="stable")).all()
    for name, x, axis, k in (("special", special, -1, 4), ("ints", ints, 1, 3), ("axis0", ints, 0, 2),
                             ("long_f32", long_f32, 0, 7), ("all", ints, -1, 9), ("none", ints, -1, 0)):
        for largest in (True, False):
            idx = along(x, axis, lambda r: order(r, largest, nan_first=largest)[:k])
            suffix = "" if largest else "_smallest"
            M.case("topk", name + suffix, [x], [take(x, idx, axis), idx], i=[k, axis], b=[largest])
            if largest and axis == -1:
                # libnd4j's top_k: i args k and needSort, always the last axis.
                for needs_sort in (1, 0):
                    M.case("top_k", f"{name}_sort{needs_sort}", [x], [take(x, idx, axis), idx], i=[k, needs_sort])
    top2 = along(ints, -1, lambda r: order(r, True)[:2])
    M.case("topk", "k_input", [ints, np.array(2, np.int64)], [take(ints, top2, -1), top2])
    M.case("top_k", "k_input", [ints, np.array(2, np.int64)], [take(ints, top2, -1), top2])
    seq = np.array([-1.0, 0.0, 0.0, 2.5, 4.0, np.inf, np.nan])
    vals = np.array([[0.0, -5.0, 2.5], [np.nan, 10.0, np.inf]])
    for side, right in (("left", False), ("right", True)):
        M.case("searchsorted", side, [seq, vals], [np.searchsorted(seq, vals, side=side).astype(np.int64)], b=[right])
    rows = np.sort(rng.integers(-10, 10, (3, 6)), axis=1).astype(np.int32)
    q = rng.integers(-12, 12, (3, 4)).astype(np.int32)
    M.case("searchsorted", "batched_i32", [rows, q],
           [np.stack([np.searchsorted(rows[r], q[r]) for r in range(3)]).astype(np.int64)])
    M.case("searchsorted", "mixed_dtypes", [np.array([1, 3, 5], np.int64), np.array([2.5, 3.0], np.float32)],
           [np.searchsorted(np.array([1.0, 3.0, 5.0]), np.array([2.5, 3.0])).astype(np.int64)])
    M.write("tools/gen_goldens_sorting.py")


if __name__ == "__main__":
    main()
