#!/usr/bin/env python3
"""Generate the goldens of the binary legacy tables (binary, binary_bool,
binary_int), read by tests_cpu/legacy/binary_*_test.cpp.

Run from anywhere:  python3 tools/gen_goldens_binary.py
It rewrites tests_cpu/golden/binary/*.npy. Needs numpy, and mpmath for the
incomplete gamma references.

Each file holds one op on one input dtype as a (3, N) array: row 0 is x,
row 1 is y, row 2 the expected z.
  <op>_f32.npy        x, y are float32 values; z computed in float64 from
                      them (stored as float64)
  <op>_i32.npy        x, y, z are int32 values (stored as int64); integer
                      arithmetic wraps modulo 2^32 as numpy int32 does
  bool_<op>_*.npy     the binary_bool table, z is 0 or 1
  int_<op>_i32.npy    the binary_int table
Inputs are seeded random values plus the edge values each op needs (NaN,
zero divisors, ties, ...), never all one value.

For ops with a discontinuity (floor_div, truncate_div, step, ...) a case is
kept only where float32 and float64 arithmetic agree, so the golden does not
depend on rounding in the compute type.
"""
import math
import os

import mpmath
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "golden", "binary")
N = 24
NAN = float("nan")
INF = float("inf")
I32_MIN, I32_MAX = -(2**31), 2**31 - 1

rng = np.random.default_rng(20240611)


def f32(values):
    return np.asarray(values, dtype=np.float32)


def uniform(lo, hi, n=N, step=None):
    v = rng.uniform(lo, hi, n)
    if step is not None:
        v = np.round(v / step) * step
    return f32(v)


def ints(lo, hi, n=N):
    return rng.integers(lo, hi + 1, n).astype(np.int32)


def with_specials(random, specials):
    """Replaces the first len(specials) entries of `random` with `specials`."""
    out = random.copy()
    out[: len(specials)] = specials
    return out


def save(name, x, y, z):
    x = np.asarray(x)
    y = np.asarray(y)
    z = np.asarray(z)
    assert x.shape == y.shape == z.shape == (x.size,), name
    if x.dtype.kind == "f":
        assert y.dtype == x.dtype, name
        data = np.stack([x.astype(np.float64), y.astype(np.float64), z.astype(np.float64)])
    else:
        assert x.dtype == y.dtype == np.int32, name
        data = np.stack([x.astype(np.int64), y.astype(np.int64), z.astype(np.int64)])
    assert not (np.all(data[0] == data[0][0]) or np.all(data[1] == data[1][0])), name
    np.save(os.path.join(OUT, name + ".npy"), data)


def f64(a):
    return np.asarray(a, dtype=np.float64)


def stable(fn, x, y):
    """Mask of cases where fn gives the same result in float32 and float64."""
    with np.errstate(all="ignore"):
        a = np.asarray(fn(x, y), dtype=np.float64)
        b = np.asarray(fn(f64(x), f64(y)), dtype=np.float64)
    return (a == b) | (np.isnan(a) & np.isnan(b))


def stable_inputs(fn, gen_x, gen_y):
    """Draws x, y until N cases are stable under fn."""
    xs, ys = [], []
    while len(xs) < N:
        x, y = gen_x(), gen_y()
        keep = stable(fn, x, y)
        xs.extend(x[keep])
        ys.extend(y[keep])
    return f32(xs[:N]), f32(ys[:N])


# ---- reference semantics (float64 on float32 inputs; int64 on int32) ----

def wrap32(v):
    v = np.asarray(v, dtype=object)
    return np.array([((int(a) + 2**31) % 2**32) - 2**31 for a in v], dtype=np.int64)


def trunc_div_int(x, y):
    out = []
    for a, b in zip(x.tolist(), y.tolist()):
        if b == 0:
            out.append(0)
        else:
            q = abs(a) // abs(b)
            out.append(q if (a < 0) == (b < 0) else -q)
    return wrap32(out)


def amax(x, y):
    ax, ay = np.abs(f64(x)), np.abs(f64(y))
    r = np.where(ax >= ay, x, y)
    return np.where(np.isnan(x) | np.isnan(y), NAN, r) if x.dtype.kind == "f" else r


def amin(x, y):
    ax, ay = np.abs(f64(x)), np.abs(f64(y))
    r = np.where(ax <= ay, x, y)
    return np.where(np.isnan(x) | np.isnan(y), NAN, r) if x.dtype.kind == "f" else r


def relu(x, y):
    r = np.where(x > y, x, 0)
    return np.where(np.isnan(x), x, r) if x.dtype.kind == "f" else r


def relu6(x, y):
    r = relu(x, y)
    return np.where(r > 6, 6, r)


def safe_divide(x, y):
    with np.errstate(all="ignore"):
        if x.dtype.kind == "f":
            return np.where(y == 0, 0.0, f64(x) / f64(y))
    return np.where(y == 0, 0, trunc_div_int(x, y))


def igamma(a, x):
    return np.array([mp_igamma(p, q, lower=True) for p, q in zip(a, x)])


def igammac(a, x):
    return np.array([mp_igamma(p, q, lower=False) for p, q in zip(a, x)])


def mp_igamma(a, x, lower):
    a, x = float(a), float(x)
    if math.isnan(a) or math.isnan(x) or a <= 0 or x < 0:
        return NAN
    mpmath.mp.dps = 40
    if lower:
        return float(mpmath.gammainc(a, 0, x, regularized=True))
    return float(mpmath.gammainc(a, x, mpmath.inf, regularized=True))


def gen_binary():
    generic = lambda: uniform(-6, 6)
    nonzero = lambda: with_specials(uniform(0.25, 6), []) * f32(rng.choice([-1, 1], N))

    def case(name, fn, x, y):
        with np.errstate(all="ignore"):
            z = fn(f64(x), f64(y))
        save(name + "_f32", x, y, z)

    def icase(name, fn, x, y):
        with np.errstate(all="ignore"):
            z = fn(x.astype(np.int64), y.astype(np.int64))
        save(name + "_i32", x, y, wrap32(z))

    # float32
    x, y = generic(), generic()
    case("add", np.add, with_specials(x, [INF, 1e30]), with_specials(y, [1.0, 1e30]))
    case("subtract", np.subtract, x, y)
    case("multiply", np.multiply, x, y)
    case("reverse_subtract", lambda a, b: b - a, x, y)
    xd = with_specials(generic(), [1.0, -2.0, 0.0])
    yd = with_specials(nonzero(), [0.0, 0.0, 0.0])
    case("divide", np.divide, xd, yd)
    case("reverse_divide", lambda a, b: b / a, yd, xd)
    xm = with_specials(generic(), [NAN, 1.0, 2.5, -3.0])
    ym = with_specials(generic(), [1.0, NAN, -2.5, 3.0])
    case("max", np.maximum, xm, ym)
    case("min", np.minimum, xm, ym)
    case("amax", amax, xm, ym)
    case("amin", amin, xm, ym)
    xp = with_specials(uniform(0.1, 4), [-2.0, -2.0, -1.5, 0.0, 0.0, 2.0])
    yp = with_specials(uniform(-3, 3), [3.0, -2.0, 0.5, 0.0, 2.0, 10.0])
    case("pow", np.power, xp, yp)
    xr = with_specials(uniform(-20, 20), [7.5, -7.5, 7.5, -7.5, 3.0])
    yr = with_specials(nonzero(), [2.0, 2.0, -2.0, -2.0, 0.0])
    case("mod", np.fmod, xr, yr)
    case("fmod", np.fmod, xr, yr)
    case("truncate_mod", np.fmod, xr, yr)
    case("reverse_mod", lambda a, b: np.fmod(b, a), yr, xr)
    rem = lambda a, b: np.array([math.remainder(p, q) if q != 0 else NAN for p, q in zip(a, b)])
    case("remainder", rem, with_specials(xr, [7.5, -7.5, 5.0, 3.0, 3.0]),
         with_specials(yr, [2.0, 2.0, 2.0, 2.0, 0.0]))
    gx = lambda: uniform(-20, 20)
    xf, yf = stable_inputs(np.floor_divide, gx, nonzero)
    xf = with_specials(xf, [7.0, -7.0, 7.0, -7.0, 1.0])
    yf = with_specials(yf, [2.0, 2.0, -2.0, -2.0, f32(0.1)])
    case("floor_div", np.floor_divide, xf, yf)
    case("floor_mod", np.remainder, xf, yf)
    tdiv = lambda a, b: np.trunc(a / b)
    xt, yt = stable_inputs(tdiv, gx, nonzero)
    case("truncate_div", tdiv, with_specials(xt, [7.0, -7.0, 7.0, -7.0]),
         with_specials(yt, [2.0, 2.0, -2.0, -2.0]))
    case("atan2", np.arctan2, with_specials(generic(), [0.0, 1.0, -1.0, 0.0]),
         with_specials(generic(), [-1.0, 0.0, 0.0, 1.0]))
    case("squared_subtract", lambda a, b: (a - b) ** 2, x, y)
    xs = with_specials(generic(), [NAN, INF, 3.0, 0.0])
    ys = with_specials(generic(), [0.0, 0.0, 0.0, 0.0])
    case("safe_divide", safe_divide, xs, ys)
    case("divide_no_nan", safe_divide, xs, ys)
    case("copy", lambda a, b: b, x, y)
    xrl = with_specials(uniform(-4, 10), [NAN, 2.0, 7.0, 6.5])
    yrl = with_specials(uniform(-1, 3, step=0.5), [0.0, 2.0, 0.0, 7.0])
    case("relu", relu, xrl, yrl)
    case("relu6", relu6, xrl, yrl)
    alpha = uniform(0.0, 1.0)
    case("leaky_relu", lambda a, b: np.where(a < 0, b * a, a), x, alpha)
    case("elu", lambda a, b: np.where(a < 0, b * np.expm1(a), a), x, alpha)
    xst, yst = stable_inputs(lambda a, b: a > b, generic, lambda: uniform(-2, 2, step=0.5))
    case("step", lambda a, b: np.where(a > b, 1.0, 0.0), with_specials(xst, [NAN, 1.0]),
         with_specials(yst, [0.0, 1.0]))
    case("replace_nans", lambda a, b: np.where(np.isnan(a), b, a),
         with_specials(x, [NAN, NAN, 1.0]), with_specials(y, [5.0, -1.0, 2.0]))
    # a (x) and x (y) across both algorithm regions, small a, large a, zeros
    ga = f32([0.5, 1.0, 3.0, 0.01, 0.01, 0.3, 2.5, 10.0, 10.0, 50.0, 50.0, 200.0,
              200.0, 1000.0, 0.75, 5.0, 5.0, 1.5, 4.0, 0.2, 30.0, 1e-3, 7.0, 100.0])
    gx = f32([0.5, 2.0, 1.0, 0.5, 1.5, 3.0, 0.0, 5.0, 20.0, 45.0, 60.0, 190.0,
              230.0, 1000.0, 1.0, 0.1, 12.0, 1.4, 4.0, 0.05, 29.5, 0.9, 7.5, 150.0])
    case("igamma", igamma, ga, gx)
    case("igammac", igammac, ga, gx)
    # float64 inputs far into the tails and at large a (the Stirling factor)
    wide = [(1e5, 1e5), (1e5, 99000.0), (1e5, 101500.0), (0.5, 30.0), (0.5, 1e-10),
            (1e-8, 0.5), (1e-8, 5.0), (2.0, 1e-5), (30.0, 5.0), (30.0, 100.0),
            (1e3, 1100.0), (20.0, 20.0), (19.9, 20.0), (20.1, 20.0), (1e6, 997000.0),
            (0.1, 0.9), (3.5, 0.01), (0.9, 1.8), (1e-3, 1e-3), (150.0, 120.0),
            (5e3, 5e3), (7.25, 2.5), (2.5, 40.0), (0.25, 1.2)]
    wa = np.array([p for p, _ in wide])
    wx = np.array([q for _, q in wide])
    save("igamma_wide_f64", wa, wx, igamma(wa, wx))
    save("igammac_wide_f64", wa, wx, igammac(wa, wx))
    case("log_x", lambda a, b: np.log(a) / np.log(b), uniform(0.1, 100),
         with_specials(uniform(1.5, 10), [0.5, 2.0, 10.0]))

    # int32
    xi, yi = ints(-20, 20), ints(-20, 20)
    icase("add", np.add, with_specials(xi, [I32_MAX, I32_MIN]), with_specials(yi, [1, -1]))
    icase("subtract", np.subtract, with_specials(xi, [I32_MIN]), with_specials(yi, [1]))
    icase("multiply", np.multiply, with_specials(xi, [65536, I32_MAX]), with_specials(yi, [65536, 2]))
    icase("reverse_subtract", lambda a, b: b - a, xi, yi)
    xdi = with_specials(ints(-50, 50), [7, -7, 7, -7, 9, 0])
    ydi = with_specials(ints(-9, 9), [2, 2, -2, -2, 0, 0])
    icase("divide", trunc_div_int, xdi, ydi)
    icase("reverse_divide", lambda a, b: trunc_div_int(b, a), ydi, xdi)
    icase("truncate_div", trunc_div_int, xdi, ydi)
    icase("max", np.maximum, xi, yi)
    icase("min", np.minimum, xi, yi)
    ties_x = with_specials(xi, [3, -3, I32_MIN])
    ties_y = with_specials(yi, [-3, 3, I32_MAX])
    icase("amax", amax, ties_x, ties_y)
    icase("amin", amin, ties_x, ties_y)
    icase("pow", lambda a, b: np.array([int(p) ** int(q) for p, q in zip(a, b)], dtype=object),
          with_specials(ints(-5, 5), [3, -2, 0, 7]), with_specials(ints(0, 6), [25, 31, 0, 0]))
    fmod_int = lambda a, b: np.array([0 if q == 0 else int(math.fmod(p, q)) for p, q in zip(a, b)])
    icase("mod", fmod_int, xdi, ydi)
    icase("fmod", fmod_int, xdi, ydi)
    icase("truncate_mod", fmod_int, xdi, ydi)
    icase("reverse_mod", lambda a, b: fmod_int(b, a), ydi, xdi)
    icase("floor_div", lambda a, b: np.array([0 if q == 0 else p // q for p, q in zip(a, b)]), xdi, ydi)
    icase("floor_mod", lambda a, b: np.array([0 if q == 0 else p % q for p, q in zip(a, b)]), xdi, ydi)
    icase("squared_subtract", lambda a, b: (a - b) ** 2, xi, yi)
    icase("safe_divide", safe_divide, xdi, ydi)
    icase("divide_no_nan", safe_divide, xdi, ydi)
    icase("copy", lambda a, b: b, xi, yi)
    icase("relu", relu, with_specials(xi, [5, 9]), with_specials(ints(-3, 8), [5, 6]))
    icase("relu6", relu6, with_specials(xi, [5, 9]), with_specials(ints(-3, 8), [5, 6]))
    icase("leaky_relu", lambda a, b: np.where(a < 0, a * b, a), xi, ints(0, 4))
    icase("step", lambda a, b: np.where(a > b, 1, 0), with_specials(xi, [2]), with_specials(yi, [2]))
    icase("replace_nans", lambda a, b: a, xi, yi)


def gen_binary_bool():
    def case(name, fn, x, y):
        with np.errstate(all="ignore"):
            z = np.asarray(fn(f64(x), f64(y))).astype(np.float64)
        save("bool_" + name + "_f32", x, y, z)

    def icase(name, fn, x, y):
        z = np.asarray(fn(x.astype(np.int64), y.astype(np.int64))).astype(np.int64)
        save("bool_" + name + "_i32", x, y, z)

    x = with_specials(uniform(-3, 3, step=0.5), [NAN, 1.0, NAN, INF, -INF, 0.0])
    y = with_specials(uniform(-3, 3, step=0.5), [1.0, NAN, NAN, INF, INF, -0.0])
    xi = with_specials(ints(-5, 5), [I32_MIN, I32_MAX, 0])
    yi = with_specials(ints(-5, 5), [I32_MAX, I32_MIN, 0])
    compare = {
        "equals": np.equal, "less_than": np.less, "greater_than": np.greater,
        "less_or_equal": np.less_equal, "greater_or_equal": np.greater_equal,
        "not_equals": np.not_equal, "logical_and": np.logical_and,
        "logical_or": np.logical_or, "logical_xor": np.logical_xor,
    }
    for name, fn in compare.items():
        case(name, fn, x, y)
        icase(name, fn, xi, yi)
    # |x - y| <= 1e-5 (the default eps): offsets well inside or outside it
    base = uniform(-2, 2)
    offset = f32(rng.choice([0.0, 2e-6, -4e-6, 5e-5, -2e-4, 1.0], N))
    xe = with_specials(base, [NAN, INF, INF, 1.0])
    ye = with_specials(base + offset, [NAN, INF, -INF, 1.0])
    case("equals_with_eps", lambda a, b: (a == b) | (np.abs(a - b) <= 1e-5), xe, ye)
    xie = with_specials(xi, [I32_MIN, 4])
    yie = with_specials(yi, [I32_MAX, 4])
    icase("equals_with_eps", lambda a, b: a == b, xie, yie)


def gen_binary_int():
    def icase(name, fn, x, y):
        z = fn(x.astype(np.int64), y.astype(np.int64))
        save("int_" + name + "_i32", x, y, wrap32(z))

    xi = with_specials(ints(-1000, 1000), [I32_MIN, I32_MAX, -1, 0])
    yi = with_specials(ints(-1000, 1000), [-1, I32_MIN, 12345, 7])
    icase("bitwise_and", np.bitwise_and, xi, yi)
    icase("bitwise_or", np.bitwise_or, xi, yi)
    icase("bitwise_xor", np.bitwise_xor, xi, yi)
    xs = with_specials(ints(-1000, 1000), [1, 1, -1, 5, -5, -8, 8, I32_MIN, 3])
    ns = with_specials(ints(0, 31), [31, 32, 40, -1, -1, 1, 100, 31, 0])

    def shl(a, n):  # numpy int32 semantics: counts outside [0, 32) give 0
        return np.array([0 if not 0 <= q < 32 else (int(p) << int(q)) for p, q in zip(a, n)])

    def shr(a, n):  # arithmetic; counts outside [0, 32) give the sign fill
        return np.array([(-1 if p < 0 else 0) if not 0 <= q < 32 else (int(p) >> int(q))
                         for p, q in zip(a, n)])

    icase("shift_left", shl, xs, ns)
    icase("shift_right", shr, xs, ns)
    assert np.array_equal(wrap32(shl(xs, ns)), np.left_shift(xs, ns).astype(np.int64))
    assert np.array_equal(wrap32(shr(xs, ns)), np.right_shift(xs, ns).astype(np.int64))

    def rotl(a, n):  # rotate the 32-bit pattern; the count mod 32
        out = []
        for p, q in zip(a, n):
            u, k = int(p) % 2**32, int(q) % 32
            out.append(((u << k) | (u >> (32 - k))) % 2**32)
        return np.array(out)

    rs = with_specials(ints(-40, 70), [1, 1, -1, 33, -1, 0, 32])
    xr = with_specials(xi, [I32_MIN, 1, 0x12345678, 0x12345678, 0x12345678, 0x12345678, 5])
    icase("cyclic_shift_left", rotl, xr, rs)
    icase("cyclic_shift_right", lambda a, n: rotl(a, -n), xr, rs)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))
    gen_binary()
    gen_binary_bool()
    gen_binary_int()


if __name__ == "__main__":
    main()
