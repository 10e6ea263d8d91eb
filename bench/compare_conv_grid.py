#!/usr/bin/env python3
"""Convolutions of every geometry against ONNX Runtime, in one process and
one run: a grid of kernel sizes (square and wide, as audio models write
them), pads (none, same, larger than half the kernel, asymmetric), strides,
dilations and channel counts (few and many). Each geometry is one Conv node
given to both engines as an ONNX file; libops loads it with
ops_graph_load_file. No geometry may take over 2x ONNX Runtime's time
(issue target); the table flags those that do.

    python3 bench/compare_conv_grid.py build/cpu-release/libops.so [--threads 1,2]
        [--rounds 5] [--seconds 0.1] [--filter TEXT]
"""
import argparse
import itertools
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_models import LibopsModel, OrtModel, rel_error, time_engines  # noqa: E402
from compare_peers import Libops  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def geometries():
    """(name, cin, cout, H, W, kh, kw, stride, pads [t, l, b, r], dilation, groups)"""
    out = []
    for (kh, kw), cin, (pad_name, pad_of) in itertools.product(
            [(1, 1), (3, 3), (5, 5), (7, 7), (3, 39), (1, 15)],
            [1, 3, 8, 64],
            [("none", lambda kh, kw: [0, 0, 0, 0]), ("same", lambda kh, kw: [kh // 2, kw // 2, kh // 2, kw // 2]),
             ("wide", lambda kh, kw: [kh // 2 + 1, kw // 2 + 4, kh // 2 + 1, kw // 2 + 4]),
             ("asym", lambda kh, kw: [0, 0, kh - 1, kw - 1])]):
        if (kh, kw) == (1, 1) and pad_name != "none":
            continue
        cout = 8 if cin <= 8 else 64
        H, W = (64, 400) if kw >= 15 else (56, 56)
        out.append((f"k{kh}x{kw} c{cin}->{cout} pad {pad_name}", cin, cout, H, W, kh, kw, 1, pad_of(kh, kw), 1, 1))
    out += [("k3x3 c64 s2 pad same", 64, 64, 56, 56, 3, 3, 2, [1, 1, 1, 1], 1, 1),
            ("k3x3 c64 dil2 pad 2", 64, 64, 56, 56, 3, 3, 1, [2, 2, 2, 2], 2, 1),
            ("k7x7 c3->64 s2 pad 3 (stem)", 3, 64, 224, 224, 7, 7, 2, [3, 3, 3, 3], 1, 1),
            ("k3x3 dw c64 pad same", 64, 64, 56, 56, 3, 3, 1, [1, 1, 1, 1], 1, 64),
            ("k5x5 dw c64 s2 pad 2", 64, 64, 56, 56, 5, 5, 2, [2, 2, 2, 2], 1, 64)]
    return out


def conv_model(cin, cout, H, W, kh, kw, stride, pads, dil, groups, rng):
    w = (rng.standard_normal((cout, cin // groups, kh, kw)) / np.sqrt(cin * kh * kw / groups)).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[kh, kw], strides=[stride, stride],
                            pads=pads, dilations=[dil, dil], group=groups)
    g = helper.make_graph([node], "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          initializer=[numpy_helper.from_array(w, "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("libops")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.1)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    rng = np.random.default_rng(7)
    tmp = tempfile.mkdtemp()
    worst = 0.0
    ops = Libops(a.libops)
    for threads in [int(t) for t in a.threads.split(",")]:
        ops.lib.ops_set_num_threads(threads)
        print(f"\n{threads} thread(s): ms per run (median of {a.rounds} rounds), libops / ORT")
        print(f"{'geometry':40s} {'libops':>9s} {'ORT':>9s} {'ratio':>6s}  max rel err")
        for name, cin, cout, H, W, kh, kw, stride, pads, dil, groups in geometries():
            if a.filter not in name:
                continue
            m = conv_model(cin, cout, H, W, kh, kw, stride, pads, dil, groups, rng)
            path = os.path.join(tmp, "conv.onnx")
            with open(path, "wb") as f:
                f.write(m.SerializeToString())
            x = rng.standard_normal((1, cin, H, W)).astype(np.float32)
            lib = LibopsModel(ops, onnx_path=path)
            lib.bind(x)
            o = OrtModel(m.SerializeToString(), threads, optimize=True)
            o.bind(x)
            lib.run()
            o.run()
            want = o.io.copy_outputs_to_cpu()[0]
            err = rel_error(lib.output(want.shape), want)
            times = time_engines({"libops": lib, "ort": o}, a.rounds, a.seconds, settle=0.05)
            ratio = times["libops"] / times["ort"]
            worst = max(worst, ratio)
            flag = "  <-- over 2x" if ratio > 2 else ""
            print(f"{name:40s} {times['libops']:9.3f} {times['ort']:9.3f} {ratio:6.2f}  {err:.1e}{flag}")
    print(f"\nworst ratio: {worst:.2f}")


if __name__ == "__main__":
    main()
