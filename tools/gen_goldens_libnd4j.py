#!/usr/bin/env python3
"""Generate the numpy goldens of the ops that follow libnd4j's names and
argument conventions (its declarable ops as its own tests call them) under
tests_cpu/golden/libnd4j/.

Run from anywhere:  python3 tools/gen_goldens_libnd4j.py
Expected values are written here in numpy from the formulas libnd4j and
TensorFlow document (TensorFlow's colour kernels, libnd4j's HSV sectors,
numpy.tri, numpy.meshgrid, ...), never by calling libops. Each section
names the conventions its ops take.
"""
import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261130)
M = Manifest("libnd4j")
case = M.case

TOL = {np.float16: dict(rtol=2e-3, atol=2e-3), np.float32: dict(rtol=1e-5, atol=1e-6),
       np.float64: dict(rtol=1e-12, atol=1e-12)}


def tol(dtype):
    return TOL[np.dtype(dtype).type]


def uniform(shape, dtype, lo=0.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


# ---- colour spaces: i arg 0 is the channel axis (libnd4j's dimC), default last

# TensorFlow's kernels (tf.image.rgb_to_yuv etc.): out = tensordot(in, K) over the channel axis.
RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
GRAY = [0.2989, 0.5870, 0.1140]


def linear(x, kernel, axis=-1):
    moved = np.moveaxis(x.astype(np.float64), axis, -1)
    return np.moveaxis(moved @ np.array(kernel, np.float64), -1, axis).astype(x.dtype)


def linear_cases(op, kernel, lo, hi):
    for name, shape, dtype, axis in (("nhwc_f32", (2, 4, 5, 3), np.float32, None),
                                      ("rows_f64", (4, 3), np.float64, None),
                                      ("nchw_axis1", (2, 3, 4, 5), np.float32, 1),
                                      ("negative_axis", (3, 2, 4), np.float32, -3),
                                      ("f16", (5, 3), np.float16, None),
                                      ("one_pixel", (3,), np.float64, None),
                                      ("empty", (0, 3), np.float32, None)):
        x = uniform(shape, dtype, lo, hi)
        case(op, name, [x], [linear(x, kernel, -1 if axis is None else axis)],
             i=None if axis is None else [axis], **tol(dtype))


def grayscale(x, axis=-1):
    g = np.tensordot(x.astype(np.float64), np.array(GRAY), axes=([axis], [0]))
    g = np.expand_dims(g, axis)
    if np.issubdtype(x.dtype, np.integer):
        return np.trunc(g).astype(x.dtype)  # libnd4j stores the float sum into T: truncation
    return g.astype(x.dtype)


def gray_ints(shape, dtype):
    """Integer pixels whose gray value is not within 1e-3 of an integer, so
    float32 and float64 sums truncate alike."""
    x = rng.integers(0, 256, size=shape).astype(dtype)
    while True:
        g = np.tensordot(x.astype(np.float64), np.array(GRAY), axes=([-1], [0]))
        bad = np.abs(g - np.round(g)) < 1e-3
        if not bad.any():
            return x
        x[bad] = rng.integers(0, 256, size=(int(bad.sum()), 3)).astype(dtype)


def grayscale_cases():
    x = uniform((2, 4, 5, 3), np.float32)
    case("rgb_to_grs", "nhwc_f32", [x], [grayscale(x)], **tol(np.float32))
    x = uniform((2, 3, 4, 4), np.float64)
    case("rgb_to_grs", "nchw_axis1", [x], [grayscale(x, 1)], i=[1], **tol(np.float64))
    x = gray_ints((4, 5, 3), np.int32)
    case("rgb_to_grs", "int32_truncates", [x], [grayscale(x)])
    x = gray_ints((3, 3), np.uint8)
    case("rgb_to_grs", "uint8", [x], [grayscale(x)])
    x = uniform((3, 2, 2), np.float32)
    case("rgb_to_grs", "negative_axis", [x], [grayscale(x, -3)], i=[-3], **tol(np.float32))
    x = uniform((6, 3), np.float16)
    case("rgb_to_grs", "f16", [x], [grayscale(x)], **tol(np.float16))
    x = uniform((0, 3), np.float32)
    case("rgb_to_grs", "empty", [x], [grayscale(x)])


def rgb_to_hsv(x, axis=-1):
    """libnd4j's rgbToHsv per pixel (adjust_hue.h), vectorized; H, S, V in [0, 1]."""
    r, g, b = np.moveaxis(x.astype(np.float64), axis, 0)
    mx, mn = np.maximum(np.maximum(r, g), b), np.minimum(np.minimum(r, g), b)
    c = mx - mn
    safe = np.where(c == 0, 1, c)
    h = np.where(mx == r, (g - b) / safe / 6 + np.where(g >= b, 0, 1),
                 np.where(mx == g, ((b - r) / safe + 2) / 6, ((r - g) / safe + 4) / 6))
    h = np.where(c == 0, 0, h)
    s = np.where(mx == 0, 0, c / np.where(mx == 0, 1, mx))
    return np.moveaxis(np.stack([h, s, mx]), 0, axis).astype(x.dtype)


def hsv_to_rgb(x, axis=-1):
    """libnd4j's hsvToRgb sectors, with the hue first wrapped into [0, 1)."""
    h, s, v = np.moveaxis(x.astype(np.float64), axis, 0)
    h = h - np.floor(h)
    sector = h * 6
    c = v * s
    k = np.minimum(np.floor(sector), 5).astype(int)
    table = [(v, v - c * (1 - sector), v - c),
             (v - c * (sector - 1), v, v - c),
             (v - c, v, v - c * (3 - sector)),
             (v - c, v - c * (sector - 3), v),
             (v - c * (5 - sector), v - c, v),
             (v, v - c, v - c * (sector - 5))]
    out = [np.choose(k, [row[ch] for row in table]) for ch in range(3)]
    return np.moveaxis(np.stack(out), 0, axis).astype(x.dtype)


def hsv_cases():
    x = uniform((2, 4, 5, 3), np.float32)
    case("rgb_to_hsv", "random_f32", [x], [rgb_to_hsv(x)], **tol(np.float32))
    x = uniform((6, 3), np.float64)
    case("rgb_to_hsv", "random_f64", [x], [rgb_to_hsv(x)], **tol(np.float64))
    # Grays and black (C = 0: hue 0, and S = 0 at V = 0), ties between the
    # largest channels, and red-sector pixels with G < B, whose hue wraps to just below 1.
    special = np.array([[0, 0, 0], [0.5, 0.5, 0.5], [1, 1, 1], [0.8, 0.8, 0.2], [0.2, 0.8, 0.8], [0.8, 0.2, 0.8],
                        [0.9, 0.1, 0.2], [1.0, 0.0, 0.05], [0.6, 0.3, 0.3], [0.25, 0.75, 0.5], [0.1, 0.2, 0.9],
                        [0.7, 0.5, 0.5]], np.float32)
    case("rgb_to_hsv", "grays_ties_wrap", [special], [rgb_to_hsv(special)], **tol(np.float32))
    x = uniform((2, 3, 2, 4), np.float32)
    case("rgb_to_hsv", "nchw_axis1", [x], [rgb_to_hsv(x, 1)], i=[1], **tol(np.float32))
    x = uniform((5, 3), np.float16)
    case("rgb_to_hsv", "f16", [x], [rgb_to_hsv(x)], **tol(np.float16))
    x = uniform((0, 3), np.float32)
    case("rgb_to_hsv", "empty", [x], [rgb_to_hsv(x)])

    x = uniform((2, 4, 5, 3), np.float32)
    case("hsv_to_rgb", "random_f32", [x], [hsv_to_rgb(x)], **tol(np.float32))
    x = uniform((6, 3), np.float64)
    case("hsv_to_rgb", "random_f64", [x], [hsv_to_rgb(x)], **tol(np.float64))
    # Hues on sector borders, 1.0 (= 0), and outside [0, 1] (taken round),
    # and zero saturation (a gray whatever the hue).
    hues = np.array([0, 1 / 6, 2 / 6, 0.5, 4 / 6, 5 / 6, 1.0, 1.25, 2.5, -0.25, -1.75, 0.3], np.float64)
    sat = np.array([1, 1, 0.5, 1, 0.25, 1, 1, 0.75, 0.5, 1, 0.6, 0])
    val = np.array([1, 0.5, 1, 0.8, 0.6, 1, 0.9, 1, 0.7, 0.4, 1, 0.3])
    x = np.stack([hues, sat, val], -1)
    case("hsv_to_rgb", "sectors_wrap_gray", [x], [hsv_to_rgb(x)], **tol(np.float64))
    x = uniform((2, 3, 2, 4), np.float32)
    case("hsv_to_rgb", "nchw_axis1", [x], [hsv_to_rgb(x, 1)], i=[1], **tol(np.float32))
    x = uniform((5, 3), np.float16)
    case("hsv_to_rgb", "f16", [x], [hsv_to_rgb(x)], **tol(np.float16))
    x = uniform((0, 3), np.float32)
    case("hsv_to_rgb", "empty", [x], [hsv_to_rgb(x)])


# ---- casts (to_<dtype>) and shape scalars (size, rank, size_at: i arg 0 the dim)

def converted(x, dtype):
    """libops' conversion rules: floats truncate toward zero and saturate at
    an integer's range, NaN gives 0; integers wrap; bool is 0 / 1."""
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.integer) and np.issubdtype(x.dtype, np.floating):
        info = np.iinfo(dtype)
        t = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0, posinf=np.inf, neginf=-np.inf)
        out = np.empty(x.shape, dtype)
        flat, res = t.ravel(), out.ravel()
        for k, v in enumerate(flat):
            res[k] = info.max if v >= float(info.max) else info.min if v <= float(info.min) else int(v)
        return out
    if np.issubdtype(dtype, np.integer) and np.issubdtype(x.dtype, np.integer):
        bits = dtype.itemsize * 8
        wrapped = [(int(v) % (1 << bits)) for v in x.ravel()]
        if np.issubdtype(dtype, np.signedinteger):
            wrapped = [w - (1 << bits) if w >= 1 << (bits - 1) else w for w in wrapped]
        return np.array(wrapped, dtype=dtype).reshape(x.shape)
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def cast_cases():
    fractions = np.array([[0.0, 1.5, -1.5, 2.75], [-0.25, 100.9, -100.9, 7.0]], np.float32)
    ints32 = np.array([[0, 1, -1, 2147483647], [-2147483648, 12345, -7, 65504]], np.int32)
    bools = np.array([True, False, True, True, False])
    for op, dtype in (("to_double", np.float64), ("to_float16", np.float16), ("to_float32", np.float32),
                      ("to_int32", np.int32), ("to_int64", np.int64), ("to_uint32", np.uint32),
                      ("to_uint64", np.uint64)):
        case(op, "from_f32", [fractions], [converted(fractions, dtype)])
        case(op, "from_int32", [ints32], [converted(ints32, dtype)])
        case(op, "from_bool", [bools], [converted(bools, dtype)])
        x = uniform((3, 4), np.float16, -8, 8)
        case(op, "from_f16", [x], [converted(x, dtype)])
        case(op, "empty", [np.zeros((0, 4), np.float64)], [np.zeros((0, 4), dtype)])
    # What only some targets show.
    x = np.array([1.0, -1.0, 0.1, 1 / 3, 65504.0, 65520.0, 1e6, -1e6, np.inf, np.nan], np.float64)
    with np.errstate(over="ignore"):
        case("to_float16", "rounding_overflow", [x], [x.astype(np.float16)])
    x = np.array([1.5, -1.5, 1e10, -1e10, np.nan, np.inf, -np.inf, 2147483647.9], np.float64)
    case("to_int32", "saturates_nan_zero", [x], [converted(x, np.int32)])
    x = np.array([2**32 + 5, 2**31, -(2**31) - 1, 7], np.int64)
    case("to_int32", "int64_wraps", [x], [converted(x, np.int32)])
    x = np.array([1e30, -1e30, np.nan, -3.99, 2.0**62], np.float64)
    case("to_int64", "saturates_nan_zero", [x], [converted(x, np.int64)])
    x = np.array([0, 1, 2**63 - 1], np.uint64)
    case("to_int64", "from_uint64", [x], [converted(x, np.int64)])
    x = np.array([-1.0, -0.5, 3.9, 5e9, 4294967295.0], np.float64)
    case("to_uint32", "negative_saturates", [x], [converted(x, np.uint32)])
    x = np.array([-1, 2**32 + 7, 2**32 - 1], np.int64)
    case("to_uint32", "int64_wraps", [x], [converted(x, np.uint32)])
    x = np.array([-1, 0, 2**62], np.int64)
    case("to_uint64", "int64_wraps", [x], [converted(x, np.uint64)])
    x = np.array([-2.5, 1e30, 3.5, np.nan], np.float64)
    case("to_uint64", "saturates_nan_zero", [x], [converted(x, np.uint64)])
    x = np.array([[1, 2], [3, 250]], np.uint8)
    case("to_double", "from_uint8", [x], [x.astype(np.float64)])
    x = np.array([1, -(2**40), 2**53], np.int64)
    case("to_float32", "from_int64", [x], [x.astype(np.float32)])


def shape_scalar_cases():
    for name, shape, dtype in (("f32_3d", (2, 3, 4), np.float32), ("empty", (0, 5), np.float64),
                               ("scalar", (), np.int32), ("bool_1d", (7,), np.bool_)):
        x = np.zeros(shape, dtype)
        case("size", name, [x], [np.array(x.size, np.int64)])
        case("rank", name, [x], [np.array(x.ndim, np.int32)])
    x = np.zeros((2, 3, 4, 5), np.float32)
    for name, d in (("dim0", 0), ("dim2", 2), ("last", -1), ("negative", -3)):
        case("size_at", name, [x], [np.array(x.shape[d], np.int64)], i=[d])
    case("size_at", "zero_extent", [np.zeros((3, 0), np.int64)], [np.array(0, np.int64)], i=[1])
    case("size_at", "vector", [np.zeros((9,), np.bool_)], [np.array(9, np.int64)], i=[0])


# ---- invert_permutation; meshgrid (i arg 0 swapFirst2Dims); tri (i args rows, cols, diag; d arg dtype)

def permutation_grid_cases():
    def inverse(p):
        out = np.empty(p.size, p.dtype)
        out[p.ravel()] = np.arange(p.size)
        return out.reshape(p.shape)
    p = np.array([3, 0, 4, 1, 2], np.int32)
    case("invert_permutation", "int32", [p], [inverse(p)])
    p = rng.permutation(50).astype(np.int64)
    case("invert_permutation", "shuffled_int64", [p], [inverse(p)])
    p = np.arange(6, dtype=np.int64)
    case("invert_permutation", "identity", [p], [inverse(p)])
    p = np.array([[2, 0, 1]], np.int32)
    case("invert_permutation", "row_1xN", [p], [inverse(p)])
    p = np.array([1, 3, 0, 2], np.uint8)
    case("invert_permutation", "uint8", [p], [inverse(p)])
    p = np.array([0], np.int64)
    case("invert_permutation", "one", [p], [inverse(p)])
    case("invert_permutation", "empty", [np.zeros((0,), np.int32)], [np.zeros((0,), np.int32)])

    # meshgrid: i arg 0 is libnd4j's swapFirst2Dims, 1 (default) = numpy's 'xy'.
    def mesh(xs, swap=1):
        flat = [np.ravel(x) for x in xs]
        return list(np.meshgrid(*flat, indexing="xy" if swap and len(xs) >= 2 else "ij"))
    a, b, c = np.array([1, 2], np.float64), np.array([10, 20, 30], np.float64), np.array([100, 200, 300, 400.0])
    case("meshgrid", "two_xy", [a, b], mesh([a, b]))
    case("meshgrid", "two_ij", [a, b], mesh([a, b], 0), i=[0])
    case("meshgrid", "three_xy", [a, b, c], mesh([a, b, c]), i=[1])
    case("meshgrid", "three_ij", [a, b, c], mesh([a, b, c], 0), i=[0])
    m = np.array([[1, 2], [3, 4]], np.int32)
    s5, s6 = np.array(5, np.int32), np.array(6, np.int32)
    case("meshgrid", "matrix_and_scalars_ij", [m, s5, s6], mesh([m, s5, s6], 0), i=[0])
    case("meshgrid", "matrix_and_scalars_xy", [m, s5, s6], mesh([m, s5, s6]))
    case("meshgrid", "one_scalar", [np.array(5.0, np.float32)], [np.array([5.0], np.float32)])
    e = np.zeros((0,), np.float32)
    f = np.array([1, 2, 3], np.float32)
    case("meshgrid", "empty", [e, f], mesh([e, f]))

    # tri: i args rows, cols (default rows), diag (default 0); d arg the dtype.
    case("tri", "rows_cols", [], [np.tri(3, 5, 0, np.float32)], i=[3, 5])
    case("tri", "diag_above", [], [np.tri(3, 5, 2, np.float32)], i=[3, 5, 2])
    case("tri", "square", [], [np.tri(4, 4, 0, np.float32)], i=[4])
    case("tri", "diag_below", [], [np.tri(5, 3, -1, np.float32)], i=[5, 3, -1])
    case("tri", "int32", [], [np.tri(4, 6, 1, np.int32)], i=[4, 6, 1], d="int32")
    case("tri", "float64_far_below", [], [np.tri(3, 3, -5, np.float64)], i=[3, 3, -5], d="float64")
    case("tri", "empty", [], [np.tri(0, 3, 0, np.float32)], i=[0, 3])


# ---- axpy (inputs x, y; t arg 0 a), standardize (i args the axes), merge ops (d arg the index dtype)

def axpy_cases():
    # libnd4j's blas.h: z = a * x + y with inputs (x, y), a as t arg 0 (default 1).
    def axpy(x, y, a):
        return (a * x.astype(np.float64) + y.astype(np.float64)).astype(x.dtype)
    x, y = uniform((3, 4), np.float32, -2, 2), uniform((3, 4), np.float32, -2, 2)
    case("axpy", "f32_a2", [x, y], [axpy(x, y, 2.0)], t=[2.0], **tol(np.float32))
    x, y = uniform((2, 3, 2), np.float64, -2, 2), uniform((2, 3, 2), np.float64, -2, 2)
    case("axpy", "f64_negative_a", [x, y], [axpy(x, y, -0.5)], t=[-0.5], **tol(np.float64))
    case("axpy", "default_a_is_1", [x, y], [axpy(x, y, 1.0)], **tol(np.float64))
    case("axpy", "a_zero_gives_y", [x, y], [y.copy()], t=[0.0])
    x, y = uniform((7,), np.float16, -2, 2), uniform((7,), np.float16, -2, 2)
    case("axpy", "f16", [x, y], [axpy(x, y, 3.0)], t=[3.0], **tol(np.float16))
    e = np.zeros((0, 2), np.float32)
    case("axpy", "empty", [e, e], [e], t=[2.0])


def standardize_cases():
    def standardize(x, axes):
        d = x.astype(np.float64)
        mean = d.mean(axis=tuple(axes), keepdims=True)
        sd = d.std(axis=tuple(axes), keepdims=True)  # over n, as libnd4j
        return ((d - mean) / (sd + 1e-12)).astype(x.dtype)
    x = uniform((4, 5), np.float32, -3, 3)
    case("standardize", "rows_f32", [x], [standardize(x, [1])], i=[1], rtol=1e-5, atol=1e-5)
    x = uniform((2, 3, 4), np.float64, -3, 3)
    case("standardize", "axes02_f64", [x], [standardize(x, [0, 2])], i=[0, 2], rtol=1e-10, atol=1e-10)
    case("standardize", "negative_axis", [x], [standardize(x, [-1])], i=[-1], rtol=1e-10, atol=1e-10)
    case("standardize", "axes_as_input", [x, np.array([2, 1], np.int64)], [standardize(x, [1, 2])],
         rtol=1e-10, atol=1e-10)
    x = np.array([[2.0, 2.0, 2.0], [0.5, 1.5, 2.5]], np.float32)
    case("standardize", "constant_row_is_zero", [x], [standardize(x, [1])], i=[1], rtol=1e-5, atol=1e-5)
    x = uniform((3, 8), np.float16, -3, 3)
    case("standardize", "f16", [x], [standardize(x, [1])], i=[1], rtol=2e-3, atol=4e-3)
    x = uniform((3, 4), np.float32, -3, 3)
    case("standardize", "all_axes", [x], [standardize(x, [0, 1])], i=[0, 1], rtol=1e-5, atol=1e-5)


def merge_cases():
    def f32(n, shape=(3, 4)):
        return [uniform(shape, np.float32, -5, 5) for _ in range(n)]

    def add(xs):
        return np.sum([x.astype(np.float64) for x in xs], axis=0).astype(xs[0].dtype)

    def avg(xs):
        return (np.sum([x.astype(np.float64) for x in xs], axis=0) / len(xs)).astype(xs[0].dtype)

    def mx(xs):
        return np.maximum.reduce(xs)

    def max_index(xs, dtype=np.int32):
        """libnd4j's scan: the first input strictly larger than all before it; NaN never is."""
        best = np.full(xs[0].shape, -np.inf)
        idx = np.zeros(xs[0].shape, dtype)
        for k, x in enumerate(xs):
            larger = x.astype(np.float64) > best
            best = np.where(larger, x, best)
            idx = np.where(larger, k, idx).astype(dtype)
        return idx

    xs = f32(3)
    case("mergeadd", "three_f32", xs, [add(xs)], **tol(np.float32))
    case("mergeavg", "three_f32", xs, [avg(xs)], **tol(np.float32))
    case("mergemax", "three_f32", xs, [mx(xs)])
    case("mergemaxindex", "three_f32", xs, [max_index(xs)])
    xs = [uniform((2, 3), np.float64, -5, 5) for _ in range(5)]
    case("mergeadd", "five_f64", xs, [add(xs)], **tol(np.float64))
    case("mergeavg", "five_f64", xs, [avg(xs)], **tol(np.float64))
    case("mergemax", "five_f64", xs, [mx(xs)])
    case("mergemaxindex", "five_f64_int64", xs, [max_index(xs, np.int64)], d="int64")
    xs = [uniform((6,), np.float16, -5, 5) for _ in range(4)]
    case("mergeadd", "four_f16", xs, [add(xs)], **tol(np.float16))
    case("mergeavg", "four_f16", xs, [avg(xs)], **tol(np.float16))
    xs = [rng.integers(-50, 50, size=(2, 5)).astype(np.int32) for _ in range(3)]
    case("mergeadd", "int32", xs, [add(xs)])
    case("mergemax", "int32", xs, [mx(xs)])
    case("mergemaxindex", "int32", xs, [max_index(xs)])
    big = [np.array([2**31 - 1, -(2**31)], np.int32), np.array([1, -1], np.int32)]
    case("mergeadd", "int32_wraps", big, [np.array([-(2**31), 2**31 - 1], np.int32)])
    x = uniform((2, 3), np.float32, -5, 5)
    case("mergeadd", "one_input", [x], [x.copy()])
    case("mergeavg", "one_input", [x], [x.copy()])
    case("mergemax", "one_input", [x], [x.copy()])
    case("mergemaxindex", "one_input", [x], [np.zeros((2, 3), np.int32)])
    # Ties (the first wins) and NaN (never wins for the index; propagates for the max).
    a = np.array([1.0, 5.0, np.nan, 2.0, np.nan, 3.0], np.float32)
    b = np.array([1.0, 5.0, 4.0, np.nan, np.nan, 3.0], np.float32)
    c = np.array([0.5, 6.0, 1.0, 1.0, 7.0, 3.0], np.float32)
    case("mergemaxindex", "ties_and_nan", [a, b, c], [max_index([a, b, c])])
    with np.errstate(invalid="ignore"):
        case("mergemax", "nan_propagates", [a, b, c], [mx([a, b, c])])
    e = np.zeros((0, 3), np.float32)
    for op, out in (("mergeadd", e), ("mergeavg", e), ("mergemax", e), ("mergemaxindex", np.zeros((0, 3), np.int32))):
        case(op, "empty", [e, e], [out])


linear_cases("rgb_to_yuv", RGB_TO_YUV, 0, 1)
linear_cases("yuv_to_rgb", YUV_TO_RGB, -0.5, 0.5)
linear_cases("rgb_to_yiq", RGB_TO_YIQ, 0, 1)
linear_cases("yiq_to_rgb", YIQ_TO_RGB, -0.5, 0.5)
grayscale_cases()
hsv_cases()
cast_cases()
shape_scalar_cases()
permutation_grid_cases()
axpy_cases()
standardize_cases()
merge_cases()
M.write("tools/gen_goldens_libnd4j.py")
