#!/usr/bin/env python3
"""Generate the goldens of unique, unique_with_counts, unique_all, argwhere,
nonzero and where with one input under tests_cpu/golden/selection/
(tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_selection.py
The semantics are Note [Unique values] (libops/ops/sort/unique.h) and Note
[Nonzero coordinates] (libops/ops/select/nonzero.h). References come from
numpy.unique with return_index, return_inverse and return_counts (its stable
sort gives each value's first occurrence), reordered by first occurrence for
sorted=false, and from numpy.argwhere / numpy.nonzero.
"""
import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261125)
M = Manifest("selection")


def unique_ref(x, sort, equal_nan):
    """values, first, inverse (x's shape), counts as Note [Unique values] has them."""
    flat = x.reshape(-1)
    vals, first, inv, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True,
                                         equal_nan=equal_nan)
    inv = inv.reshape(-1)
    # Each value is its first occurrence, sign of zero and NaN included.
    assert np.array_equal(vals.view(np.uint8), flat[first].view(np.uint8))
    if not sort:
        order = np.argsort(first, kind="stable")
        renumber = np.empty_like(order)
        renumber[order] = np.arange(len(order))
        vals, first, counts, inv = vals[order], first[order], counts[order], renumber[inv]
    assert np.array_equal(vals[inv], flat, equal_nan=x.dtype.kind == "f")
    i64 = np.int64
    return vals.astype(x.dtype), first.astype(i64), inv.reshape(x.shape).astype(i64), counts.astype(i64)


def unique_cases(name, x, ops=("unique_all",), nan_variants=False):
    for sort in (True, False):
        for equal_nan in ((True, False) if nan_variants else (True,)):
            vals, first, inv, counts = unique_ref(x, sort, equal_nan)
            case = name + ("" if sort else "_unsorted") + ("" if equal_nan else "_nan_apart")
            b = [sort, equal_nan]
            for op in ops:
                outs = {"unique": [vals, inv], "unique_with_counts": [vals, inv, counts],
                        "unique_all": [vals, first, inv, counts]}[op]
                M.case(op, case, [x], outs, b=b)


def argwhere_ref(x):
    z = np.argwhere(x).astype(np.int64)
    if x.ndim > 0:
        assert np.array_equal(z.T, np.array(np.nonzero(x)).reshape(x.ndim, -1))
    return z


def main():
    special = np.array([[3.0, np.nan, -0.0, 1.0, 0.0, -np.inf, 1.0, np.inf, -2.5, np.nan],
                        [0.5, 0.5, -1.0, 2.0, -1.0, 7.0, 0.0, -0.0, 3.0, 0.5]])
    ints = rng.integers(-5, 6, (3, 9)).astype(np.int32)
    u8 = rng.integers(0, 4, (2, 7)).astype(np.uint8)
    bools = rng.integers(0, 2, (4, 5)).astype(bool)
    rank3 = rng.integers(-2, 3, (2, 3, 4)).astype(np.int16)
    long_i32 = rng.integers(-300, 300, 2000).astype(np.int32)  # past the CPU sort's small-row path
    long_f32 = rng.integers(-40, 40, 1500).astype(np.float32) / 4
    long_f32[::101] = np.nan
    long_f32[7::13] = -0.0
    extremes = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, -1, 0, np.iinfo(np.int64).min, 5],
                        np.int64)
    u64 = np.array([2**64 - 1, 0, 2**63, 2**64 - 1, 1], np.uint64)
    zeros = np.zeros((2, 3), np.float32)
    empty = np.zeros((0, 3), np.float32)

    unique_cases("special_f64", special, ops=("unique", "unique_with_counts", "unique_all"), nan_variants=True)
    unique_cases("f16", special.astype(np.float16), nan_variants=True)
    unique_cases("long_f32", long_f32, nan_variants=True)
    unique_cases("ints", ints, ops=("unique", "unique_with_counts", "unique_all"))
    unique_cases("u8", u8)
    unique_cases("bool", bools, ops=("unique_with_counts",))
    unique_cases("rank3_i16", rank3)
    unique_cases("long_i32", long_i32)
    unique_cases("i64_extremes", extremes)
    unique_cases("u64", u64)
    unique_cases("all_zero", zeros, ops=("unique", "unique_all"))
    unique_cases("empty", empty, ops=("unique", "unique_with_counts", "unique_all"))
    unique_cases("scalar", np.array(2.5), ops=("unique", "unique_all"))

    sparse = rng.random(70000) < 0.01  # more than one CPU chunk of flags
    nonzero_inputs = [("special_f64", special), ("ints", ints), ("bool", bools), ("rank3_i16", rank3),
                      ("f16", special.astype(np.float16)), ("u8", u8), ("all_zero", zeros), ("empty", empty),
                      ("scalar", np.array(3.0)), ("scalar_zero", np.array(0, np.int32)), ("sparse_long", sparse)]
    for name, x in nonzero_inputs:
        z = argwhere_ref(x)
        M.case("argwhere", name, [x], [z])
        if name != "sparse_long":
            M.case("nonzero", name, [x], [np.ascontiguousarray(z.T)])
    for name, x in nonzero_inputs[:3] + [("empty", empty), ("scalar", np.array(3.0))]:
        M.case("where", "cond_only_" + name, [x], [argwhere_ref(x)])
    M.write("tools/gen_goldens_selection.py")


if __name__ == "__main__":
    main()
