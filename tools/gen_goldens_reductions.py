#!/usr/bin/env python3
"""Generate the numpy/scipy goldens of the reduction custom ops
(libops/ops/reduce/) under tests_cpu/golden/reductions/.

Run from anywhere:  python3 tools/gen_goldens_reductions.py   (needs scipy)
Each case writes <op>_<case>_x.npy and _z.npy (moments: _z and _v) and a
MANIFEST line "<op> <case> <rtol> <atol> <keep_dims> <bias_corrected>
<axes>", axes comma-separated or "-" for none (all axes). Inputs include
ties, NaN and infinities, negative axes, size-1 and empty dims.
"""
import os

import numpy as np
import scipy.special as sp

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "golden", "reductions")
rng = np.random.default_rng(20261126)
manifest = []


def save(op, case, x, z, axes, keep=False, bias=False, rtol=0.0, atol=0.0, v=None):
    np.save(os.path.join(OUT, f"{op}_{case}_x.npy"), np.require(x, requirements="C"))
    np.save(os.path.join(OUT, f"{op}_{case}_z.npy"), np.require(z, requirements="C"))
    if v is not None:
        np.save(os.path.join(OUT, f"{op}_{case}_v.npy"), np.require(v, requirements="C"))
    ax = "-" if axes is None else ",".join(str(a) for a in axes)
    manifest.append(f"{op} {case} {rtol:g} {atol:g} {int(keep)} {int(bias)} {ax}")


def npaxes(axes):
    return None if axes is None else tuple(axes)


# op: (numpy reduction f(x, axis, keepdims), result dtype rule, f32 rtol, f64 rtol)
def same(f):
    return lambda x, ax, keep: f(x, axis=ax, keepdims=keep)


def floaty(f):
    return lambda x, ax, keep: f(x.astype(np.float64), axis=ax, keepdims=keep)


def norm_max(x, axis, keepdims):
    return np.max(np.abs(x), axis=axis, keepdims=keepdims, initial=0.0)


def lowest(x):
    return np.iinfo(x.dtype).min if x.dtype.kind == "i" else -np.inf


OPS = {
    "reduce_sum": (same(np.sum), "same", 1e-6, 1e-14),
    "reduce_prod": (same(np.prod), "same", 1e-6, 1e-14),
    # An empty reduction gives the identity (numpy refuses one without initial).
    "reduce_max": (lambda x, ax, keep: np.max(x, axis=ax, keepdims=keep, initial=lowest(x)), "same", 0, 0),
    "reduce_min": (lambda x, ax, keep: np.min(x, axis=ax, keepdims=keep, initial=-lowest(x) - (x.dtype.kind == "i")),
                   "same", 0, 0),
    "reduce_mean": (floaty(np.mean), "float", 1e-6, 1e-14),
    "reduce_norm1": (floaty(lambda x, axis, keepdims: np.sum(np.abs(x), axis=axis, keepdims=keepdims)), "float",
                     1e-6, 1e-14),
    "reduce_norm2": (floaty(lambda x, axis, keepdims: np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))),
                     "float", 1e-6, 1e-14),
    "reduce_norm_max": (floaty(norm_max), "float", 0, 0),
    "reduce_sqnorm": (floaty(lambda x, axis, keepdims: np.sum(x * x, axis=axis, keepdims=keepdims)), "float",
                      1e-6, 1e-14),
    "reduce_logsumexp": (floaty(lambda x, axis, keepdims: sp.logsumexp(x, axis=axis, keepdims=keepdims)),
                         "float", 2e-6, 1e-14),
    "reduce_any": (same(np.any), "bool", 0, 0),
    "reduce_all": (same(np.all), "bool", 0, 0),
    "count_nonzero": (lambda x, ax, keep: np.count_nonzero(x, axis=ax, keepdims=keep), "int64", 0, 0),
    "count_zero": (lambda x, ax, keep: np.sum(x == 0, axis=ax, keepdims=keep), "int64", 0, 0),
}


def result(rule, x, z):
    if rule == "same":
        return z.astype(x.dtype)
    if rule == "float":
        return z.astype(x.dtype if x.dtype.kind == "f" else np.float32)
    if rule == "bool":
        return z.astype(np.bool_)
    return z.astype(np.int64)


def inputs():
    """(case name, array, axes list) triples shared by every op."""
    base = rng.uniform(-3, 3, (3, 4, 5))
    ties = np.array([[1.0, 3.0, 3.0, -2.0], [0.0, 0.0, -1.0, -1.0], [2.5, -7.0, 2.5, 2.5]])
    special = np.array([[1.0, np.nan, 2.0], [np.inf, 1.0, -3.0], [-np.inf, -np.inf, 0.5], [0.0, -0.0, 4.0]])
    ints = rng.integers(-9, 10, (4, 6)).astype(np.int32)
    yield "all_f64", base, None
    yield "axis0_f32", base.astype(np.float32), [0]
    yield "axes02_f64", base, [0, 2]
    yield "neg_axis_f32", base.astype(np.float32), [-1]
    yield "ties_f64", ties, [1]
    yield "special_f64", special, [1]
    yield "special_cols_f32", special.astype(np.float32), [0]
    yield "i32", ints, [1]
    yield "size1_f64", base[:, :1, :], [1]
    yield "empty_f64", np.zeros((3, 0, 2)), [1]


def long_rows():
    """Rows longer than a block (Note [Dense index picks] in libops/loops/reduce.h:
    lanes over 4096-element blocks): the best value in the second block, a
    later tie, -0.0 beside 0.0, NaN late in a row, runs of ties across the
    block boundary, small integer dtypes. Own generator: the cases above keep
    their data."""
    r = np.random.default_rng(4096)
    long = r.integers(-50, 50, (4, 4500)).astype(np.float64)
    long[0, 4400] = 60.0
    long[0, 4450] = 60.0  # a later tie
    long[1, :] = -0.0
    long[1, 4200] = 0.0  # equal to -0.0: the first stays the answer
    long[2, 4300] = np.nan
    long[2, 4499] = np.nan
    long[3, 4090:4110] = -99.0
    for op, f, key in (("argmax", np.argmax, lambda v: v), ("argmin", np.argmin, lambda v: v),
                       ("argamax", np.argmax, np.abs), ("argamin", np.argmin, np.abs)):
        x = long.astype(np.float32)
        save(op, "long_f32", x, f(key(x), axis=1).astype(np.int64), [1])
    save("argmax", "long_f64", long, np.argmax(long, axis=1).astype(np.int64), [1])
    save("argmin", "long_all_f64", long[0], np.asarray(np.argmin(long[0])).astype(np.int64), None)
    for dt in (np.int8, np.uint8, np.int64):
        x = r.integers(0, 7, (2, 4200)).astype(dt)
        x[1, 4150] = 100
        save("argmax", f"long_{np.dtype(dt).name}", x, np.argmax(x, axis=1).astype(np.int64), [1])
        save("argmin", f"long_{np.dtype(dt).name}", x, np.argmin(x, axis=1).astype(np.int64), [1])


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    for op, (f, rule, rtol32, rtol64) in OPS.items():
        for case, x, axes in inputs():
            if op.startswith("count") or op in ("reduce_any", "reduce_all"):
                if case == "i32":
                    x = np.where(x > 2, 0, x)  # some zeros
            for keep in (False, True) if case in ("axes02_f64", "ties_f64") else (False,):
                with np.errstate(all="ignore"):
                    z = np.asarray(f(x, npaxes(axes), keep))
                z = result(rule, x, z)
                rtol = rtol32 if x.dtype == np.float32 or z.dtype == np.float32 else rtol64
                if op == "reduce_prod" and case == "i32":
                    z = np.prod(x.astype(np.int64), axis=1).astype(np.int32)  # wraps like libops
                save(op, case + ("_keep" if keep else ""), x, z, axes, keep, rtol=rtol, atol=1e-12 if rtol else 0)
    # argmax/argmin: first on ties, NaN wins (numpy's rules); one axis or all.
    for op, f in (("argmax", np.argmax), ("argmin", np.argmin)):
        for case, x, axes in inputs():
            if case.startswith("empty") or (axes is not None and len(axes) > 1):
                continue
            z = np.asarray(f(x, axis=None if axes is None else axes[0])).astype(np.int64)
            save(op, case, x, z, axes)
    a = np.array([[0.5, -2.0, 3.0, -3.0], [1.0, 4.0, -4.0, 0.0]])
    save("argamax", "ties_f64", a, np.argmax(np.abs(a), axis=1).astype(np.int64), [1])
    save("argamin", "ties_f64", a, np.argmin(np.abs(a), axis=1).astype(np.int64), [1])
    # variance / stdev with and without bias correction.
    for op, f in (("reduce_variance", np.var), ("reduce_stdev", np.std)):
        for case, x, axes in inputs():
            if case.startswith("empty") or case.startswith("special"):
                continue
            for bias in (False, True):
                with np.errstate(all="ignore"):
                    z = np.asarray(f(x.astype(np.float64), axis=npaxes(axes), ddof=1 if bias else 0))
                z = result("float", x, z)
                rtol = 1e-6 if z.dtype == np.float32 else 1e-13
                save(op, case + ("_bias" if bias else ""), x, z, axes, bias=bias, rtol=rtol, atol=1e-12)
    # moments: mean and biased variance.
    for case, x, axes in inputs():
        if case.startswith("empty"):
            continue
        m = result("float", x, np.asarray(np.mean(x.astype(np.float64), axis=npaxes(axes))))
        v = result("float", x, np.asarray(np.var(x.astype(np.float64), axis=npaxes(axes))))
        save("moments", case, x, m, axes, rtol=1e-6 if m.dtype == np.float32 else 1e-13, atol=1e-12, v=v)
    long_rows()
    with open(os.path.join(OUT, "MANIFEST"), "w") as f:
        f.write("# op case rtol atol keep_dims bias_corrected axes (tools/gen_goldens_reductions.py)\n")
        f.write("\n".join(manifest) + "\n")
    print(f"{len(manifest)} cases in {OUT}")


if __name__ == "__main__":
    main()
