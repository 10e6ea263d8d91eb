#!/usr/bin/env python3
"""Generate the numpy goldens of the metric ops (libops/ops/metrics:
in_top_k, confusion_matrix) under tests_cpu/golden/metrics/.

Run from anywhere:  python3 tools/gen_goldens_metrics.py

The references, in plain numpy:
  in_top_k          the target is in when fewer than k classes score strictly
                    more than it and its score is finite (TF's rule: ties at
                    the boundary count in)
  confusion_matrix  np.add.at over (label, prediction) pairs
"""
import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261127)
M = None


def in_top_k(p, t, k):
    score = p[np.arange(len(t)), t]
    above = (p > score[:, None]).sum(axis=1)
    return np.isfinite(score) & (above < k)


def confusion(labels, preds, n, weights=None, dtype=np.int32):
    z = np.zeros((n, n), dtype)
    w = np.ones(len(labels), dtype) if weights is None else weights.astype(dtype)
    np.add.at(z, (labels, preds), w)
    return z


def top_k_cases():
    p = rng.standard_normal((6, 5)).astype(np.float32)
    t = rng.integers(0, 5, 6).astype(np.int32)
    for k in (0, 1, 3, 5):
        M.case("in_top_k", f"random_k{k}", [p, t], [in_top_k(p, t, k)], i=[k])
    # Ties at the boundary count in; a NaN or infinite target score is out;
    # NaN elsewhere never scores above.
    q = np.array([[1, 3, 3, 2],     # target 2 tied with class 1 for first: in at k=1
                  [5, 5, 5, 5],     # every class tied: in at k=1
                  [np.nan, 1, 2, 0],  # NaN scores nothing above: target 3 has 2 above
                  [1, np.nan, 0, 2],  # the target's own score is NaN: out
                  [np.inf, 1, 2, 3],  # target 0 is inf: out (not finite)
                  [-np.inf, 0, 1, 2]], np.float64)
    qt = np.array([2, 3, 3, 1, 0, 1], np.int64)
    for k in (1, 2, 3):
        M.case("in_top_k", f"ties_nan_inf_k{k}", [q, qt], [in_top_k(q, qt, k)], i=[k])
    h = rng.standard_normal((3, 7)).astype(np.float16)
    ht = np.array([0, 6, 3], np.int64)
    M.case("in_top_k", "f16", [h, ht], [in_top_k(h.astype(np.float32), ht, 2)], i=[2])
    M.case("in_top_k", "no_rows", [np.zeros((0, 4), np.float32), np.zeros(0, np.int32)], [np.zeros(0, bool)], i=[1])


def confusion_cases():
    labels = rng.integers(0, 4, 20).astype(np.int64)
    preds = rng.integers(0, 4, 20).astype(np.int64)
    assert max(labels.max(), preds.max()) == 3  # "counted_classes" finds 4 classes
    M.case("confusion_matrix", "counted_classes", [labels, preds], [confusion(labels, preds, 4)])
    M.case("confusion_matrix", "num_classes", [labels, preds], [confusion(labels, preds, 6)], i=[6])
    w = rng.uniform(0, 2, 20)
    M.case("confusion_matrix", "weights_f64", [labels, preds, w], [confusion(labels, preds, 5, w, np.float64)], i=[5],
           d="float64")
    # Weights converted to the int dtype before summing (TF's order).
    wi = np.array([0.9, 1.5, 2.7, 3.2] * 5)
    M.case("confusion_matrix", "weights_truncated_i64", [labels.astype(np.int32), preds.astype(np.int32), wi],
           [confusion(labels, preds, 4, np.trunc(wi), np.int64)], d="int64")
    M.case("confusion_matrix", "empty", [np.zeros(0, np.int64), np.zeros(0, np.int64)], [np.zeros((3, 3), np.int32)],
           i=[3])


def main():
    global M
    M = Manifest("metrics")
    top_k_cases()
    confusion_cases()
    M.write("tools/gen_goldens_metrics.py")


if __name__ == "__main__":
    main()
