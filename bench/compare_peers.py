#!/usr/bin/env python3
"""libops beside ONNX Runtime on the same CPU work, in one process and run.

  bench/compare_peers.py build/cpu-release/libops.so [--repetitions N] [--threads 1,2]
      [--seconds S] [--settle S] [--cases a,b]

Needs `pip install onnxruntime onnx flatbuffers numpy` (not build
dependencies: only this script uses them) and flatc on PATH for the libops
graph builder (tools/libops_graph).

Cases, each at every thread count given:
  add      z = x + y over 16M float32 (as core_bench's BM_Add)
  exp      z = exp(x) over 16M float32 (also tanh, sigmoid)
  gelu     the exact (erf) form over 16M float32: ONNX's Gelu, opset 20
  lstm, rnn, gru  T64 N16 H512 layers (ONNX's layouts and defaults)
  sum      the sum of all 16M float32 to a scalar
  matmul   1024 x 1024 float32 times 1024 x 1024
  graph    a chain of adds on 1-element float32 arrays, as graph_bench's:
           per node = (time(100 nodes) - time(1 node)) / 99, so the fixed
           cost of a call from Python cancels; "run" is the 1-node time.

Both engines get preallocated inputs and outputs in numpy memory (libops
wraps it with ops_array_wrap; ONNX Runtime binds OrtValues over it through
IOBinding), so no case times an allocation or a copy. libops ops are called
through its C API (ctypes), graphs through ops_graph_run; ONNX Runtime
sessions use its defaults (all graph optimizations, spinning thread pool)
with intra_op_num_threads set and one inter-op thread. Every result is
checked against numpy before anything is timed.

Repetitions of all (case, engine) pairs are interleaved in random order
and each figure is the best repetition, as in bench/compare.py: on a shared
machine contention only ever slows a run down. The ratio is libops time /
ONNX Runtime time: below 1, libops is faster.
"""
import argparse
import ctypes
import math
import os
import random
import sys
import time

import numpy as np

try:
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
except ImportError as e:  # say what to install rather than a traceback
    sys.exit(f"compare_peers.py needs onnxruntime and onnx ({e}); pip install onnxruntime onnx")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from libops_graph import Graph  # noqa: E402

N = 16 * 1024 * 1024
GEMM_N = 1024
CHAIN = 100
# ops_dtype_t numbers (include/libops/c_types.h) of the numpy dtypes used here
OPS_DTYPE = {np.dtype(np.float32): 12, np.dtype(np.float16): 10, np.dtype(np.int64): 5, np.dtype(np.int32): 4}
TRANSFORM_STRICT = 2  # OPS_TRANSFORM_STRICT


# ---- libops through its C API ----

class OpsArgs(ctypes.Structure):
    """ops_args_t in include/libops/c_api.h."""
    _fields_ = [("t_args", ctypes.POINTER(ctypes.c_double)), ("n_t_args", ctypes.c_int),
                ("i_args", ctypes.POINTER(ctypes.c_int64)), ("n_i_args", ctypes.c_int),
                ("b_args", ctypes.POINTER(ctypes.c_bool)), ("n_b_args", ctypes.c_int),
                ("d_args", ctypes.POINTER(ctypes.c_int)), ("n_d_args", ctypes.c_int),
                ("inplace", ctypes.c_bool)]


class Libops:
    def __init__(self, path):
        lib = ctypes.CDLL(os.path.abspath(path))
        P, I, I64P = ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)
        for name, res, args in [
            ("ops_last_error", ctypes.c_char_p, []),
            ("ops_set_num_threads", None, [I]),
            ("ops_array_wrap", I, [P, ctypes.c_size_t, I, I, I64P, I64P, ctypes.POINTER(P)]),
            ("ops_op_find", I, [ctypes.c_char_p, ctypes.POINTER(P)]),
            ("ops_op_exec", I, [P, ctypes.POINTER(P), I, ctypes.POINTER(P), I, ctypes.POINTER(OpsArgs)]),
            ("ops_legacy_find", I, [I, ctypes.c_char_p, ctypes.POINTER(I)]),
            ("ops_exec_legacy", I, [I, I, P, P, P, I64P, I, ctypes.POINTER(ctypes.c_double), I]),
            ("ops_graph_load_buffer", I, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint, ctypes.POINTER(P)]),
            ("ops_graph_session_create", I, [P, ctypes.POINTER(P)]),
            ("ops_graph_run", I, [P, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(P), I]),
            ("ops_graph_session_output_at", I, [P, I, ctypes.POINTER(P)]),
            ("ops_array_copy_to", I, [P, P, ctypes.c_size_t]),
            ("ops_array_free", None, [P]),
        ]:
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        self.lib = lib

    def check(self, status, what):
        if status != 0:
            raise RuntimeError(f"libops {what}: {self.lib.ops_last_error().decode()}")

    def wrap(self, a):
        """An ops_array_t over numpy memory (kept alive by the caller)."""
        assert a.flags["C_CONTIGUOUS"]
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        h = ctypes.c_void_p()
        self.check(self.lib.ops_array_wrap(a.ctypes.data, a.nbytes, OPS_DTYPE[a.dtype], a.ndim, shape, None,
                                           ctypes.byref(h)), "ops_array_wrap")
        return h

    def op_call(self, name, inputs, outputs, i_args=(), t_args=(), b_args=()):
        """A closure running custom op `name` on wrapped numpy arrays."""
        op = ctypes.c_void_p()
        self.check(self.lib.ops_op_find(name.encode(), ctypes.byref(op)), f"ops_op_find({name})")
        ins = (ctypes.c_void_p * len(inputs))(*[self.wrap(a) for a in inputs])
        outs = (ctypes.c_void_p * len(outputs))(*[self.wrap(a) for a in outputs])
        ints = (ctypes.c_int64 * max(len(i_args), 1))(*i_args)
        floats = (ctypes.c_double * max(len(t_args), 1))(*t_args)
        bools = (ctypes.c_bool * max(len(b_args), 1))(*b_args)
        args = OpsArgs(i_args=ints, n_i_args=len(i_args), t_args=floats, n_t_args=len(t_args), b_args=bools,
                       n_b_args=len(b_args))
        exec_ = self.lib.ops_op_exec

        def run():
            if exec_(op, ins, len(inputs), outs, len(outputs), ctypes.byref(args)) != 0:
                self.check(1, name)
        run.keep = (inputs, outputs, ints, floats, bools, args)
        return run

    def legacy_call(self, group, name, x, z):
        num = ctypes.c_int()
        self.check(self.lib.ops_legacy_find(group, name.encode(), ctypes.byref(num)), f"ops_legacy_find({name})")
        hx, hz = self.wrap(x), self.wrap(z)
        exec_ = self.lib.ops_exec_legacy

        def run():
            if exec_(group, num.value, hx, None, hz, None, 0, None, 0) != 0:
                self.check(1, name)
        run.keep = (x, z)
        return run

    def graph_call(self, graph_bytes, x):
        """A closure running a graph with input "x"; and one fetching output 0."""
        g, s = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(self.lib.ops_graph_load_buffer(graph_bytes, len(graph_bytes), 0, ctypes.byref(g)), "load")
        self.check(self.lib.ops_graph_session_create(g, ctypes.byref(s)), "session")
        names = (ctypes.c_char_p * 1)(b"x")
        ins = (ctypes.c_void_p * 1)(self.wrap(x))
        run_ = self.lib.ops_graph_run

        def run():
            if run_(s, names, ins, 1) != 0:
                self.check(1, "ops_graph_run")

        def output():
            h = ctypes.c_void_p()
            self.check(self.lib.ops_graph_session_output_at(s, 0, ctypes.byref(h)), "output")
            y = np.empty(1, np.float32)
            self.check(self.lib.ops_array_copy_to(h, y.ctypes.data, y.nbytes), "copy_to")
            self.lib.ops_array_free(h)
            return y
        run.keep = (graph_bytes, x, g, s)
        return run, output


def libops_chain(n):
    """x[1] -> add(., c) n times -> y, c = 1: graph_bench's chain."""
    g = Graph(device="cpu")
    v = g.placeholder("x", "float32", [1])
    c = g.constant("c", np.ones(1, np.float32))
    for k in range(n):
        v = g.op("add", v, c, name=f"add_{k}")
    g.output("y", v)
    return bytes(g.to_bytes())


# ---- ONNX Runtime ----

def onnx_model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "peer", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def tensor_info(name, a_dtype, shape):
    kinds = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
             np.dtype(np.int64): TensorProto.INT64, np.dtype(np.int32): TensorProto.INT32}
    return helper.make_tensor_value_info(name, kinds[np.dtype(a_dtype)], shape)


def ort_call(model, threads, feeds, outputs):
    """A closure running `model` with IOBinding over numpy memory."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    io = sess.io_binding()
    vals = []
    for name, a in list(feeds.items()):
        v = ort.OrtValue.ortvalue_from_numpy(a)
        io.bind_ortvalue_input(name, v)
        vals.append(v)
    for name, a in outputs.items():
        v = ort.OrtValue.ortvalue_from_numpy(a)
        io.bind_ortvalue_output(name, v)
        vals.append(v)
    run_ = sess.run_with_iobinding

    def run():
        run_(io)
    run.keep = (sess, io, vals, feeds, outputs)
    return run


def ort_chain(n):
    c = helper.make_tensor("c", TensorProto.FLOAT, [1], [1.0])
    nodes = [helper.make_node("Add", ["x" if k == 0 else f"v{k}", "c"], [f"v{k + 1}" if k + 1 < n else "y"])
             for k in range(n)]
    return onnx_model(nodes, [f32("x", [1])], [f32("y", [1])], [c])


# ---- cases ----

def conv_reference(x, w, pad):
    """NCHW cross-correlation, stride 1, in float64."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # n, c, oh, ow, kh, kw
    return np.einsum("nchwij,ocij->nohw", win, w.astype(np.float64), optimize=True)


def maxpool_reference(x, k, stride, pad):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, ::stride, ::stride]
    return win.max(axis=(4, 5))


def batchnorm_reference(x, mean, var, gamma, beta, eps):
    r = lambda a: a.astype(np.float64).reshape(1, -1, 1, 1)  # noqa: E731
    return (x - r(mean)) / np.sqrt(r(var) + eps) * r(gamma) + r(beta)


def softmax_reference(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Case:
    """One workload for both engines.

    lib: (kind, name, i_args): kind "op" (a custom op by name) or "legacy"
    (a transform_strict op by name). onnx_node: (op_type, attributes[, axes
    input or None[, ONNX's input order as libops input numbers]]). work:
    bytes moved (STREAM's count) or flops, per call.
    """

    def __init__(self, name, inputs, out_shape, want, lib, onnx_node, work, unit, rtol=1e-5, atol=1e-5,
                 out_dtype=np.float32, t_args=(), b_args=(), ort_out_shape=None, onnx_extra=None):
        self.name, self.inputs, self.out_shape, self.want = name, inputs, out_shape, want
        self.lib, self.onnx_node, self.work, self.unit = lib, onnx_node, work, unit
        self.rtol, self.atol, self.out_dtype, self.t_args = rtol, atol, np.dtype(out_dtype), t_args
        # ONNX Runtime's output shape where it differs from libops' (same elements).
        self.b_args, self.ort_out_shape = b_args, ort_out_shape or out_shape
        # Extra node inputs after libops' ones: names ("" = omitted) and the
        # initializers behind them, e.g. Resize's roi, scales and sizes.
        self.onnx_extra = onnx_extra or ([], {})


def bilinear_2x_reference(x):
    """Linear 2x upsampling of H and W, half_pixel: output o reads source
    (o + 0.5) / 2 - 0.5, the taps clamped at the edges."""
    def axis(a, n):
        c = (np.arange(2 * n) + 0.5) / 2 - 0.5
        f = np.floor(c)
        t = c - f
        lo, hi = np.clip(f, 0, n - 1).astype(int), np.clip(f + 1, 0, n - 1).astype(int)
        shape = [1] * a.ndim
        shape[-1] = 2 * n
        return np.take(a, lo, axis=-1) * (1 - t).reshape(shape) + np.take(a, hi, axis=-1) * t.reshape(shape)
    x = x.astype(np.float64)
    y = axis(x, x.shape[-1])
    return np.swapaxes(axis(np.swapaxes(y, -1, -2), x.shape[-2]), -1, -2)


def attention_reference(q, k, v):
    s = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)


def gelu_reference(x):
    erf = np.frompyfunc(math.erf, 1, 1)
    x64 = x.astype(np.float64)
    return 0.5 * x64 * (1 + erf(x64 / math.sqrt(2)).astype(np.float64))


def gelu_model(case):
    """ONNX's Gelu (exact form) is opset 20, later than the other cases'."""
    node = helper.make_node("Gelu", ["in0"], ["out"])
    return onnx_model([node], [tensor_info("in0", np.float32, list(case.inputs[0].shape))],
                      [tensor_info("out", np.float32, case.out_shape)], opset=20)


def attention_subgraph(case):
    """ONNX Runtime's attention as exporters write it: MatMul(q, k^T), Mul by
    the scale, Softmax, MatMul(v)."""
    q = case.inputs[0]
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [], [1 / np.sqrt(q.shape[-1])])
    nodes = [helper.make_node("Transpose", ["in1"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["in0", "kt"], ["s"]), helper.make_node("Mul", ["s", "scale"], ["ss"]),
             helper.make_node("Softmax", ["ss"], ["w"], axis=-1), helper.make_node("MatMul", ["w", "in2"], ["out"])]
    return onnx_model(nodes, [tensor_info(f"in{i}", a.dtype, list(a.shape)) for i, a in enumerate(case.inputs)],
                      [tensor_info("out", np.float32, case.out_shape)], [scale])


def lstm_reference(x, w, r, b):
    """ONNX LSTM, one direction, gates i, o, f, c; x [T, N, I], w [1, 4H, I],
    r [1, 4H, H], b [1, 8H]; y [T, N, H], in float64."""
    x, w, r, b = (a.astype(np.float64) for a in (x, w, r, b))
    H = r.shape[2]
    h = np.zeros((x.shape[1], H))
    c = np.zeros_like(h)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    ys = []
    for t in range(x.shape[0]):
        g = x[t] @ w[0].T + h @ r[0].T + b[0, :4 * H] + b[0, 4 * H:]
        i, o, f, cc = sig(g[:, :H]), sig(g[:, H:2 * H]), sig(g[:, 2 * H:3 * H]), np.tanh(g[:, 3 * H:])
        c = f * c + i * cc
        h = o * np.tanh(c)
        ys.append(h)
    return np.stack(ys)


def gru_reference(x, w, r, b):
    """ONNX GRU (linear_before_reset 0), one direction, gates z, r, h; x [T, N, I],
    w [1, 3H, I], r [1, 3H, H], b [1, 6H]; y [T, N, H], in float64."""
    x, w, r, b = (a.astype(np.float64) for a in (x, w, r, b))
    H = r.shape[2]
    h = np.zeros((x.shape[1], H))
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    wb, rb = b[0, :3 * H], b[0, 3 * H:]
    ys = []
    for t in range(x.shape[0]):
        gx = x[t] @ w[0].T + wb
        gh = h @ r[0, :2 * H].T + rb[:2 * H]
        z, rr = sig(gx[:, :H] + gh[:, :H]), sig(gx[:, H:2 * H] + gh[:, H:])
        n = np.tanh(gx[:, 2 * H:] + (rr * h) @ r[0, 2 * H:].T + rb[2 * H:])
        h = z * h + (1 - z) * n
        ys.append(h)
    return np.stack(ys)


def rnn_reference(x, w, r, b):
    """ONNX RNN (tanh), one direction; x [T, N, I], w [1, H, I], r [1, H, H],
    b [1, 2H]; y [T, N, H], in float64."""
    x, w, r, b = (a.astype(np.float64) for a in (x, w, r, b))
    H = r.shape[2]
    h = np.zeros((x.shape[1], H))
    ys = []
    for t in range(x.shape[0]):
        h = np.tanh(x[t] @ w[0].T + h @ r[0].T + b[0, :H] + b[0, H:])
        ys.append(h)
    return np.stack(ys)


def case_table():
    rng = np.random.default_rng(0)

    def u(*shape):
        return rng.uniform(-1, 1, shape).astype(np.float32)

    x, y = u(N), u(N)
    a, b = u(GEMM_N, GEMM_N), u(GEMM_N, GEMM_N)
    m = u(4096, 4096)
    rows, bias = u(4096, 1024), u(1024)
    logits = u(1024, 1000) * 10
    img, w = u(1, 64, 56, 56), u(64, 64, 3, 3) / 24
    img8 = u(8, 64, 56, 56)
    stem = u(1, 64, 112, 112)
    mean, var, gamma, beta = u(64), np.abs(u(64)) + 0.5, u(64), u(64)
    table, ids = u(50000, 256), rng.integers(0, 50000, 4096)
    dw_x, dw_w = u(1, 256, 56, 56), u(256, 1, 3, 3) / 3
    feat = u(1, 64, 112, 112)
    aq, ak, av = u(1, 8, 512, 64), u(1, 8, 512, 64), u(1, 8, 512, 64)
    seq, batch, hidden = 64, 16, 512
    lx, lw, lr, lb = u(seq, batch, hidden), u(1, 4 * hidden, hidden) / 16, u(1, 4 * hidden, hidden) / 16, \
        u(1, 8 * hidden) / 4
    gw, gr, gb = u(1, 3 * hidden, hidden) / 16, u(1, 3 * hidden, hidden) / 16, u(1, 6 * hidden) / 4
    rw, rr, rb = u(1, hidden, hidden) / 16, u(1, hidden, hidden) / 16, u(1, 2 * hidden) / 4
    f4 = 4  # bytes of a float32
    return [
        Case("add", [x, y], [N], lambda: x + y, ("op", "add", []), ("Add", {}), 3 * f4 * N, "GB/s", 0, 0),
        Case("exp", [x], [N], lambda: np.exp(x), ("legacy", "exp", []), ("Exp", {}), 2 * f4 * N, "GB/s", 1e-6, 0),
        Case("tanh", [x], [N], lambda: np.tanh(x), ("legacy", "tanh", []), ("Tanh", {}), 2 * f4 * N, "GB/s", 1e-5,
             1e-6),
        Case("sigmoid", [x], [N], lambda: 1 / (1 + np.exp(-x.astype(np.float64))), ("legacy", "sigmoid", []),
             ("Sigmoid", {}), 2 * f4 * N, "GB/s", 1e-5, 1e-6),
        Case("gelu 16M", [x], [N], lambda: gelu_reference(x), ("op", "gelu", []), gelu_model, 2 * f4 * N, "GB/s",
             1e-5, 1e-6),
        Case("sum", [x], [], lambda: x.astype(np.float64).sum(), ("op", "reduce_sum", []),
             ("ReduceSum", {"keepdims": 0}), f4 * N, "GB/s", 0, 0.05),
        Case("row sums 4096^2", [m], [4096], lambda: m.astype(np.float64).sum(axis=1), ("op", "reduce_sum", [1]),
             ("ReduceSum", {"keepdims": 0}, [1]), f4 * m.size, "GB/s", 0, 1e-3),
        Case("column sums 4096^2", [m], [4096], lambda: m.astype(np.float64).sum(axis=0), ("op", "reduce_sum", [0]),
             ("ReduceSum", {"keepdims": 0}, [0]), f4 * m.size, "GB/s", 0, 1e-3),
        Case("row max 4096^2", [m], [4096], lambda: m.max(axis=1), ("op", "reduce_max", [1]),
             ("ReduceMax", {"keepdims": 0, "axes": [1]}), f4 * m.size, "GB/s", 0, 0),
        Case("bias add [4096,1024]", [rows, bias], [4096, 1024], lambda: rows + bias, ("op", "add", []),
             ("Add", {}), 2 * f4 * rows.size, "GB/s", 0, 0),
        Case("transpose 4096^2", [m], [4096, 4096], lambda: m.T, ("op", "permute", [1, 0]),
             ("Transpose", {"perm": [1, 0]}), 2 * f4 * m.size, "GB/s", 0, 0),
        Case("softmax [1024,1000]", [logits], [1024, 1000], lambda: softmax_reference(logits),
             ("op", "softmax", [-1]), ("Softmax", {"axis": -1}), 2 * f4 * logits.size, "GB/s", 1e-5, 1e-7),
        Case("matmul 1024", [a, b], [GEMM_N, GEMM_N], lambda: a @ b, ("op", "matmul", []), ("MatMul", {}),
             2 * GEMM_N ** 3, "GF/s", 1e-4, 1e-4),
        Case("conv 64x56x56 3x3", [img, w], [1, 64, 56, 56], lambda: conv_reference(img, w, 1),
             ("op", "conv2d", [3, 3, 1, 1, 1, 1, 1, 1, 0]),
             ("Conv", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}), 2 * 64 * 56 * 56 * 64 * 9, "GF/s", 1e-4, 1e-4),
        Case("conv N8 64x56x56 3x3", [img8, w], [8, 64, 56, 56], lambda: conv_reference(img8, w, 1),
             ("op", "conv2d", [3, 3, 1, 1, 1, 1, 1, 1, 0]),
             ("Conv", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}), 2 * 8 * 64 * 56 * 56 * 64 * 9, "GF/s", 1e-4,
             1e-4),
        Case("relu 16M", [x], [N], lambda: np.maximum(x, 0), ("op", "relu", []), ("Relu", {}), 2 * f4 * N, "GB/s",
             0, 0),
        Case("batchnorm 64x112^2", [stem, mean, var, gamma, beta], list(stem.shape),
             lambda: batchnorm_reference(stem, mean, var, gamma, beta, 1e-5), ("op", "batchnorm", [1, 1, 1]),
             ("BatchNormalization", {"epsilon": 1e-5}, None, [0, 3, 4, 1, 2]), 2 * f4 * stem.size, "GB/s", 1e-5,
             1e-5, t_args=(1e-5,)),
        Case("concat axis 1", [stem, stem], [1, 128, 112, 112], lambda: np.concatenate([stem, stem], axis=1),
             ("op", "concat", [1]), ("Concat", {"axis": 1}), 4 * f4 * stem.size, "GB/s", 0, 0),
        Case("gather 4096 of 50000x256", [table, ids], [4096, 256], lambda: table[ids], ("op", "gather", [0]),
             ("Gather", {"axis": 0}), 2 * f4 * 4096 * 256, "GB/s", 0, 0),
        Case("cast f32->f16 16M", [x], [N], lambda: x.astype(np.float16), ("op", "cast", [10]),
             ("Cast", {"to": TensorProto.FLOAT16}), 6 * N, "GB/s", 0, 0, out_dtype=np.float16),
        Case("maxpool 3x3/2 112^2", [stem], [1, 64, 56, 56], lambda: maxpool_reference(stem, 3, 2, 1),
             ("op", "maxpool2d", [3, 3, 2, 2, 1, 1, 1, 1, 0]),
             ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
             f4 * (stem.size + stem.size // 4), "GB/s", 0, 0),
        Case("depthwise 256x56^2 3x3", [dw_x, dw_w], [1, 256, 56, 56],
             lambda: np.concatenate([conv_reference(dw_x[:, k:k + 1], dw_w[k:k + 1], 1) for k in range(256)], axis=1),
             ("op", "conv2d", [3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1, 256]),
             ("Conv", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "group": 256}), 2 * 256 * 56 * 56 * 9, "GF/s",
             1e-4, 1e-4),
        Case("resize linear 2x 64x112^2", [feat], [1, 64, 224, 224], lambda: bilinear_2x_reference(feat),
             ("op", "resize", [224, 224, 1]), ("Resize", {"mode": "linear"}), f4 * 5 * feat.size, "GB/s", 1e-5, 1e-6,
             onnx_extra=(["", "", "sizes"], {"sizes": np.array([1, 64, 224, 224], np.int64)})),
        Case("resize nearest 2x 64x112^2", [feat], [1, 64, 224, 224], lambda: feat.repeat(2, 2).repeat(2, 3),
             ("op", "resize", [224, 224, 0]), ("Resize", {"mode": "nearest"}), f4 * 5 * feat.size, "GB/s", 0, 0,
             onnx_extra=(["", "", "sizes"], {"sizes": np.array([1, 64, 224, 224], np.int64)})),
        Case("attention 8x512x64", [aq, ak, av], [1, 8, 512, 64], lambda: attention_reference(aq, ak, av),
             ("op", "dot_product_attention", []), attention_subgraph, 2 * 2 * 8 * 512 * 512 * 64, "GF/s", 1e-4,
             1e-5),
        # ONNX's weight layout (weights_format 1) with its bias: the same inputs for both.
        Case("lstm T64 N16 H512", [lx, lw, lr, lb], [seq, batch, hidden], lambda: lstm_reference(lx, lw, lr, lb),
             ("op", "lstm_layer", [0, 0, 2, 0, 0, 1]), ("LSTM", {"hidden_size": hidden}),
             2 * seq * batch * 8 * hidden * hidden, "GF/s", 1e-4, 1e-4, b_args=(True,),
             ort_out_shape=[seq, 1, batch, hidden]),
        Case("rnn T64 N16 H512", [lx, rw, rr, rb], [seq, batch, hidden], lambda: rnn_reference(lx, rw, rr, rb),
             ("op", "rnn_layer", [0, 0, 0, 1]), ("RNN", {"hidden_size": hidden}),
             2 * seq * batch * 2 * hidden * hidden, "GF/s", 1e-4, 1e-4, b_args=(True,),
             ort_out_shape=[seq, 1, batch, hidden]),
        Case("gru T64 N16 H512", [lx, gw, gr, gb], [seq, batch, hidden], lambda: gru_reference(lx, gw, gr, gb),
             ("op", "gru_layer", [0, 0, 2, 0, 1]), ("GRU", {"hidden_size": hidden}),
             2 * seq * batch * 6 * hidden * hidden, "GF/s", 1e-4, 1e-4, b_args=(True,),
             ort_out_shape=[seq, 1, batch, hidden]),
    ]


def ort_model_for(case):
    if callable(case.onnx_node):  # a subgraph: the case builds its own model
        return case.onnx_node(case)
    op_type, attrs = case.onnx_node[0], case.onnx_node[1]
    axes = case.onnx_node[2] if len(case.onnx_node) > 2 else None
    order = case.onnx_node[3] if len(case.onnx_node) > 3 else range(len(case.inputs))
    names = [f"in{i}" for i in order]  # ONNX's input order, as libops input numbers
    inits = []
    if axes is not None:  # an axes input (ReduceSum since opset 13)
        inits.append(helper.make_tensor("axes", TensorProto.INT64, [len(axes)], axes))
        names.append("axes")
    extra_names, extra_inits = case.onnx_extra
    names += extra_names
    for n, a in extra_inits.items():
        inits.append(helper.make_tensor(n, TensorProto.INT64 if a.dtype == np.int64 else TensorProto.FLOAT,
                                        list(a.shape), a.ravel().tolist()))
    node = helper.make_node(op_type, names, ["out"], **attrs)
    return onnx_model([node], [tensor_info(f"in{i}", a.dtype, list(a.shape)) for i, a in enumerate(case.inputs)],
                      [tensor_info("out", case.out_dtype, case.ort_out_shape)], inits)


def cases(lib, threads, picked):
    """{case: {engine: closure}}, each result checked against numpy first."""
    out = {}
    for c in case_table():
        if not picked(c.name):
            continue
        want = c.want()
        z1 = np.empty(c.out_shape, c.out_dtype)
        z2 = np.empty(c.ort_out_shape, c.out_dtype)
        kind, name, i_args = c.lib
        if kind == "op":
            lib_run = lib.op_call(name, c.inputs, [z1], i_args, c.t_args, c.b_args)
        else:
            lib_run = lib.legacy_call(TRANSFORM_STRICT, name, c.inputs[0], z1)
        ort_run = ort_call(ort_model_for(c), threads, {f"in{i}": a for i, a in enumerate(c.inputs)}, {"out": z2})
        for engine, run, z in (("libops", lib_run, z1), ("onnxruntime", ort_run, z2)):
            lib.lib.ops_set_num_threads(threads)
            z[...] = 0 if z.dtype.kind in "iu" else np.nan
            run()
            z = z.reshape(c.out_shape)
            if not np.allclose(z.astype(np.float64), want, rtol=c.rtol, atol=c.atol):
                worst = np.nanmax(np.abs(z.astype(np.float64) - want))
                raise RuntimeError(f"{c.name}: {engine}'s result differs from numpy's (max |diff| {worst})")
        out[c.name] = {"libops": lib_run, "onnxruntime": ort_run, "case": c}

    one = np.full(1, 2.0, np.float32)
    for n in (1, CHAIN) if picked("graph") else ():
        lib_run, lib_out = lib.graph_call(libops_chain(n), one)
        y2 = np.empty(1, np.float32)
        ort_run = ort_call(ort_chain(n), threads, {"x": one}, {"y": y2})
        lib.lib.ops_set_num_threads(threads)
        lib_run()
        ort_run()
        if lib_out()[0] != 2.0 + n or y2[0] != 2.0 + n:
            raise RuntimeError(f"chain of {n}: results {lib_out()[0]}, {y2[0]}, want {2.0 + n}")
        out[f"graph{n}"] = {"libops": lib_run, "onnxruntime": ort_run}
    return out


def per_call_ns(run, calls):
    t0 = time.perf_counter_ns()
    for _ in range(calls):
        run()
    return (time.perf_counter_ns() - t0) / calls


def measure(lib, thread_counts, repetitions, seconds, picked, settle):
    """{(threads, case, engine): best ns per call}. Each measurement starts
    `settle` seconds after the last: both engines' worker threads spin for
    a while after their work, on the cores the next measurement needs
    (bench/compare_models.py's docstring has the figures)."""
    runs = {}
    for t in thread_counts:
        for case, engines in cases(lib, t, picked).items():
            for engine in ("libops", "onnxruntime"):
                run = engines[engine]
                lib.lib.ops_set_num_threads(t)
                est = min(per_call_ns(run, 3) for _ in range(2))
                runs[(t, case, engine)] = (run, max(1, int(seconds * 1e9 / max(est, 1.0))))
    order = [k for k in runs for _ in range(repetitions)]
    random.Random(1).shuffle(order)
    best = {}
    for key in order:
        run, calls = runs[key]
        lib.lib.ops_set_num_threads(key[0])
        time.sleep(settle)
        ns = per_call_ns(run, calls)
        best[key] = min(best.get(key, ns), ns)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("libops", help="path to libops.so")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--seconds", type=float, default=0.2, help="time per repetition")
    ap.add_argument("--cases", default="", help="comma-separated case name prefixes (default: all)")
    ap.add_argument("--settle", type=float, default=0.1, help="seconds of pause before each measurement")
    args = ap.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]
    lib = Libops(args.libops)
    chosen = [p for p in args.cases.split(",") if p]
    picked = lambda name: not chosen or any(name.startswith(p) for p in chosen)  # noqa: E731
    table = {c.name: c for c in case_table() if picked(c.name)}
    best = measure(lib, thread_counts, args.repetitions, args.seconds, picked, args.settle)

    print(f"onnxruntime {ort.__version__}; best of {args.repetitions}; ratio = libops / onnxruntime time")
    print(f"{'case':<22}{'threads':>8}{'libops':>14}{'onnxruntime':>14}{'ratio':>8}")
    for t in thread_counts:
        for name, c in table.items():
            lo, hi = best[(t, name, "libops")], best[(t, name, "onnxruntime")]
            show = lambda ns: f"{c.work / ns:.1f} {c.unit}"  # noqa: E731
            print(f"{name:<22}{t:>8}{show(lo):>14}{show(hi):>14}{lo / hi:>8.2f}")
        if (t, "graph1", "libops") not in best:
            continue
        node = {e: (best[(t, f"graph{CHAIN}", e)] - best[(t, "graph1", e)]) / (CHAIN - 1)
                for e in ("libops", "onnxruntime")}
        print(f"{'graph, per node':<22}{t:>8}{node['libops'] / 1e3:>11.2f} us{node['onnxruntime'] / 1e3:>11.2f} us"
              f"{node['libops'] / node['onnxruntime']:>8.2f}")
        lo, hi = best[(t, "graph1", "libops")], best[(t, "graph1", "onnxruntime")]
        print(f"{'graph, 1-node run':<22}{t:>8}{lo / 1e3:>11.2f} us{hi / 1e3:>11.2f} us{lo / hi:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
