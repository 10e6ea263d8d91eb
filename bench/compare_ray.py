#!/usr/bin/env python3
"""Batch inference and serving on Ray against the plain single-process loop,
in one run on this machine (docs/scale-out.md has the figures).

    PYTHONPATH=build/cpu-release/python python3 bench/compare_ray.py [--rows 2048] [--batch 16] [--size 224]

Throughput (rows/s) of a ResNet-18 (11.7M parameters, as exporters write it:
symbolic batch, convolutions with their batch norms folded, global average
pool, Gemm) over --rows images:
  loop, 1 / 2 threads     InferenceSession.run over the rows in batches, in
                          this process, from memory (run before and after
                          the Ray runs; the better of the two)
  Ray, 1 actor x 2 thr    libops.ray.map_batches over the same rows, held in
  Ray, 2 actors x 1 thr   Ray's object store (made before the clock starts)
Ray's figures are given in all (actors started, the model loaded and run a
first time on each) and from the first output block on (the steady rate, which
a data set large enough to need Ray sees).
Ray's overhead:
  per batch               map_batches over a one-node model (relu of [16, 16])
                          minus the same runs in a loop, per batch
  per request             Serve, a DeploymentHandle call from one client
                          (sequential requests, one row each) minus the run
                          itself; and the same over HTTP on 127.0.0.1
The local Ray instance binds to 127.0.0.1 only and reports no usage.
"""
import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import time
import urllib.request

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # one machine: loopback only

import numpy as np  # noqa: E402

try:
    import onnx
    import pyarrow as pa
    import ray
    import ray.data
    from onnx import TensorProto, helper, numpy_helper
    from ray import serve
    from ray.data.extensions import ArrowTensorArray
except ImportError as e:
    sys.exit(f"compare_ray.py needs onnx and ray[data,serve] ({e})")

import libops  # noqa: E402
import libops.ray as libops_ray  # noqa: E402


def resnet18_onnx(path, size, seed=0):
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    count = [0]

    def name(kind):
        count[0] += 1
        return f"{kind}{count[0]}"

    def const(a):
        n = name("w")
        inits.append(numpy_helper.from_array(np.ascontiguousarray(a, np.float32), n))
        return n

    def conv(x, cin, cout, k, stride=1, relu=True):
        w = const(rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k)))
        b = const(rng.standard_normal(cout) * 0.01)
        y = name("conv")
        nodes.append(helper.make_node("Conv", [x, w, b], [y], kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[k // 2] * 4))
        if relu:
            r = name("relu")
            nodes.append(helper.make_node("Relu", [y], [r]))
            return r
        return y

    h = conv("x", 3, 64, 7, 2)
    p = name("pool")
    nodes.append(helper.make_node("MaxPool", [h], [p], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    h, cin = p, 64
    for stage, width in enumerate((64, 128, 256, 512)):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            y = conv(conv(h, cin, width, 3, stride), width, width, 3, relu=False)
            short = h if stride == 1 and cin == width else conv(h, cin, width, 1, stride, relu=False)
            s, r = name("add"), name("relu")
            nodes += [helper.make_node("Add", [y, short], [s]), helper.make_node("Relu", [s], [r])]
            h, cin = r, width
    g, f = name("gap"), name("flat")
    nodes += [helper.make_node("GlobalAveragePool", [h], [g]), helper.make_node("Flatten", [g], [f])]
    w = const(rng.standard_normal((1000, 512)) * np.sqrt(1.0 / 512))
    b = const(np.zeros(1000))
    nodes.append(helper.make_node("Gemm", [f, w, b], ["logits"], transB=1))
    graph = helper.make_graph(nodes, "resnet18", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                                ["N", 3, size, size])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 1000])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def relu_onnx(path, width):
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", width])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", width])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def loop_seconds(model, rows, batch, threads):
    sess = libops.InferenceSession(model, threads=threads)
    sess.run({"x": rows[:batch]})  # first run: planning
    t0 = time.perf_counter()
    for i in range(0, len(rows), batch):
        sess.run({"x": rows[i:i + batch]})
    return time.perf_counter() - t0


def as_dataset(rows, block):
    return ray.data.from_arrow([pa.table({"x": ArrowTensorArray.from_numpy(rows[i:i + block])})
                                for i in range(0, len(rows), block)])


def ray_run(model, rows, batch, actors, threads):
    """(seconds in all, seconds to the first output block, rows/s after it)."""
    ds = as_dataset(rows, 8 * batch)
    out = libops_ray.map_batches(ds, model, batch_size=batch, actors_per_node=actors, threads_per_actor=threads)
    t0 = time.perf_counter()
    stamps = []
    for b in out.iter_batches(batch_size=None):
        stamps.append((time.perf_counter() - t0, len(next(iter(b.values())))))
    n = sum(k for _, k in stamps)
    assert n == len(rows), f"{n} rows came back of {len(rows)}"
    total, first = stamps[-1][0], stamps[0][0]
    return total, first, (n - stamps[0][1]) / (total - first)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--json", help="write the figures here too")
    args = ap.parse_args()
    cores = os.cpu_count()
    work = tempfile.mkdtemp(prefix="lrb", dir="/tmp")
    resnet, relu = os.path.join(work, "resnet18.onnx"), os.path.join(work, "relu.onnx")
    resnet18_onnx(resnet, args.size)
    relu_onnx(relu, 16)
    rows = np.random.default_rng(1).standard_normal((args.rows, 3, args.size, args.size)).astype(np.float32)

    ray.init(num_cpus=cores, include_dashboard=False, object_store_memory=int(rows.nbytes * 1.5) + (256 << 20),
             _temp_dir=work, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    fig = {}
    # The loops before and after the Ray runs (the best of the two counts):
    # a slow spell on a shared machine then cannot fall on one side only.
    def loops():
        for threads in (2, 1):
            key = f"loop_{threads}"
            fig[key] = max(fig.get(key, 0), args.rows / loop_seconds(resnet, rows, args.batch, threads))

    loops()
    for key, actors, threads in (("ray_1x2", 1, 2), ("ray_2x1", 2, 1)):
        total, first, steady = ray_run(resnet, rows, args.batch, actors, threads)
        fig[key], fig[key + "_first_s"], fig[key + "_steady"] = args.rows / total, first, steady
    loops()

    # Per-batch overhead: a model that costs next to nothing.
    tiny = np.random.default_rng(2).standard_normal((args.batch * 1000, 16)).astype(np.float32)
    direct = loop_seconds(relu, tiny, args.batch, 1)
    through_ray = min(ray_run(relu, tiny, args.batch, 1, 1)[0] for _ in range(2))
    fig["ray_batch_overhead_ms"] = 1e3 * (through_ray - direct) / (len(tiny) / args.batch)

    # Per-request overhead of Serve: sequential one-row requests.
    port = free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    handle = serve.run(libops_ray.deployment(relu, threads=1, max_batch_size=8, batch_wait_timeout_s=0.0),
                       name="relu", route_prefix="/relu")
    row = tiny[0]
    sess = libops.InferenceSession(relu, threads=1)
    for _ in range(20):
        handle.remote({"x": row}).result()
    samples = []
    for _ in range(args.requests):
        t0 = time.perf_counter()
        handle.remote({"x": row}).result()
        samples.append(time.perf_counter() - t0)
    run_alone = statistics.median(
        [(lambda t0: (sess.run({"x": row[None]}), time.perf_counter() - t0)[1])(time.perf_counter())
         for _ in range(args.requests)])
    fig["serve_handle_ms"] = 1e3 * (statistics.median(samples) - run_alone)
    body = json.dumps({"inputs": {"x": row.tolist()}}).encode()
    samples = []
    for _ in range(args.requests // 2):
        t0 = time.perf_counter()
        with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/relu", data=body)) as r:
            r.read()
        samples.append(time.perf_counter() - t0)
    fig["serve_http_ms"] = 1e3 * (statistics.median(samples) - run_alone)
    serve.shutdown()
    ray.shutdown()

    print(f"ResNet-18 at {args.size}x{args.size}, {args.rows} rows in batches of {args.batch}, {cores} cores:")
    print(f"  {'configuration':<28}{'rows/s':>8}{'vs loop':>9}{'first block':>13}{'rows/s after':>14}{'vs loop':>9}")
    for key, label in (("loop_1", "loop, 1 thread"), ("loop_2", "loop, 2 threads"),
                       ("ray_1x2", "Ray, 1 actor x 2 threads"), ("ray_2x1", "Ray, 2 actors x 1 thread")):
        line = f"  {label:<28}{fig[key]:>8.1f}{fig[key] / fig['loop_2']:>8.2f}x"
        if key + "_steady" in fig:
            line += (f"{fig[key + '_first_s']:>12.1f}s{fig[key + '_steady']:>14.1f}"
                     f"{fig[key + '_steady'] / fig['loop_2']:>8.2f}x")
        print(line)
    print(f"(loops: after a first run outside the clock; Ray: from the call, actors' start and the model's first run"
          f" included; 'after': from the first output block of {8 * args.batch} rows on)")
    print(f"Ray Data overhead per batch of {args.batch}: {fig['ray_batch_overhead_ms']:.2f} ms")
    print(f"Serve overhead per one-row request: {fig['serve_handle_ms']:.2f} ms (handle), "
          f"{fig['serve_http_ms']:.2f} ms (HTTP on 127.0.0.1)")
    per_batch_compute = 1e3 * args.batch / fig["ray_2x1_steady"]
    print(f"A batch of {args.batch} takes {per_batch_compute:.0f} ms per node at Ray's rate: the overhead is "
          f"{100 * fig['ray_batch_overhead_ms'] / per_batch_compute:.1f}% of it")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(fig, f, indent=1)


if __name__ == "__main__":
    main()
