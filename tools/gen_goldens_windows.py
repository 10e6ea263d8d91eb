#!/usr/bin/env python3
"""Generate the numpy goldens of unfold and fold under
tests_cpu/golden/windows/ (tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_windows.py

The layout is Nx's window ops (PyTorch's nn.functional.unfold/fold over K
spatial dims, without folding a channel dim into the taps):
  unfold: (leading..., S...) -> (leading..., prod(kernel), L)
  fold:   (leading..., prod(kernel), L) -> (leading..., output_size...)
taps (kernel offsets) and windows both in row-major order, padding given as
(before, after) zeros per spatial dim. The reference below pads with np.pad
and reads each window's taps by plain indexing; fold adds the taps back in
ascending order in the dtype's compute type (float32 for float16), the
order the kernels use, so every case is exact. Two small cases are checked
against values worked out by hand and, when PyTorch is installed, the
reference against its unfold and fold (2-D) and its convolutions (K = 1, 2,
3: weights times unfolded windows).
"""
import itertools
import math

import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261205)
M = None  # the manifest, made in main(): making it empties its directory


def window_counts(spatial, kernel, stride, dilation, padding):
    return [(s + padding[2 * d] + padding[2 * d + 1] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1
            for d, s in enumerate(spatial)]


def window_index(ws, js, stride, dilation):
    """The padded-image position of tap js of window ws."""
    return tuple(w * s + j * r for w, j, s, r in zip(ws, js, stride, dilation))


def unfold(x, kernel, stride, dilation, padding):
    K = len(kernel)
    lead, spatial = x.shape[:x.ndim - K], x.shape[x.ndim - K:]
    counts = window_counts(spatial, kernel, stride, dilation, padding)
    xp = np.pad(x, [(0, 0)] * len(lead) + [(padding[2 * d], padding[2 * d + 1]) for d in range(K)])
    z = np.zeros(lead + (math.prod(kernel), math.prod(counts)), x.dtype)
    for t, js in enumerate(itertools.product(*map(range, kernel))):
        for w, ws in enumerate(itertools.product(*map(range, counts))):
            z[..., t, w] = xp[(Ellipsis,) + window_index(ws, js, stride, dilation)]
    return z


def compute_dtype(dt):
    return np.float32 if dt == np.float16 else dt


def fold(x, output_size, kernel, stride, dilation, padding):
    K = len(kernel)
    lead = x.shape[:x.ndim - 2]
    counts = window_counts(output_size, kernel, stride, dilation, padding)
    assert x.shape[-2:] == (math.prod(kernel), math.prod(counts)), (x.shape, kernel, counts)
    padded = [s + padding[2 * d] + padding[2 * d + 1] for d, s in enumerate(output_size)]
    acc = np.zeros(lead + tuple(padded), compute_dtype(x.dtype))
    xc = x.astype(acc.dtype)
    # Taps outer: each element receives its entries in ascending tap order.
    with np.errstate(over="ignore"):
        for t, js in enumerate(itertools.product(*map(range, kernel))):
            for w, ws in enumerate(itertools.product(*map(range, counts))):
                idx = (Ellipsis,) + window_index(ws, js, stride, dilation)
                acc[idx] = acc[idx] + xc[..., t, w]
    crop = tuple(slice(padding[2 * d], padding[2 * d] + output_size[d]) for d in range(K))
    return acc[(Ellipsis,) + crop].astype(x.dtype)


def check_by_hand():
    # 2-D, no leading dims, kernel 2x2: the taps of each of the 2x3 windows.
    x = np.arange(1, 13, dtype=np.float64).reshape(3, 4)
    want = np.array([[1, 2, 3, 5, 6, 7], [2, 3, 4, 6, 7, 8], [5, 6, 7, 9, 10, 11], [6, 7, 8, 10, 11, 12]], np.float64)
    assert np.array_equal(unfold(x, [2, 2], [1, 1], [1, 1], [0, 0, 0, 0]), want)
    # 1-D, kernel 2, stride 2, dilation 2, padding (1, 0): the padded row is
    # [0 1 2 3 4 5]; window w takes padded positions 2w and 2w + 2.
    x = np.array([1, 2, 3, 4, 5], np.int32)
    cols = unfold(x, [2], [2], [2], [1, 0])
    assert np.array_equal(cols, [[0, 2], [2, 4]]), cols
    # fold: 2 lies in two windows, 4 in one, the rest in none.
    assert np.array_equal(fold(cols, [5], [2], [2], [2], [1, 0]), [0, 4, 0, 4, 0])


def check_against_torch():
    try:
        import torch
    except ImportError:
        print("torch not installed: the reference is not cross-checked against PyTorch")
        return
    F = torch.nn.functional
    r = np.random.default_rng(7)  # its own stream: the goldens do not depend on torch being there
    # PyTorch puts (N, C, H, W) into (N, C * taps, L), channel-major: ours is
    # that with the channel kept apart. Its padding is symmetric, so
    # asymmetric padding goes in by hand (F.pad), and fold's result is
    # cropped from the padded image.
    for (H, W), k, s, d, pad in [((5, 6), (2, 3), (1, 2), (2, 1), (1, 0, 0, 2)),
                                 ((7, 4), (3, 2), (2, 1), (1, 2), (2, 1, 1, 1)),
                                 ((4, 4), (1, 1), (3, 3), (1, 1), (0, 0, 0, 0))]:
        x = r.standard_normal((2, 3, H, W))
        ours = unfold(x, list(k), list(s), list(d), list(pad))
        padded = F.pad(torch.from_numpy(x), (pad[2], pad[3], pad[0], pad[1]))
        theirs = F.unfold(padded, k, dilation=d, stride=s).numpy()
        assert np.array_equal(ours.reshape(theirs.shape), theirs)
        cols = r.standard_normal(ours.shape)
        ours = fold(cols, [H, W], list(k), list(s), list(d), list(pad))
        full = F.fold(torch.from_numpy(cols.reshape(theirs.shape)), (H + pad[0] + pad[1], W + pad[2] + pad[3]), k,
                      dilation=d, stride=s).numpy()
        assert np.allclose(ours, full[..., pad[0]:pad[0] + H, pad[2]:pad[2] + W], rtol=1e-12, atol=1e-12)
    # K = 1 and 3 (and 2 again) through convolution: PyTorch's conv is the
    # weights, flattened in row-major tap order, times the unfolded input,
    # its outputs in row-major window order.
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
    for spatial, k, s, d, pad in [((9,), (3,), (2,), (2,), (1, 2)), ((5, 6), (2, 3), (2, 1), (1, 2), (0, 1, 2, 0)),
                                  ((4, 5, 6), (2, 3, 2), (1, 2, 2), (2, 1, 1), (1, 0, 0, 1, 2, 1))]:
        x = r.standard_normal((2, 3) + spatial)
        w = r.standard_normal((4, 3) + k)
        cols = unfold(x, list(k), list(s), list(d), list(pad))  # (2, 3, taps, L)
        ours = np.einsum("ocp,ncpl->nol", w.reshape(4, 3, -1), cols)
        pads = sum(((pad[2 * i], pad[2 * i + 1]) for i in reversed(range(len(k)))), ())
        theirs = conv[len(k)](F.pad(torch.from_numpy(x), pads), torch.from_numpy(w), stride=s, dilation=d).numpy()
        assert np.allclose(ours, theirs.reshape(ours.shape), rtol=1e-10, atol=1e-10)
    print("unfold and fold agree with PyTorch", torch.__version__)


def window_args(kernel, stride, dilation, padding):
    return list(kernel) + list(stride) + list(dilation) + list(padding)


def values(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-4, 4, shape).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -100), min(info.max, 100)
    return rng.integers(lo, hi + 1, shape).astype(dtype)


def case(name, shape, kernel, stride, dilation, padding, dtype=np.float32, fold_too=True):
    """An unfold case on x of `shape`, and the fold case of the same window
    on fresh values of unfold's output shape."""
    K = len(kernel)
    x = values(shape, dtype)
    M.case("unfold", name, [x], [unfold(x, kernel, stride, dilation, padding)],
           i=window_args(kernel, stride, dilation, padding))
    if fold_too:
        spatial = list(shape[len(shape) - K:])
        counts = window_counts(spatial, kernel, stride, dilation, padding)
        cols = values(tuple(shape[:len(shape) - K]) + (math.prod(kernel), math.prod(counts)), dtype)
        M.case("fold", name, [cols], [fold(cols, spatial, kernel, stride, dilation, padding)],
               i=spatial + window_args(kernel, stride, dilation, padding))


def same_or_explicit(n, k, s, p, d, same):
    """(pad before, pad after, output extent) of one dim: explicit, or TF's SAME."""
    eff = d * (k - 1) + 1
    if same:
        out = -(-n // s)
        total = max((out - 1) * s + eff - n, 0)
        return total // 2, total - total // 2, out
    return p, p, (n + 2 * p - eff) // s + 1


def im2col_ref(x, kh, kw, sh, sw, ph, pw, dh, dw, same, pad_value=0.0):
    """libnd4j's im2col written out: z[n, c, i, j, y, x] in [N, C, kH, kW, oH, oW]."""
    N, C, H, W = x.shape
    t, b, oh = same_or_explicit(H, kh, sh, ph, dh, same)
    l, r, ow = same_or_explicit(W, kw, sw, pw, dw, same)
    z = np.zeros((N, C, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            for y in range(oh):
                for xx in range(ow):
                    py, px = y * sh + i * dh - t, xx * sw + j * dw - l
                    inside = 0 <= py < H and 0 <= px < W
                    z[:, :, i, j, y, xx] = x[:, :, py, px] if inside else pad_value
    return z


def col2im_ref(cols, H, W, sh, sw, ph, pw, dh, dw, same):
    """The adjoint: every patch entry added back where im2col read it."""
    N, C, kh, kw, oh, ow = cols.shape
    t, _, _ = same_or_explicit(H, kh, sh, ph, dh, same)
    l, _, _ = same_or_explicit(W, kw, sw, pw, dw, same)
    z = np.zeros((N, C, H, W), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            for y in range(oh):
                for xx in range(ow):
                    py, px = y * sh + i * dh - t, xx * sw + j * dw - l
                    if 0 <= py < H and 0 <= px < W:
                        z[:, :, py, px] += cols[:, :, i, j, y, xx]
    return z


def patches():
    """im2col / col2im (libnd4j's layouts), i args as libnd4j orders them."""
    for name, shape, (kh, kw, sh, sw, ph, pw, dh, dw, same), pad_value, dt in (
            ("basic", (2, 3, 5, 6), (3, 3, 1, 1, 1, 1, 1, 1, 0), 0.0, np.float32),
            ("stride_dilation", (1, 2, 7, 8), (2, 3, 2, 2, 0, 1, 2, 1, 0), 0.0, np.float64),
            ("same_even_kernel", (1, 1, 5, 4), (2, 2, 2, 2, 0, 0, 1, 1, 1), 0.0, np.float32),
            ("pad_value", (1, 2, 4, 4), (3, 2, 1, 2, 1, 1, 1, 1, 0), -2.5, np.float32),
            ("int32", (2, 1, 4, 5), (2, 2, 1, 2, 0, 0, 1, 1, 0), 0.0, np.int32)):
        x = values(shape, dt)
        M.case("im2col", name, [x], [im2col_ref(x, kh, kw, sh, sw, ph, pw, dh, dw, same, pad_value)],
               i=[kh, kw, sh, sw, ph, pw, dh, dw, same], t=[pad_value] if pad_value else None)
        H, W = shape[2:]
        oh = same_or_explicit(H, kh, sh, ph, dh, same)[2]
        ow = same_or_explicit(W, kw, sw, pw, dw, same)[2]
        cols = values(shape[:2] + (kh, kw, oh, ow), dt)
        M.case("col2im", name, [cols], [col2im_ref(cols, H, W, sh, sw, ph, pw, dh, dw, same)],
               i=[sh, sw, ph, pw, H, W, dh, dw, same])


def main():
    global M
    M = Manifest("windows")
    check_by_hand()
    check_against_torch()
    # K = 1, 2, 3 with strides, dilations, asymmetric paddings and leading dims.
    case("k1", (2, 7), [3], [2], [1], [1, 2])
    case("k1_no_leading", (9,), [2], [4], [1], [0, 0], np.float64)
    case("k1_dilated", (3, 10), [3], [1], [3], [2, 0])
    case("k2_no_leading", (3, 4), [2, 2], [1, 1], [1, 1], [0, 0, 0, 0], np.float64)
    case("k2", (2, 3, 5, 6), [2, 3], [1, 2], [2, 1], [1, 0, 0, 2])
    case("k2_stride_past_kernel", (1, 7, 8), [2, 2], [3, 4], [1, 1], [0, 1, 2, 0])
    case("k3", (2, 4, 5, 3), [2, 2, 2], [1, 2, 1], [1, 1, 2], [0, 1, 1, 0, 1, 1])
    case("k3_no_leading", (3, 3, 4), [3, 1, 2], [2, 1, 1], [1, 1, 1], [1, 1, 0, 0, 0, 1], np.float64)
    # Empty leading dims, and an empty spatial dim that only padding fills.
    case("empty_leading", (0, 3, 4, 5), [2, 2], [1, 2], [1, 1], [0, 0, 1, 0])
    case("empty_spatial", (2, 0), [1], [1], [1], [1, 1])
    # Integer and half dtypes; fold's integer sums wrap (int8: 4 x 100).
    case("k2_int32", (2, 5, 5), [3, 3], [2, 1], [1, 2], [1, 1, 2, 0], np.int32)
    case("k2_int8", (3, 4, 4), [2, 2], [1, 1], [1, 1], [1, 1, 0, 0], np.int8)
    case("k1_uint8", (4, 6), [2], [1], [2], [0, 1], np.uint8)
    case("k2_int64", (2, 3, 3), [2, 2], [1, 1], [1, 1], [1, 1, 1, 1], np.int64)
    case("k2_uint64", (5, 4), [2, 3], [1, 1], [1, 1], [0, 1, 1, 0], np.uint64)
    case("k2_float16", (2, 4, 5), [2, 2], [1, 2], [1, 1], [1, 0, 0, 1], np.float16)
    cols = np.full((1, 4, 4), 100, np.int8)
    wrapped = fold(cols, [3, 3], [2, 2], [1, 1], [1, 1], [0, 0, 0, 0])
    assert wrapped[0, 1, 1] == 400 - 512, wrapped  # the centre lies in all 4 windows
    M.case("fold", "int8_wraps", [cols], [wrapped], i=[3, 3] + window_args([2, 2], [1, 1], [1, 1], [0, 0, 0, 0]))
    big = np.full((2, 3), 2**63 + 5, np.uint64)
    M.case("fold", "uint64_wraps", [big], [fold(big, [3], [2], [1], [1], [1, 0])], i=[3, 2, 1, 1, 1, 0])
    # fold(unfold(x)) = x * (the number of windows covering each element).
    # Multiples of 1/16, so the repeated sums are exact.
    x = rng.integers(-64, 64, (2, 5, 6)) / 16.0
    kernel, stride, dilation, padding = [3, 2], [2, 1], [1, 2], [1, 0, 1, 1]
    cover = fold(unfold(np.ones((5, 6)), kernel, stride, dilation, padding), [5, 6], kernel, stride, dilation, padding)
    assert cover.min() == 0 and cover.max() > 1, cover  # some elements in no window, some in several
    roundtrip = fold(unfold(x, kernel, stride, dilation, padding), [5, 6], kernel, stride, dilation, padding)
    assert np.array_equal(roundtrip, x * cover)
    M.case("fold", "of_unfold", [unfold(x, kernel, stride, dilation, padding)], [x * cover],
           i=[5, 6] + window_args(kernel, stride, dilation, padding))
    patches()
    # The same list as input 1 (ONNX's Col2Im with shapes computed at run time).
    M.case("fold", "of_unfold_list_input",
           [unfold(x, kernel, stride, dilation, padding), np.array([5, 6] + window_args(kernel, stride, dilation, padding))],
           [x * cover])
    M.write("tools/gen_goldens_windows.py")


if __name__ == "__main__":
    main()
