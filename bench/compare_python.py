#!/usr/bin/env python3
"""The Python package's overhead per run, against ONNX Runtime's, in one run.

    PYTHONPATH=build/cpu-release/python python3 bench/compare_python.py [--runs 20000] [--size 16]

One node (relu over float32[1, size]), one thread, in each engine:
  libops sess.run     wall time of InferenceSession.run from Python
  libops engine       the engine's own time of the same runs (ops_graph_run,
                      measured inside it): the C API call
  libops overhead     the difference: Python, argument handling, the input
                      views and the output arrays (target: <= 3 us)
  ORT sess.run        ONNX Runtime's InferenceSession.run, same graph (its own
                      engine time is not visible from Python; the figure is
                      what its users pay per run, engine included)
Medians of --rounds rounds of --runs runs each, engines interleaved.
"""
import argparse
import statistics
import time

import numpy as np

import libops


def per_call_us(fn, runs):
    t0 = time.perf_counter()
    for _ in range(runs):
        fn()
    return 1e6 * (time.perf_counter() - t0) / runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--size", type=int, default=16)
    a = ap.parse_args()
    x = np.linspace(-1, 1, a.size, dtype=np.float32).reshape(1, a.size)

    g = libops.Graph()
    g.output("y", g.op("relu", g.placeholder("x", "float32", [1, a.size])))
    sess = libops.InferenceSession(g.to_bytes(), threads=1)
    feeds = {"x": x}
    engine = []

    def lo():
        sess.run(feeds)
        engine.append(sess._session.last_run_ns())

    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
    node = helper.make_node("Relu", ["x"], ["y"])
    model = helper.make_model(helper.make_graph([node], "relu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, a.size])],
                                                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, a.size])]),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    osess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])

    def ox():
        osess.run(None, feeds)

    assert np.array_equal(sess.run(feeds)[0], osess.run(None, feeds)[0])
    for fn in (lo, ox):
        per_call_us(fn, 2000)  # warm up
    rows = {"libops": [], "ort": [], "engine": []}
    for _ in range(a.rounds):
        engine.clear()
        rows["libops"].append(per_call_us(lo, a.runs))
        rows["engine"].append(statistics.mean(engine) / 1e3)
        rows["ort"].append(per_call_us(ox, a.runs))
    m = {k: statistics.median(v) for k, v in rows.items()}
    print(f"relu float32[1,{a.size}], 1 thread, median of {a.rounds} rounds of {a.runs} runs (onnx {onnx.__version__}, "
          f"onnxruntime {ort.__version__})")
    print(f"  libops sess.run   {m['libops']:7.2f} us")
    print(f"  libops engine     {m['engine']:7.2f} us   (the C API call)")
    print(f"  libops overhead   {m['libops'] - m['engine']:7.2f} us   (target <= 3 us)")
    print(f"  ORT sess.run      {m['ort']:7.2f} us   (libops / ORT {m['libops'] / m['ort']:.2f})")


if __name__ == "__main__":
    main()
