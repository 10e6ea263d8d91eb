#!/usr/bin/env python3
"""Generate the numpy goldens of the indexed gathers and scatters
(libops/ops/index/) under tests_cpu/golden/indexing/ (golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_indexing.py
Scatters with a repeated index: the set modes keep the last update; the
combining modes fold every update in order (numpy's ufunc.at).
"""
import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261130)
M = Manifest("indexing")

MODES = {0: None, 1: np.add, 2: np.subtract, 3: np.multiply, 4: np.divide, 5: np.maximum, 6: np.minimum}


def scatter_rows(x, idx_tuples, upd, mode):
    """z = x with upd[i] combined into z[idx_tuples[i]] in order."""
    z = x.astype(np.float64).copy()
    for i, t in enumerate(idx_tuples):
        t = tuple(int(v) for v in np.atleast_1d(t))
        if mode == 0:
            z[t] = upd[i]
        else:
            z[t] = MODES[mode](z[t], upd[i])
    return z.astype(x.dtype)


def gather_elements(x, idx, axis):
    """ONNX's GatherElements: indices may be smaller than x off the axis."""
    pos = list(np.indices(idx.shape))
    pos[axis] = np.where(idx < 0, idx + x.shape[axis], idx)
    return x[tuple(pos)]


def gathers():
    x = rng.uniform(-5, 5, (3, 4, 2))
    idx2 = np.array([[1, 2], [0, -1], [2, 3]], np.int64)
    M.case("gather_nd", "k2", [x, idx2], [np.stack([x[1, 2], x[0, -1], x[2, 3]])])
    idx1 = np.array([[[2], [0]], [[1], [-3]]], np.int32)
    M.case("gather_nd", "k1_i32", [x, idx1], [x[idx1[..., 0]]])
    idx3 = np.array([[0, 1, 1], [2, 3, 0]], np.int64)
    M.case("gather_nd", "k3_scalars", [x, idx3], [np.array([x[0, 1, 1], x[2, 3, 0]])])
    bidx = np.array([[[3], [0]], [[1], [1]], [[2], [-1]]], np.int64)  # batch_dims=1: [3, 2, 1]
    want = np.stack([x[b][bidx[b, :, 0]] for b in range(3)])
    M.case("gather_nd", "batch1", [x, bidx], [want], i=[1])
    ints = rng.integers(-9, 10, (4, 5)).astype(np.int16)
    M.case("gather_nd", "i16_rows", [ints, np.array([[3], [1]], np.int64)], [ints[[3, 1]]])
    # gather with batch_dims (TF): x [3, 4, 2], indices [3, 2] along dim 1
    bi = np.array([[3, 0], [1, 1], [-1, 2]], np.int64)
    M.case("gather", "batch_dims1", [x, bi], [np.stack([x[b][bi[b]] for b in range(3)])], i=[1, 1])
    # gather_elements = take_along_axis
    e = rng.integers(0, 4, (3, 2)).astype(np.int64)
    M.case("gather_elements", "axis0", [x[:, :, 0], e - 1], [gather_elements(x[:, :, 0], e - 1, 0)])
    e1 = np.array([[0, 3, 3], [1, -1, 0], [2, 2, 2]], np.int32)
    y = rng.uniform(-1, 1, (3, 4))
    M.case("gather_elements", "axis1_small", [y, e1], [gather_elements(y, e1, 1)], i=[1])


def scatters():
    x = rng.uniform(-3, 3, (4, 3))
    idx = np.array([1, 3, 1], np.int64)  # 1 twice
    upd = rng.uniform(0.5, 2, (3, 3))
    for name, mode in (("scatter_upd", 0), ("scatter_add", 1), ("scatter_sub", 2), ("scatter_mul", 3),
                       ("scatter_div", 4), ("scatter_max", 5), ("scatter_min", 6)):
        M.case(name, "dup_rows", [x, idx, upd], [scatter_rows(x, idx, upd, mode)], rtol=1e-14)
    for mode in range(7):
        M.case("scatter", f"mode{mode}", [x, idx.astype(np.int32), upd], [scatter_rows(x, idx, upd, mode)], i=[mode],
               rtol=1e-14)
    # any-shaped indices along dim 0; updates [m..., rest...]
    idx2 = np.array([[0, 2], [2, 3]], np.int64)
    upd2 = rng.uniform(-1, 1, (2, 2, 3))
    M.case("scatter_add", "idx_matrix", [x, idx2, upd2], [scatter_rows(x, idx2.ravel(), upd2.reshape(4, 3), 1)],
           rtol=1e-14)
    xi = rng.integers(-20, 20, (5,)).astype(np.int32)
    M.case("scatter_add", "i32", [xi, np.array([0, 4, 0], np.int64), np.array([7, -3, 100], np.int32)],
           [scatter_rows(xi, [0, 4, 0], np.array([7, -3, 100]), 1)])
    # nd forms
    y = rng.uniform(-3, 3, (3, 4, 2))
    nd = np.array([[0, 1], [2, 3], [0, 1]], np.int64)
    u = rng.uniform(-1, 1, (3, 2))
    M.case("scatter_nd_update", "set_dup", [y, nd, u], [scatter_rows(y, [tuple(r) for r in nd], u, 0)])
    for mode in (1, 5):
        M.case("scatter_nd_update", f"mode{mode}", [y, nd, u], [scatter_rows(y, [tuple(r) for r in nd], u, mode)],
               i=[mode], rtol=1e-14)
    M.case("scatter_nd_add", "dup", [y, nd, u], [scatter_rows(y, [tuple(r) for r in nd], u, 1)], rtol=1e-14)
    M.case("scatter_nd_max", "dup", [y, nd, u], [scatter_rows(y, [tuple(r) for r in nd], u, 5)])
    nd3 = np.array([[2, 0, 1], [-1, -4, 0]], np.int64)
    u3 = np.array([9.0, -9.0])
    M.case("scatter_nd_update", "scalars", [y, nd3, u3], [scatter_rows(y, [tuple(r) for r in nd3], u3, 0)])
    z = np.zeros((4, 3), np.float32)
    tf_idx = np.array([[1], [3], [1]], np.int64)
    tf_upd = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    M.case("scatter_nd", "sum_dup", [tf_idx, tf_upd], [scatter_rows(z, [1, 3, 1], tf_upd, 1)], i=[4, 3], rtol=1e-6)
    M.case("scatter_nd", "shape_input", [np.array([[0, 2], [1, 1]], np.int32), np.array([5, 6], np.int64),
                                         np.array([2, 3], np.int64)],
           [scatter_rows(np.zeros((2, 3), np.int64), [(0, 2), (1, 1)], np.array([5, 6]), 1)])
    # elements
    v = rng.uniform(-2, 2, (3, 4))
    ei = np.array([[0, 3, 3], [1, -1, 0], [2, 2, 2]], np.int64)
    eu = rng.uniform(-1, 1, (3, 3))
    def put(mode, axis=1):
        z = v.copy()
        for r in range(3):
            for c in range(3):
                t = (r, int(ei[r, c]) % 4) if axis == 1 else (int(ei[r, c]) % 3, c)
                z[t] = eu[r, c] if mode == 0 else MODES[mode](z[t], eu[r, c])
        return z
    M.case("scatter_elements", "set_dup", [v, ei, eu], [put(0)], i=[1, 0])
    M.case("scatter_elements", "add_dup", [v, ei, eu], [put(1)], i=[1, 1], rtol=1e-14)
    ei0 = np.array([[2, 0, 1], [1, 1, 0]], np.int64)
    eu0 = rng.uniform(-3, 3, (2, 3))
    z0 = v.copy()
    for r in range(2):
        for c in range(3):
            z0[ei0[r, c], c] = min(z0[ei0[r, c], c], eu0[r, c])
    M.case("scatter_elements", "min_axis0", [v, ei0, eu0], [z0], i=[0, 6])


def segments():
    x = rng.uniform(-3, 3, (6, 2))
    ids = np.array([0, 0, 2, 2, 2, 4], np.int64)
    red = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}
    for name, f in red.items():
        z = np.zeros((5, 2))
        for s_ in range(5):
            rows = x[ids == s_]
            z[s_] = f.reduce(rows, axis=0) if len(rows) else 0.0  # empty sorted segment: 0
        M.case(f"segment_{name}", "sorted", [x, ids], [z], rtol=1e-14)
    zm = np.zeros((5, 2))
    for s_ in range(5):
        rows = x[ids == s_]
        zm[s_] = rows.mean(axis=0) if len(rows) else 0.0
    M.case("segment_mean", "sorted", [x, ids], [zm], rtol=1e-14)
    uids = np.array([3, -1, 0, 3, 1, 0], np.int32)  # -1: dropped
    ident = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}
    for name, f in red.items():
        z = np.full((4, 2), ident[name])
        for r, s_ in enumerate(uids):
            if s_ >= 0:
                z[s_] = f(z[s_], x[r])
        M.case(f"unsorted_segment_{name}", "dropped", [x, uids], [z], i=[4], rtol=1e-14)
    zi = np.full((3,), np.iinfo(np.int32).min, np.int64)
    xi = np.array([5, -2, 7, 1], np.int32)
    for r, s_ in enumerate([0, 0, 2, 0]):
        zi[s_] = max(zi[s_], xi[r])
    M.case("unsorted_segment_max", "i32_empty", [xi, np.array([0, 0, 2, 0], np.int64), np.array(3, np.int64)],
           [zi.astype(np.int32)])
    zm = np.zeros((4, 2))
    cnt = np.zeros(4)
    for r, s_ in enumerate(uids):
        if s_ >= 0:
            zm[s_] += x[r]
            cnt[s_] += 1
    M.case("unsorted_segment_mean", "dropped", [x, uids], [np.where(cnt[:, None] > 0, zm / np.maximum(cnt, 1)[:, None], 0)],
           i=[4], rtol=1e-14)
    b = np.array([1, 3, 1, 0, 7, 3, 3], np.int64)
    M.case("bincount", "counts", [b], [np.bincount(b).astype(np.int64)])
    M.case("bincount", "minlength", [b.astype(np.int32)], [np.bincount(b, minlength=10).astype(np.int64)], i=[10])
    wts = rng.uniform(0, 1, 7)
    M.case("bincount", "weights_capped", [b, wts], [np.bincount(b, weights=wts)[:4]], i=[0, 4], rtol=1e-14)
    M.case("bincount", "empty", [np.array([], np.int64)], [np.zeros(2, np.int64)], i=[2])


def main():
    gathers()
    scatters()
    segments()
    M.write("tools/gen_goldens_indexing.py")


if __name__ == "__main__":
    main()
