#!/usr/bin/env python3
"""Models as exporters write them, in libops beside ONNX Runtime, same
weights, inputs and threads, in one process and one run.

  bench/compare_exported.py build/cpu-release/libops.so [--models ocr_det,...]
      [--threads 1,2] [--rounds 7] [--seconds 0.5] [--settle 0.2]

Each model is an ONNX graph with symbolic input dims and the spellings
PyTorch's exporters, Paddle2ONNX and tf2onnx write: flattens through Shape ->
Gather -> Concat -> Reshape, feature-pyramid upsampling by Resize to a
lateral map's Shape, Split heads, wide-kernel audio convolutions, a
bidirectional LSTM over a sequence whose length is the image's width.
libops loads the .onnx file itself (ops_graph_load_file).

Per model and thread count, three tables:
  speed      libops / ORT (all optimizations) at the model's benchmark shape
  dynamic    libops with the symbolic dims against the same model with its
             dims fixed to the benchmark shape, both at their second run
             (target: within 5%)
  first run  libops' load + first run at a shape against ORT's session
             creation + first run
Times are the median over rounds of each round's mean (compare_models.py's
time_engines), engines in random order with a pause before each turn; with
--stat median, the median of all single runs, which leaves out the runs a
busy host stretches (this shared 2-core machine moves a run of ocr_rec
from 2.1 to 20 ms now and then, which moves a round's mean by 20-30%).

Models (float32, NCHW, symbolic dims in brackets):
  text_cls    a text-line classifier of 53 small convolutions (8 to 64
              channels, batchnorm, relu, strides) on [N, 3, 48, 192], flattened
              by Shape/Gather/Concat/Reshape into a Gemm
  ocr_det     a DB-style text detector on [1, 3, H, W]: 4 stages down to /32,
              a feature pyramid upsampling by Resize to each lateral map's
              Shape, concat, a head ending in a sigmoid
  ocr_rec     a CRNN text recogniser on [N, 3, 32, W]: convolutions to height
              1, squeezed and transposed to [W/4, N, C] by Shape-computed
              Reshapes, a bidirectional LSTM, a per-step classifier
  audio       an audio classifier on [N, 1, 64, T]: an 8-channel 3x39 convolution
              with pads 19, then smaller ones, pooled over time
  yolo        a detector on [1, 3, H, W]: a strided backbone, Resize x2 by
              scales, concat, and heads Split into boxes and scores
  text_tfidf  a bag-of-n-grams text classifier on int64 tokens [N, T]:
              TfIdfVectorizer (2,000 unigrams, 6,000 bigrams, skips of 1,
              TFIDF) into a MatMul, as skl2onnx writes one
  chunk_map   a chunked encoder on [N, T, 64]: SplitToSequence into chunks
              of 16 steps (as many as T gives: a sequence known only at run
              time), SequenceMap of mean-pool, MatMul and Relu over them,
              ConcatFromSequence stacking the chunks' codes
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_models import LibopsModel, OrtModel, rel_error, time_engines  # noqa: E402
from compare_peers import Libops  # noqa: E402

import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


class Exporter:
    """An ONNX graph written as exporters write it, with random weights."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []
        self.count = 0

    def name(self, kind):
        self.count += 1
        return f"{kind}_{self.count}"

    def node(self, op, inputs, n_out=1, **attrs):
        outs = [self.name(op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, array, kind="c"):
        n = self.name(kind)
        self.inits.append(numpy_helper.from_array(np.require(array, requirements="C"), n))  # keeps 0-d
        return n

    def ints(self, *v):
        return self.const(np.array(v, np.int64), "i")

    def conv(self, x, cin, cout, k, stride=1, pad=None, kw=None, pad_w=None, bn=True, relu=True, groups=1):
        kw = kw or k
        pad = k // 2 if pad is None else pad
        pad_w = kw // 2 if pad_w is None else pad_w
        w = self.const((self.rng.standard_normal((cout, cin // groups, k, kw)) *
                        np.sqrt(2.0 / (cin // groups * k * kw))).astype(np.float32), "w")
        y = self.node("Conv", [x, w], kernel_shape=[k, kw], strides=[stride, stride], pads=[pad, pad_w, pad, pad_w],
                      group=groups)
        if bn:
            c = lambda a: self.const(a.astype(np.float32), "bn")  # noqa: E731
            y = self.node("BatchNormalization", [y, c(1 + 0.1 * self.rng.standard_normal(cout)),
                                                 c(0.1 * self.rng.standard_normal(cout)),
                                                 c(0.1 * self.rng.standard_normal(cout)), c(1 + 0.1 * self.rng.random(cout))])
        return self.node("Relu", [y]) if relu else y

    def shape_dims(self, x, *dims):
        """Shape(x)[dims] as a 1-D int64, the way torch.onnx writes x.size(d)."""
        s = self.node("Shape", [x])
        parts = [self.node("Unsqueeze", [self.node("Gather", [s, self.const(np.array(d, np.int64), "i")], axis=0),
                                         self.ints(0)]) for d in dims]
        return parts[0] if len(parts) == 1 else self.node("Concat", parts, axis=0)

    def model(self, x_dims, outputs, opset=17, x_type=TensorProto.FLOAT):
        g = helper.make_graph(self.nodes, "exported", [helper.make_tensor_value_info("x", x_type, x_dims)],
                              [helper.make_empty_tensor_value_info(o) for o in outputs], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="compare_exported")
        m.ir_version = 8
        return m


def text_cls():
    e = Exporter(1)
    x, c = "x", 3
    for stage, (cout, blocks) in enumerate([(8, 5), (16, 12), (32, 16), (48, 12), (64, 7)]):
        for b in range(blocks):
            stride = 2 if b == 0 and stage in (1, 2, 3) else 1
            x = e.conv(x, c, cout, 3, stride=stride)
            c = cout
    # x.view(x.size(0), -1) then a linear layer; the pooled width is fixed.
    x = e.node("AveragePool", [x], kernel_shape=[6, 4], strides=[6, 4])
    flat = e.node("Reshape", [x, e.node("Concat", [e.shape_dims(x, 0), e.ints(-1)], axis=0)])
    w = e.const((e.rng.standard_normal((10, 64 * 6)) * 0.05).astype(np.float32), "fc")
    y = e.node("Gemm", [flat, w, e.const(np.zeros(10, np.float32), "b")], transB=1)
    e.nodes.append(helper.make_node("Softmax", [y], ["y"], axis=1))
    return e.model(["N", 3, 48, 192], ["y"]), {"N": 4}


def ocr_det():
    e = Exporter(2)
    x, c, feats = "x", 3, []
    for cout, n in [(16, 2), (32, 2), (64, 2), (96, 2), (128, 2)]:
        for b in range(n):
            x = e.conv(x, c, cout, 3, stride=2 if b == 0 else 1)
            c = cout
        feats.append((x, c))
    feats = feats[1:]  # /4, /8, /16, /32
    lat = [e.conv(f, fc, 64, 1, bn=False, relu=False) for f, fc in feats]
    top = lat[-1]
    outs = [top]
    for l in reversed(lat[:-1]):  # resize the coarser map to the lateral map's size, read at run time
        sizes = e.shape_dims(l, 0, 1, 2, 3)
        top = e.node("Add", [e.node("Resize", [top, "", "", sizes], mode="nearest"), l])
        outs.append(top)
    finest = outs[-1]
    ups = [e.node("Resize", [o, "", "", e.shape_dims(finest, 0, 1, 2, 3)], mode="nearest") for o in outs]
    fused = e.node("Concat", ups, axis=1)
    h = e.conv(fused, 256, 64, 3)
    h = e.conv(h, 64, 1, 1, bn=False, relu=False)
    e.nodes.append(helper.make_node("Sigmoid", [h], ["y"]))
    return e.model([1, 3, "H", "W"], ["y"]), {"H": 320, "W": 480}


def ocr_rec():
    e = Exporter(3)
    x, c = "x", 3
    for cout, stride in [(32, (2, 2)), (64, (2, 2)), (96, (2, 1)), (128, (2, 1)), (128, (2, 1))]:
        w = e.const((e.rng.standard_normal((cout, c, 3, 3)) * np.sqrt(2.0 / (c * 9))).astype(np.float32), "w")
        x = e.node("Relu", [e.node("Conv", [x, w], kernel_shape=[3, 3], strides=list(stride), pads=[1, 1, 1, 1])])
        c = cout
    # [N, C, 1, W'] -> [W', N, C]: Squeeze, then Transpose (PaddleOCR and torch write it so).
    seq = e.node("Transpose", [e.node("Squeeze", [x, e.ints(2)])], perm=[2, 0, 1])
    hid = 96
    wts = lambda *s: e.const((e.rng.standard_normal(s) / np.sqrt(s[-1])).astype(np.float32), "l")  # noqa: E731
    lstm_y = e.node("LSTM", [seq, wts(2, 4 * hid, c), wts(2, 4 * hid, hid), e.const(np.zeros((2, 8 * hid), np.float32), "lb")],
                    n_out=1, hidden_size=hid, direction="bidirectional")
    # [W', 2, N, hid] -> [W', N, 2 * hid] through Shape-computed dims.
    t = e.node("Transpose", [lstm_y], perm=[0, 2, 1, 3])
    t = e.node("Reshape", [t, e.node("Concat", [e.shape_dims(t, 0, 1), e.ints(-1)], axis=0)])
    logits = e.node("MatMul", [t, e.const((e.rng.standard_normal((2 * hid, 97)) * 0.05).astype(np.float32), "fc")])
    e.nodes.append(helper.make_node("Softmax", [logits], ["y"], axis=-1))
    return e.model(["N", 3, 32, "W"], ["y"]), {"N": 2, "W": 320}


def audio():
    e = Exporter(4)
    x = e.conv("x", 1, 8, 3, kw=39, pad=1, pad_w=19)
    x = e.conv(x, 8, 8, 3, kw=39, pad=1, pad_w=19)
    x = e.node("MaxPool", [x], kernel_shape=[2, 4], strides=[2, 4])
    x = e.conv(x, 8, 32, 3, kw=9, pad_w=4)
    x = e.node("MaxPool", [x], kernel_shape=[2, 4], strides=[2, 4])
    x = e.conv(x, 32, 64, 3)
    x = e.node("ReduceMean", [x], axes=[2, 3], keepdims=0)
    w = e.const((e.rng.standard_normal((64, 12)) * 0.1).astype(np.float32), "fc")
    e.nodes.append(helper.make_node("MatMul", [x, w], ["y"]))
    return e.model(["N", 1, 64, "T"], ["y"]), {"N": 2, "T": 400}


def yolo():
    e = Exporter(5)
    x, c, feats = "x", 3, []
    for cout in [16, 32, 64, 128, 256]:
        x = e.conv(x, c, cout, 3, stride=2)
        x = e.conv(x, cout, cout, 3)
        c = cout
        feats.append((x, c))
    p5, c5 = feats[-1]
    p4, c4 = feats[-2]
    up = e.node("Resize", [e.conv(p5, c5, 128, 1), "", e.const(np.array([1, 1, 2, 2], np.float32), "s")],
                mode="nearest")
    p4 = e.conv(e.node("Concat", [up, p4], axis=1), 128 + c4, 128, 3)
    heads = []
    for p, pc in [(p4, 128), (p5, c5)]:
        h = e.conv(p, pc, 4 + 1 + 16, 1, bn=False, relu=False)  # 4 box, 1 objectness, 16 classes
        box, obj, cls = e.node("Split", [h, e.ints(4, 1, 16)], n_out=3, axis=1)
        merged = e.node("Concat", [box, e.node("Sigmoid", [obj]), e.node("Sigmoid", [cls])], axis=1)
        # [1, 21, h, w] -> [1, 21, h * w], as exporters flatten the grid.
        heads.append(e.node("Reshape", [merged, e.node("Concat", [e.shape_dims(merged, 0, 1), e.ints(-1)], axis=0)]))
    e.nodes.append(helper.make_node("Concat", heads, ["y"], axis=2))
    return e.model([1, 3, "H", "W"], ["y"]), {"H": 320, "W": 320}


VOCAB = 5000


def tokens(rng, shape):
    """Token ids with a text's skew: Zipf-distributed ranks below VOCAB."""
    return np.minimum(rng.zipf(1.3, shape), VOCAB) - 1


def text_tfidf():
    e = Exporter(6)
    # 2000 unigrams and 6000 bigrams of the corpus's tokens, TFIDF-weighted
    # with skips of up to 1, then a linear classifier (as skl2onnx writes a
    # TfidfVectorizer + LogisticRegression over integer tokens).
    unigrams = e.rng.permutation(VOCAB)[:2000]
    bigrams = set()
    while len(bigrams) < 6000:
        bigrams.add(tuple(int(t) for t in tokens(e.rng, 2)))
    pool = [int(t) for t in unigrams] + [t for g in sorted(bigrams) for t in g]
    n = len(unigrams) + len(bigrams)
    y = e.node("TfIdfVectorizer", ["x"], mode="TFIDF", min_gram_length=1, max_gram_length=2, max_skip_count=1,
               ngram_counts=[0, len(unigrams)], ngram_indexes=[int(v) for v in e.rng.permutation(n)],
               pool_int64s=pool, weights=[float(v) for v in e.rng.random(n) + 0.5])
    w = e.const((e.rng.standard_normal((n, 4)) * 0.1).astype(np.float32), "fc")
    e.nodes.append(helper.make_node("MatMul", [y, w], ["y"]))
    return e.model(["N", "T"], ["y"], x_type=TensorProto.INT64), {"N": 64, "T": 256}


def chunk_map():
    e = Exporter(7)
    w = (e.rng.standard_normal((64, 128)) * 0.1).astype(np.float32)
    body = helper.make_graph(
        [helper.make_node("ReduceMean", ["chunk"], ["pooled"], axes=[1], keepdims=0),
         helper.make_node("MatMul", ["pooled", "w"], ["proj"]), helper.make_node("Relu", ["proj"], ["code"])],
        "chunk_body", [helper.make_tensor_value_info("chunk", TensorProto.FLOAT, ["N", None, 64])],
        [helper.make_tensor_value_info("code", TensorProto.FLOAT, ["N", 128])], [numpy_helper.from_array(w, "w")])
    chunks = e.node("SplitToSequence", ["x", e.const(np.array(16, np.int64), "i")], axis=1)
    codes = e.node("SequenceMap", [chunks], body=body)
    e.nodes.append(helper.make_node("ConcatFromSequence", [codes], ["y"], axis=1, new_axis=1))
    return e.model(["N", "T", 64], ["y"]), {"N": 8, "T": 512}


MODELS = {"text_cls": text_cls, "ocr_det": ocr_det, "ocr_rec": ocr_rec, "audio": audio, "yolo": yolo,
          "text_tfidf": text_tfidf, "chunk_map": chunk_map}


def fixed(model, dims):
    """A copy of `model` with its symbolic input dims set to `dims`."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for d in m.graph.input[0].type.tensor_type.shape.dim:
        if d.dim_param:
            d.dim_value = dims[d.dim_param]
    return m


def input_shape(model, dims):
    return tuple(d.dim_value if d.dim_value else dims[d.dim_param] for d in model.graph.input[0].type.tensor_type.shape.dim)


def first_run(make, run):
    t = time.perf_counter()
    engine = make()
    run(engine)
    return 1e3 * (time.perf_counter() - t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("libops")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--settle", type=float, default=0.2)
    ap.add_argument("--stat", choices=["mean", "median"], default="mean")
    a = ap.parse_args()
    ops = Libops(a.libops)
    tmp = tempfile.mkdtemp()
    rows = []
    for name in a.models.split(","):
        model, dims = MODELS[name]()
        shape = input_shape(model, dims)
        if model.graph.input[0].type.tensor_type.elem_type == TensorProto.INT64:
            x = tokens(np.random.default_rng(0), shape).astype(np.int64)
        else:
            x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        paths = {}
        for kind, m in (("dynamic", model), ("fixed", fixed(model, dims))):
            paths[kind] = os.path.join(tmp, f"{name}_{kind}.onnx")
            onnx.save(m, paths[kind])
        for threads in [int(t) for t in a.threads.split(",")]:
            ops.lib.ops_set_num_threads(threads)

            def make_lib(kind):
                lib = LibopsModel(ops, onnx_path=paths[kind])
                lib.bind(x)
                return lib

            def make_ort():
                o = OrtModel(model.SerializeToString(), threads, optimize=True)
                o.bind(x)
                return o

            first = {"libops": first_run(lambda: make_lib("dynamic"), lambda e: e.run()),
                     "ort": first_run(make_ort, lambda e: e.run())}
            engines = {"libops": make_lib("dynamic"), "libops_fixed": make_lib("fixed"), "ort": make_ort()}
            for e in engines.values():
                e.run()
            want = engines["ort"].io.copy_outputs_to_cpu()[0]
            errs = {k: rel_error(engines[k].output(want.shape), want) for k in ("libops", "libops_fixed")}
            times = time_engines(engines, a.rounds, a.seconds, stat=a.stat, settle=a.settle)
            rows.append((name, threads, shape, times, first, errs))
            print(f"{name:9s} {threads}t  x{list(shape)}  libops {times['libops']:8.3f} ms  fixed dims "
                  f"{times['libops_fixed']:8.3f}  ORT {times['ort']:8.3f}  | libops/ORT "
                  f"{times['libops'] / times['ort']:5.2f}  dynamic/fixed {times['libops'] / times['libops_fixed']:5.3f}"
                  f"  | first run: libops {first['libops']:7.1f} ms, ORT {first['ort']:7.1f} ms  "
                  f"| max rel err {max(errs.values()):.1e}", flush=True)
    worst = max(r[3]["libops"] / r[3]["ort"] for r in rows)
    worst_dyn = max(r[3]["libops"] / r[3]["libops_fixed"] for r in rows)
    print(f"\nworst libops/ORT {worst:.2f}; worst dynamic/fixed {worst_dyn:.3f}")


if __name__ == "__main__":
    main()
