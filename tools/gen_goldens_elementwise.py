#!/usr/bin/env python3
"""Generate the numpy (and scipy.special) goldens of the element-wise custom
ops (libops/ops/elementwise/) under tests_cpu/golden/elementwise/.

Run from anywhere:  python3 tools/gen_goldens_elementwise.py   (needs scipy)
Each case writes <op>_<case>_{x,y,z}.npy and a line "<op> <case> <rtol>
<atol>" in MANIFEST. Float cases run every special value (+-0, +-inf, NaN,
halves for the rounding ops) through the op; binary cases broadcast a column
of values against a row, so every pair meets. Integer cases check that
integer ops stay integers and that float ops convert integers to float32.
"""
import math
import os

import numpy as np
import scipy.special as sp

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "golden", "elementwise")
rng = np.random.default_rng(20261125)
manifest = []

SPECIAL = [-np.inf, -3.5, -2.5, -1.5, -1.0, -0.75, -0.5, -0.0, 0.0, 0.25, 0.5,
           1.0, 1.5, 2.5, 3.7, np.inf, np.nan]


def save(op, case, rtol, atol, **arrays):
    for role, a in arrays.items():
        np.save(os.path.join(OUT, f"{op}_{case}_{role}.npy"), np.ascontiguousarray(a))
    manifest.append(f"{op} {case} {rtol:g} {atol:g}")


def float_inputs(dtype):
    x = np.array(SPECIAL + list(rng.uniform(-4, 4, 15)), dtype=np.float64)
    return x.astype(dtype).reshape(4, 8)


def vec(f):
    """An element-wise python function as a float64 numpy one."""
    def g(x):
        out = np.empty(x.shape, np.float64)
        for i, v in np.ndenumerate(x.astype(np.float64)):
            try:
                out[i] = f(float(v))
            except (ValueError, OverflowError):
                out[i] = np.nan
        return out
    return g


def round_half_away(x):
    return np.where(np.isfinite(x), np.sign(x) * np.floor(np.abs(x) + 0.5), x)


def lgamma(v):
    if math.isinf(v):
        return math.inf
    if v <= 0 and v == math.floor(v):
        return math.inf
    return math.lgamma(v)


def sigmoid(x):
    return sp.expit(x)


def selu(x):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return scale * np.where(x > 0, x, alpha * np.expm1(x))


def softsign(x):
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(x), np.sign(x), x / (1 + np.abs(x)))


def silu(x):
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(x), np.where(x > 0, x, -0.0), x * sigmoid(x))


def mish(x):
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(x), np.where(x > 0, x, -0.0), x * np.tanh(np.logaddexp(0, x)))


# op: (numpy function on float64, float32 rtol, float64 rtol)
UNARY_FLOAT = {
    "abs": (np.abs, 0, 0), "neg": (np.negative, 0, 0), "sign": (np.sign, 0, 0),
    "square": (np.square, 1e-7, 1e-16), "cube": (lambda x: x * x * x, 2.5e-7, 4.5e-16),
    "reciprocal": (lambda x: 1 / x, 1e-7, 1e-16),
    "floor": (np.floor, 0, 0), "ceil": (np.ceil, 0, 0), "round": (round_half_away, 0, 0),
    "trunc": (np.trunc, 0, 0), "rint": (np.rint, 0, 0),
    "sqrt": (np.sqrt, 1e-7, 1e-16), "rsqrt": (lambda x: 1 / np.sqrt(x), 2.5e-7, 4.5e-16),
    "cbrt": (np.cbrt, 2.5e-7, 4.5e-16),
    "exp": (np.exp, 2.5e-7, 4.5e-16), "expm1": (np.expm1, 2.5e-7, 4.5e-16),
    "exp2": (np.exp2, 2.5e-7, 4.5e-16), "log": (np.log, 2.5e-7, 4.5e-16),
    "log1p": (np.log1p, 2.5e-7, 4.5e-16), "log2": (np.log2, 2.5e-7, 4.5e-16),
    "log10": (np.log10, 2.5e-7, 4.5e-16),
    "sin": (np.sin, 2.5e-7, 4.5e-16), "cos": (np.cos, 2.5e-7, 4.5e-16), "tan": (np.tan, 5e-7, 4.5e-16),
    "asin": (np.arcsin, 2.5e-7, 4.5e-16), "acos": (np.arccos, 2.5e-7, 4.5e-16),
    "atan": (np.arctan, 2.5e-7, 4.5e-16), "sinh": (np.sinh, 2.5e-7, 4.5e-16),
    "cosh": (np.cosh, 2.5e-7, 4.5e-16), "tanh": (np.tanh, 2.5e-7, 4.5e-16),
    "asinh": (np.arcsinh, 2.5e-7, 4.5e-16), "acosh": (np.arccosh, 2.5e-7, 4.5e-16),
    "atanh": (np.arctanh, 2.5e-7, 4.5e-16),
    "erf": (sp.erf, 2.5e-7, 1e-15), "erfc": (sp.erfc, 1e-6, 1e-15),
    "lgamma": (vec(lgamma), 1e-6, 1e-13), "digamma": (sp.digamma, 1e-6, 1e-13),
    "sigmoid": (sigmoid, 2.5e-7, 4.5e-16), "log_sigmoid": (sp.log_expit, 2.5e-7, 4.5e-16),
    "softplus": (lambda x: np.logaddexp(0, x), 2.5e-7, 4.5e-16), "softsign": (softsign, 2.5e-7, 4.5e-16),
    "silu": (silu, 2.5e-7, 4.5e-16), "mish": (mish, 5e-7, 4.5e-16), "selu": (selu, 2.5e-7, 4.5e-16),
    "is_nan": (np.isnan, 0, 0), "is_inf": (np.isinf, 0, 0), "is_finite": (np.isfinite, 0, 0),
    "logical_not": (np.logical_not, 0, 0),
}
# Ops whose integer results stay integers: numpy on int32 data.
UNARY_INT_SAME = {
    "abs": np.abs, "neg": np.negative, "sign": np.sign, "square": np.square,
    "cube": lambda x: x * x * x, "floor": lambda x: x, "ceil": lambda x: x,
    "round": lambda x: x, "trunc": lambda x: x,
    "reciprocal": lambda x: np.where(x == 0, 0, np.where(np.abs(x) == 1, x, 0)),
}
UNARY_INT_FLOAT = ["sqrt", "exp", "sin", "tanh", "erf", "log1p", "sigmoid"]


def unary_cases():
    for op, (f, rtol32, rtol64) in UNARY_FLOAT.items():
        for name, dt, rtol in (("f64", np.float64, rtol64), ("f32", np.float32, rtol32)):
            x = float_inputs(dt)
            with np.errstate(all="ignore"):
                z = np.asarray(f(x.astype(np.float64)))
            z = z.astype(np.bool_ if z.dtype == np.bool_ else dt)
            save(op, name, rtol, 1e-300 if dt == np.float64 else 1e-37, x=x, z=z)
    x = np.array([-7, -3, -1, 0, 1, 2, 5, 9], np.int32).reshape(2, 4)
    for op, f in UNARY_INT_SAME.items():
        save(op, "i32", 0, 0, x=x, z=np.asarray(f(x)).astype(np.int32))
    for op in UNARY_INT_FLOAT:
        f, rtol32, _ = UNARY_FLOAT[op]
        with np.errstate(all="ignore"):
            z = np.asarray(f(x.astype(np.float64))).astype(np.float32)
        save(op, "i32", rtol32, 1e-37, x=x, z=z)
    b = np.array([True, False, True, True], np.bool_)
    save("logical_not", "bool", 0, 0, x=b, z=~b)
    save("bitwise_not", "bool", 0, 0, x=b, z=~b)
    i8 = np.array([-128, -1, 0, 1, 5, 127], np.int8)
    save("bitwise_not", "i8", 0, 0, x=i8, z=np.invert(i8))
    u16 = np.array([0, 1, 0x8000, 0xFFFF, 0x1234], np.uint16)
    save("bitwise_not", "u16", 0, 0, x=u16, z=np.invert(u16))
    pc = np.array([-128, -1, 0, 1, 7, 127], np.int8)
    # The bits of the two's complement (TensorFlow's PopulationCount); numpy's
    # bitwise_count counts those of |x|, so it is given the unsigned view.
    save("population_count", "i8", 0, 0, x=pc, z=np.bitwise_count(pc.view(np.uint8)).astype(np.int8))
    i64 = np.array([-1, 0, 1 << 40, (1 << 63) - 1], np.int64)
    save("population_count", "i64", 0, 0, x=i64, z=np.bitwise_count(i64.view(np.uint64)).astype(np.int64))


def trunc_div(a, b):
    # C's /: toward zero; x / 0 = 0 here (Note [Integer division]).
    return np.array([0 if y == 0 else int(x / y) for x, y in np.broadcast(a, b)],
                    np.int64).reshape(np.broadcast(a, b).shape)


def int_rem(a, b):
    # C's %: the sign of a; x % 0 = 0 here (Note [Integer division]).
    return np.array([0 if y == 0 else int(math.fmod(x, y)) for x, y in np.broadcast(a, b)],
                    np.int64).reshape(np.broadcast(a, b).shape)


def int_floor_div(a, b):
    return np.array([0 if y == 0 else x // y for x, y in np.broadcast(a, b)],
                    np.int64).reshape(np.broadcast(a, b).shape)


def int_floor_mod(a, b):
    return np.array([0 if y == 0 else x % y for x, y in np.broadcast(a, b)],
                    np.int64).reshape(np.broadcast(a, b).shape)


def ieee_remainder(a, b):
    out = np.empty(np.broadcast(a, b).shape, np.float64)
    for i, (x, y) in zip(np.ndindex(out.shape), np.broadcast(a, b)):
        try:
            out[i] = math.remainder(x, y)
        except ValueError:
            out[i] = np.nan
    return out


def safe_div(x, y):
    with np.errstate(all="ignore"):
        return np.where(y == 0, 0.0, x / np.where(y == 0, 1.0, y))


# op: (float64 function, float32 rtol, float64 rtol)
BINARY_FLOAT = {
    "pow": (np.power, 5e-7, 4.5e-16), "mod": (np.fmod, 0, 0), "floor_mod": (np.mod, 2.5e-7, 4.5e-16),
    "floor_div": (np.floor_divide, 0, 0), "truncate_div": (lambda x, y: np.trunc(x / y), 0, 0),
    "maximum": (np.maximum, 0, 0), "minimum": (np.minimum, 0, 0), "divide_no_nan": (safe_div, 1e-7, 1e-16),
    "reverse_subtract": (lambda x, y: y - x, 1e-7, 1e-16), "reverse_divide": (lambda x, y: y / x, 1e-7, 1e-16),
    "reverse_mod": (lambda x, y: np.fmod(y, x), 0, 0), "remainder": (ieee_remainder, 0, 0),
    "atan2": (np.arctan2, 2.5e-7, 4.5e-16),
    "equal": (np.equal, 0, 0), "not_equal": (np.not_equal, 0, 0), "less": (np.less, 0, 0),
    "less_equal": (np.less_equal, 0, 0), "greater": (np.greater, 0, 0), "greater_equal": (np.greater_equal, 0, 0),
    "logical_and": (np.logical_and, 0, 0), "logical_or": (np.logical_or, 0, 0),
    "logical_xor": (np.logical_xor, 0, 0),
}
BINARY_INT = {
    "pow": None, "mod": int_rem, "floor_mod": int_floor_mod, "floor_div": int_floor_div,
    "truncate_div": trunc_div, "maximum": np.maximum, "minimum": np.minimum,
    "divide_no_nan": trunc_div, "reverse_subtract": lambda x, y: y - x,
    "reverse_mod": lambda x, y: int_rem(y, x),
    "equal": np.equal, "less": np.less, "greater_equal": np.greater_equal, "logical_and": np.logical_and,
    "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
}


def binary_cases():
    col = np.array([-np.inf, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 3.0, np.inf, np.nan])
    row = np.array([-np.inf, -3.0, -1.5, -1.0, -0.0, 0.0, 0.75, 1.0, 2.0, 2.5, np.inf, np.nan])
    for op, (f, rtol32, rtol64) in BINARY_FLOAT.items():
        for name, dt, rtol in (("f64", np.float64, rtol64), ("f32", np.float32, rtol32)):
            x = col.astype(dt).reshape(-1, 1)
            y = row.astype(dt).reshape(1, -1)
            with np.errstate(all="ignore"):
                z = np.asarray(f(x.astype(np.float64), y.astype(np.float64)))
            z = z.astype(np.bool_ if z.dtype == np.bool_ else dt)
            save(op, name, rtol, 0, x=x, y=y, z=z)
    xi = np.array([-7, -6, -1, 0, 1, 5, 7], np.int32).reshape(-1, 1)
    yi = np.array([-3, -2, -1, 0, 1, 2, 3], np.int32).reshape(1, -1)
    for op, f in BINARY_INT.items():
        if op == "pow":  # non-negative exponents: numpy refuses negative integer powers
            y = np.array([0, 1, 2, 3, 5], np.int32).reshape(1, -1)
            z = np.power(xi.astype(np.int64), y).astype(np.int32)
            save(op, "i32", 0, 0, x=xi, y=y, z=z)
            continue
        z = np.asarray(f(xi.astype(np.int64), yi.astype(np.int64)))
        z = z.astype(np.bool_ if z.dtype == np.bool_ else np.int32)
        save(op, "i32", 0, 0, x=xi, y=yi, z=z)
    # Mixed dtypes: int32 with float32 computes in float32 (Note [Type promotion]).
    xm = np.array([-3, 0, 2, 7], np.int32).reshape(-1, 1)
    ym = np.array([0.5, -1.25, 2.0], np.float32).reshape(1, -1)
    with np.errstate(all="ignore"):
        save("pow", "mixed", 5e-7, 0, x=xm, y=ym, z=np.power(xm.astype(np.float32), ym))
        save("atan2", "i32", 2.5e-7, 0, x=xi, y=yi,
             z=np.arctan2(xi.astype(np.float64), yi.astype(np.float64)).astype(np.float32))
    # Bits, in narrow and unsigned dtypes: within each dtype's width.
    a8 = np.array([-128, -1, 0, 1, 0x35, 127], np.int8).reshape(-1, 1)
    s8 = np.array([0, 1, 3, 7], np.int8).reshape(1, -1)
    save("shift_left", "i8", 0, 0, x=a8, y=s8, z=np.left_shift(a8, s8))
    save("shift_right", "i8", 0, 0, x=a8, y=s8, z=np.right_shift(a8, s8))
    u8 = a8.astype(np.uint8)
    rot = np.array([[((int(v) << int(s)) | (int(v) >> (8 - int(s)))) & 0xFF for s in s8.ravel()]
                    for v in u8.ravel()], np.uint8)
    save("cyclic_shift_left", "u8", 0, 0, x=u8, y=s8.astype(np.uint8), z=rot)
    rot = np.array([[((int(v) >> int(s)) | (int(v) << (8 - int(s)))) & 0xFF for s in s8.ravel()]
                    for v in u8.ravel()], np.uint8)
    save("cyclic_shift_right", "u8", 0, 0, x=u8, y=s8.astype(np.uint8), z=rot)
    b1 = np.array([True, False]).reshape(-1, 1)
    b2 = np.array([True, False]).reshape(1, -1)
    for op, f in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor),
                  ("logical_or", np.logical_or), ("not_equal", np.not_equal)):
        save(op, "bool", 0, 0, x=b1, y=b2, z=f(b1, b2))
    # igamma / igammac on their domain (a > 0, x >= 0).
    a = np.array([0.5, 1.0, 2.5, 7.0]).reshape(-1, 1)
    x = np.array([0.0, 0.25, 1.0, 3.0, 10.0]).reshape(1, -1)
    for op, f in (("igamma", sp.gammainc), ("igammac", sp.gammaincc)):
        save(op, "f64", 0, 1e-12, x=a, y=x, z=f(a, x))
        save(op, "f32", 0, 2e-6, x=a.astype(np.float32), y=x.astype(np.float32), z=f(a, x).astype(np.float32))


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    unary_cases()
    binary_cases()
    with open(os.path.join(OUT, "MANIFEST"), "w") as f:
        f.write("# op case rtol atol (tools/gen_goldens_elementwise.py)\n")
        f.write("\n".join(manifest) + "\n")
    print(f"{len(manifest)} cases in {OUT}")


if __name__ == "__main__":
    main()
