#!/usr/bin/env python3
"""Whole models in libops beside ONNX Runtime, same weights, inputs and threads.

  bench/compare_models.py build/cpu-release/libops.so [--models mlp_b1,resnet18_b1]
      [--threads 1,2] [--rounds 7] [--seconds 0.5] [--settle 0.2] [--via builder|onnx]
      [--profile] [--floor] [--stat mean|median] [--unfused]

Needs `pip install onnxruntime onnx flatbuffers numpy` (not build
dependencies) and flatc on PATH for the libops graph builder.

Each model is written once, in the small layer vocabulary below, and emitted
twice from one seed: as a libops graph (tools/libops_graph) and as ONNX
(onnx.helper, opset 17), with the same float32 weights. --via onnx instead
gives libops the ONNX file itself (ops_graph_load_file on the .onnx), which
measures the importer's graphs; the default builds libops' graph directly.

Engines, each at every thread count given:
  libops     the graph on the CPU (ops_set_num_threads)
  ort        ONNX Runtime with all its graph optimizations (its default)
  ort_basic  ONNX Runtime with no graph optimizations (ORT_DISABLE_ALL): the
             same node-by-node work libops does before any graph rewrite
  libops_unfused  (--unfused) libops with element-wise fusion off
             (LIBOPS_GRAPH_FUSION=0 while it loads): what the fusion gives
The first run of each engine (loading or session creation, then one run)
is timed once and reported beside the timings: what a new shape or a new
process costs before the steady state.

Every engine's output is first compared with the others' (relative error
under 1e-4 of the largest magnitude); then rounds of timing: in each round
the engines run in random order, each for about --seconds after a pause of
--settle seconds, and the figure is
the median over rounds of each round's mean time per run (--stat median:
the median of all single runs, which leaves out the runs a busy host
stretches). Ratios are libops time / ORT time: below 1, libops is faster.
The pause is there because the engines share a process: an engine's worker
threads keep spinning for a while after its last run, on the cores the next
engine needs. Measured at 2 threads: libops' LSTM took 17.1-17.3 ms per run
in the half second right after ONNX Runtime's runs and 15.6-15.8 ms after a
0.2 s pause; ONNX Runtime after libops, 16.2-17.0 and 16.0 ms.

--profile adds, per model, libops' per-node time summed by op beside ONNX
Runtime's (its profiler, all optimizations), from one run each after the
timing.

--floor adds each model's multiply-add floor: the FLOPs of its Conv,
ConvTranspose, MatMul, Gemm and LSTM / GRU / RNN nodes (2 per multiply-add,
from ONNX shape inference; every other node left out) divided by the GEMM
rate of this machine, measured in the same run as libops' float32 matmul
of square 512 and 1024 matrices at each thread count (the best round). An
engine that does these multiply-adds in float32 cannot run the model
faster, so where 0.9 of ORT's time is below the floor, no kernel work
reaches a 0.9 target. Fast algorithms do fewer: with Winograd's 3x3
convolutions libops runs the ResNets, U-Net and conv3x3 below it. And it
is only a lower bound: depthwise and narrow convolutions are bound by
memory long before the FMA units.

Models (float32, NCHW):
  mlp_b1, mlp_b64         784-512-512-10, ReLU, batch 1 / 64
  resnet18_b1, _b8        ResNet-18 at 224x224 (basic blocks), batch 1 / 8
  resnet50_b1             ResNet-50 (bottleneck blocks), batch 1
  mobilenetv2_b1, _b8     MobileNetV2 1.0 at 224x224 (depthwise convolutions,
                          ReLU6, residuals), batch 1 / 8
  unet_b1                 a 4-level U-Net at 128x128: conv + batchnorm + relu,
                          max-pool, ConvTranspose, skip concats
  bert                    2 BERT-style layers (d 256, 4 heads, FFN 1024,
                          sequence 128) as exporters write them: decomposed
                          LayerNorm, GELU via Erf, an additive attention mask
  encoder                 one post-LN transformer encoder block: d 512, 8
                          heads, FFN 2048 with ReLU, sequence 128, batch 1
                          (libops' layer_norm op when registered, else its
                          mean / variance decomposition)
  conv3x3_b8              4 x (3x3 conv 64->64 + bias + relu) at 56x56,
                          batch 8: the conv case of the whole-model issue
  lstm_b16                an LSTM classifier: sequence 64, batch 16, 256
                          features, hidden 512, last h -> linear -> softmax
  mobilenetv3s_b1         MobileNetV3-Small at 224x224 with HardSwish and
                          HardSigmoid written out (Add, Clip, Mul, Div) and
                          squeeze-and-excite blocks, as exporters write it
  swiglu_mlp              a LLaMA-style feed-forward block, (silu(x W1) *
                          (x W3)) W2 on [256, 512], hidden 1376, SiLU as
                          x * Sigmoid(x)
  mish_convs              4 x (3x3 conv 64->64 + batchnorm + Mish) at 56x56,
                          Mish as x * Tanh(Softplus(x)) (YOLOv4's spelling)
  chain_16m               tanh(x * 2 + 1) * x over 16M float32 (four
                          element-wise nodes; Note [Element-wise fusion])
"""
import argparse
import ctypes
import json
import os
import random
import statistics
import sys
import tempfile
import time

import numpy as np

try:
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    sys.exit(f"compare_models.py needs onnxruntime and onnx ({e}); pip install onnxruntime onnx")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, HERE)
from compare_peers import Libops  # noqa: E402
from libops_graph import Graph  # noqa: E402


class ModelBuilder:
    """One model, emitted as a libops graph and as an ONNX graph at once.

    Values are pairs (libops Value, ONNX tensor name). Weights are drawn from
    one numpy generator, so both graphs hold the same numbers."""

    def __init__(self, name, seed, libops_ops):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.g = Graph(device="cpu")
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.count = 0
        self.has_op = libops_ops  # name -> bool: is the op registered in this libops

    def _id(self, kind):
        self.count += 1
        return f"{kind}_{self.count}"

    def input(self, name, shape):
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        self.input_shape = tuple(shape)
        return self.g.placeholder(name, "float32", list(shape)), name

    def output(self, v, shape, name="y"):
        self.g.output(name, v[0])
        self.nodes.append(helper.make_node("Identity", [v[1]], [name]))
        self.outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))

    def const(self, array, kind="w"):
        name = self._id(kind)
        array = np.ascontiguousarray(array)
        self.inits.append(numpy_helper.from_array(array, name))
        return self.g.constant(name, array), name

    def weight(self, shape, fan_in):
        return self.const((self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32))

    def _onnx(self, op, inputs, n_out=1, **attrs):
        outs = [self._id(op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, [v[1] if isinstance(v, tuple) else v for v in inputs], outs, **attrs))
        return outs[0] if n_out == 1 else outs

    # ---- layers ----
    def conv(self, x, cin, cout, k, stride=1, pad=0, bias=False, groups=1):
        w = self.weight((cout, cin // groups, k, k), cin // groups * k * k)
        ins = [x[0], w[0]]
        if bias:
            b = self.const((self.rng.standard_normal(cout) * 0.1).astype(np.float32), "b")
            ins.append(b[0])
        extra = {"groups": groups} if groups != 1 else {}
        y = self.g.op("conv2d", *ins, kH=k, kW=k, sH=stride, sW=stride, pH=pad, pW=pad, dH=1, dW=1, same_mode=0,
                      **extra)
        onnx_ins = [x, w] + ([b] if bias else [])
        return y, self._onnx("Conv", onnx_ins, kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4,
                             group=groups)

    def batchnorm(self, x, c):
        gamma = self.const((1 + 0.1 * self.rng.standard_normal(c)).astype(np.float32), "gamma")
        beta = self.const((0.1 * self.rng.standard_normal(c)).astype(np.float32), "beta")
        mean = self.const((0.1 * self.rng.standard_normal(c)).astype(np.float32), "mean")
        var = self.const((1 + 0.1 * self.rng.random(c)).astype(np.float32), "var")
        y = self.g.op("batchnorm", x[0], mean[0], var[0], gamma[0], beta[0], axis=1, epsilon=1e-5)
        return y, self._onnx("BatchNormalization", [x, gamma, beta, mean, var], epsilon=1e-5)

    def relu(self, x):
        return self.g.op("relu", x[0]), self._onnx("Relu", [x])

    def deconv(self, x, cin, cout, k, stride):
        """ConvTranspose k x k, stride, no padding (U-Net upsampling)."""
        w = self.weight((cin, cout, k, k), cin * k * k)
        y = self.g.op("deconv2d", x[0], w[0], kH=k, kW=k, sH=stride, sW=stride, pH=0, pW=0, dH=1, dW=1, same_mode=0)
        return y, self._onnx("ConvTranspose", [x, w], kernel_shape=[k, k], strides=[stride, stride])

    def concat(self, a, b, axis=1):
        return self.g.op("concat", a[0], b[0], axis=axis), self._onnx("Concat", [a, b], axis=axis)

    def gelu(self, x):
        """The erf form as exporters write it: 0.5 * x * (1 + erf(x / sqrt(2)))."""
        c = {v: self.const(np.array(v, np.float32), "c") for v in (np.sqrt(2.0), 1.0, 0.5)}
        e = self._onnx("Erf", [self._onnx("Div", [x, c[np.sqrt(2.0)]])])
        y = self._onnx("Mul", [self._onnx("Mul", [x, self._onnx("Add", [e, c[1.0]])]), c[0.5]])
        return self.g.op("gelu", x[0]), y

    def layer_norm_decomposed(self, x, d, eps=1e-12):
        """LayerNormalization as older exporters write it (ReduceMean, Sub,
        Pow, Sqrt, Div); libops runs its layer_norm op."""
        gamma = self.const((1 + 0.1 * self.rng.standard_normal(d)).astype(np.float32), "gamma")
        beta = self.const((0.1 * self.rng.standard_normal(d)).astype(np.float32), "beta")
        two = self.const(np.array(2.0, np.float32), "two")
        e = self.const(np.array(eps, np.float32), "eps")
        mean = self._onnx("ReduceMean", [x], axes=[-1])
        xc = self._onnx("Sub", [x, mean])
        var = self._onnx("ReduceMean", [self._onnx("Pow", [xc, two])], axes=[-1])
        y = self._onnx("Add", [self._onnx("Mul", [self._onnx("Div", [xc, self._onnx("Sqrt", [self._onnx("Add", [var, e])])]),
                                                  gamma]), beta])
        return self.g.op("layer_norm", x[0], gamma[0], beta[0], axis=-1, epsilon=eps), y

    def relu6(self, x):
        lo = self.const(np.array(0, np.float32), "lo")
        hi = self.const(np.array(6, np.float32), "hi")
        return self.g.op("relu6", x[0]), self._onnx("Clip", [x, lo, hi])

    def add(self, a, b):
        return self.g.op("add", a[0], b[0]), self._onnx("Add", [a, b])

    def maxpool(self, x, k, s, p):
        y = self.g.op("maxpool2d", x[0], kH=k, kW=k, sH=s, sW=s, pH=p, pW=p, dH=1, dW=1, same_mode=0)
        return y, self._onnx("MaxPool", [x], kernel_shape=[k, k], strides=[s, s], pads=[p] * 4)

    def global_avgpool_flatten(self, x):
        """[N, C, H, W] -> [N, C]."""
        y = self.g.op("reduce_mean", x[0], axes=[2, 3])
        return y, self._onnx("Flatten", [self._onnx("GlobalAveragePool", [x])], axis=1)

    def linear(self, x, fin, fout):
        """x @ W + b over x's last dim (MatMul + Add, as exporters write it)."""
        w = self.weight((fin, fout), fin)
        b = self.const((self.rng.standard_normal(fout) * 0.1).astype(np.float32), "b")
        y = self.g.op("add", self.g.op("matmul", x[0], w[0]), b[0])
        return y, self._onnx("Add", [self._onnx("MatMul", [x, w]), b])

    def reshape(self, x, shape):
        s = self.const(np.array(shape, np.int64), "shape")
        return self.g.op("reshape", x[0], shape=list(shape)), self._onnx("Reshape", [x, s])

    def transpose(self, x, perm):
        return self.g.op("permute", x[0], perm=list(perm)), self._onnx("Transpose", [x], perm=list(perm))

    def matmul(self, a, b):
        return self.g.op("matmul", a[0], b[0]), self._onnx("MatMul", [a, b])

    def scale(self, x, s):
        c = self.const(np.array(s, np.float32), "scale")
        return self.g.op("multiply", x[0], c[0]), self._onnx("Mul", [x, c])

    def softmax(self, x):
        return self.g.op("softmax", x[0], axis=-1), self._onnx("Softmax", [x], axis=-1)

    def unary(self, lib_op, onnx_op, x):
        return self.g.op(lib_op, x[0]), self._onnx(onnx_op, [x])

    def binary(self, lib_op, onnx_op, a, b):
        return self.g.op(lib_op, a[0], b[0]), self._onnx(onnx_op, [a, b])

    def number(self, v):
        return self.const(np.array(v, np.float32), "c")

    def clip(self, x, lo, hi):
        onnx_y = self._onnx("Clip", [x, self.number(lo), self.number(hi)])
        return self.g.op("clip", x[0], lo=float(lo), hi=float(hi)), onnx_y

    def hard_sigmoid_decomposed(self, x):
        """clip(x + 3, 0, 6) / 6, as exporters write HardSigmoid."""
        return self.binary("divide", "Div", self.clip(self.binary("add", "Add", x, self.number(3)), 0, 6),
                           self.number(6))

    def hard_swish_decomposed(self, x):
        """x * clip(x + 3, 0, 6) / 6, as exporters write HardSwish."""
        shifted = self.clip(self.binary("add", "Add", x, self.number(3)), 0, 6)
        return self.binary("divide", "Div", self.binary("multiply", "Mul", x, shifted), self.number(6))

    def layer_norm(self, x, d, eps=1e-5):
        gamma = self.const((1 + 0.1 * self.rng.standard_normal(d)).astype(np.float32), "gamma")
        beta = self.const((0.1 * self.rng.standard_normal(d)).astype(np.float32), "beta")
        onnx_y = self._onnx("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=eps)
        if self.has_op("layer_norm"):
            return self.g.op("layer_norm", x[0], gamma[0], beta[0], axis=-1, epsilon=eps), onnx_y
        g = self.g  # (x - mean) / sqrt(var + eps) * gamma + beta, var the biased mean of squares
        mean = g.op("reduce_mean", x[0], axes=[-1], keep_dims=True)
        xc = g.op("subtract", x[0], mean)
        var = g.op("reduce_mean", g.op("multiply", xc, xc), axes=[-1], keep_dims=True)
        e = g.constant(self._id("eps"), np.array(eps, np.float32))
        inv = g.op("rsqrt", g.op("add", var, e))
        return g.op("add", g.op("multiply", g.op("multiply", xc, inv), gamma[0]), beta[0]), onnx_y

    def lstm_last_h(self, x, fin, hidden):
        """An LSTM layer over x [T, N, fin] (ONNX's weight layout and gate
        order, one bias of 8H), giving the last h [N, hidden]."""
        w = self.const((self.rng.standard_normal((1, 4 * hidden, fin)) / np.sqrt(fin)).astype(np.float32), "w")
        r = self.const((self.rng.standard_normal((1, 4 * hidden, hidden)) / np.sqrt(hidden)).astype(np.float32), "r")
        b = self.const((0.1 * self.rng.standard_normal((1, 8 * hidden))).astype(np.float32), "b")
        y = self.g.op("lstm_layer", x[0], w[0], r[0], b[0], weights_format=1, has_biases=True, ret_full_seq=False,
                      ret_last_h=True)
        h = self._onnx("LSTM", [x, w, r, b], n_out=2, hidden_size=hidden)[1]
        axes = self.const(np.array([0], np.int64), "axes")
        return y, self._onnx("Squeeze", [h, axes])

    def onnx_bytes(self):
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model.SerializeToString()


# ---- the models ----

def mlp(m, batch):
    x = m.input("x", (batch, 784))
    h = m.relu(m.linear(x, 784, 512))
    h = m.relu(m.linear(h, 512, 512))
    m.output(m.linear(h, 512, 10), (batch, 10))


def resnet(m, batch, blocks, bottleneck):
    x = m.input("x", (batch, 3, 224, 224))
    h = m.relu(m.batchnorm(m.conv(x, 3, 64, 7, 2, 3), 64))
    h = m.maxpool(h, 3, 2, 1)
    cin = 64
    for stage, (n, width) in enumerate(zip(blocks, (64, 128, 256, 512))):
        for b in range(n):
            stride = 2 if stage > 0 and b == 0 else 1
            cout = width * 4 if bottleneck else width
            if bottleneck:
                y = m.relu(m.batchnorm(m.conv(h, cin, width, 1), width))
                y = m.relu(m.batchnorm(m.conv(y, width, width, 3, stride, 1), width))
                y = m.batchnorm(m.conv(y, width, cout, 1), cout)
            else:
                y = m.relu(m.batchnorm(m.conv(h, cin, width, 3, stride, 1), width))
                y = m.batchnorm(m.conv(y, width, width, 3, 1, 1), width)
            shortcut = h
            if stride != 1 or cin != cout:
                shortcut = m.batchnorm(m.conv(h, cin, cout, 1, stride), cout)
            h = m.relu(m.add(y, shortcut))
            cin = cout
    m.output(m.linear(m.global_avgpool_flatten(h), cin, 1000), (batch, 1000))


def conv_chain(m, batch, layers=4, channels=64, size=56):
    """The whole-model issue's conv 3x3 case (N8 C64 56x56) as a network
    runs it: a chain of 3x3 conv + relu layers, so each engine keeps its
    own layout between them and reorders only at the chain's ends."""
    h = m.input("x", (batch, channels, size, size))
    for _ in range(layers):
        h = m.relu(m.conv(h, channels, channels, 3, 1, 1, bias=True))
    m.output(h, (batch, channels, size, size))


def mobilenet_v2(m, batch):
    """MobileNetV2 1.0 at 224x224: inverted residual blocks (1x1 expand,
    3x3 depthwise, 1x1 project), ReLU6, residual adds."""
    def conv_bn(h, cin, cout, k, stride=1, groups=1, act=True):
        y = m.batchnorm(m.conv(h, cin, cout, k, stride, k // 2, groups=groups), cout)
        return m.relu6(y) if act else y

    x = m.input("x", (batch, 3, 224, 224))
    h = conv_bn(x, 3, 32, 3, 2)
    cin = 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)):
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = conv_bn(h, cin, hidden, 1) if t != 1 else h
            y = conv_bn(y, hidden, hidden, 3, stride, groups=hidden)
            y = conv_bn(y, hidden, c, 1, act=False)
            h = m.add(h, y) if stride == 1 and cin == c else y
            cin = c
    h = conv_bn(h, cin, 1280, 1)
    m.output(m.linear(m.global_avgpool_flatten(h), 1280, 1000), (batch, 1000))


def mobilenet_v3_small(m, batch):
    """MobileNetV3-Small at 224x224 as exporters write it: HardSwish and
    HardSigmoid spelled out as Add, Clip, Mul and Div, squeeze-and-excite
    blocks (global pool, 1x1 convs, the gate multiplied in), batchnorm."""
    def act(h, hs):
        return m.hard_swish_decomposed(h) if hs else m.relu(h)

    def conv_bn(h, cin, cout, k, stride=1, groups=1):
        return m.batchnorm(m.conv(h, cin, cout, k, stride, k // 2, groups=groups), cout)

    def squeeze_excite(h, c):
        pooled = m.g.op("reduce_mean", h[0], axes=[2, 3], keep_dims=True), m._onnx("GlobalAveragePool", [h])
        s = m.relu(m.conv(pooled, c, c // 4, 1, bias=True))
        gate = m.hard_sigmoid_decomposed(m.conv(s, c // 4, c, 1, bias=True))
        return m.binary("multiply", "Mul", h, gate)

    x = m.input("x", (batch, 3, 224, 224))
    h = act(conv_bn(x, 3, 16, 3, 2), True)
    cin = 16
    # kernel, expansion, output channels, squeeze-excite, hard swish, stride
    for k, exp, c, se, hs, s in ((3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2),
                                 (3, 88, 24, False, False, 1), (5, 96, 40, True, True, 2),
                                 (5, 240, 40, True, True, 1), (5, 240, 40, True, True, 1),
                                 (5, 120, 48, True, True, 1), (5, 144, 48, True, True, 1),
                                 (5, 288, 96, True, True, 2), (5, 576, 96, True, True, 1),
                                 (5, 576, 96, True, True, 1)):
        y = act(conv_bn(h, cin, exp, 1), hs) if exp != cin else h
        y = act(conv_bn(y, exp, exp, k, s, groups=exp), hs)
        if se:
            y = squeeze_excite(y, exp)
        y = conv_bn(y, exp, c, 1)
        h = m.add(h, y) if s == 1 and cin == c else y
        cin = c
    h = act(conv_bn(h, cin, 576, 1), True)
    h = act(m.linear(m.global_avgpool_flatten(h), 576, 1024), True)
    m.output(m.linear(h, 1024, 1000), (batch, 1000))


def swiglu_mlp(m, tokens=256, d=512, hidden=1376):
    """A LLaMA-style feed-forward block on [tokens, d] as exporters write it:
    (silu(x W1) * (x W3)) W2 with SiLU spelled out as x * Sigmoid(x)."""
    x = m.input("x", (tokens, d))
    def proj(h, fin, fout):
        w = m.weight((fin, fout), fin)
        return m.binary("matmul", "MatMul", h, w)
    a = proj(x, d, hidden)
    gate = m.binary("multiply", "Mul", a, m.unary("sigmoid", "Sigmoid", a))
    h = m.binary("multiply", "Mul", gate, proj(x, d, hidden))
    m.output(proj(h, hidden, d), (tokens, d))


def mish_convs(m, batch=1, channels=64, size=56, layers=4):
    """A YOLOv4-style chain of 3x3 conv + batchnorm + Mish, with Mish
    spelled out as x * tanh(softplus(x))."""
    h = m.input("x", (batch, channels, size, size))
    for _ in range(layers):
        y = m.batchnorm(m.conv(h, channels, channels, 3, 1, 1), channels)
        h = m.binary("multiply", "Mul", y, m.unary("tanh", "Tanh", m.unary("softplus", "Softplus", y)))
    m.output(h, (batch, channels, size, size))


def elementwise_chain(m, n=16 << 20):
    """tanh(x * 2 + 1) * x over 16M float32: four element-wise nodes."""
    x = m.input("x", (n,))
    h = m.binary("add", "Add", m.binary("multiply", "Mul", x, m.number(2)), m.number(1))
    m.output(m.binary("multiply", "Mul", m.unary("tanh", "Tanh", h), x), (n,))


def unet(m, batch, size=128, widths=(16, 32, 64, 128)):
    """A U-Net: two 3x3 conv + batchnorm + relu per level, max-pool down,
    ConvTranspose 2x2 / 2 up, skip connections by channel concat."""
    def double_conv(h, cin, cout):
        h = m.relu(m.batchnorm(m.conv(h, cin, cout, 3, 1, 1), cout))
        return m.relu(m.batchnorm(m.conv(h, cout, cout, 3, 1, 1), cout))

    x = m.input("x", (batch, 3, size, size))
    skips, h, cin = [], x, 3
    for wd in widths[:-1]:
        h = double_conv(h, cin, wd)
        skips.append((h, wd))
        h, cin = m.maxpool(h, 2, 2, 0), wd
    h = double_conv(h, cin, widths[-1])
    cin = widths[-1]
    for skip, wd in reversed(skips):
        up = m.deconv(h, cin, wd, 2, 2)
        h = double_conv(m.concat(up, skip), 2 * wd, wd)
        cin = wd
    m.output(m.conv(h, cin, 2, 1, bias=True), (batch, 2, size, size))


def bert(m, layers=2, seq=128, d=256, heads=4, ffn=1024, padded=16):
    """A BERT-style encoder as exporters write it: decomposed LayerNorm,
    GELU through Erf, an additive attention mask (the last `padded`
    positions masked out)."""
    dh = d // heads
    x = m.input("x", (1, seq, d))
    mask = np.zeros((1, 1, 1, seq), np.float32)
    mask[..., seq - padded:] = -10000.0
    mask = m.const(mask, "mask")

    def split_heads(t):
        return m.transpose(m.reshape(t, (1, seq, heads, dh)), (0, 2, 1, 3))

    h = x
    for _ in range(layers):
        q, k, v = (split_heads(m.linear(h, d, d)) for _ in range(3))
        scores = m.add(m.scale(m.matmul(q, m.transpose(k, (0, 1, 3, 2))), 1.0 / np.sqrt(dh)), mask)
        ctx = m.reshape(m.transpose(m.matmul(m.softmax(scores), v), (0, 2, 1, 3)), (1, seq, d))
        h = m.layer_norm_decomposed(m.add(h, m.linear(ctx, d, d)), d)
        f = m.linear(m.gelu(m.linear(h, d, ffn)), ffn, d)
        h = m.layer_norm_decomposed(m.add(h, f), d)
    m.output(h, (1, seq, d))


def encoder(m, seq=128, d=512, heads=8, ffn=2048):
    dh = d // heads
    x = m.input("x", (1, seq, d))

    def split_heads(t):  # [1, seq, d] -> [1, heads, seq, dh]
        return m.transpose(m.reshape(t, (1, seq, heads, dh)), (0, 2, 1, 3))

    q, k, v = (split_heads(m.linear(x, d, d)) for _ in range(3))
    scores = m.scale(m.matmul(q, m.transpose(k, (0, 1, 3, 2))), 1.0 / np.sqrt(dh))
    ctx = m.matmul(m.softmax(scores), v)
    ctx = m.reshape(m.transpose(ctx, (0, 2, 1, 3)), (1, seq, d))
    h = m.layer_norm(m.add(x, m.linear(ctx, d, d)), d)
    f = m.linear(m.relu(m.linear(h, d, ffn)), ffn, d)
    m.output(m.layer_norm(m.add(h, f), d), (1, seq, d))


def lstm(m, seq=64, batch=16, features=256, hidden=512, classes=10):
    """A sequence classifier: one LSTM layer (the issue's seq 64, batch 16,
    hidden 512), its last h through a linear layer and softmax."""
    x = m.input("x", (seq, batch, features))
    m.output(m.softmax(m.linear(m.lstm_last_h(x, features, hidden), hidden, classes)), (batch, classes))


MODELS = {
    "mlp_b1": lambda m: mlp(m, 1),
    "mlp_b64": lambda m: mlp(m, 64),
    "resnet18_b1": lambda m: resnet(m, 1, (2, 2, 2, 2), False),
    "resnet18_b8": lambda m: resnet(m, 8, (2, 2, 2, 2), False),
    "resnet50_b1": lambda m: resnet(m, 1, (3, 4, 6, 3), True),
    "mobilenetv2_b1": lambda m: mobilenet_v2(m, 1),
    "mobilenetv2_b8": lambda m: mobilenet_v2(m, 8),
    "encoder": encoder,
    "unet_b1": lambda m: unet(m, 1),
    "bert": bert,
    "lstm_b16": lstm,
    "conv3x3_b8": lambda m: conv_chain(m, 8),
    "mobilenetv3s_b1": lambda m: mobilenet_v3_small(m, 1),
    "swiglu_mlp": swiglu_mlp,
    "mish_convs": mish_convs,
    "chain_16m": elementwise_chain,
}


# ---- engines ----

class LibopsModel:
    def __init__(self, ops, graph_bytes=None, onnx_path=None):
        self.ops, lib = ops, ops.lib
        P = ctypes.c_void_p
        for name, res, args in [("ops_graph_load_file", ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(P)]),
                                ("ops_graph_session_set_profiling", ctypes.c_int, [P, ctypes.c_bool]),
                                ("ops_graph_session_profile_count", ctypes.c_int, [P]),
                                ("ops_graph_session_profile_node", ctypes.c_int, [P, ctypes.c_int, P])]:
            f = getattr(lib, name, None)
            if f is not None:
                f.restype, f.argtypes = res, args
        self.g, self.s = P(), P()
        if onnx_path is not None:
            ops.check(lib.ops_graph_load_file(onnx_path.encode(), ctypes.byref(self.g)), f"load {onnx_path}")
        else:
            self.keep = graph_bytes
            ops.check(lib.ops_graph_load_buffer(graph_bytes, len(graph_bytes), 0, ctypes.byref(self.g)), "load")
        ops.check(lib.ops_graph_session_create(self.g, ctypes.byref(self.s)), "session")

    def bind(self, x):
        self.x = x
        self.names = (ctypes.c_char_p * 1)(b"x")
        self.ins = (ctypes.c_void_p * 1)(self.ops.wrap(x))

    def run(self):
        if self.ops.lib.ops_graph_run(self.s, self.names, self.ins, 1) != 0:
            self.ops.check(1, "ops_graph_run")

    def output(self, shape):
        h = ctypes.c_void_p()
        self.ops.check(self.ops.lib.ops_graph_session_output_at(self.s, 0, ctypes.byref(h)), "output")
        y = np.empty(shape, np.float32)
        self.ops.check(self.ops.lib.ops_array_copy_to(h, y.ctypes.data, y.nbytes), "copy_to")
        self.ops.lib.ops_array_free(h)
        return y

    def profile_by_op(self):
        """{op: ms} of one profiled run."""
        class NodeProfile(ctypes.Structure):
            _fields_ = [("node_id", ctypes.c_uint32), ("node_name", ctypes.c_char_p), ("op", ctypes.c_char_p),
                        ("graph_name", ctypes.c_char_p), ("calls", ctypes.c_int64), ("total_ns", ctypes.c_int64),
                        ("bytes_allocated", ctypes.c_int64), ("output_shapes", ctypes.c_char_p)]
        lib = self.ops.lib
        self.ops.check(lib.ops_graph_session_set_profiling(self.s, True), "profiling")
        self.run()
        by_op = {}
        for i in range(lib.ops_graph_session_profile_count(self.s)):
            p = NodeProfile()
            self.ops.check(lib.ops_graph_session_profile_node(self.s, i, ctypes.byref(p)), "profile")
            by_op[p.op.decode()] = by_op.get(p.op.decode(), 0.0) + p.total_ns / 1e6
        self.ops.check(lib.ops_graph_session_set_profiling(self.s, False), "profiling")
        return by_op


class OrtModel:
    def __init__(self, model_bytes, threads, optimize, profile=False):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                       else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
        if profile:
            so.enable_profiling = True
            so.profile_file_prefix = os.path.join(tempfile.mkdtemp(), "ort")
        self.sess = ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])

    def bind(self, x):
        self.io = self.sess.io_binding()
        self.xv = ort.OrtValue.ortvalue_from_numpy(x)
        self.io.bind_ortvalue_input("x", self.xv)
        self.io.bind_output("y")

    def run(self):
        self.sess.run_with_iobinding(self.io)

    def output(self, shape):
        return self.io.copy_outputs_to_cpu()[0].reshape(shape)

    def profile_by_op(self):
        self.run()
        path = self.sess.end_profiling()
        by_op = {}
        for e in json.load(open(path)):
            if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
                op = e["args"].get("op_name", "?")
                by_op[op] = by_op.get(op, 0.0) + e["dur"] / 1e3
        return by_op


def gemm_flops(model_bytes):
    """FLOPs (2 per multiply-add) of a model's Conv, ConvTranspose, MatMul,
    Gemm and recurrent nodes; the --floor paragraph of the docstring."""
    model = onnx.shape_inference.infer_shapes(onnx.load_from_string(model_bytes))
    g = model.graph
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(g.input) + list(g.value_info) + list(g.output)}
    shapes.update({t.name: list(t.dims) for t in g.initializer})
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}
    flops = 0
    for n in g.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type in ("Conv", "ConvTranspose"):
            w, out, x = shapes[n.input[1]], shapes[n.output[0]], shapes[n.input[0]]
            if n.op_type == "Conv":  # w [cout, cin / groups, kh, kw]: per output value
                flops += 2 * int(np.prod(out)) * int(np.prod(w[1:]))
            else:  # w [cin, cout / groups, kh, kw]: per input value
                flops += 2 * int(np.prod(x)) * int(np.prod(w[1:]))
        elif n.op_type == "MatMul":
            a, out = shapes[n.input[0]], shapes[n.output[0]]
            flops += 2 * int(np.prod(out)) * a[-1]
        elif n.op_type == "Gemm":
            a, out = shapes[n.input[0]], shapes[n.output[0]]
            flops += 2 * int(np.prod(out)) * (a[0] if attrs.get("transA", 0) else a[1])
        elif n.op_type in gates:
            x, w = shapes[n.input[0]], shapes[n.input[1]]  # x [seq, batch, in], w [dirs, gates * h, in]
            dirs, gh = w[0], w[1]
            flops += 2 * x[0] * x[1] * dirs * gh * (x[2] + gh // gates[n.op_type])
    return flops


def gemm_peak(ops, threads, rounds=7):
    """GF/s of libops' float32 matmul at `threads` threads: the best round
    of square products of 512 and of 1024 (the smaller one's operands stay
    in cache), the rate the --floor column divides by."""
    rng = np.random.default_rng(0)
    ops.lib.ops_set_num_threads(threads)
    rate = 0.0
    for n in (512, 1024):
        a, b = rng.standard_normal((n, n), np.float32), rng.standard_normal((n, n), np.float32)
        c = np.empty((n, n), np.float32)
        run = ops.op_call("matmul", [a, b], [c])
        for _ in range(3):
            run()
        reps = 40 if n == 512 else 5
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(reps):
                run()
            rate = max(rate, 2 * n ** 3 * reps / (time.perf_counter() - t0) / 1e9)
        assert np.allclose(c[:4, :4], a[:4] @ b[:, :4], rtol=1e-3, atol=1e-3), f"matmul {n} is wrong"
    return rate


def rel_error(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))


def time_engines(engines, rounds, seconds, stat="mean", settle=0.2):
    """{name: ms per run}: with stat "mean", the median over rounds of each
    round's mean; with "median", the median of all single runs, which
    leaves out the runs a busy host stretches (on a shared 2-vCPU machine,
    a run whose threads lose a core for a while takes 2-4x as long). Each
    engine's turn starts `settle` seconds after the previous one's ended
    (the module's docstring says why)."""
    for e in engines.values():  # warm-up: first-run allocations, caches, thread pools
        for _ in range(3):
            e.run()
    per_round = {name: [] for name in engines}
    single = {name: [] for name in engines}
    for _ in range(rounds):
        order = list(engines.items())
        random.shuffle(order)
        for name, e in order:
            time.sleep(settle)
            n, start = 0, time.perf_counter()
            last = start
            while True:
                e.run()
                n += 1
                now = time.perf_counter()
                single[name].append(1e3 * (now - last))
                last = now
                elapsed = now - start
                if elapsed >= seconds and n >= 3:
                    break
            per_round[name].append(1e3 * elapsed / n)
    if stat == "median":
        return {name: statistics.median(v) for name, v in single.items()}
    return {name: statistics.median(v) for name, v in per_round.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("libops")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--settle", type=float, default=0.2, help="seconds of pause before each engine's turn")
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--via", choices=("builder", "onnx"), default="builder")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--floor", action="store_true", help="each model's multiply-add time at this machine's GEMM rate")
    ap.add_argument("--unfused", action="store_true",
                    help="also time libops with element-wise fusion off (LIBOPS_GRAPH_FUSION=0 at its load)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--stat", choices=("mean", "median"), default="mean",
                    help="mean: per round, median over rounds (the default); median: of single runs")
    args = ap.parse_args()
    ops = Libops(args.libops)
    find = ops.lib.ops_op_find

    def has_op(name):
        h = ctypes.c_void_p()
        return find(name.encode(), ctypes.byref(h)) == 0

    rows, profiles = [], []
    thread_counts = [int(t) for t in args.threads.split(",")]
    peaks = {}  # threads -> GF/s (--floor)
    if args.floor:
        for threads in thread_counts:
            time.sleep(args.settle)
            peaks[threads] = gemm_peak(ops, threads)
            print(f"GEMM rate at {threads} thread(s): libops matmul 512 / 1024, best: {peaks[threads]:.1f} GF/s",
                  flush=True)
    for model_name in args.models.split(","):
        if model_name not in MODELS:
            sys.exit(f"unknown model {model_name!r}; models: {', '.join(MODELS)}")
        m = ModelBuilder(model_name, args.seed, has_op)
        MODELS[model_name](m)
        model_bytes = m.onnx_bytes()
        onnx_path = None
        if args.via == "onnx":
            onnx_path = os.path.join(tempfile.mkdtemp(), model_name + ".onnx")
            with open(onnx_path, "wb") as f:
                f.write(model_bytes)
        x = np.random.default_rng(args.seed + 1).standard_normal(m.input_shape).astype(np.float32)
        flops = gemm_flops(model_bytes) if args.floor else 0
        for threads in thread_counts:
            ops.lib.ops_set_num_threads(threads)
            makers = {"libops": lambda: LibopsModel(ops, bytes(m.g.to_bytes()) if onnx_path is None else None, onnx_path),
                      "ort": lambda: OrtModel(model_bytes, threads, True),
                      "ort_basic": lambda: OrtModel(model_bytes, threads, False)}
            if args.unfused:
                def unfused():
                    os.environ["LIBOPS_GRAPH_FUSION"] = "0"
                    try:
                        return makers["libops"]()
                    finally:
                        del os.environ["LIBOPS_GRAPH_FUSION"]
                makers["libops_unfused"] = unfused
            # First run: loading (libops: reading, checking, rewriting and
            # planning the graph; ORT: session creation) plus one run.
            engines, first = {}, {}
            for name, make in makers.items():
                t0 = time.perf_counter()
                e = make()
                e.bind(x)
                e.run()
                first[name] = 1e3 * (time.perf_counter() - t0)
                engines[name] = e
            ref = engines["ort_basic"].output(engines["ort_basic"].io.get_outputs()[0].shape())
            for name, e in engines.items():
                err = rel_error(e.output(ref.shape), ref)
                if not err < 1e-4:
                    sys.exit(f"{model_name}: {name}'s output differs from ONNX Runtime's by {err:.2e} (relative)")
            t = time_engines(engines, args.rounds, args.seconds, args.stat, args.settle)
            floor = flops / peaks[threads] / 1e6 if args.floor else None  # ms
            rows.append((model_name, threads, t["libops"], t["ort"], t["ort_basic"], floor, first))
            print(f"{model_name:12s} {threads}t  libops {t['libops']:9.3f} ms  ort {t['ort']:9.3f} ms  "
                  f"ort_basic {t['ort_basic']:9.3f} ms  ratio {t['libops'] / t['ort']:.2f} / "
                  f"{t['libops'] / t['ort_basic']:.2f}  | first run: libops {first['libops']:.1f} ms, "
                  f"ort {first['ort']:.1f} ms"
                  + (f"  | unfused {t['libops_unfused']:.3f} ms, fused/unfused {t['libops'] / t['libops_unfused']:.2f}"
                     if args.unfused else ""), flush=True)
            if args.profile and threads == int(args.threads.split(",")[0]):
                prof_ort = OrtModel(model_bytes, threads, True, profile=True)
                prof_ort.bind(x)
                profiles.append((model_name, threads, engines["libops"].profile_by_op(), prof_ort.profile_by_op()))

    print(f"\nmodel          threads   libops ms      ORT ms  ORT basic ms   libops/ORT  libops/ORT basic"
          f"  first run: libops ms  ORT ms"
          + ("    floor ms  libops/floor  ORT/floor  ORT basic/floor" if args.floor else "") + f"   (via {args.via})")
    for name, threads, lo, o, ob, floor, first in rows:
        line = (f"{name:14s} {threads:7d} {lo:11.3f} {o:11.3f} {ob:13.3f} {lo / o:12.2f} {lo / ob:17.2f}"
                f" {first['libops']:20.1f} {first['ort']:7.1f}")
        if floor:
            line += f" {floor:11.3f} {lo / floor:13.2f} {o / floor:10.2f} {ob / floor:16.2f}"
        print(line)
    if args.floor:
        print("floor: the model's multiply-adds at the GEMM rate above (Winograd's 3x3 convolutions do fewer); "
              "where ORT basic/floor is under 1.11, 0.9 of ORT basic's time is below it")
    for name, threads, lo, o in profiles:
        print(f"\n{name}, {threads} thread(s): time by op (ms, one profiled run)")
        print(f"  {'libops op':24s} {'ms':>8s}    {'ORT op':24s} {'ms':>8s}")
        a = sorted(lo.items(), key=lambda kv: -kv[1])
        b = sorted(o.items(), key=lambda kv: -kv[1])
        for i in range(max(len(a), len(b))):
            left = f"{a[i][0]:24s} {a[i][1]:8.3f}" if i < len(a) else " " * 33
            right = f"{b[i][0]:24s} {b[i][1]:8.3f}" if i < len(b) else ""
            print(f"  {left}    {right}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
