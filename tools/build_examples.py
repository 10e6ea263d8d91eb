#!/usr/bin/env python3
"""Write the example graphs and their numpy reference outputs.

    PYTHONPATH=tools python3 tools/build_examples.py --out build/examples

writes, for each example NAME (mlp, cnn):

    NAME.lops                 the graph (weights from a fixed numpy seed)
    NAME.x.npy                a fixed input batch
    NAME.OUTPUT.npy           numpy's outputs for NAME.x.npy
    NAME.example.OUTPUT.npy   numpy's outputs for the example input that
                              `ops-run NAME.lops` feeds when given no --input
                              (see tools/ops_run.cpp; batch 1)

The examples:
  mlp  784-512-512-10: x[-1,784] -> matmul/bias_add/relu x2 -> matmul/bias_add
       -> logits, softmax -> probs
  cnn  x[-1,1,28,28] NCHW -> conv2d 3x3 (8) -> batchnorm -> relu -> maxpool2d 2x2
       -> conv2d 3x3 (16) -> batchnorm -> relu -> maxpool2d 2x2 -> reshape
       [-1,784] -> matmul + add (dense) -> logits, softmax -> probs

The references are computed here in numpy, in float32 like the graphs
(float64 accumulation where numpy uses it), independently of libops.
tests_cpu/graph/examples_test.cpp compares the graphs' outputs with them.

--fuzz-seeds DIR also writes a few small graphs to seed the loader fuzzer
(tests_cpu/fuzz/README.md).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libops_graph import Graph  # noqa: E402

SEED = 20240601


# ---- the example input of ops-run (tools/ops_run.cpp) ----------------------

def example_input(shape, dtype=np.float32):
    """Element i = ((7i + 3) mod 17 - 8) / 8, C order, 1 for unknown dims."""
    shape = [1 if d < 0 else d for d in shape]
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return (((i * 7 + 3) % 17 - 8) / 8.0).astype(dtype).reshape(shape)


# ---- numpy references -------------------------------------------------------

def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


def relu(z):
    return np.maximum(z, 0).astype(z.dtype)


def conv2d_nchw(x, w, b, pad):
    """Cross-correlation, stride 1, explicit zero padding; w [Cout,Cin,kH,kW]."""
    n, cin, h, wd = x.shape
    cout, _, kh, kw = w.shape
    xp = np.zeros((n, cin, h + 2 * pad, wd + 2 * pad), dtype=np.float64)
    xp[:, :, pad:pad + h, pad:pad + wd] = x
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, cout, oh, ow), dtype=np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + oh, j:j + ow]  # [n, cin, oh, ow]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.float64))
    out += b.astype(np.float64)[None, :, None, None]
    return out.astype(np.float32)


def batchnorm(x, mean, var, gamma, beta, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    scale = gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + eps)
    z = (x - mean.reshape(shape)) * scale.reshape(shape) + beta.reshape(shape)
    return z.astype(np.float32)


def maxpool2x2(x):
    n, c, h, w = x.shape
    return x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


# ---- the examples -------------------------------------------------------------

def mlp_weights(rng):
    sizes = [784, 512, 512, 10]
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        w = (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        b = rng.uniform(-0.1, 0.1, fan_out).astype(np.float32)
        layers.append((w, b))
    return layers


def mlp_graph(layers):
    g = Graph(device="cpu")
    h = g.placeholder("x", "float32", [-1, 784])
    for k, (w, b) in enumerate(layers):
        wv = g.constant(f"fc{k + 1}/w", w)
        bv = g.constant(f"fc{k + 1}/b", b)
        h = g.op("matmul", h, wv, name=f"fc{k + 1}/matmul")
        h = g.op("bias_add", h, bv, name=f"fc{k + 1}/bias_add")
        if k + 1 < len(layers):
            h = g.op("relu", h, name=f"fc{k + 1}/relu")
    g.output("logits", h)
    g.output("probs", g.op("softmax", h, name="softmax"))
    return g


def mlp_reference(layers, x):
    h = x
    for k, (w, b) in enumerate(layers):
        h = (h.astype(np.float64) @ w.astype(np.float64) + b).astype(np.float32)
        if k + 1 < len(layers):
            h = relu(h)
    return {"logits": h, "probs": softmax(h)}


def cnn_weights(rng):
    def conv(cout, cin):
        w = (rng.standard_normal((cout, cin, 3, 3)) * np.sqrt(2.0 / (cin * 9))).astype(np.float32)
        return w, rng.uniform(-0.1, 0.1, cout).astype(np.float32)

    def bn(c):
        return (rng.uniform(-0.2, 0.2, c).astype(np.float32),      # mean
                rng.uniform(0.5, 1.5, c).astype(np.float32),       # variance
                rng.uniform(0.8, 1.2, c).astype(np.float32),       # gamma
                rng.uniform(-0.1, 0.1, c).astype(np.float32))      # beta

    return {
        "conv1": conv(8, 1), "bn1": bn(8),
        "conv2": conv(16, 8), "bn2": bn(16),
        "dense": ((rng.standard_normal((784, 10)) * np.sqrt(1.0 / 784)).astype(np.float32),
                  rng.uniform(-0.1, 0.1, 10).astype(np.float32)),
    }


CONV_ARGS = [3, 3, 1, 1, 1, 1, 1, 1, 0]  # kH kW sH sW pH pW dH dW same_mode
POOL_ARGS = [2, 2, 2, 2, 0, 0, 1, 1, 0]
BN_EPS = 1e-5


def cnn_graph(p):
    g = Graph(device="cpu")
    h = g.placeholder("x", "float32", [-1, 1, 28, 28])
    for k in (1, 2):
        w, b = p[f"conv{k}"]
        h = g.op("conv2d", h, g.constant(f"conv{k}/w", w), g.constant(f"conv{k}/b", b),
                 i_args=CONV_ARGS, name=f"conv{k}")
        mean, var, gamma, beta = p[f"bn{k}"]
        h = g.op("batchnorm", h, g.constant(f"bn{k}/mean", mean), g.constant(f"bn{k}/variance", var),
                 g.constant(f"bn{k}/gamma", gamma), g.constant(f"bn{k}/beta", beta),
                 t_args=[BN_EPS], name=f"bn{k}")
        h = g.op("relu", h, name=f"relu{k}")
        h = g.op("maxpool2d", h, i_args=POOL_ARGS, name=f"pool{k}")
    h = g.op("reshape", h, i_args=[-1, 784], name="flatten")
    w, b = p["dense"]
    h = g.op("matmul", h, g.constant("dense/w", w), name="dense/matmul")
    h = g.op("add", h, g.constant("dense/b", b), name="dense/add")
    g.output("logits", h)
    g.output("probs", g.op("softmax", h, name="softmax"))
    return g


def cnn_reference(p, x):
    h = x
    for k in (1, 2):
        w, b = p[f"conv{k}"]
        h = conv2d_nchw(h, w, b, pad=1)
        h = batchnorm(h, *p[f"bn{k}"], BN_EPS)
        h = maxpool2x2(relu(h))
    h = h.reshape(h.shape[0], -1)
    w, b = p["dense"]
    h = (h.astype(np.float64) @ w.astype(np.float64) + b).astype(np.float32)
    return {"logits": h, "probs": softmax(h)}


def write_example(out, name, graph, reference, x):
    graph.save(os.path.join(out, f"{name}.lops"))
    np.save(os.path.join(out, f"{name}.x.npy"), x)
    for key, value in reference(x).items():
        np.save(os.path.join(out, f"{name}.{key}.npy"), value)
    example = example_input([-1] + list(x.shape[1:]))
    for key, value in reference(example).items():
        np.save(os.path.join(out, f"{name}.example.{key}.npy"), value)


def write_fuzz_seeds(out):
    """Small graphs covering every node kind, to seed the loader fuzzer."""
    os.makedirs(out, exist_ok=True)
    g = Graph()
    x = g.placeholder("x", "float32", [2, 3])
    c = g.constant("c", np.arange(6, dtype=np.float32).reshape(2, 3))
    g.output("y", g.op("add", x, c))
    g.output("z", g.legacy("pairwise", 2, x, c))
    g.output("s", g.legacy("reduce_same", 0, x, axes=[1]))
    g.output("m", g.legacy("reduce_float", 0, x, axes=[1], keep_dims=True))
    g.output("r", g.legacy("random", 0, shape=[2, 2], dtype="float64", extra=[-1, 1], seed=3))
    g.output("i", g.legacy("transform_any", 0, x, dtype="int32"))
    g.save(os.path.join(out, "add.lops"))

    g = Graph()
    flag = g.placeholder("flag", "bool", [])
    x = g.placeholder("x", "int64", [])
    then_g, else_g = g.subgraph("then"), g.subgraph("else")
    a = then_g.placeholder("a", "int64", [])
    then_g.output("o", then_g.op("add", a, then_g.constant("one", np.int64(1))))
    b = else_g.placeholder("b", "int64", [])
    else_g.output("o", else_g.op("multiply", b, else_g.constant("two", np.int64(2))))
    (picked,) = g.if_then_else(flag, then_g, else_g, inputs=[x])
    cond, body = g.subgraph("cond"), g.subgraph("body")
    i = cond.placeholder("i", "int64", [])
    cond.output("go", cond.legacy("scalar_bool", 1, i, cond.constant("n", np.int64(5))))
    j = body.placeholder("i", "int64", [])
    body.output("i", body.op("add", j, body.constant("one", np.int64(1))))
    (end,) = g.while_loop(cond, body, [picked])
    g.output("end", end)
    g.save(os.path.join(out, "control_flow.lops"))

    g = Graph()
    x = g.placeholder("x", "float32", [2, 3])
    extra = g.placeholder("extra", "float32", [2, 1], kind="sequence")
    parts = g.sequence("split", x, axis=1)
    last = g.sequence("at", extra, g.constant("last", np.int64(-1)))
    grown = g.sequence("erase", g.sequence("insert", parts, last), g.constant("first", np.int64(0)))
    g.output("joined", g.sequence("concat", grown, axis=1))
    g.output("stacked", g.sequence("concat", grown, axis=0, new_axis=True))
    g.output("n", g.sequence("length", grown))
    g.output("has", g.sequence("has_element", g.sequence("optional", of_sequence=True)))
    g.save(os.path.join(out, "sequences.lops"))

    g = Graph()
    x = g.placeholder("x", "float32", [1, 1, 4, 4])
    w = g.constant("w", np.ones((2, 1, 3, 3), np.float32))
    h = g.op("conv2d", x, w, i_args=CONV_ARGS)
    h = g.op("maxpool2d", g.op("relu", h), i_args=POOL_ARGS)
    g.output("y", g.op("softmax", g.op("reshape", h, i_args=[1, -1])))
    g.save(os.path.join(out, "cnn_small.lops"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="folder for the examples and references")
    ap.add_argument("--fuzz-seeds", help="folder for small fuzzer seed graphs")
    args = ap.parse_args()
    if not args.out and not args.fuzz_seeds:
        ap.error("give --out and/or --fuzz-seeds")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        rng = np.random.default_rng(SEED)
        layers = mlp_weights(rng)
        x = rng.uniform(0.0, 1.0, (3, 784)).astype(np.float32)
        write_example(args.out, "mlp", mlp_graph(layers), lambda v: mlp_reference(layers, v), x)
        params = cnn_weights(rng)
        x = rng.uniform(0.0, 1.0, (2, 1, 28, 28)).astype(np.float32)
        write_example(args.out, "cnn", cnn_graph(params), lambda v: cnn_reference(params, v), x)
    if args.fuzz_seeds:
        write_fuzz_seeds(args.fuzz_seeds)


if __name__ == "__main__":
    main()
