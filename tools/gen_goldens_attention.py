#!/usr/bin/env python3
"""Generate the numpy goldens of dot_product_attention under
tests_cpu/golden/attention/ (tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_attention.py

The reference: scores = scale * q @ k^T (+ a float mask, or -inf where a
bool mask is false or the causal rule hides a key), weights = softmax over
the keys (max subtracted), z = weights @ v, in float64.
"""
import numpy as np

from golden_manifest import Manifest

rng = np.random.default_rng(20261130)
M = None
TOL = {"f64": (np.float64, 1e-12, 1e-12), "f32": (np.float32, 2e-5, 2e-6)}


def attention(q, k, v, mask, scale, causal):
    d = q.shape[-1]
    s = (scale if scale > 0 else 1 / np.sqrt(d)) * (q @ np.swapaxes(k, -1, -2))
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == np.bool_ else s + mask
    if causal:
        tq, tk = s.shape[-2:]
        keep = np.arange(tk)[None, :] <= np.arange(tq)[:, None] + tk - tq
        s = np.where(keep, s, -np.inf)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, w


def case(name, tag, qs, ks, vs, mask_shape=None, bool_mask=False, scale=0.0, causal=False, weights=False):
    dt, rtol, atol = TOL[tag]
    q, k, v = (rng.standard_normal(s).astype(dt) for s in (qs, ks, vs))
    mask = None
    if mask_shape is not None:
        if bool_mask:
            mask = rng.random(mask_shape) > 0.3
            mask[..., 0] = True  # every query sees at least one key
        else:
            mask = (rng.standard_normal(mask_shape) * 2).astype(dt)
    z, w = attention(*(a.astype(np.float64) for a in (q, k, v)), mask if mask is None or bool_mask else
                     mask.astype(np.float64), scale, causal)
    ins = [q, k, v] + ([mask] if mask is not None else [])
    outs = [z.astype(dt)] + ([w.astype(dt)] if weights else [])
    M.case("dot_product_attention", f"{name}_{tag}", ins, outs, t=[scale], b=[causal, weights], rtol=rtol, atol=atol)


def main():
    global M
    M = Manifest("attention")
    for tag in ("f64", "f32"):
        case("basic", tag, (2, 5, 4), (2, 6, 4), (2, 6, 3))
        case("heads", tag, (1, 2, 5, 8), (1, 2, 7, 8), (1, 2, 7, 8), weights=True)
        case("bool_mask", tag, (2, 4, 3), (2, 5, 3), (2, 5, 2), mask_shape=(2, 1, 5), bool_mask=True)
        case("float_mask_broadcast", tag, (1, 3, 4, 6), (1, 3, 5, 6), (1, 3, 5, 6), mask_shape=(5,))
        case("causal_square", tag, (2, 6, 4), (2, 6, 4), (2, 6, 4), causal=True, weights=True)
        case("causal_fewer_queries", tag, (1, 3, 4), (1, 7, 4), (1, 7, 5), causal=True)
        case("explicit_scale", tag, (3, 2, 4), (3, 3, 4), (3, 3, 4), scale=0.7)
        case("shared_keys", tag, (2, 2, 4, 4), (4, 4), (4, 3))
    M.write("tools/gen_goldens_attention.py")


if __name__ == "__main__":
    main()
