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


def linear_attention(q, k, v, state, decay, beta, hq, hkv, rule, scale):
    """The recurrence of ONNX's LinearAttention written out with loops over
    batch, KV head and step (float64): S *= exp(g); u = beta (v - S^T k) or v;
    S += k u^T; o = scale S^T q for each query head of the group."""
    B, T, _ = q.shape
    dk, dv = q.shape[2] // hq, v.shape[2] // hkv
    group = hq // hkv
    scale = scale if scale != 0.0 else 1.0 / np.sqrt(dk)
    S = state.astype(np.float64).copy()
    out = np.zeros((B, T, hq * dv))
    for b in range(B):
        for h in range(hkv):
            for t in range(T):
                kt = k[b, t, h * dk:(h + 1) * dk]
                vt = v[b, t, h * dv:(h + 1) * dv]
                if rule in (1, 3):
                    w = decay.shape[2] // hkv
                    g = decay[b, t, h * w:(h + 1) * w]
                    S[b, h] *= np.exp(g)[:, None]
                u = vt
                if rule in (2, 3):
                    rate = beta[b, t, h if beta.shape[2] > 1 else 0]
                    u = rate * (vt - S[b, h].T @ kt)
                S[b, h] += np.outer(kt, u)
                for j in range(group):
                    hh = h * group + j
                    out[b, t, hh * dv:(hh + 1) * dv] = scale * (S[b, h].T @ q[b, t, hh * dk:(hh + 1) * dk])
    return out, S


def linear_attention_case(name, dt, B, T, hq, hkv, dk, dv, rule, per_key_decay=False, beta_heads=None, scale=0.0):
    q = rng.standard_normal((B, T, hq * dk)).astype(dt)
    k = (rng.standard_normal((B, T, hkv * dk)) / np.sqrt(dk)).astype(dt)
    v = rng.standard_normal((B, T, hkv * dv)).astype(dt)
    state = (rng.standard_normal((B, hkv, dk, dv)) * 0.5).astype(dt)
    ins = [q, k, v, state]
    decay = beta = None
    if rule in (1, 3):
        decay = (-rng.random((B, T, hkv * (dk if per_key_decay else 1))) * 0.5).astype(dt)
        ins.append(decay)
    if rule in (2, 3):
        beta = rng.random((B, T, beta_heads or hkv)).astype(dt)
        ins.append(beta)
    out, S = linear_attention(*(a if a is None else a.astype(np.float64) for a in (q, k, v, state, decay, beta)),
                              hq, hkv, rule, scale)
    tol = 1e-4 if dt == np.float32 else 1e-10
    M.case("linear_attention", name, ins, [out.astype(dt), S.astype(dt)], i=[hq, hkv, rule], t=[scale],
           rtol=tol, atol=tol)


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
    # After the dot-product cases, so that their values stay as they were.
    for dt, tag in ((np.float64, "f64"), (np.float32, "f32")):
        linear_attention_case(f"linear_{tag}", dt, 2, 5, 2, 2, 4, 3, 0)
        linear_attention_case(f"gated_per_key_{tag}", dt, 1, 6, 2, 1, 4, 5, 1, per_key_decay=True)
        linear_attention_case(f"delta_{tag}", dt, 2, 4, 2, 2, 3, 4, 2, scale=0.5)
        linear_attention_case(f"gated_delta_gqa_{tag}", dt, 2, 7, 4, 2, 4, 4, 3, beta_heads=1)
        linear_attention_case(f"gated_delta_decode_{tag}", dt, 3, 1, 2, 2, 8, 2, 3)
    M.write("tools/gen_goldens_attention.py")


if __name__ == "__main__":
    main()
