#!/usr/bin/env python3
"""Generate the goldens of threefry2x32, random_uniform, random_normal,
random_bernoulli, random_shuffle and random_multinomial under
tests_cpu/golden/random/ (tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_random.py

The expected values follow Note [Threefry random numbers]
(libops/ops/random/threefry.h), written out again here one operation at a
time and rounded where the C++ rounds: numpy float32/float64 operations for
the plain ones, exact rational arithmetic for each fused multiply-add
(rounded once, as std::fma and CUDA's fma are).

Before writing anything the script checks its own reference:
  * threefry2x32 against the Random123 known-answer vectors;
  * the logarithm and erfinv approximations against numpy and scipy;
  * when jax can be imported (pip install jax): the block function, the bits,
    uniform, bernoulli, permutation and categorical bit for bit against
    jax.random, and normal within a few ulp (XLA's erf_inv and log are
    approximations of their own).
"""
import math
import sys
from fractions import Fraction

import numpy as np

from golden_manifest import Manifest

U32 = np.uint32
MASK32 = 0xFFFFFFFF

# ---- the block function ----

ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
PARITY = 0x1BD11BDA


def threefry2x32(k0, k1, c0, c1):
    """Threefry-2x32, 20 rounds, over uint32 arrays that broadcast."""
    k0, k1, c0, c1 = (np.atleast_1d(np.asarray(v, dtype=U32)) for v in (k0, k1, c0, c1))
    k0, k1, c0, c1 = np.broadcast_arrays(k0, k1, c0, c1)
    ks = (k0, k1, U32(PARITY) ^ k0 ^ k1)
    x0, x1 = c0 + k0, c1 + k1
    for r in range(20):
        rot = ROTATIONS[r % 8]
        x0 = x0 + x1
        x1 = (x1 << U32(rot)) | (x1 >> U32(32 - rot))
        x1 = x1 ^ x0
        if (r + 1) % 4 == 0:
            s = (r + 1) // 4
            x0 = x0 + ks[s % 3]
            x1 = x1 + ks[(s + 1) % 3] + U32(s)
    return x0, x1


def key_of(seed):
    """The key of a 64-bit seed: (high word, low word), JAX's PRNGKey(seed)."""
    s = seed & 0xFFFFFFFFFFFFFFFF
    return U32(s >> 32), U32(s & MASK32)


def blocks(key, n):
    """(b0, b1) of elements 0 .. n-1: the block of counter (i >> 32, i & 0xffffffff)."""
    i = np.arange(n, dtype=np.uint64)
    return threefry2x32(key[0], key[1], (i >> np.uint64(32)).astype(U32), (i & np.uint64(MASK32)).astype(U32))


def bits32(key, n):
    b0, b1 = blocks(key, n)
    return b0 ^ b1


def bits64(key, n):
    b0, b1 = blocks(key, n)
    return (b0.astype(np.uint64) << np.uint64(32)) | b1.astype(np.uint64)


# ---- rounding as the C++ rounds ----

def fma(a, b, c):
    """a * b + c of one float dtype, rounded once to nearest even."""
    t = type(a)
    v = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    r = t(float(v))  # v rounded to double, then to t: at most one ulp of t off
    if t is np.float64:
        return r
    best = r
    for cand in (np.nextafter(r, t(-np.inf)), np.nextafter(r, t(np.inf))):
        d_best, d_cand = abs(Fraction(float(best)) - v), abs(Fraction(float(cand)) - v)
        if d_cand < d_best or (d_cand == d_best and int(cand.view(np.uint32)) % 2 == 0):
            best = cand
    return best


def to_bf16(x):
    """A float32 rounded to bfloat16 (nearest even), as a float32."""
    b = int(np.float32(x).view(np.uint32))
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return np.uint32(b).view(np.float32)


# Precisions: (compute type, mantissa bits, random bits, rounding to the dtype).
PRECISION = {
    "float16": (np.float32, 10, 16, lambda x: np.float32(np.float16(x))),
    "bfloat16": (np.float32, 7, 8, to_bf16),
    "float32": (np.float32, 23, 32, lambda x: x),
    "float64": (np.float64, 52, 64, lambda x: x),
}


def from_double(v, dtype):
    """A t arg (a double) rounded once to `dtype`, as its compute type."""
    C = PRECISION[dtype][0]
    if dtype == "float16":
        return C(np.float16(v))  # numpy rounds a double to half directly
    if dtype == "bfloat16":
        # Nearest (ties to even) of the bfloat16 neighbours of v's float32.
        f = Fraction(v)
        near = int(np.float32(v).view(np.uint32)) >> 16
        cands = [np.uint32((b & 0xFFFF) << 16).view(np.float32) for b in (near - 1, near, near + 1)]
        cands = [c for c in cands if np.isfinite(c)]
        return min(cands, key=lambda c: (abs(Fraction(float(c)) - f), int(c.view(np.uint32)) >> 16 & 1))
    return C(v)


# ---- the samplers (Note [Threefry random numbers]) ----

def unit(key, n, dtype):
    """Uniforms in [0, 1) with the dtype's mantissa bits, as JAX draws them."""
    C, nmant, rbits, _ = PRECISION[dtype]
    if dtype == "float64":
        b = bits64(key, n)
        return [C(int(v) >> (64 - nmant)) * C(2.0 ** -nmant) for v in b]
    b = bits32(key, n) & U32((1 << rbits) - 1)
    return [C(int(v) >> (rbits - nmant)) * C(2.0 ** -nmant) for v in b]


def affine(u, lo, hi, dtype):
    """max(lo, fma(u, hi - lo, lo)), each operation rounded to the dtype."""
    C, _, _, rnd = PRECISION[dtype]
    span = rnd(C(hi - lo))
    v = rnd(fma(u, span, lo))
    return lo if v < lo else v


def uniform_values(seed, n, lo, hi, dtype):
    """n uniform draws at any dtype, bfloat16 included, in its compute type."""
    lo_c, hi_c = from_double(lo, dtype), from_double(hi, dtype)
    return [affine(u, lo_c, hi_c, dtype) for u in unit(key_of(seed), n, dtype)]


def uniform(seed, shape, lo, hi, dtype):
    n = int(np.prod(shape, dtype=np.int64))
    return np.array(uniform_values(seed, n, lo, hi, dtype), dtype=dtype).reshape(shape)


LN2 = 0.69314718055994530942
SQRT2 = 1.41421356237309504880
LOG_TERMS = {np.float32: 5, np.float64: 12}


def log_c(y):
    """Note [Threefry random numbers]'s logarithm, in y's type."""
    C = type(y)
    if np.isnan(y) or y < 0:
        return C(np.nan)
    if y == 0:
        return C(-np.inf)
    if np.isinf(y):
        return y
    wide = C is np.float64
    e = 0
    if y < np.finfo(C).tiny:  # subnormal: scale into the normal range first
        y = y * C(2.0 ** (54 if wide else 25))
        e = -(54 if wide else 25)
    if wide:
        b = int(np.float64(y).view(np.uint64))
        e += ((b >> 52) & 0x7FF) - 1023
        m = np.uint64((b & ((1 << 52) - 1)) | 0x3FF0000000000000).view(np.float64)
    else:
        b = int(np.float32(y).view(np.uint32))
        e += ((b >> 23) & 0xFF) - 127
        m = np.uint32((b & 0x7FFFFF) | 0x3F800000).view(np.float32)
    if m > C(SQRT2):
        m = m * C(0.5)
        e += 1
    f = m - C(1)
    s = f / (C(2) + f)
    t = s * s
    terms = LOG_TERMS[C]
    p = C(1) / C(2 * terms + 1)
    for k in range(terms - 1, 0, -1):
        p = fma(p, t, C(1) / C(2 * k + 1))
    r = fma(s * t, p, s)
    return fma(C(e), C(LN2), r + r)


# Giles, "Approximating the erfinv function", GPU Computing Gems Jade (2011):
# the published single- and double-precision coefficients, in Horner order.
GILES_32 = (
    (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
     -0.00417768164, 0.246640727, 1.50140941),
    (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
     0.00943887047, 1.00167406, 2.83297682),
)
GILES_64 = (
    (-3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
     1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
     6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
     2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
     1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
     4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
     0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
     0.24015818242558961693, 1.6536545626831027356),
    (2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
     1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
     2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
     6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
     0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
     -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
     3.0838856104922207635),
    (-2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
     -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
     2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
     -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
     7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
     1.0103004648645343977, 4.8499064014085844221),
)


def horner(coefs, w):
    C = type(w)
    p = C(coefs[0])
    for c in coefs[1:]:
        p = fma(p, w, C(c))
    return p


def erfinv_c(x):
    C = type(x)
    w = -log_c((C(1) - x) * (C(1) + x))
    if C is np.float32:
        if w < C(5):
            p = horner(GILES_32[0], w - C(2.5))
        else:
            p = horner(GILES_32[1], np.sqrt(w) - C(3))
    elif w < C(6.25):
        p = horner(GILES_64[0], w - C(3.125))
    elif w < C(16):
        p = horner(GILES_64[1], np.sqrt(w) - C(3.25))
    else:
        p = horner(GILES_64[2], np.sqrt(w) - C(5))
    return p * x


def normal_values(seed, n, mean, stddev, dtype):
    """n normal draws at any dtype, bfloat16 included, in its compute type."""
    C, nmant, _, rnd = PRECISION[dtype]
    lo, hi = C(-(1 - 2.0 ** -(nmant + 1))), C(1)  # nextafter(-1, 0) and 1
    m, s = C(mean), C(stddev)
    vals = []
    for u in unit(key_of(seed), n, dtype):
        z = C(SQRT2) * erfinv_c(affine(u, lo, hi, dtype))
        vals.append(rnd(fma(s, z, m)))
    return vals


def normal(seed, shape, mean, stddev, dtype):
    n = int(np.prod(shape, dtype=np.int64))
    return np.array(normal_values(seed, n, mean, stddev, dtype), dtype=dtype).reshape(shape)


def bernoulli(seed, shape, p, dtype):
    n = int(np.prod(shape, dtype=np.int64))
    pf = np.float32(p)
    return np.array([u < pf for u in unit(key_of(seed), n, "float32")]).astype(dtype).reshape(shape)


def split(key):
    """JAX's split(key) into two (partitionable): key j is the block of counter (0, j)."""
    b0, b1 = threefry2x32(key[0], key[1], [0, 0], [0, 1])
    return (b0[0], b1[0]), (b0[1], b1[1])


def shuffle_rounds(n):
    return int(np.ceil(3 * np.log(max(1, n)) / np.log(MASK32)))


def permutation(seed, n):
    key = key_of(seed)
    perm = np.arange(n, dtype=np.int64)
    for _ in range(shuffle_rounds(n)):
        key, sub = split(key)
        perm = perm[np.argsort(bits32(sub, n), kind="stable")]
    return perm


def multinomial(seed, x, samples, probs=False):
    """out[b, s] = argmax_k (logit[b, k] + gumbel((s * B + b) * K + k))."""
    C = np.float64 if x.dtype == np.float64 else np.float32
    x2 = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    rows, k = x2.shape
    n = samples * rows * k
    dtype = "float64" if C is np.float64 else "float32"
    tiny = C(np.finfo(C).tiny)
    g = [-log_c(-log_c(affine(u, tiny, C(1), dtype))) for u in unit(key_of(seed), n, dtype)]
    out = np.zeros((rows, samples), np.int64)
    for b in range(rows):
        logits = [log_c(C(v)) if probs else C(v) for v in x2[b]]
        for s in range(samples):
            best, best_v = 0, None
            for c in range(k):
                v = logits[c] + g[(s * rows + b) * k + c]
                if best_v is None or (not np.isnan(best_v) and (np.isnan(v) or v > best_v)):
                    best, best_v = c, v
            out[b, s] = best
    return out.reshape(x.shape[:-1] + (samples,))


# ---- self checks ----

def check_known_answers():
    # Random123's kat_vectors for threefry2x32_20.
    for key, ctr, want in (((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
                           ((MASK32, MASK32), (MASK32, MASK32), (0x1CB996FC, 0xBB002BE7)),
                           ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))):
        got = threefry2x32(key[0], key[1], ctr[0], ctr[1])
        assert (int(got[0][0]), int(got[1][0])) == want, (key, ctr, got, want)


def check_approximations():
    rng = np.random.default_rng(1)
    for C in (np.float32, np.float64):
        lowest = -140 if C is np.float32 else -1070  # subnormals too
        ys = np.concatenate([rng.uniform(1e-6, 3, 300), 2.0 ** rng.uniform(lowest, 120, 300)])
        for y in ys.astype(C):
            got, want = log_c(C(y)), np.log(np.float64(y))
            assert abs(float(got) - want) <= 4 * np.finfo(C).eps * max(1.0, abs(want)), (C, y, got, want)
    from_scipy = None
    try:
        from scipy.special import erfinv as from_scipy
    except ImportError:
        print("scipy not importable: erfinv checked at a few points only")
    xs = np.concatenate([np.linspace(-0.999999, 0.999999, 401), [1e-6, -0.5, 0.9999999, -0.99999994]])
    for C, tol in ((np.float32, 3e-6), (np.float64, 1e-13)):
        for x in xs.astype(C):
            got = float(erfinv_c(C(x)))
            if from_scipy is not None:
                want = float(from_scipy(np.float64(x)))
                assert abs(got - want) <= tol * max(1.0, abs(want)), (C, x, got, want)
            else:
                assert abs(math.erf(got) - float(x)) < 1e-5


def check_against_jax():
    try:
        import jax
    except ImportError:
        print("jax not importable: skipping the cross-check against jax.random")
        return
    jax.config.update("jax_enable_x64", True)  # 64-bit seeds and float64 draws
    import jax.numpy as jnp
    from jax.extend.random import threefry2x32_p

    rng = np.random.default_rng(7)
    k = rng.integers(0, 2 ** 32, (2, 50), dtype=np.uint64).astype(U32)
    c = rng.integers(0, 2 ** 32, (2, 50), dtype=np.uint64).astype(U32)
    want = threefry2x32_p.bind(*(jnp.asarray(v) for v in (k[0], k[1], c[0], c[1])))
    got = threefry2x32(k[0], k[1], c[0], c[1])
    assert all((np.asarray(w) == g).all() for w, g in zip(want, got)), "threefry2x32 differs from jax"
    for seed in (0, 42, -7, 2 ** 40 + 3, 2 ** 63 - 1):
        key = jax.random.PRNGKey(seed)
        assert (np.asarray(key) == np.array(key_of(seed))).all(), seed
        assert (np.asarray(jax.random.bits(key, (3, 5), jnp.uint32)).ravel() == bits32(key_of(seed), 15)).all()
        assert (np.asarray(jax.random.bits(key, (7,), jnp.uint64)) == bits64(key_of(seed), 7)).all()
        for dtype, lo, hi in (("float32", 0, 1), ("float32", -2.5, 4.0), ("float64", -1, 1), ("float16", 0, 1),
                              ("float16", -3, 5), ("bfloat16", 0, 1)):
            jd = jnp.bfloat16 if dtype == "bfloat16" else dtype
            want = np.asarray(jax.random.uniform(key, (40,), jd, lo, hi)).astype(np.float64)
            got = np.array([float(v) for v in uniform_values(seed, 40, lo, hi, dtype)])
            assert (want == got).all(), (seed, dtype, lo, hi, want, got)
        for p in (0.0, 0.3, 0.5, 1.0):
            want = np.asarray(jax.random.bernoulli(key, np.float32(p), (50,)))
            assert (want == bernoulli(seed, (50,), p, np.bool_)).all(), (seed, p)
        for n in (1, 2, 10, 1625, 1626, 3000):
            want = np.asarray(jax.random.permutation(key, n))
            assert (want == permutation(seed, n)).all(), (seed, n)
        for dtype in ("float32", "float64"):
            want = np.asarray(jax.random.normal(key, (300,), dtype)).astype(np.float64)
            got = normal(seed, (300,), 0.0, 1.0, dtype).astype(np.float64)
            # XLA's float64 log is a few ulp off; ours is closer to scipy's erfinv.
            ulp = np.finfo(dtype).eps * (8 if dtype == "float32" else 16)
            assert np.all(np.abs(want - got) <= ulp * np.maximum(1, np.abs(want))), (seed, dtype)
        logits = rng.normal(size=(3, 6)).astype(np.float32)
        want = np.asarray(jax.random.categorical(key, logits, axis=-1, shape=(9, 3))).T
        assert (want == multinomial(seed, logits, 9)).all(), seed
    print("jax", jax.__version__, "agrees (threefry, bits, uniform, bernoulli, permutation, categorical;"
          " normal within 8 float32 / 16 float64 ulp)")


# ---- the goldens ----

def main():
    check_known_answers()
    check_approximations()
    check_against_jax()
    M = Manifest("random")

    # threefry2x32: the known answers as one batch, then broadcasting.
    kat_key = np.array([[0, 0], [MASK32, MASK32], [0x13198A2E, 0x03707344]], U32)
    kat_ctr = np.array([[0, 0], [MASK32, MASK32], [0x243F6A88, 0x85A308D3]], U32)

    def tf(key, ctr):
        k, c = np.asarray(key).astype(U32), np.asarray(ctr).astype(U32)
        shape = np.broadcast_shapes(k.shape[:-1], c.shape[:-1]) + (2,)
        o0, o1 = threefry2x32(k[..., 0], k[..., 1], c[..., 0], c[..., 1])
        out = np.stack([o0.reshape(shape[:-1]), o1.reshape(shape[:-1])], axis=-1)
        return out.astype(np.asarray(ctr).dtype) if np.asarray(ctr).dtype == np.int32 else out

    M.case("threefry2x32", "kat", [kat_key, kat_ctr], [tf(kat_key, kat_ctr)])
    M.case("threefry2x32", "kat_int32", [kat_key.view(np.int32), kat_ctr.view(np.int32)],
           [tf(kat_key, kat_ctr).view(np.int32)])
    rng = np.random.default_rng(20261201)
    words = lambda shape: rng.integers(0, 2 ** 32, shape, dtype=np.uint64).astype(U32)
    key1, ctr3 = words((2,)), words((4, 3, 2))
    M.case("threefry2x32", "one_key", [key1, ctr3], [tf(key1, ctr3)])
    key3, ctr2 = words((4, 1, 2)), words((3, 2))
    M.case("threefry2x32", "broadcast_both", [key3, ctr2], [tf(key3, ctr2)])
    keyi = words((5, 2)).view(np.int32)
    ctru = words((5, 2))
    M.case("threefry2x32", "mixed_dtypes", [keyi, ctru], [tf(keyi.view(U32), ctru)])
    # JAX's split: the counters (0, j).
    key = np.array(key_of(42), U32)
    ctr = np.array([[0, 0], [0, 1], [0, 2]], U32)
    M.case("threefry2x32", "split", [key, ctr], [tf(key, ctr)])

    # random_uniform: i = seed, shape...; t = min, max; d = dtype.
    for name, seed, shape, lo, hi, dtype in (
            ("f32_unit", 42, (5, 7), 0.0, 1.0, "float32"),
            ("f32_range", -7, (3, 4, 5), -2.5, 4.0, "float32"),
            ("f32_large", 2026, (20000,), 0.0, 1.0, "float32"),
            ("f64", 2 ** 40 + 3, (64,), -1.0, 1.0, "float64"),
            ("f16_unit", 1234, (6, 6), 0.0, 1.0, "float16"),
            ("f16_range", 99, (50,), -3.0, 5.0, "float16"),
            ("scalar", 5, (), 10.0, 20.0, "float32"),
            ("max_seed", 2 ** 63 - 1, (8,), 0.0, 1.0, "float32"),
            ("empty", 1, (3, 0), 0.0, 1.0, "float32")):
        M.case("random_uniform", name, [], [uniform(seed, shape, lo, hi, dtype)], i=[seed, *shape], t=[lo, hi],
               d=dtype)
    M.case("random_uniform", "shape_input", [np.array([4, 3], np.int64)], [uniform(9, (4, 3), 0.0, 1.0, "float32")],
           i=[9], t=[0.0, 1.0], d="float32")

    # random_normal: t = mean, stddev.
    for name, seed, shape, mean, std, dtype in (
            ("f32_standard", 42, (8, 9), 0.0, 1.0, "float32"),
            ("f32_shifted", 5, (100,), 3.0, 0.5, "float32"),
            ("f32_large", 11, (4096,), 0.0, 1.0, "float32"),
            ("f64", 77, (10, 10), -1.0, 2.0, "float64"),
            ("f64_large", 12, (2048,), 0.0, 1.0, "float64"),
            ("f16", 3, (32,), 0.0, 1.0, "float16")):
        M.case("random_normal", name, [], [normal(seed, shape, mean, std, dtype)], i=[seed, *shape], t=[mean, std],
               d=dtype)
    M.case("random_normal", "shape_input", [np.array([2, 5], np.int32)], [normal(8, (2, 5), 1.0, 3.0, "float32")],
           i=[8], t=[1.0, 3.0], d="float32")

    # random_bernoulli: t = p; d = dtype.
    for name, seed, shape, p, dtype in (
            ("f32", 42, (10, 10), 0.3, "float32"),
            ("bool", 7, (64,), 0.5, "bool"),
            ("int32", -3, (4, 8), 0.9, "int32"),
            ("never", 1, (16,), 0.0, "float32"),
            ("always", 1, (16,), 1.0, "float64")):
        M.case("random_bernoulli", name, [], [bernoulli(seed, shape, p, dtype)], i=[seed, *shape], t=[p], d=dtype)

    # random_shuffle: rows of x permuted; i = seed.
    cases = (("ints", 42, np.arange(10, dtype=np.int32)),
             ("rows", 7, rng.normal(size=(6, 3))),
             ("one_row", 3, np.arange(4, dtype=np.float32).reshape(1, 4)),
             ("two_rounds", 11, np.arange(2000, dtype=np.int64)),
             ("matrices", -1, rng.integers(0, 100, (5, 2, 3)).astype(np.int16)),
             ("bool", 8, rng.integers(0, 2, (7, 2)).astype(bool)))
    for name, seed, x in cases:
        M.case("random_shuffle", name, [x], [x[permutation(seed, x.shape[0])]], i=[seed])

    # random_multinomial: i = seed, num_samples; b = probs; d = dtype.
    logits = rng.normal(size=(3, 5)).astype(np.float32)
    M.case("random_multinomial", "logits", [logits], [multinomial(42, logits, 10)], i=[42, 10])
    vec = rng.normal(size=(4,))
    M.case("random_multinomial", "vector_f64", [vec], [multinomial(5, vec, 7)], i=[5, 7])
    probs = np.array([[0.1, 0.0, 0.6, 0.3], [0.0, 0.0, 2.0, 1.0]], np.float32)
    M.case("random_multinomial", "probs", [probs], [multinomial(13, probs, 20, probs=True)], i=[13, 20], b=[1])
    M.case("random_multinomial", "samples_input", [logits, np.array(6, np.int32)], [multinomial(-4, logits, 6)],
           i=[-4])
    M.case("random_multinomial", "int32", [logits], [multinomial(3, logits, 4).astype(np.int32)], i=[3, 4],
           d="int32")
    peaked = np.array([[0.0, 50.0, 0.0], [-np.inf, 0.0, -np.inf]], np.float32)
    M.case("random_multinomial", "peaked", [peaked], [multinomial(1, peaked, 5)], i=[1, 5])
    M.write("tools/gen_goldens_random.py")
    # bfloat16 has no .npy dtype: its draws as float32, for random_ops_test.cpp.
    np.save(f"{M.dir}/extra_uniform_bf16.npy", np.array(uniform_values(31, 40, -2.0, 3.0, "bfloat16"), np.float32))
    np.save(f"{M.dir}/extra_normal_bf16.npy", np.array(normal_values(32, 40, 1.0, 0.5, "bfloat16"), np.float32))


if __name__ == "__main__":
    sys.exit(main())
