#!/usr/bin/env python3
"""Generate the numpy goldens of the activation and normalization ops under
tests_cpu/golden/nn_act/ (tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_nn_act.py

Each reference below is the textbook formula (ONNX's operator definitions,
TensorFlow's for l2_normalize) in float64 numpy, written naively: loops
where the op has windows, no tricks for overflow except where the plain
formula is NaN at an infinite input whose limit is finite (noted there).
Float16 cases compute the reference from the float16 inputs in float64 and
round the result once. bfloat16 has no .npy dtype: cases named *_bf16 hold
float32 inputs that bfloat16 represents exactly, with float64 references;
they run as float32 in the golden tests, and tests_cpu/ops/nn/
nn_act_test.cpp runs them again with the inputs converted to bfloat16.
erf is math.erf, element by element (scipy is not needed).
"""
import math

import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261126)
M = None  # the manifest, made in main(): making it empties its directory

INF, NAN = np.inf, np.nan
# Per dtype: (numpy dtype, rtol, atol) for activations and for the rows.
TOL = {
    "f16": (np.float16, 3e-3, 1e-3),
    "f32": (np.float32, 2e-5, 2e-6),
    "f64": (np.float64, 1e-12, 1e-13),
    "bf16": (np.float32, 1e-2, 1e-2),
}
SPECIAL = [-INF, -30.0, -5.5, -3.0, -1.0, -0.5, -1e-3, -0.0, 0.0, 1e-3, 0.5, 1.0, 3.0, 7.25, 30.0, INF, NAN]

erf = np.vectorize(math.erf, otypes=[np.float64])


def to_bf16(x32):
    """float32 -> bfloat16 (nearest, ties to even) -> float32."""
    b = np.asarray(x32, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)


def as_dtype(x, tag):
    x = np.asarray(x, np.float64)
    if tag == "bf16":
        return to_bf16(x.astype(np.float32))
    return x.astype(TOL[tag][0])


def case(op, name, tag, inputs, ref, i=None, t=None, atol_scale=1.0):
    """inputs in float64; converted to the tag's dtype, the reference computed
    from the converted values and rounded to the output dtype."""
    dt, rtol, atol = TOL[tag]
    ins = [as_dtype(a, tag) for a in inputs]
    with np.errstate(all="ignore"):
        want = np.asarray(ref(*[a.astype(np.float64) for a in ins]), np.float64)
    M.case(op, f"{name}_{tag}", ins, [want.astype(dt)], i=i, t=t, rtol=rtol, atol=atol * atol_scale)


def randn(*shape):
    return rng.standard_normal(shape)


# ---- activations --------------------------------------------------------

def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)  # log(1 + e^x), no overflow


def fix_neg_inf(x, z, value=0.0):
    """The limit at -inf where the formula gives -inf * 0 = NaN."""
    return np.where(np.isneginf(x), value, z)


def leaky_relu(a):
    return lambda x: np.where(x < 0, a * x, x)


def thresholded_relu(a):
    # NaN stays NaN, as relu's (libops' Note [Binary NaN policy]; ONNX's
    # formula read literally gives 0).
    return lambda x: np.where(np.isnan(x) | (x > a), x, 0.0)


def elu(a):
    return lambda x: np.where(x > 0, x, a * np.expm1(x))


def celu(a):
    return lambda x: np.maximum(0, x) + np.minimum(0, a * np.expm1(x / a))


SELU_A, SELU_G = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(a=SELU_A, g=SELU_G):
    return lambda x: g * np.where(x > 0, x, a * np.expm1(x))


def hard_sigmoid(a=0.2, b=0.5):
    return lambda x: np.clip(a * x + b, 0, 1)


def hard_swish(x):
    return fix_neg_inf(x, x * np.clip(x / 6 + 0.5, 0, 1))


def gelu_erf(x):
    return fix_neg_inf(x, 0.5 * x * (1 + erf(x / math.sqrt(2))))


def gelu_tanh(x):
    return fix_neg_inf(x, 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))))


def prelu(x, slope):
    return np.where(x < 0, slope * x, x)


def log_softmax(axis):
    def f(x):
        m = np.max(x, axis=axis, keepdims=True)
        return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return f


def activations():
    for tag in ("f32", "f64", "f16", "bf16"):
        s = np.array(SPECIAL)
        v = randn(3, 5) * 3
        case("leaky_relu", "special", tag, [s], leaky_relu(0.01))
        case("leaky_relu", "alpha", tag, [v], leaky_relu(0.2), t=[0.2])
        case("thresholded_relu", "special", tag, [s], thresholded_relu(1.0))
        case("thresholded_relu", "alpha", tag, [v], thresholded_relu(-0.5), t=[-0.5])
        case("elu", "special", tag, [s], elu(1.0))
        case("elu", "alpha", tag, [v], elu(0.5), t=[0.5])
        case("celu", "special", tag, [s], celu(1.0))
        case("celu", "alpha", tag, [v], celu(2.5), t=[2.5])
        case("selu", "special", tag, [s], selu())
        case("selu", "params", tag, [v], selu(1.5, 2.0), t=[1.5, 2.0])
        case("hard_sigmoid", "special", tag, [s], hard_sigmoid())
        case("hard_sigmoid", "params", tag, [v], hard_sigmoid(0.25, 0.4), t=[0.25, 0.4])
        case("hard_swish", "special", tag, [s], hard_swish)
        case("hard_swish", "odd", tag, [randn(7, 3) * 4], hard_swish)
        case("gelu", "erf_special", tag, [s], gelu_erf)
        case("gelu", "erf", tag, [v], gelu_erf, i=[0])
        case("gelu", "tanh_special", tag, [s], gelu_tanh, i=[1])
        case("gelu", "tanh", tag, [v], gelu_tanh, i=[1])
        # prelu: ONNX unidirectional broadcasting of the slope.
        x = randn(2, 3, 4, 5)
        case("prelu", "channel", tag, [x, rng.uniform(0, 0.5, (3, 1, 1))], prelu)
        case("prelu", "full", tag, [randn(3, 4), randn(3, 4)], prelu)
        case("prelu", "scalar_slope", tag, [s, np.array([0.25])], prelu)
        case("prelu", "trailing", tag, [randn(2, 1, 5), rng.uniform(-1, 1, (5,))], prelu)
        # Numerically careful forms: large |x| neither overflows nor cancels.
        big = np.array([-800.0, -90.0, -20.0, -1.0, 0.0, 1.0, 20.0, 90.0, 800.0])
        if tag in ("f32", "f64"):
            case("softplus", "large", tag, [big], softplus)
            case("log_sigmoid", "large", tag, [big], lambda x: -softplus(-x))
            case("logsigmoid", "alias", tag, [randn(4, 3)], lambda x: -softplus(-x))
            case("mish", "large", tag, [big], lambda x: x * np.tanh(softplus(x)))
            case("silu", "odd", tag, [randn(5, 3)], lambda x: x * sigmoid(x))
            case("swish", "alias", tag, [randn(3)], lambda x: x * sigmoid(x))
            case("sigmoid", "special", tag, [s], lambda x: fix_neg_inf(x, sigmoid(x)))
            case("tanh", "special", tag, [s], np.tanh)
            case("softsign", "odd", tag, [randn(3, 7)], lambda x: x / (1 + np.abs(x)))
        # log_softmax over each axis, negative ones too; rows with inf and NaN.
        x = randn(3, 4, 5) * 4
        case("log_softmax", "last", tag, [x], log_softmax(-1), atol_scale=10)
        case("log_softmax", "axis0", tag, [x], log_softmax(0), i=[0], atol_scale=10)
        case("log_softmax", "axis_neg2", tag, [x], log_softmax(-2), i=[-2], atol_scale=10)
        case("log_softmax", "size1", tag, [randn(4, 1)], log_softmax(-1), atol_scale=10)
        sp = np.array([[1.0, 2.0, 3.0], [0.0, -INF, 1.0], [NAN, 1.0, 2.0], [INF, 0.0, 1.0], [-INF, -INF, -INF],
                       [1000.0, 0.0, -1000.0]])
        case("log_softmax", "special", tag, [sp], log_softmax(-1), atol_scale=10)
    for tag in ("f32", "f64"):
        case("leaky_relu", "empty", tag, [np.zeros((0, 3))], leaky_relu(0.01))
        case("gelu", "empty", tag, [np.zeros((2, 0))], gelu_erf)
        case("log_softmax", "empty", tag, [np.zeros((0, 4))], log_softmax(-1))
        case("log_softmax", "empty_axis", tag, [np.zeros((3, 0))], lambda x: x)
        case("prelu", "empty", tag, [np.zeros((0, 3)), np.ones(3)], prelu)


# ---- normalization ------------------------------------------------------

def layer_norm(axis, eps=1e-5):
    def f(x, scale=None, bias=None):
        axes = tuple(range(axis % x.ndim, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
        z = (x - mean) / np.sqrt(var + eps)
        if scale is not None:
            z = z * scale
        if bias is not None:
            z = z + bias
        return z
    return f


def rms_norm(axis, eps=1e-5):
    def f(x, scale=None):
        axes = tuple(range(axis % x.ndim, x.ndim))
        z = x / np.sqrt((x ** 2).mean(axis=axes, keepdims=True) + eps)
        return z if scale is None else z * scale
    return f


def group_norm(groups, eps=1e-5):
    def f(x, scale=None, bias=None):
        n, c = x.shape[:2]
        g = x.reshape(n, groups, -1)
        mean = g.mean(axis=2, keepdims=True)
        var = ((g - mean) ** 2).mean(axis=2, keepdims=True)
        z = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
        pshape = (1, c) + (1,) * (x.ndim - 2)
        if scale is not None:
            z = z * scale.reshape(pshape)
        if bias is not None:
            z = z + bias.reshape(pshape)
        return z
    return f


def l2_normalize(axes, eps=1e-12):
    def f(x):
        s = np.sum(x * x, axis=axes, keepdims=True)
        return x / np.sqrt(np.maximum(s, eps))
    return f


def lrn(size, alpha=1e-4, beta=0.75, bias=1.0):
    def f(x):
        c = x.shape[1]
        z = np.empty_like(x)
        for ch in range(c):
            lo = max(0, ch - (size - 1) // 2)
            hi = min(c - 1, ch + math.ceil((size - 1) / 2))
            sq = np.sum(x[:, lo:hi + 1] ** 2, axis=1)
            z[:, ch] = x[:, ch] / (bias + alpha / size * sq) ** beta
        return z
    return f


def norms():
    for tag in ("f32", "f64", "f16", "bf16"):
        x = randn(4, 7) * 2 + 3
        case("layer_norm", "last", tag, [x], layer_norm(-1))
        case("layer_norm", "scale_bias", tag, [x, randn(7), randn(7)], layer_norm(-1))
        case("layer_norm", "scale_only", tag, [x, randn(7)], layer_norm(-1))
        x3 = randn(2, 3, 5) * 0.5 - 1
        case("layer_norm", "axis1", tag, [x3, randn(3, 5), randn(3, 5)], layer_norm(1), i=[1])
        case("layer_norm", "axis_neg2_eps", tag, [x3], layer_norm(-2, 1e-2), i=[-2], t=[1e-2])
        case("layer_norm", "axis0", tag, [x3, randn(2, 3, 5)], layer_norm(0), i=[0])
        case("layer_norm", "size1_row", tag, [randn(3, 1)], layer_norm(-1))
        case("rms_norm", "last", tag, [randn(5, 9)], rms_norm(-1))
        case("rms_norm", "scale", tag, [randn(2, 3, 4), randn(3, 4)], rms_norm(1), i=[1])
        case("rms_norm", "eps", tag, [randn(3, 6) * 0.01], rms_norm(-1, 1e-3), t=[1e-3])
        xg = randn(2, 6, 3, 2) + 1
        case("group_norm", "g3", tag, [xg, randn(6), randn(6)], group_norm(3), i=[3])
        case("group_norm", "g1_noparams", tag, [xg], group_norm(1), i=[1])
        case("group_norm", "g6_scale", tag, [xg, randn(6)], group_norm(6), i=[6])
        case("group_norm", "rank2", tag, [randn(3, 4)], group_norm(2), i=[2])
        case("group_norm", "rank3_eps", tag, [randn(2, 4, 5), randn(4), randn(4)], group_norm(2, 0.1), i=[2],
             t=[0.1])
        case("instance_norm", "nchw", tag, [randn(2, 3, 4, 5), randn(3), randn(3)], group_norm(3))
        case("instance_norm", "odd", tag, [randn(1, 5, 7) * 3, randn(5), randn(5)], group_norm(5))
        case("instance_norm", "noparams", tag, [randn(3, 2, 3)], group_norm(2))
        case("l2_normalize", "all", tag, [randn(3, 4)], l2_normalize(None))
        case("l2_normalize", "last", tag, [randn(3, 4)], l2_normalize((1,)), i=[1])
        case("l2_normalize", "axis0", tag, [randn(3, 4)], l2_normalize((0,)), i=[0])
        case("l2_normalize", "axes", tag, [randn(2, 3, 4)], l2_normalize((0, 2)), i=[0, -1])
        case("l2_normalize", "zeros_eps", tag, [np.array([[0.0, 0.0], [3.0, 4.0]])], l2_normalize((1,), 1e-4),
             i=[1], t=[1e-4])
        case("lrn", "size3", tag, [randn(2, 5, 3, 2)], lrn(3), i=[3])
        case("lrn", "size4_params", tag, [randn(1, 6, 4) * 3], lrn(4, 0.5, 0.6, 2.0), i=[4], t=[0.5, 0.6, 2.0])
        case("lrn", "size1", tag, [randn(2, 3, 2, 2)], lrn(1, 0.1), i=[1], t=[0.1])
        case("lrn", "wide", tag, [randn(1, 3, 5)], lrn(9, 0.3), i=[9], t=[0.3])
    for tag in ("f32", "f64"):
        sp = np.array([[1.0, 2.0, NAN, 4.0], [1.0, INF, 2.0, 3.0], [5.0, 5.0, 5.0, 5.0], [1e4, 1e4 + 1, 1e4 + 2, 1e4 + 3]])
        case("layer_norm", "special", tag, [sp], layer_norm(-1))
        case("rms_norm", "special", tag, [sp[:2]], rms_norm(-1))
        case("layer_norm", "empty", tag, [np.zeros((0, 5))], layer_norm(-1))
        case("layer_norm", "empty_row", tag, [np.zeros((3, 0))], lambda x: x)
        case("group_norm", "empty", tag, [np.zeros((0, 4, 3))], lambda x: x, i=[2])
        case("instance_norm", "empty", tag, [np.zeros((2, 3, 0))], lambda x: x)
        case("l2_normalize", "empty", tag, [np.zeros((0, 3))], l2_normalize((1,)), i=[1])
        case("lrn", "empty", tag, [np.zeros((0, 3, 2))], lrn(3), i=[3])
        case("l2_normalize", "special", tag, [np.array([[1.0, NAN], [INF, 1.0], [3.0, 4.0]])], l2_normalize((1,)),
             i=[1])


def main():
    global M
    M = Manifest("nn_act")
    activations()
    norms()
    M.write("tools/gen_goldens_nn_act.py")


if __name__ == "__main__":
    main()
