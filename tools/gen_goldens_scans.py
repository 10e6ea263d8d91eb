#!/usr/bin/env python3
"""Generate the numpy goldens of the cumulative scans (cumsum, cumprod,
cummax, cummin) under tests_cpu/golden/scans/ (tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_scans.py
Exclusive and reverse scans follow TensorFlow: exclusive leaves each element
out of its own result and starts from the identity; reverse scans from the
end of the axis. Rows are long enough (5000) for the segmented CPU kernel.
"""
import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261128)
M = Manifest("scans")

ACC = {"cumsum": np.add.accumulate, "cumprod": np.multiply.accumulate,
       "cummax": np.fmax.accumulate, "cummin": np.fmin.accumulate}
IDENTITY = {"cumsum": 0, "cumprod": 1, "cummax": -np.inf, "cummin": np.inf}


def scan(op, x, axis, exclusive=False, reverse=False):
    if op in ("cummax", "cummin"):
        f = np.maximum if op == "cummax" else np.minimum  # NaN propagates
        acc = f.accumulate
    else:
        acc = ACC[op]
    y = np.flip(x, axis) if reverse else x
    z = acc(y, axis=axis)
    if exclusive:
        ident = IDENTITY[op]
        if x.dtype.kind in "iu" and op in ("cummax", "cummin"):
            info = np.iinfo(x.dtype)
            ident = info.min if op == "cummax" else info.max
        z = np.concatenate([np.full_like(np.take(z, [0], axis=axis), ident), np.delete(z, -1, axis=axis)], axis=axis)
    return np.flip(z, axis) if reverse else z


def main():
    x = rng.uniform(-2, 2, (3, 4, 5))
    x[1, 2, 3] = np.nan
    xi = rng.integers(-9, 10, (4, 6)).astype(np.int32)
    long_row = rng.uniform(0.5, 1.5, 5000).astype(np.float32)
    for op in ACC:
        rtol64, rtol32 = (1e-13, 5e-6) if op in ("cumsum", "cumprod") else (0, 0)
        for axis in (0, 1, -1):
            M.case(op, f"axis{axis}_f64".replace("-", "m"), [x], [scan(op, x, axis)], i=[0, 0, axis], rtol=rtol64)
        M.case(op, "exclusive_f64", [x], [scan(op, x, 1, exclusive=True)], i=[1, 0, 1], rtol=rtol64)
        M.case(op, "reverse_f64", [x], [scan(op, x, 2, reverse=True)], i=[0, 1, 2], rtol=rtol64)
        M.case(op, "both_f32", [x.astype(np.float32)],
               [scan(op, x.astype(np.float64), 0, True, True).astype(np.float32)], i=[1, 1, 0], rtol=rtol32)
        M.case(op, "i32", [xi], [scan(op, xi.astype(np.int64), 1).astype(np.int32)], i=[0, 0, 1])
        M.case(op, "exclusive_i32", [xi], [scan(op, xi, 0, exclusive=True).astype(np.int32)], i=[1, 0, 0])
        M.case(op, "flat", [xi], [scan(op, xi.ravel().astype(np.int64), 0).reshape(xi.shape).astype(np.int32)], i=[0, 0])
        M.case(op, "axes_input", [x, np.array([2], np.int64)], [scan(op, x, 2)], i=[0, 0], rtol=rtol64)
        if op != "cumprod":
            M.case(op, "long_row_f32", [long_row], [scan(op, long_row.astype(np.float64), 0).astype(np.float32)],
                   i=[0, 0, 0], rtol=1e-5 if op == "cumsum" else 0)
    two = rng.uniform(-1, 1, (3, 4))
    M.case("cumsum", "two_axes", [two], [np.cumsum(np.cumsum(two, axis=0), axis=1)], i=[0, 0, 0, 1], rtol=1e-13)
    M.write("tools/gen_goldens_scans.py")


if __name__ == "__main__":
    main()
