#!/usr/bin/env python3
"""Generate the golden files of the legacy TRANSFORM tables.

Run from anywhere:  python3 tools/gen_goldens_transform.py
Needs numpy and mpmath. It rewrites tests_cpu/golden/transform/<table>/<op>.npy,
read by tests_cpu/legacy/transform_*_test.cpp.

Each file is a float64 array of shape (4, n):
  row 0  the inputs x, all exactly representable in float32;
  row 1  f(x), the float64 reference;
  row 2  f(float16(x)), the reference at x rounded to float16;
  row 3  f(bfloat16(x)), the reference at x rounded to bfloat16.
Rows 2 and 3 let the tests check the float16/bfloat16 paths against the
exact value for the input those dtypes can actually hold.

References are computed with mpmath at 50 significant digits from the
mathematical definition of each op (derivatives from their closed forms,
checked here against mpmath's numerical differentiation), then rounded to
float64; ops that are exact in float64 (rounding, comparisons) use numpy.
Where a definition would cancel catastrophically even at 50 digits, an
algebraically identical form is used and named in a comment. Infinite inputs
take the op's limit, listed next to each op; NaN inputs give NaN.
"""
import math
import os

import mpmath as mp
import numpy as np

mp.mp.dps = 50

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "golden", "transform")

INF = math.inf
NAN = math.nan

# ---- input sets (float32) -------------------------------------------------
# General real line: small and large magnitudes, signed zeros, the kinks of
# the piecewise ops (+-1, +-2.5), halves for the rounding ops, values whose
# result overflows float32 (exp(100)) or float16, and the special values.
REAL = [-100, -30, -20, -10.5, -8, -5, -3.7, -2.5, -2, -1.5, -1, -0.75, -0.5,
        -0.3, -0.1, -1e-3, -1e-6, -0.0, 0.0, 1e-6, 1e-3, 0.1, 0.3, 0.5, 0.7, 1,
        1.2, 1.5, 2, 2.5, 3.3, 5, 7.25, 10, 15, 20, 30, 88, 100, 1e4, -1e4,
        1e30, -1e30, INF, -INF, NAN]
# [-1, 1] and a little outside (asin, acos, atanh).
UNIT = [-1, -0.999, -0.9, -0.5, -0.25, -0.1, -1e-4, -0.0, 0.0, 1e-4, 0.1,
        0.25, 0.5, 0.75, 0.9, 0.999, 1, 1.5, -2, 1e4, INF, -INF, NAN]
# Mostly positive (log family, acosh, sqrt): tiny to huge, around 1, and the
# negatives where log1p is still defined or each op turns NaN.
POS = [1e-30, 1e-10, 1e-5, 0.01, 0.1, 0.5, 0.9, 0.999, 1, 1.001, 1.1, 2,
       2.718, 3, 10, 100, 1e5, 1e20, 3e38, 0.0, -0.0, -1e-7, -0.5, -0.999, -1,
       -2, -8, INF, -INF, NAN]
# Gamma family: poles (0, -1, -2, -100), between poles, the positive root of
# digamma (1.4616321...), large arguments.
GAMMA = [-20.25, -10.5, -3.5, -2.5, -1.5, -0.5, -0.25, -1e-3, 1e-3, 0.1, 0.5,
         1, 1.25, 1.4616321, 1.5, 2, 2.5, 3, 4.5, 7.3, 10, 30, 100, 1e4, 1e20,
         -1, -2, -100, 0.0, -0.0, INF, -INF, NAN]
# Rounding: REAL plus ties, the float just below 0.5 and 2^23 - 0.5.
ROUNDING = REAL + [0.49999997, -0.49999997, 3.5, -3.5, 4.5, 8388607.5,
                   -8388607.5]


def f32(values):
    return np.array(values, dtype=np.float32)


def to_bfloat16(x32):
    """float32 -> bfloat16 (round to nearest, ties to even) -> float32."""
    bits = x32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32).copy()
    out[np.isnan(x32)] = np.nan
    return out


# ---- mpmath helpers ------------------------------------------------------
def sigmoid(x):
    return 1 / (1 + mp.exp(-x))


def softplus(x):
    return mp.log1p(mp.exp(x))


def sech2(x):
    return 1 / mp.cosh(x) ** 2


SELU_ALPHA = mp.mpf("1.6732632423543772848170429916717")
SELU_SCALE = mp.mpf("1.0507009873554804934193349852946")
GELU_K = mp.sqrt(2 / mp.pi)
GELU_C = mp.mpf("0.044715")


def gelu_u(x):
    return GELU_K * (x + GELU_C * x ** 3)


def gelu(x):
    # 0.5 x (1 + tanh(u)) = x sigmoid(2u): the tanh form cancels for x < -5.
    return x * sigmoid(2 * gelu_u(x))


def gelu_derivative(x):
    # d/dx of x sigmoid(2u), with sigmoid' = sigmoid(t) sigmoid(-t).
    t = 2 * gelu_u(x)
    du = 2 * GELU_K * (1 + 3 * GELU_C * x ** 2)
    return sigmoid(t) + x * du * sigmoid(t) * sigmoid(-t)


def precise_gelu(x):
    return x / 2 * mp.erfc(-x / mp.sqrt(2))


def precise_gelu_derivative(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2 + x * mp.exp(-x ** 2 / 2) / mp.sqrt(2 * mp.pi)


def mish(x):
    return x * mp.tanh(softplus(x))


def mish_derivative(x):
    sp = softplus(x)
    return mp.tanh(sp) + x * sech2(sp) * sigmoid(x)


def swish(x):
    return x * sigmoid(x)


def swish_derivative(x):
    return sigmoid(x) + x * sigmoid(x) * sigmoid(-x)


def lgamma(x):
    if x > 0:
        return mp.loggamma(x)
    try:
        return mp.log(abs(mp.gamma(x)))
    except (ValueError, ZeroDivisionError):  # poles
        return mp.inf


def digamma(x):
    if x <= 0 and x == mp.floor(x):
        return mp.nan  # poles; the zeros are special-cased below
    return mp.digamma(x)


def clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


# name: (input set, f(mpf) -> mpf, f(-inf), f(+inf)[, f(-0), f(+0)])
STRICT = {
    "exp": (REAL, mp.exp, 0.0, INF),
    "log": (POS, mp.log, NAN, INF),
    "log1p": (POS, mp.log1p, NAN, INF),
    "expm1": (REAL, mp.expm1, -1.0, INF),
    "log2": (POS, lambda x: mp.log(x, 2), NAN, INF),
    "log10": (POS, mp.log10, NAN, INF),
    "exp2": (REAL, lambda x: mp.power(2, x), 0.0, INF),
    "sin": (REAL, mp.sin, NAN, NAN),
    "cos": (REAL, mp.cos, NAN, NAN),
    "tan": (REAL, mp.tan, NAN, NAN),
    "asin": (UNIT, mp.asin, NAN, NAN),
    "acos": (UNIT, mp.acos, NAN, NAN),
    "atan": (REAL, mp.atan, -math.pi / 2, math.pi / 2),
    "sinh": (REAL, mp.sinh, -INF, INF),
    "cosh": (REAL, mp.cosh, INF, INF),
    "tanh": (REAL, mp.tanh, -1.0, 1.0),
    "asinh": (REAL, mp.asinh, -INF, INF),
    "acosh": (POS, mp.acosh, NAN, INF),
    "atanh": (UNIT, mp.atanh, NAN, NAN),
    "sigmoid": (REAL, sigmoid, 0.0, 1.0),
    "softplus": (REAL, softplus, 0.0, INF),
    "softsign": (REAL, lambda x: x / (1 + abs(x)), -1.0, 1.0),
    "hard_tanh": (REAL, lambda x: clamp(x, -1, 1), -1.0, 1.0),
    "hard_sigmoid": (REAL, lambda x: clamp(x / 5 + mp.mpf(1) / 2, 0, 1), 0.0, 1.0),
    "selu": (REAL, lambda x: SELU_SCALE * x if x > 0 else SELU_SCALE * SELU_ALPHA * mp.expm1(x),
             -float(SELU_SCALE * SELU_ALPHA), INF),
    "swish": (REAL, swish, 0.0, INF),
    "gelu": (REAL, gelu, 0.0, INF),
    "precise_gelu": (REAL, precise_gelu, 0.0, INF),
    "mish": (REAL, mish, 0.0, INF),
    "elu": (REAL, lambda x: x if x > 0 else mp.expm1(x), -1.0, INF),  # alpha = 1
    "log_sigmoid": (REAL, lambda x: -mp.log1p(mp.exp(-x)), -INF, 0.0),
    "rectified_tanh": (REAL, lambda x: max(mp.tanh(x), 0), 0.0, 1.0),
    "erf": (REAL, mp.erf, -1.0, 1.0),
    "erfc": (REAL, mp.erfc, 2.0, 0.0),
    "rint": (ROUNDING, None, -INF, INF),  # numpy below
    "lgamma": (GAMMA, lgamma, INF, INF),
    "digamma": (GAMMA, digamma, NAN, INF, INF, -INF),
    # sigmoid (1 - sigmoid) written without the subtraction.
    "sigmoid_derivative": (REAL, lambda x: sigmoid(x) * sigmoid(-x), 0.0, 0.0),
    "tanh_derivative": (REAL, sech2, 0.0, 0.0),
    "softplus_derivative": (REAL, sigmoid, 0.0, 1.0),
    "softsign_derivative": (REAL, lambda x: 1 / (1 + abs(x)) ** 2, 0.0, 0.0),
    "hard_tanh_derivative": (REAL, lambda x: mp.mpf(1) if -1 <= x <= 1 else mp.mpf(0), 0.0, 0.0),
    "hard_sigmoid_derivative": (REAL, lambda x: mp.mpf(1) / 5 if -2.5 <= x <= 2.5 else mp.mpf(0), 0.0, 0.0),
    "selu_derivative": (REAL, lambda x: SELU_SCALE if x > 0 else SELU_SCALE * SELU_ALPHA * mp.exp(x),
                        0.0, float(SELU_SCALE)),
    "swish_derivative": (REAL, swish_derivative, 0.0, 1.0),
    "gelu_derivative": (REAL, gelu_derivative, 0.0, 1.0),
    "precise_gelu_derivative": (REAL, precise_gelu_derivative, 0.0, 1.0),
    "mish_derivative": (REAL, mish_derivative, 0.0, 1.0),
    "elu_derivative": (REAL, lambda x: mp.mpf(1) if x > 0 else mp.exp(x), 0.0, 1.0),  # alpha = 1
    "rectified_tanh_derivative": (REAL, lambda x: sech2(x) if x > 0 else mp.mpf(0), 0.0, 0.0),
    "celu": (REAL, lambda x: x if x > 0 else mp.expm1(x), -1.0, INF),  # alpha = 1
    "hard_swish": (REAL, lambda x: x * clamp(x / 6 + mp.mpf(1) / 2, 0, 1), 0.0, INF),
}

# Closed-form derivatives checked against numerical differentiation of the
# op they differentiate, away from kinks.
DERIVATIVE_OF = {
    "sigmoid_derivative": sigmoid, "tanh_derivative": mp.tanh, "softplus_derivative": softplus,
    "swish_derivative": swish, "gelu_derivative": gelu, "precise_gelu_derivative": precise_gelu,
    "mish_derivative": mish,
}

FLOAT = {
    "sqrt": (POS, mp.sqrt, NAN, INF),
    "rsqrt": (POS, lambda x: 1 / mp.sqrt(x), NAN, 0.0, -INF, INF),
    "cbrt": (POS, lambda x: mp.sign(x) * mp.cbrt(abs(x)), -INF, INF),
}


def reference_mp(spec, v):
    """Reference value of one strict/float op at the float64 input v."""
    fn, neg_inf, pos_inf = spec[1], spec[2], spec[3]
    if math.isnan(v):
        return NAN
    if math.isinf(v):
        return pos_inf if v > 0 else neg_inf
    if v == 0 and len(spec) > 4:
        return spec[4] if math.copysign(1, v) < 0 else spec[5]
    r = fn(mp.mpf(v))
    if isinstance(r, mp.mpc):  # outside the real domain
        return NAN if r.imag != 0 else float(r.real)
    return float(r)


# ---- exact ops (numpy, float64) ------------------------------------------
CLIP_MIN, CLIP_MAX = -2.0, 3.0  # the extra params the tests pass to clip_by_value


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


SAME = {
    "abs": np.abs,
    "neg": np.negative,
    "sign": np.sign,
    "square": np.square,
    "cube": lambda x: x ** 3,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": round_half_away,
    "identity": lambda x: x.copy(),
    "reciprocal": lambda x: 1.0 / x,
    "relu": lambda x: np.where(x < 0, 0.0, x),
    "relu6": lambda x: np.where(x < 0, 0.0, np.where(x > 6, 6.0, x)),
    "ones_as": np.ones_like,
    "zeros_as": np.zeros_like,
    "clip_by_value": lambda x: np.where(x < CLIP_MIN, CLIP_MIN, np.where(x > CLIP_MAX, CLIP_MAX, x)),
    "step": lambda x: np.where(x > 0, 1.0, 0.0),
    "trunc": np.trunc,
    "frac": lambda x: np.modf(x)[0],
}

BOOL = {
    "is_nan": np.isnan,
    "is_inf": np.isinf,
    "is_finite": np.isfinite,
    "is_inf_or_nan": lambda x: ~np.isfinite(x),
    "is_positive": lambda x: x > 0,
    "is_negative": lambda x: x < 0,
    "is_zero": lambda x: x == 0,
    "logical_not": lambda x: x == 0,
    "is_integer_value": lambda x: np.isfinite(x) & (np.trunc(x) == x),
}


def rows_for(x32, ref):
    """The (4, n) golden: inputs, then ref at x, float16(x), bfloat16(x)."""
    with np.errstate(all="ignore"):  # float16 overflow to inf, 1/0, ...
        inputs = [x32.astype(np.float64),
                  x32.astype(np.float16).astype(np.float64),
                  to_bfloat16(x32).astype(np.float64)]
        out = [inputs[0]] + [np.asarray(ref(v), dtype=np.float64) for v in inputs]
    return np.stack(out)


def check_derivatives():
    points = [mp.mpf(v) for v in (-7.5, -3.2, -1.1, -0.4, 0.3, 0.9, 2.2, 6.5)]
    for name, primal in DERIVATIVE_OF.items():
        closed = STRICT[name][1]
        for p in points:
            numeric = mp.diff(primal, p)
            assert abs(numeric - closed(p)) <= mp.mpf("1e-30") * (1 + abs(numeric)), (name, p)


def save(table, name, array):
    folder = os.path.join(OUT, table)
    os.makedirs(folder, exist_ok=True)
    np.save(os.path.join(folder, name + ".npy"), array)


def main():
    check_derivatives()
    for table, specs in (("strict", STRICT), ("float", FLOAT)):
        for name, spec in specs.items():
            x = f32(spec[0])
            if name == "rint":
                ref = np.rint
            else:
                ref = lambda xs, spec=spec: [reference_mp(spec, float(v)) for v in xs]  # noqa: E731
            save(table, name, rows_for(x, ref))
    for name, fn in SAME.items():
        save("same", name, rows_for(f32(ROUNDING), fn))
    for name, fn in BOOL.items():
        save("bool", name, rows_for(f32(ROUNDING), lambda xs, fn=fn: fn(xs).astype(np.float64)))


if __name__ == "__main__":
    main()
