#!/usr/bin/env python3
"""Generate the numpy goldens of the shape, indexing and creation ops
(libops/ops/shape, create, select, linalg/band, arith/clip) under
tests_cpu/golden/shape_ops/.

Run from anywhere:  python3 tools/gen_goldens_shape_ops.py
Each case writes <op>_<case>_in<k>.npy for its inputs and _out<k>.npy for
its outputs, and a MANIFEST line:
    <op> <case> in=<n> out=<n> [i=a,b,...] [t=a,...] [b=0,1,...] [d=dtype]
Expected values come from numpy's own functions (np.pad, np.tile, np.roll,
np.eye, slicing, ...), never from libops.
"""
import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261127)
M = Manifest("shape_ops")
case = M.case


def arange(shape, dtype=np.float32):
    return (np.arange(int(np.prod(shape))) * 1.5 - 7).astype(dtype).reshape(shape)


def views():
    x = arange((2, 3, 4))
    for name, axes in (("axis1", [1]), ("axes02", [0, 2]), ("all", []), ("neg", [-1])):
        case("reverse", name, [x], [np.flip(x, axis=tuple(axes) if axes else None)], i=axes)
    case("reverse", "axes_input", [x, np.array([2, 0], np.int64)], [np.flip(x, axis=(0, 2))])
    s = arange((1, 3, 1, 2), np.int32)
    case("squeeze", "all", [s], [np.squeeze(s)])
    case("squeeze", "axis0", [s], [np.squeeze(s, axis=0)], i=[0])
    case("squeeze", "neg", [s], [np.squeeze(s, axis=-2)], i=[-2])
    for name, a in (("front", 0), ("back", -1), ("middle", 2)):
        case("expand_dims", name, [x], [np.expand_dims(x, a)], i=[a])
    c = arange((3, 1), np.float64)
    case("broadcast_to", "grow", [c], [np.broadcast_to(c, (2, 3, 4))], i=[2, 3, 4])
    case("broadcast_to", "shape_input", [c, np.array([3, 5], np.int32)], [np.broadcast_to(c, (3, 5))])
    # bidirectional (ONNX Expand): a 1 in the shape keeps x's dim.
    case("broadcast_to", "bidirectional", [c, np.array([2, 1, 4], np.int64)], [np.broadcast_to(c, (2, 3, 4))], b=[1])
    # Several axes at once, counted in the output's dims (ONNX Unsqueeze).
    case("expand_dims", "axes_input", [x, np.array([-1, 0], np.int64)], [x.reshape(1, 2, 3, 4, 1)])
    case("expand_dims", "axes_input_middle", [x, np.array([1, 3], np.int64)], [x.reshape(2, 1, 3, 1, 4)])
    m = arange((4, 5), np.float64)
    case("slice", "block", [m], [m[1:3, 2:5]], i=[1, 2, 2, 3])
    case("slice", "to_end", [m], [m[2:, 1:]], i=[2, 1, -1, -1])
    case("slice", "inputs", [m, np.array([0, 4], np.int64), np.array([3, 1], np.int64)], [m[0:3, 4:5]])
    case("slice", "empty", [m], [m[1:1, :]], i=[1, 0, 0, -1])


def onnx_slice(x, starts, ends, axes=None, steps=None):
    """ONNX Slice's clamping (not Python's: a negative step's start below
    -extent takes element 0 here), then a Python slice."""
    axes = list(range(len(starts))) if axes is None else list(axes)
    steps = [1] * len(starts) if steps is None else list(steps)
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        dim = x.shape[a]
        s = s + dim if s < 0 else s
        e = e + dim if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), dim), min(max(e, 0), dim)
        else:
            s, e = min(max(s, 0), dim - 1), min(max(e, -1), dim - 1)
        index[a] = slice(s, e if e >= 0 else None, st)
    return x[tuple(index)]


def slices_by_axes():
    x = arange((4, 5, 6))
    def sa(name, starts, ends, axes=None, steps=None):
        ins = [x, np.array(starts, np.int64), np.array(ends, np.int64)]
        if axes is not None or steps is not None:
            ins.append(np.array(axes if axes is not None else [], np.int64))
        if steps is not None:
            ins.append(np.array(steps, np.int64))
        case("slice_axes", name, ins, [onnx_slice(x, starts, ends, axes, steps)])
    sa("leading", [1, 0], [3, 2])
    sa("axes", [1], [-1], axes=[2])
    sa("negative_axes_steps", [0, 4], [6, 0], axes=[-1, 1], steps=[2, -1])
    sa("clamped", [-100, 2], [100, 1000], axes=[0, 2])
    # A negative step from before the start: ONNX takes element 0.
    sa("reverse_from_before_start", [-10], [-(2 ** 62)], axes=[1], steps=[-1])
    sa("reverse_whole", [-1], [-(2 ** 63)], axes=[0], steps=[-2])
    sa("empty", [3], [1], axes=[0])
    sa("default_axes_with_steps", [0], [4], steps=[3])
    case("slice_axes", "int32_inputs", [x, np.array([1], np.int32), np.array([3], np.int32),
                                        np.array([2], np.int32)], [x[:, :, 1:3]])


def strided_slices():
    x = arange((4, 5, 6))
    def ss(name, want, masks, begin, end, strides):
        case("strided_slice", name, [x], [want], i=list(masks) + list(begin) + list(end) + list(strides))
    # masks: begin, ellipsis, end, new_axis, shrink
    ss("range_step", x[1:3, ::2], (2, 0, 2, 0, 0), [1, 0], [3, 0], [1, 2])
    ss("shrink_last_row", x[-1], (0, 0, 0, 0, 1), [-1], [0], [1])
    ss("ellipsis_shrink", x[..., 1], (0, 1, 0, 0, 2), [0, 1], [0, 2], [1, 1])
    ss("new_axis", x[:, None, 4:1:-1], (1, 0, 1, 2, 0), [0, 0, 4], [0, 0, 1], [1, 1, -1])
    ss("reversed", x[::-1], (1, 0, 1, 0, 0), [0], [0], [-1])
    ss("negative_ends", x[-3:-1, 1:-1, -2], (0, 0, 0, 0, 4), [-3, 1, -2], [-1, -1, 0], [1, 1, 1])
    ss("clamped", x[2:100, -100:2], (0, 0, 0, 0, 0), [2, -100], [100, 2], [1, 1])
    case("strided_slice", "inputs", [x, np.array([1, 2], np.int64), np.array([4, 5], np.int64),
                                    np.array([2, 1], np.int64)], [x[1:4:2, 2:5]], i=[0, 0, 0, 0, 0])


def pads():
    x = arange((2, 3))
    p = [(1, 2), (2, 1)]
    case("pad", "constant", [x], [np.pad(x, p, constant_values=7)], i=[0, 1, 2, 2, 1], t=[7])
    case("pad", "reflect", [x], [np.pad(x, [(1, 1), (2, 1)], mode="reflect")], i=[1, 1, 1, 2, 1])
    case("pad", "symmetric", [x], [np.pad(x, [(2, 2), (3, 1)], mode="symmetric")], i=[2, 2, 2, 3, 1])
    case("pad", "edge", [x], [np.pad(x, [(3, 0), (1, 4)], mode="edge")], i=[3, 3, 0, 1, 4])
    y = arange((2, 3, 4), np.int32)
    case("pad", "reflect_3d", [y, np.array([[1, 1], [2, 0], [0, 3]], np.int64)],
         [np.pad(y, [(1, 1), (2, 0), (0, 3)], mode="reflect")], i=[1])
    case("pad", "zero_width", [x], [x.copy()], i=[0, 0, 0, 0, 0])
    # Constant pads are filled slab by slab: some dims padded on one side only.
    case("pad", "constant_3d", [y.astype(np.float64)], [np.pad(y.astype(np.float64), [(0, 2), (1, 0), (2, 1)],
                                                              constant_values=-1.5)],
         i=[0, 0, 2, 1, 0, 2, 1], t=[-1.5])


def tiles_and_repeats():
    x = arange((2, 3))
    case("tile", "rows_cols", [x], [np.tile(x, (2, 3))], i=[2, 3])
    case("tile", "one_dim", [x], [np.tile(x, (1, 2))], i=[1, 2])
    y = arange((2, 1, 3), np.int64)
    case("tile", "3d", [y, np.array([2, 4, 1], np.int32)], [np.tile(y, (2, 4, 1))])
    case("tile", "zero", [x], [np.tile(x, (0, 2))], i=[0, 2])
    case("repeat", "scalar", [x], [np.repeat(x, 3, axis=1)], i=[1, 3])
    case("repeat", "per_row", [x], [np.repeat(x, [2, 0], axis=0)], i=[0, 2, 0])
    case("repeat", "neg_axis", [x], [np.repeat(x, [1, 3, 2], axis=-1)], i=[-1, 1, 3, 2])
    case("roll", "axis1", [x], [np.roll(x, 2, axis=1)], i=[2, 1])
    case("roll", "two_axes", [x], [np.roll(x, (1, -2), axis=(0, 1))], i=[1, -2, 0, 1])
    case("roll", "flat", [x], [np.roll(x, 4)], i=[4])
    case("roll", "big_shift", [x], [np.roll(x, -7, axis=1)], i=[-7, 1])


def joins():
    a, b, c = arange((2, 3)), arange((2, 3)) + 100, arange((2, 3)) - 100
    case("stack", "axis0", [a, b, c], [np.stack([a, b, c])])
    case("stack", "axis1", [a, b, c], [np.stack([a, b, c], axis=1)], i=[1])
    case("stack", "last", [a, b], [np.stack([a, b], axis=-1)], i=[-1])
    x = arange((2, 3, 4))
    case("unstack", "axis1", [x], [x[:, k] for k in range(3)], i=[1])
    case("unstack", "axis0", [x], [x[k] for k in range(2)], i=[0])
    case("split", "halves", [x], np.split(x, 2, axis=2), i=[2, 2])
    case("split", "thirds", [x], np.split(x, 3, axis=1), i=[3, 1])
    case("split_v", "sizes", [x], np.split(x, [1, 3], axis=2), i=[2, 1, -1, 1])
    case("split_v", "input", [x, np.array([2, 1], np.int64)], np.split(x, [2], axis=1), i=[1])


def creation():
    case("fill", "f64", [], [np.full((2, 3), 2.5)], i=[2, 3], t=[2.5], d="float64")
    case("fill", "i32", [np.array([3, 1, 2], np.int64)], [np.full((3, 1, 2), -4, np.int32)], t=[-4], d="int32")
    case("fill", "scalar", [], [np.full((), 1.5, np.float32)], t=[1.5])
    x = arange((2, 3), np.int16)
    case("zeros_like", "same", [x], [np.zeros_like(x)])
    case("ones_like", "same", [x], [np.ones_like(x)])
    case("ones_like", "f32", [x], [np.ones((2, 3), np.float32)], d="float32")
    case("range", "ints", [], [np.arange(0, 10, 3).astype(np.int64)], t=[0, 10, 3], d="int64")
    case("range", "down", [], [np.arange(5, -1, -2).astype(np.int32)], t=[5, -1, -2], d="int32")
    case("range", "floats", [], [np.arange(0.5, 2, 0.25).astype(np.float32)], t=[0.5, 2, 0.25])
    case("range", "empty", [], [np.arange(3, 1, 1).astype(np.float32)], t=[3, 1, 1])
    case("range", "inputs", [np.array(2, np.int64), np.array(11, np.int64), np.array(4, np.int64)],
         [np.arange(2, 11, 4).astype(np.int64)])
    case("linspace", "unit", [], [np.linspace(0, 1, 5).astype(np.float32)], i=[5], t=[0, 1])
    case("linspace", "down", [], [np.linspace(2, -2, 3)], i=[3], t=[2, -2], d="float64")
    case("linspace", "one", [], [np.linspace(4, 9, 1).astype(np.float32)], i=[1], t=[4, 9])
    case("eye", "square", [], [np.eye(3, dtype=np.float32)], i=[3])
    case("eye", "wide_i32", [], [np.eye(2, 4, dtype=np.int32)], i=[2, 4], d="int32")
    case("eye", "tall_batch", [], [np.broadcast_to(np.eye(4, 2), (2, 4, 2)).copy()], i=[4, 2, 2], d="float64")
    v = arange((3,), np.float64)
    case("diag", "vector", [v], [np.diag(v)])
    m2 = arange((2, 2), np.int32)
    case("diag", "matrix", [m2], [np.einsum("ij,ik,jl->ijkl", m2, np.eye(2, dtype=np.int32),
                                            np.eye(2, dtype=np.int32))])
    case("diag_part", "matrix", [np.diag(v)], [v])
    t4 = np.einsum("ij,ik,jl->ijkl", m2, np.eye(2, dtype=np.int32), np.eye(2, dtype=np.int32)) + 1
    case("diag_part", "rank4", [t4], [np.einsum("ijij->ij", t4)])
    mm = arange((2, 3, 4), np.float64)
    case("trace", "batched", [mm], [np.trace(mm, axis1=1, axis2=2)])
    case("trace", "i32", [m2], [np.trace(m2).astype(np.int32)])
    # The batched diagonal ops (TF's matrix_diag, matrix_diag_part, matrix_set_diag).
    rows = arange((2, 3), np.float32)
    case("matrix_diag", "batch", [rows], [np.einsum("bi,ij->bij", rows, np.eye(3, dtype=np.float32))])
    wide = arange((2, 3, 4), np.int64)
    case("matrix_diag_part", "wide", [wide], [np.diagonal(wide, axis1=-2, axis2=-1).copy()])
    tall = arange((5, 2), np.float64)
    case("matrix_diag_part", "tall", [tall], [np.diagonal(tall).copy()])
    newdiag = -arange((2, 3), np.int64) - 1
    set_ref = wide.copy()
    for b in range(2):
        for i in range(3):
            set_ref[b, i, i] = newdiag[b, i]
    case("matrix_set_diag", "wide", [wide, newdiag], [set_ref])


def bands_and_selects():
    m = arange((2, 4, 5), np.float64)
    m[0, 3, 0] = np.nan  # outside most bands: becomes 0
    rows, cols = np.indices((4, 5))
    d = cols - rows
    def band(lo, hi):  # TF's rule: a negative count keeps that whole side
        keep = np.ones_like(d, dtype=bool)
        if lo >= 0:
            keep &= -d <= lo
        if hi >= 0:
            keep &= d <= hi
        return np.where(keep, m, 0)
    case("matrix_band_part", "lower1_upper0", [m], [band(1, 0)], i=[1, 0])
    case("matrix_band_part", "all_lower_upper1", [m], [band(-1, 1)], i=[-1, 1])
    case("matrix_band_part", "diag_only", [m], [band(0, 0)], i=[0, 0])
    case("triu", "main", [m], [np.triu(m)])
    case("triu", "k1", [m], [np.triu(m, 1)], i=[1])
    case("triu", "kneg", [m], [np.triu(m, -2)], i=[-2])
    case("tril", "main", [m], [np.tril(m)])
    case("tril", "k2", [m], [np.tril(m, 2)], i=[2])
    case("triu", "k_input", [m, np.array(-1, np.int64)], [np.triu(m, -1)])
    case("tril", "k_input", [m, np.array([1], np.int32)], [np.tril(m, 1)])
    idx = np.array([[0, 2], [-1, 3]], np.int64)
    oh = np.stack([np.where(idx == k, 5.0, -1.0) for k in range(3)], axis=-1).astype(np.float32)
    case("one_hot", "last", [idx], [oh], i=[-1, 3], t=[5, -1])
    oh0 = np.stack([np.where(idx == k, 1, 0) for k in range(4)], axis=0).astype(np.int32)
    case("one_hot", "axis0_i32", [idx.astype(np.int32), np.array(4, np.int64)], [oh0], i=[0], d="int32")
    x = np.array([[-3.0, 0.5, np.nan, 7.0], [2.0, -0.0, 10.0, -np.inf]], np.float32)
    case("clip", "targs", [x], [np.clip(x, -1, 5)], t=[-1, 5])
    lo = np.array([[0.0], [1.0]], np.float32)
    hi = np.array([4.0, 4.0, 4.0, 0.5], np.float32)
    case("clip", "inputs", [x, lo, hi], [np.minimum(np.maximum(x, lo), hi)])
    case("clip", "lower_only", [x], [np.maximum(x, 0)], t=[0])
    ci = np.array([-5, 0, 3, 9], np.int32)
    case("clip", "i32", [ci], [np.clip(ci, -2, 4)], t=[-2, 4])
    cond = np.array([[True], [False], [True]])
    a = arange((1, 4), np.float32)
    bb = np.float32(-9)
    case("where", "broadcast", [cond, a, np.array(bb)], [np.where(cond, a, bb)])
    cf = np.array([0.0, np.nan, -1.0, 0.0])
    case("where", "float_cond_promoted", [cf, np.array([1, 2, 3, 4], np.int32), np.array([0.5, 0.5, 0.5, 0.5], np.float32)],
         [np.where(cf != 0, np.array([1, 2, 3, 4], np.float32), np.float32(0.5))])


def libnd4j_calls():
    """Calls written as libnd4j's tests write them."""
    r = np.random.default_rng(20261129)
    x = r.standard_normal((3, 4)).astype(np.float32) * 3
    x[1] = 0  # a row of norm 0 stays as it is
    for name, axes in (("all", []), ("rows", [1]), ("cols", [0])):
        keep = tuple(axes) if axes else None
        norm = np.sqrt((x.astype(np.float64) ** 2).sum(axis=keep, keepdims=True))
        count = x.size / norm.size
        for clip in (2.0, 100.0):
            # float32 sums and divides: a few ulps from the float64 reference.
            case("clip_by_norm", f"{name}_{int(clip)}", [x], [(x * clip / np.maximum(norm, clip)).astype(np.float32)],
                 t=[clip], i=axes, rtol=1e-6, atol=1e-6)
            case("clip_by_avg_norm", f"{name}_{int(clip)}", [x],
                 [(x * clip / np.maximum(norm / count, clip)).astype(np.float32)], t=[clip], i=axes, rtol=1e-6,
                 atol=1e-6)
    # tile's reps as a [1, N] array, as libnd4j's tests pass them.
    t = arange((2, 3), np.float32)
    case("tile", "reps_row_array", [t, np.array([[2, 1]], np.int64)], [np.tile(t, (2, 1))])
    # gather with libnd4j's bArg checkIndices; libnd4j's op name Where.
    idx = np.array([2, 0, 2], np.int64)
    case("gather", "libnd4j_check_indices", [t, idx], [np.take(t, idx, axis=1)], i=[1], b=[True])
    cond = np.array([[True, False, True], [False, False, True]])
    case("Where", "libnd4j_name", [cond, t, -t], [np.where(cond, t, -t)])


def complex_parts():
    z = rng.uniform(-2, 2, (3, 2, 2))
    c = z[..., 0] + 1j * z[..., 1]
    case("complex", "f64", [z[..., 0].copy(), z[..., 1].copy()], [z])
    case("real", "f64", [z], [c.real])
    case("imag", "f32", [z.astype(np.float32)], [c.imag.astype(np.float32)])
    case("conj", "f64", [z], [np.stack([c.real, -c.imag], axis=-1)])
    case("complex_abs", "f64", [z], [np.abs(c)], rtol=1e-15)
    case("angle", "f64", [z], [np.angle(c)], rtol=1e-15)


def reverse_sequence(x, lengths, seq_axis, batch_axis):
    """The reference: each batch row's first lengths[b] steps flipped."""
    z = x.copy()
    for b, n in enumerate(lengths):
        src = [slice(None)] * x.ndim
        src[batch_axis] = b
        src[seq_axis] = slice(0, n)
        z[tuple(src)] = np.flip(x[tuple(src)], axis=seq_axis - (1 if batch_axis < seq_axis else 0))
    return z


def sequences():
    x = arange((4, 3, 2))  # [time, batch, feature], ONNX's default axes
    n = np.array([4, 0, 2], np.int64)
    case("reverse_sequence", "time_major", [x, n], [reverse_sequence(x, n, 0, 1)], i=[0, 1])
    xb = rng.standard_normal((3, 5, 2)).astype(np.float64)  # [batch, time, feature], TF's default
    nb = np.array([5, 1, 3], np.int32)
    case("reverse_sequence", "batch_major_i32_lengths", [xb, nb], [reverse_sequence(xb, nb, 1, 0)], i=[1])
    x4 = rng.integers(-50, 50, (2, 3, 4, 5)).astype(np.int16)  # batch 2 and time 3 apart, elements after
    n4 = np.array([3, 2, 1, 0, 3], np.int64)
    case("reverse_sequence", "axes_apart_i16", [x4, n4], [reverse_sequence(x4, n4, 1, 3)], i=[-3, -1])
    xl = rng.random((2, 6)) > 0.5
    nl = np.array([6, 4], np.int64)
    case("reverse_sequence", "bool_last_axis", [xl, nl], [reverse_sequence(xl, nl, 1, 0)], i=[1, 0])
    xe = np.zeros((0, 3), np.float32)
    case("reverse_sequence", "empty_time", [xe, np.zeros(3, np.int64)], [xe], i=[0, 1])


def depth_to_space(x, b, nchw, crd):
    """ONNX's DepthToSpace (DCR, CRD) on NCHW; NHWC through the same transposes."""
    if not nchw:
        x = x.transpose(0, 3, 1, 2)
    n, c, h, w = x.shape
    if crd:
        z = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    else:
        z = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    z = z.reshape(n, c // (b * b), h * b, w * b)
    return z if nchw else z.transpose(0, 2, 3, 1)


def space_to_depth(x, b, nchw):
    """ONNX's SpaceToDepth on NCHW; TF's on NHWC (depth index (i b + j) C + c)."""
    if nchw:
        n, c, h, w = x.shape
        return x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4).reshape(n, c * b * b, h // b, w // b)
    n, h, w, c = x.shape
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * c)


def blocks():
    x = arange((2, 8, 3, 2))
    case("depth_to_space", "dcr_nchw", [x], [depth_to_space(x, 2, True, False)], i=[2, 0, 0])
    case("depth_to_space", "crd_nchw", [x], [depth_to_space(x, 2, True, True)], i=[2, 0, 1])
    xh = rng.integers(-9, 9, (1, 2, 3, 18)).astype(np.int32)
    case("depth_to_space", "dcr_nhwc_i32", [xh], [depth_to_space(xh, 3, False, False)], i=[3, 1, 0])
    case("depth_to_space", "crd_nhwc_i32", [xh], [depth_to_space(xh, 3, False, True)], i=[3, 1, 1])
    s = arange((2, 3, 4, 6))
    case("space_to_depth", "nchw", [s], [space_to_depth(s, 2, True)], i=[2])
    sh = rng.standard_normal((1, 6, 9, 2))
    case("space_to_depth", "nhwc_f64", [sh], [space_to_depth(sh, 3, False)], i=[3, 1])
    # The two are inverses (DCR).
    assert np.array_equal(depth_to_space(space_to_depth(s, 2, True), 2, True, False), s)


def bitcasts():
    """The same bytes as another dtype: numpy's view. A narrower dtype adds
    a last dim of the size ratio, a wider one takes it away (TF's bitcast)."""
    x = np.array([[1.0, -2.5, np.inf], [0.0, -0.0, 3.0e-41]], np.float32)
    case("bitcast", "f32_to_i32", [x], [x.view(np.int32)], d="int32")
    case("bitcast", "f32_to_u8", [x], [x.view(np.uint8).reshape(2, 3, 4)], d="uint8")
    b = (np.arange(24, dtype=np.uint8) * 37).reshape(2, 3, 4)
    case("bitcast", "u8_to_f32", [b], [b.view(np.float32).reshape(2, 3)], d="float32")
    h = np.array([-1, 0, 1, 32767, -32768], np.int16)
    case("bitcast", "i16_to_f16", [h], [h.view(np.float16)], d="float16")
    d = np.array(1.5, np.float64)
    case("bitcast", "scalar_f64_to_i64", [d], [d.view(np.int64)], d="int64")


def main():
    complex_parts()
    bitcasts()
    views()
    strided_slices()
    slices_by_axes()
    pads()
    tiles_and_repeats()
    joins()
    creation()
    bands_and_selects()
    sequences()
    blocks()
    libnd4j_calls()
    M.write("tools/gen_goldens_shape_ops.py")


if __name__ == "__main__":
    main()
