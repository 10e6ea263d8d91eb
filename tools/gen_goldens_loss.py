#!/usr/bin/env python3
"""Generate the numpy goldens of libnd4j's loss ops (libops/ops/loss) under
tests_cpu/golden/loss/.

Run from anywhere:  python3 tools/gen_goldens_loss.py
Each case writes <op>_<case>_in<k>.npy for its inputs and _out<k>.npy for
its outputs, and a MANIFEST line (tools/golden_manifest.py). The expected
values are float64 numpy written from the formulas in each op file's
header (libnd4j's), never from libops. Each op draws from its own seeded
generator, so adding cases to one op leaves the others' values alone.

The weighted losses take (x, weights, labels) and i arg 0 the reduction:
0 none, 1 sum, 2 sum / sum of broadcast weights, 3 sum / number of nonzero
broadcast weights (0 when the divisor is 0).
"""
import numpy as np

from golden_manifest import Manifest

M = Manifest("loss")
F32 = dict(rtol=2e-5, atol=1e-6)
F64 = dict(rtol=1e-10, atol=1e-12)


def tol(dtype):
    return F32 if np.dtype(dtype) == np.float32 else F64


def rng_for(op):
    return np.random.default_rng(sum(ord(c) * (k + 1) for k, c in enumerate(op)) + 20261201)


def reduce_weighted(losses, weights, mode, kept_axes=()):
    """Note [Loss reduction]: losses * weights, reduced by mode. Weights of
    the labels' rank (kept_axes at extent 1) lose those axes first."""
    w = np.asarray(weights, np.float64)
    if w.size == 1:
        w = w.reshape(())
    elif w.ndim != losses.ndim:
        w = w.squeeze(axis=tuple(kept_axes))
    wb = np.broadcast_to(w, losses.shape)
    e = losses * wb
    if mode == 0:
        return e
    if mode == 1:
        return np.array(e.sum())
    div = wb.sum() if mode == 2 else np.count_nonzero(wb)
    return np.array(0.0 if div == 0 else e.sum() / div)


def weights_like(rng, shape, zero_some=False):
    w = rng.uniform(0.25, 2.0, shape)
    if zero_some and w.size > 1:
        w.flat[:: max(2, w.size // 2)] = 0
    return w


def weighted_cases(op, losses_fn, make_inputs, t=None, extra_i=()):
    """The common sweep of a weighted elementwise loss: every reduction,
    scalar / broadcast / full weights, float32 and float64, zero weights."""
    rng = rng_for(op)
    shape = (2, 3, 4)
    plans = [
        # name, dtype, weights shape (None: a 0-d scalar), mode, zero some
        ("none_full_f32", np.float32, shape, 0, False),
        ("none_scalar11_f64", np.float64, (1, 1), 0, False),
        ("sum_bcast_f64", np.float64, (2, 1, 4), 1, False),
        ("sum_full_f32", np.float32, shape, 1, True),
        ("mean_weight_scalar_f32", np.float32, None, 2, False),
        ("mean_weight_bcast_f64", np.float64, (1, 3, 1), 2, True),
        ("mean_nonzero_bcast_f32", np.float32, (2, 3, 1), 3, True),
        ("mean_nonzero_full_f64", np.float64, shape, 3, True),
    ]
    for name, dt, wshape, mode, zero_some in plans:
        x, y = make_inputs(rng, shape, dt)
        w = np.array(rng.uniform(0.25, 2.0), dt) if wshape is None else weights_like(rng, wshape, zero_some).astype(dt)
        want = reduce_weighted(losses_fn(x.astype(np.float64), y.astype(np.float64)), w, mode)
        M.case(op, name, [x, w, y], [want.astype(dt)], i=[mode, *extra_i], t=t, **tol(dt))
    # All-zero weights: the means divide by 0 and give 0, as libnd4j.
    for mode in (2, 3):
        x, y = make_inputs(rng, shape, np.float32)
        w = np.zeros((2, 1, 4), np.float32)
        M.case(op, f"zero_weights_mode{mode}", [x, w, y], [np.array(0.0, np.float32)], i=[mode, *extra_i], t=t, **F32)


def normal_pair(rng, shape, dt):
    return rng.normal(0, 1.5, shape).astype(dt), rng.normal(0, 1.5, shape).astype(dt)


def absolute_difference():
    weighted_cases("absolute_difference_loss", lambda p, y: np.abs(p - y), normal_pair)


def mean_sqerr():
    weighted_cases("mean_sqerr_loss", lambda p, y: (p - y) ** 2, normal_pair)


def huber_numpy(p, y, delta):
    d = np.abs(p - y)
    return np.where(d <= delta, 0.5 * d * d, delta * (d - 0.5 * delta))


def huber():
    op = "huber_loss"
    weighted_cases(op, lambda p, y: huber_numpy(p, y, 1.0), normal_pair, t=[1.0])
    rng = rng_for(op + "delta")
    p, y = normal_pair(rng, (3, 5), np.float64)
    w = weights_like(rng, (3, 1))
    M.case(op, "delta_half", [p, w, y], [reduce_weighted(huber_numpy(p, y, 0.5), w, 0)], i=[0], t=[0.5], **F64)
    # delta 0: no quadratic part and a zero slope: every loss is 0.
    M.case(op, "delta_zero", [p, w, y], [np.zeros((3, 5))], i=[0], t=[0.0], **F64)


def probabilities(rng, shape, dt):
    p = rng.uniform(0.02, 0.98, shape).astype(dt)
    y = rng.integers(0, 2, shape).astype(dt)
    return p, y


def log_loss_numpy(p, y, eps):
    return -y * np.log(p + eps) - (1 - y) * np.log(1 - p + eps)


def log_loss():
    op = "log_loss"
    weighted_cases(op, lambda p, y: log_loss_numpy(p, y, 1e-7), probabilities, t=[1e-7])
    rng = rng_for(op + "eps")
    p, y = probabilities(rng, (4, 3), np.float64)
    p[0, :] = [0.0, 1.0, 0.5]  # the logs stay finite only through epsilon
    y[0, :] = [1.0, 0.0, 0.25]  # soft labels too
    w = np.ones((1, 1))
    M.case(op, "epsilon_default_edges", [p, w, y], [log_loss_numpy(p, y, 1e-7)], i=[0], **F64)
    M.case(op, "epsilon_large", [p, w, y], [log_loss_numpy(p, y, 0.1)], i=[0], t=[0.1], **F64)


def scores_and_bits(rng, shape, dt):
    return rng.normal(0, 2.0, shape).astype(dt), rng.integers(0, 2, shape).astype(dt)


def hinge():
    op = "hinge_loss"
    weighted_cases(op, lambda x, y: np.maximum(0, 1 - (2 * y - 1) * x), scores_and_bits)
    rng = rng_for(op + "int")
    x = rng.normal(0, 2.0, (3, 4)).astype(np.float32)
    y = rng.integers(0, 2, (3, 4)).astype(np.int32)  # integer labels
    w = np.array([[1.0], [0.5], [2.0]], np.float32)
    want = reduce_weighted(np.maximum(0, 1 - (2 * y - 1) * x.astype(np.float64)), w, 1)
    M.case(op, "int_labels_sum", [x, w, y], [want.astype(np.float32)], i=[1], **F32)


def log_poisson_numpy(c, z, full):
    loss = np.exp(c) - z * c
    if full:
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = loss + z * np.log(z) - z + 0.5 * np.log(2 * np.pi * z)
    return loss


def rates_and_counts(rng, shape, dt):
    return rng.normal(0, 0.7, shape).astype(dt), rng.integers(0, 6, shape).astype(dt)


def log_poisson():
    op = "log_poisson_loss"
    weighted_cases(op, lambda c, z: log_poisson_numpy(c, z, False), rates_and_counts)
    rng = rng_for(op + "full")
    for dt in (np.float32, np.float64):
        c = rng.normal(0, 0.7, (3, 4)).astype(dt)
        z = rng.integers(1, 7, (3, 4)).astype(dt)
        w = weights_like(rng, (3, 1)).astype(dt)
        want = reduce_weighted(log_poisson_numpy(c.astype(np.float64), z.astype(np.float64), True), w, 2)
        M.case(op, f"full_mean_{np.dtype(dt).name}", [c, w, z], [want.astype(dt)], i=[2, 1], **tol(dt))
    # A label 0 with full: 0 * log(0) is NaN there, as libnd4j (TensorFlow skips z <= 1).
    c = np.array([0.5, -0.25, 1.0])
    z = np.array([2.0, 0.0, 3.0])
    M.case(op, "full_zero_label_nan", [c, np.ones(()), z], [log_poisson_numpy(c, z, True)], i=[0, 1], **F64)


def sigm_numpy(x, y, s):
    y = y * (1 - s) + 0.5 * s
    return np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))


def sigm_cross_entropy():
    op = "sigm_cross_entropy_loss"
    weighted_cases(op, lambda x, y: sigm_numpy(x, y, 0.0), scores_and_bits, t=[0.0])
    rng = rng_for(op + "smooth")
    x = rng.normal(0, 2.0, (3, 4))
    x[0, :] = [40.0, -40.0, 80.0, -80.0]  # far from 0: no overflow
    y = rng.integers(0, 2, (3, 4)).astype(np.float64)
    w = weights_like(rng, (1, 4))
    for name, s in (("smoothing_tenth", 0.1), ("smoothing_five", 5.0)):  # libnd4j's tests use 5
        M.case(op, name, [x, w, y], [reduce_weighted(sigm_numpy(x, y, s), w, 0)], i=[0], t=[s], **F64)
    xi = x.astype(np.float32)
    yi = y.astype(np.int64)  # integer labels
    M.case(op, "int_labels_sum", [xi, w.astype(np.float32), yi],
           [reduce_weighted(sigm_numpy(xi.astype(np.float64), yi, 0.0), w, 1).astype(np.float32)], i=[1], t=[0.0],
           **F32)


def unit(rng, shape, axis, dt):
    v = rng.normal(0, 1, shape)
    return (v / np.linalg.norm(v, axis=axis, keepdims=True)).astype(dt)


def cosine_distance():
    op = "cosine_distance_loss"
    rng = rng_for(op)
    plans = [
        # name, dtype, shape, dim, weights shape (None: 0-d), mode
        ("none_dim_last_f32", np.float32, (2, 3, 4), 2, (2, 3, 1), 0),
        ("none_dim1_f64", np.float64, (2, 3, 4), 1, (1, 1, 4), 0),
        ("sum_neg_dim_f32", np.float32, (2, 3, 4), -1, (1, 3, 1), 1),
        ("mean_weight_scalar_f64", np.float64, (4, 5), 1, None, 2),
        ("mean_nonzero_f64", np.float64, (4, 5), 0, (1, 5), 3),
        ("mean_nonzero_f32", np.float32, (3, 4), 1, (3, 1), 3),
    ]
    for name, dt, shape, dim, wshape, mode in plans:
        p, y = unit(rng, shape, dim, dt), unit(rng, shape, dim, dt)
        losses = 1 - np.sum(p.astype(np.float64) * y.astype(np.float64), axis=dim, keepdims=True)
        w = np.array(1.5, dt) if wshape is None else weights_like(rng, wshape, mode == 3).astype(dt)
        M.case(op, name, [p, w, y], [reduce_weighted(losses, w, mode).astype(dt)], i=[mode, dim], **tol(dt))
    p = unit(rng, (3, 4), 1, np.float32)
    M.case(op, "zero_weights_mode2", [p, np.zeros((3, 1), np.float32), p], [np.array(0.0, np.float32)], i=[2, 1],
           **F32)


def pairwise_numpy(p, y):
    d = (p - y).reshape(p.shape[0], -1)
    n = d.shape[1]
    if n < 2:
        return np.zeros(p.shape[0])
    # libnd4j's definition over the pairs themselves, not the closed form
    # the op uses: the ordered pairs i != j, divided by n (n - 1) / 2.
    pairs = (d[:, :, None] - d[:, None, :]) ** 2
    return pairs.sum(axis=(1, 2)) / (n * (n - 1) / 2)


def mean_pairwssqerr():
    op = "mean_pairwssqerr_loss"
    rng = rng_for(op)
    plans = [
        # name, dtype, shape, weights shape (None: 0-d), mode
        ("none_rank2_f32", np.float32, (4, 5), (4,), 0),
        ("none_kept_weights_f64", np.float64, (4, 5), (4, 1), 0),
        ("sum_rank3_f64", np.float64, (3, 2, 4), (3, 1, 1), 1),
        ("mean_weight_scalar_f32", np.float32, (4, 5), None, 2),
        ("mean_nonzero_f64", np.float64, (5, 3), (5,), 3),
        ("mean_weight_bcast_f32", np.float32, (3, 6), (1,), 2),
    ]
    for name, dt, shape, wshape, mode in plans:
        p, y = normal_pair(rng, shape, dt)
        w = np.array(0.75, dt) if wshape is None else weights_like(rng, wshape, mode == 3).astype(dt)
        losses = pairwise_numpy(p.astype(np.float64), y.astype(np.float64))
        M.case(op, name, [p, w, y], [reduce_weighted(losses, w, mode, range(1, len(shape))).astype(dt)], i=[mode],
               **tol(dt))
    # Rows of one element have no pairs: loss 0 (rank 1 too, as libnd4j).
    p, y = normal_pair(rng, (4,), np.float64)
    M.case(op, "rank1_zero", [p, np.ones(4), y], [np.zeros(4)], i=[0], **F64)
    p, y = normal_pair(rng, (3, 1), np.float64)
    M.case(op, "one_per_row_sum", [p, np.ones((1, 1)), y], [np.array(0.0)], i=[1], **F64)


def softmax_ce_numpy(x, y, s, axis=-1):
    c = x.shape[axis]
    y = y * (1 - s) + s / c
    m = x.max(axis=axis, keepdims=True)
    log_p = x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
    return -(y * log_p).sum(axis=axis)


def one_hot(rng, shape, dt):
    labels = rng.integers(0, shape[-1], shape[:-1])
    return np.eye(shape[-1])[labels].astype(dt)


def softmax_cross_entropy():
    op = "softmax_cross_entropy_loss"
    rng = rng_for(op)
    plans = [
        # name, logits dtype, labels dtype, shape, weights shape (None: 0-d), mode, smoothing
        ("none_f32", np.float32, np.float32, (4, 5), (4,), 0, 0.0),
        ("none_kept_weights_f64", np.float64, np.int32, (4, 5), (4, 1), 0, 0.0),
        ("sum_rank3_smooth_f64", np.float64, np.float64, (2, 3, 4), (2, 1), 1, 0.1),
        ("mean_weight_scalar11_f32", np.float32, np.int64, (4, 5), (1, 1), 2, 0.0),
        ("mean_nonzero_f64", np.float64, np.float64, (6, 3), (6,), 3, 0.0),
        ("mean_weight_rank3_f32", np.float32, np.float32, (2, 3, 4), (1, 3), 2, 0.2),
    ]
    for name, dt, ldt, shape, wshape, mode, s in plans:
        x = rng.normal(0, 2.0, shape).astype(dt)
        y = one_hot(rng, shape, ldt)
        w = np.array(0.5, dt) if wshape is None else weights_like(rng, wshape, mode == 3).astype(dt)
        losses = softmax_ce_numpy(x.astype(np.float64), y.astype(np.float64), s)
        M.case(op, name, [x, w, y], [reduce_weighted(losses, w, mode, [len(shape) - 1]).astype(dt)], i=[mode], t=[s],
               **tol(dt))
    # Rank 1: one example, a scalar loss, smoothing allowed.
    x = rng.normal(0, 2.0, (5,))
    y = rng.dirichlet(np.ones(5))
    M.case(op, "rank1_smooth", [x, np.array(2.0), y], [np.array(2.0 * softmax_ce_numpy(x, y, 0.3))], i=[0], t=[0.3],
           **F64)
    # Logits far apart: log_softmax, not log(softmax).
    x = np.array([[1000.0, 0.0, -1000.0], [0.0, 0.0, 0.0]])
    y = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    M.case(op, "large_logits", [x, np.ones((2,)), y], [softmax_ce_numpy(x, y, 0.0)], i=[0], t=[0.0], **F64)


def softmax_ce_with_logits():
    op = "softmax_cross_entropy_loss_with_logits"
    rng = rng_for(op)
    plans = [
        ("last_f32", np.float32, (4, 5), None),
        ("last_f64", np.float64, (3, 6), -1),
        ("dim1_rank3_f64", np.float64, (2, 3, 4), 1),
        ("dim0_f32", np.float32, (5, 3), 0),
        ("rank1_f64", np.float64, (7,), 0),
    ]
    for name, dt, shape, axis in plans:
        x = rng.normal(0, 2.0, shape).astype(dt)
        y = rng.uniform(0, 1, shape)
        a = -1 if axis is None else axis
        y = (y / y.sum(axis=a, keepdims=True)).astype(dt)
        want = softmax_ce_numpy(x.astype(np.float64), y.astype(np.float64), 0.0, axis=a)
        M.case(op, name, [x, y], [np.asarray(want).astype(dt)], i=None if axis is None else [axis], **tol(dt))
    x = np.array([[500.0, -500.0], [0.0, 1.0]])
    y = np.array([[0.0, 1.0], [0.5, 0.5]])
    M.case(op, "large_logits", [x, y], [softmax_ce_numpy(x, y, 0.0)], **F64)


def sparse_softmax_ce():
    op = "sparse_softmax_cross_entropy_loss_with_logits"
    rng = rng_for(op)
    plans = [
        ("batch_f32_i32", np.float32, np.int32, (4, 5)),
        ("batch_f64_i64", np.float64, np.int64, (6, 3)),
        ("rank3_f32_i64", np.float32, np.int64, (2, 3, 4)),
        ("rank1_f64_i32", np.float64, np.int32, (5,)),
        ("one_class_f64", np.float64, np.int32, (3, 1)),
    ]
    for name, dt, ldt, shape in plans:
        x = rng.normal(0, 2.0, shape).astype(dt)
        labels = rng.integers(0, shape[-1], shape[:-1]).astype(ldt)
        want = softmax_ce_numpy(x.astype(np.float64), np.eye(shape[-1])[labels], 0.0)
        M.case(op, name, [labels, x], [np.asarray(want).astype(dt)], **tol(dt))
    x = np.array([[1000.0, 0.0, -1000.0], [3.0, 3.0, 3.0]])
    labels = np.array([2, 1], np.int32)
    M.case(op, "large_logits", [labels, x], [softmax_ce_numpy(x, np.eye(3)[labels], 0.0)], **F64)


def l2():
    op = "l2_loss"
    rng = rng_for(op)
    for name, dt, shape in (("matrix_f32", np.float32, (2, 3)), ("vector_f64", np.float64, (7,)),
                            ("rank3_f64", np.float64, (2, 3, 4)), ("scalar_f32", np.float32, ())):
        x = rng.normal(0, 1.5, shape).astype(dt)
        M.case(op, name, [x], [np.array((x.astype(np.float64) ** 2).sum() / 2).astype(dt)], **tol(dt))
    x = np.arange(-3, 3, dtype=np.int32).reshape(2, 3)  # integers give float32
    M.case(op, "int32_gives_f32", [x], [np.array((x.astype(np.float64) ** 2).sum() / 2, np.float32)], **F32)


absolute_difference()
mean_sqerr()
huber()
log_loss()
hinge()
log_poisson()
sigm_cross_entropy()
cosine_distance()
mean_pairwssqerr()
softmax_cross_entropy()
softmax_ce_with_logits()
sparse_softmax_ce()
l2()
M.write("tools/gen_goldens_loss.py")
